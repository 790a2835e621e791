// The queue page: GET /v1/queue (the serving order with each allocation's fair-share levels), rendered in pages of
// PAGE rows so 10,000 waiting workloads stay responsive; what each waits for comes from the workload's explanation
// (GET /v1/workloads/{id}/explain), fetched for the first rows and on demand for the others. The page reloads the
// queue while open (Allot.live), keeping as many rows shown as before and reusing explanations younger than a minute
// while the queue is unchanged.
'use strict';
(async () => {
  const { api, el, fmt } = Allot;
  const PAGE = 500;
  const EXPLAIN_FIRST = 20;
  const OTHER_SENTENCES = ['Attempt ', 'Over the last ', 'Right now ', 'It asks for more GPUs ', 'Forecast (',
    'There is no forecast ', 'Hosts that take no new work '];
  const EXPLANATION_MAX_AGE_MS = 60000;
  // a deferred start (the API's aboutToStart), in the words of allot queue and the explanation
  const ABOUT_TO_START = 'the scheduler has given it GPUs that work it stopped still holds, and starts it as soon as'
    + ' that work has ended';
  const explanations = new Map();
  let servingOrder = null; // the queue's ids and positions at the last render
  let shown = 0;
  let pageButton = null;
  try {
    await Allot.signedIn();
    const allocations = (await api('/v1/allocations')).allocations;
    Allot.setTree(allocations);
    Allot.frame('Queue');
    const select = document.getElementById('f-allocation');
    for (const a of allocations) {
      select.appendChild(el('option', { value: a.path }, a.path));
    }
    const params = new URLSearchParams(location.search);
    select.value = params.get('allocation') || '';
    document.getElementById('f-user').value = params.get('user') || '';
    document.getElementById('f-state').value = params.get('state') || '';
    document.getElementById('filters').addEventListener('submit', e => {
      e.preventDefault();
      const q = new URLSearchParams();
      for (const [k, id] of [['allocation', 'f-allocation'], ['user', 'f-user'], ['state', 'f-state']]) {
        const v = document.getElementById(id).value.trim();
        if (v) {
          q.set(k, v);
        }
      }
      location.assign('/queue' + (q.toString() ? '?' + q : ''));
    });
    const query = new URLSearchParams();
    for (const k of ['allocation', 'user', 'state']) {
      if (params.get(k)) {
        query.set(k, params.get(k));
      }
    }
    const path = '/v1/queue' + (query.toString() ? '?' + query : '');
    const t0 = performance.now();
    render(await api(path), t0);
    Allot.live(async () => render(await api(path), performance.now()));
  } catch (e) {
    Allot.fail(e);
  }

  function capital(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function render(queue, t0) {
    document.getElementById('at').textContent = queue.seenByScheduler
      ? 'As the scheduler held it at ' + fmt.time(queue.at) + ' UTC.'
      : queue.schedulerAwaits ? capital(queue.schedulerAwaits) + '. Until then, waiting work has no position.'
        : 'The scheduler has not loaded yet: no positions.';
    // a changed queue (work started, left, arrived or moved) changes what the rest wait for ("2 allocated workloads
    // wait"): explanations of the queue before are not reused, else a row said the old reason for up to a minute
    const order = queue.entries.map(e => e.id + '@' + e.position).join(' ');
    if (order !== servingOrder) {
      explanations.clear();
      servingOrder = order;
    }
    for (const [id, c] of explanations) {
      if (performance.now() - c.at >= EXPLANATION_MAX_AGE_MS) {
        explanations.delete(id);
      }
    }
    const cards = document.getElementById('cards');
    cards.textContent = '';
    const gpus = queue.entries.reduce((s, e) => s + e.gpus, 0);
    for (const [k, v, id] of [['waiting in all', fmt.num(queue.waiting), 'c-waiting'],
      ['shown (filtered)', fmt.num(queue.entries.length), 'c-shown'], ['GPUs asked', fmt.num(gpus), 'c-gpus']]) {
      cards.appendChild(el('div', { class: 'card', id }, el('div', { class: 'v' }, v), el('div', { class: 'k' }, k)));
    }
    const body = document.querySelector('#queue tbody');
    const keep = Math.max(shown, PAGE);
    body.textContent = '';
    shown = 0;
    const more = document.getElementById('more');
    const levelsOf = new Map();
    function levels(allocation) {
      if (!levelsOf.has(allocation)) {
        levelsOf.set(allocation, (queue.levels[allocation] || []).map(l => [l.name.substring(l.name.lastIndexOf('/') + 1),
          ' used ' + fmt.gpuHours(l.usageGpuSeconds) + ' / entitled ' + fmt.gpuHours(l.entitledGpuSeconds)
          + ' GPU-h \u00b7 ratio ' + (l.ratio === null ? '\u221e' : fmt.num(l.ratio, 4))
          + ' \u00b7 rank ' + l.rank + '/' + l.siblings]));
      }
      return levelsOf.get(allocation);
    }
    // the forecast's likely start, its band in the tooltip; what every forecast assumed is said once, above the table
    const about = queue.forecast;
    function expected(f) {
      if (!f || !about) {
        return el('td', { class: 'expected muted' }, '\u2013');
      }
      if (!f.withinHorizon) {
        return el('td', { class: 'expected', title: 'not within what the forecast looks at' },
          'after ' + fmt.time(about.horizonEnd));
      }
      return el('td', { class: 'expected', title: about.band + ': ' + fmt.time(f.low) + ' to '
        + (f.high ? fmt.time(f.high) : 'after ' + fmt.time(about.horizonEnd)) + '; duration: ' + f.duration },
        fmt.time(f.likelyStart));
    }
    const note = document.getElementById('forecast-note');
    note.textContent = about ? 'Expected start: the median of ' + about.runs + ' futures played from '
      + fmt.time(about.madeAt) + ' UTC with the policy ' + about.assumptions.policy + '; '
      + about.assumptions.runningWork + '; new work: ' + about.assumptions.newWork + '. Hover for the '
      + about.band + ' band.' : 'No forecast of starts yet.';
    function page() {
      const rows = document.createDocumentFragment();
      const end = Math.min(queue.entries.length, shown + PAGE);
      for (let i = shown; i < end; i++) {
        const e = queue.entries[i];
        const why = el('td', { class: 'why' });
        if (i < EXPLAIN_FIRST || explanations.has(e.id)) {
          explain(e.id, why);
        } else {
          why.appendChild(el('button', { class: 'secondary', type: 'button', onclick: () => explain(e.id, why) }, 'why?'));
        }
        rows.appendChild(el('tr', { 'data-id': e.id },
          el('td', { class: 'num pos' }, e.position === null ? '\u2013' : e.position),
          el('td', { class: 'num inalloc' }, e.positionInAllocation === null ? '\u2013' : e.positionInAllocation),
          el('td', { class: 'id' }, el('a', { href: '/workloads/' + encodeURIComponent(e.id) }, e.id)),
          el('td', { class: 'alloc' }, e.allocation),
          el('td', { class: 'user' }, e.user),
          el('td', { class: 'num gpus' }, e.gpus),
          el('td', { class: 'priority' }, e.priority + (e.allocated ? '' : ' (unallocated)')),
          el('td', { class: 'state' }, el('span', { class: 'badge ' + e.state, title: e.heldReason
            || (e.aboutToStart ? ABOUT_TO_START : '') }, e.state + (e.aboutToStart ? ' (about to start)' : ''))),
          el('td', { class: 'submitted' }, fmt.time(e.submittedAt)),
          expected(e.forecast),
          el('td', { class: 'levels' }, levels(e.allocation).map(([name, text]) =>
            el('span', { class: 'lvl' }, el('span', { class: 'name' }, name), text))),
          why));
      }
      body.appendChild(rows);
      shown = end;
      document.getElementById('shown').textContent = 'Showing ' + fmt.num(shown) + ' of '
        + fmt.num(queue.entries.length) + '.';
      more.hidden = shown >= queue.entries.length;
    }
    if (pageButton) {
      more.removeEventListener('click', pageButton);
    }
    pageButton = page;
    more.addEventListener('click', page);
    page();
    while (shown < Math.min(keep, queue.entries.length)) {
      page();
    }
    document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || -1) + 1);
    document.body.dataset.renderedMs = String(Math.round(performance.now() - t0));
    document.body.dataset.ready = 'true';
  }

  async function explain(id, cell) {
    cell.textContent = '\u2026';
    try {
      const cached = explanations.get(id);
      const x = cached && performance.now() - cached.at < EXPLANATION_MAX_AGE_MS ? cached.x
        : await api('/v1/workloads/' + encodeURIComponent(id) + '/explain');
      if (!cached || cached.x !== x) {
        explanations.set(id, { at: performance.now(), x });
      }
      const w = x.data && x.data.waitsFor;
      cell.textContent = '';
      if (w) {
        cell.appendChild(el('span', { class: 'badge kind' }, w.kind));
        cell.appendChild(document.createTextNode(' '));
      }
      // the sentence that says what it waits for: the last one that is not its place (first), its fair share, its
      // standing, the starvation rule or a past preemption
      const words = x.summary.filter((s, i) => i > 0 && !OTHER_SENTENCES.some(p => s.startsWith(p)));
      cell.appendChild(el('span', { class: 'summary-text' }, words.length ? words[words.length - 1] : x.summary[0] || ''));
      cell.dataset.loaded = 'true';
    } catch (e) {
      cell.textContent = e.message;
    }
  }
})();
