// The workload page: its contract, the campaign shard it runs for (leading to the campaign's page) and its attempts
// (GET /v1/workloads/{id}; the command and environment only when the API shows them to this user: it redacts them
// for everyone but the owner, managers above and administrators), its progress, and the scheduler's explanation with
// its preemptions (GET /v1/workloads/{id}/explain). Reloaded while open (Allot.live) until the workload has ended.
// Those who may cancel it (POST /v1/workloads/{id}/cancel) have a Cancel button while it waits or runs. Secrets in the
// command and environment are masked on screen (secrets.js, allot show's rule) until the page's Show button.
'use strict';
(async () => {
  const { api, el, fmt } = Allot;
  // the store's final states (WorkloadState.ended): 'preempted' is work that could not resume, ended for good
  const ENDED = ['completed', 'failed', 'cancelled', 'preempted'];
  // whether this page shows the secrets in the command and environment whole (its Show button); masked at first
  let showSecrets = false;
  try {
    await Allot.signedIn();
    Allot.setTree((await api('/v1/allocations')).allocations);
    Allot.frame('');
    const id = decodeURIComponent(location.pathname.substring('/workloads/'.length).replace(/\/+$/, '')); // a link's trailing slash is no part of it
    const load = () => Promise.all([
      api('/v1/workloads/' + encodeURIComponent(id)), api('/v1/workloads/' + encodeURIComponent(id) + '/explain')]);
    Allot.cancelAction(document.getElementById('actions'), 'workload', 'Cancel workload ' + id + '? One that waits'
      + ' leaves the queue; one that runs is stopped by the scheduler, its attempt ended. This cannot be undone.',
    async () => {
      await api('/v1/workloads/' + encodeURIComponent(id) + '/cancel', { method: 'POST', body: {} });
      const [d, x] = await load();
      render(d, x);
    });
    const [detail, explanation] = await load();
    render(detail, explanation);
    document.body.dataset.ready = 'true';
    if (!ENDED.includes(detail.workload.state)) {
      const stop = Allot.live(async () => {
        const [d, x] = await load();
        render(d, x);
        document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
        if (ENDED.includes(d.workload.state)) {
          stop();
        }
      });
    }
  } catch (e) {
    Allot.fail(e);
    if (document.body.dataset.ready !== 'true') {
      // nothing to show (no such workload, or not this user's to read): not empty boxes under the error
      document.querySelectorAll('main > h2, main > dl, main > div.note, main > ul, main > table')
        .forEach(n => { n.hidden = true; });
    }
  }

  function render(detail, x) {
    const w = detail.workload;
    document.getElementById('title').textContent = 'Workload ' + w.id;
    document.title = 'Allot: ' + w.id;
    const contract = document.getElementById('contract');
    for (const c of [contract, document.getElementById('progress'), document.getElementById('summary'),
      document.querySelector('#levels tbody'), document.querySelector('#attempts tbody'), document.querySelector('#preemptions tbody')]) {
      c.textContent = '';
    }
    // secrets in what this user may see (a token the script reports with, --password=) are masked on screen as
    // allot show masks them (Allot.secrets), until the Show button on this page asks for them whole
    const secrets = w.redacted ? null : Allot.secrets.shown(w.command, w.environment, showSecrets, () => {
      showSecrets = !showSecrets;
      render(detail, x);
    });
    const command = w.redacted ? el('span', { class: 'muted', id: 'command' }, 'hidden: only its owner, managers of its allocation and administrators see it')
      : el('code', { id: 'command' }, secrets.command);
    const env = w.redacted ? el('span', { class: 'muted' }, 'hidden')
      : el('code', { id: 'environment' }, secrets.environment || '\u2013');
    // running but its attempt still launching: 'starting', as allot queue and allot show say (the API's starting)
    const cancelling = w.state === 'running' && w.cancelRequested;
    const state = w.state === 'running' && w.starting
      ? el('span', { title: 'running for the scheduler, its GPUs held for it, but the backend has not yet confirmed'
        + ' its start' }, 'starting' + (cancelling ? ', cancel requested' : ''))
      : cancelling ? el('span', { title: 'its cancellation was asked for: the scheduler stops it and ends its attempt'
        + ' at its next decision' }, 'running, cancel requested') : w.state;
    // who may cancel is who may see its command and environment (the API's one rule, Permissions.ownerManagerOrAdmin):
    // the API's redaction says which this user is, so the page repeats no rule of its own (the API still refuses)
    document.getElementById('actions').hidden = w.redacted || ENDED.includes(w.state) || cancelling;
    for (const [k, v, cls] of [['State', state, 'state'], ['Allocation', w.allocation, 'allocation'], ['User', w.user, 'user'],
      ['GPUs', w.gpus + (w.gpusPerNode ? ' (' + w.gpusPerNode + ' per node)' : ''), 'gpus'],
      ['Minimum runtime', w.minRuntime + (w.minRuntimeNote ? ' (' + w.minRuntimeNote + ')' : ''), 'min-runtime'],
      ['Duration', w.duration || '\u2013', 'duration'], ['Resumable', w.resumable ? 'yes' : 'no', 'resumable'],
      ['Priority', w.priority, 'priority'], ['Kind', w.kind, 'kind'],
      ...(detail.campaign ? [['Campaign', [el('a', { href: '/campaigns/' + encodeURIComponent(detail.campaign.name) },
        detail.campaign.name), ' (shard ' + detail.campaign.shard + ')'], 'campaign']] : []), ['Allocated', w.allocated ? 'yes (charged and protected)' : 'no (unallocated: free, always preemptible)', 'allocated'],
      ['Submitted', fmt.time(w.submittedAt) + ' UTC', 'submitted'], ['Held', w.heldReason || '\u2013', 'held'],
      ['Command', command, 'command-row'], ['Environment', env, 'environment-row'],
      ...(secrets && secrets.row ? [['Secrets', secrets.row, 'secrets']] : [])]) {
      contract.appendChild(el('dt', {}, k));
      contract.appendChild(el('dd', { class: cls }, v));
    }
    const progress = document.getElementById('progress');
    if (w.progress && w.progress.total > 0) {
      const f = Math.min(1, w.progress.done / w.progress.total);
      progress.appendChild(el('span', { class: 'bar track' }, el('span', { class: 'bar', style: 'width:' + Math.round(f * 80) + 'px' })));
      progress.appendChild(el('span', { id: 'progress-text' }, ' ' + fmt.num(w.progress.done) + ' of ' + fmt.num(w.progress.total)
        + ' (' + fmt.pct(f, 0) + ')'));
    } else {
      progress.appendChild(el('span', { id: 'progress-text', class: 'muted' }, 'No progress reported.'));
    }
    const forecast = document.getElementById('forecast');
    forecast.textContent = '';
    const f = x.forecast;
    if (f) {
      forecast.appendChild(el('div', { id: 'forecast-start' }, f.withinHorizon
        ? 'Likely ' + fmt.time(f.likelyStart) + ' UTC; ' + f.band + ' ' + fmt.time(f.low) + ' to '
          + (f.high ? fmt.time(f.high) : 'after ' + fmt.time(f.horizonEnd)) + ' UTC.'
        : 'After ' + fmt.time(f.horizonEnd) + ' UTC (the end of what the forecast looks at).'));
      forecast.appendChild(el('div', { id: 'forecast-assumes', class: 'muted' }, 'Made at ' + fmt.time(f.madeAt)
        + ' UTC from ' + f.runs + ' futures played with the policy ' + f.assumptions.policy + '. Its duration: '
        + f.assumptions.duration + '; ' + f.assumptions.runningWork + '; new work: ' + f.assumptions.newWork + '.'));
    } else {
      forecast.appendChild(el('span', { id: 'forecast-start', class: 'muted' }, ENDED.includes(w.state)
        || w.state === 'running' ? 'It does not wait.' : 'No forecast of its start (yet).'));
    }
    const summary = document.getElementById('summary');
    for (const s of x.summary) {
      if (!s.startsWith('Forecast (')) { // said above, in its own section
        summary.appendChild(el('li', {}, s));
      }
    }
    const levels = (x.data && x.data.fairShare) || [];
    document.getElementById('levels').hidden = !levels.length;
    for (const l of levels) {
      document.querySelector('#levels tbody').appendChild(el('tr', {}, el('td', {}, l.name),
        el('td', { class: 'num' }, fmt.gpuHours(l.usageGpuSeconds)), el('td', { class: 'num' }, fmt.gpuHours(l.entitledGpuSeconds)),
        el('td', { class: 'num' }, l.ratio === null ? '\u221e' : fmt.num(l.ratio, 4)), el('td', { class: 'num' }, l.rank + '/' + l.siblings)));
    }
    const attempts = document.querySelector('#attempts tbody');
    for (const a of detail.attempts) {
      attempts.appendChild(el('tr', { 'data-attempt': a.attempt }, el('td', { class: 'num' }, a.attempt),
        el('td', { class: 'started' }, fmt.time(a.startedAt)), el('td', { class: 'ended' }, a.endedAt ? fmt.time(a.endedAt) : 'running'),
        el('td', { class: 'num gpus' }, a.gpus),
        el('td', { class: 'placement' }, (a.placement || []).map(p => p.node + ':' + p.gpus.join(',')).join(' ')),
        el('td', { class: 'outcome' }, a.outcome || a.phase), el('td', {}, a.reason || '')));
    }
    if (!detail.attempts.length) {
      attempts.appendChild(el('tr', {}, el('td', { colspan: 7, class: 'muted' }, 'Not started yet.')));
    }
    const preemptions = document.querySelector('#preemptions tbody');
    for (const p of (x.data && x.data.preemptions) || []) {
      preemptions.appendChild(el('tr', {}, el('td', { class: 'num' }, p.attempt), el('td', {}, fmt.time(p.at)),
        el('td', { class: 'preemptor' }, p.preemptor ? el('a', { href: '/workloads/' + encodeURIComponent(p.preemptor) }, p.preemptor) : 'a drain'),
        el('td', { class: 'reason' }, p.reason || ''), el('td', { class: 'num' }, p.lostGpuHours === null ? '\u2013' : fmt.num(p.lostGpuHours, 2))));
    }
    if (!preemptions.children.length) {
      preemptions.appendChild(el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'Never preempted.')));
    }
  }
})();
