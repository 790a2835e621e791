// The allocations page: the tree (GET /v1/allocations) with usage against entitlement and owed per node, hour by
// hour over the range (GET /v1/allocations/usage?since=..&step=1h), a chart of the selected node, and for those who
// may edit (administrators; managers below the nodes they manage) share inputs with a preview of the entitlements
// the new shares give, saved with PUT /v1/allocations/<path> (audited; the trail is shown to those who may read it);
// and the scheduling policy in force with where it came from (GET /v1/policy; administrators change it with PUT).
// Reloaded while open (Allot.live), as the other pages.
'use strict';
(async () => {
  const { api, el, fmt } = Allot;
  let tree = [];
  let usage = null;
  let selected = null;
  let plot = null;
  const edits = new Map();
  // shares typed that are not a number >= 0 (an emptied field, 'abc'), by path, as typed: never saved (an emptied
  // field was read as 0 and saved as share 0), and Save waits until they are mended or reset
  const invalid = new Map();

  try {
    await Allot.signedIn();
    tree = (await api('/v1/allocations')).allocations;
    Allot.setTree(tree);
    Allot.frame('Allocations');
    const range = document.getElementById('range');
    const asked = new URLSearchParams(location.search).get('range');
    range.value = asked || '24h';
    if (!range.value) {
      // a link with a range the page does not offer (?range=1d): the page's default, said, rather than no page at all
      range.value = '24h';
      const offered = Array.from(range.options, o => o.value).join(', ');
      Allot.fail(new Error("no range '" + asked + "' on this page (it offers " + offered + '): showing 24 hours'));
    }
    range.addEventListener('change', () => load().catch(Allot.fail));
    document.getElementById('save').addEventListener('click', () => save().catch(Allot.fail));
    document.getElementById('reset').addEventListener('click', () => { edits.clear(); invalid.clear(); render(); });
    showEditControls();
    await load();
    await policy();
    await audit();
    document.body.dataset.ready = 'true';
    Allot.live(refresh);
  } catch (e) {
    Allot.fail(e);
  }

  /**
   * Reloaded while open, as the other pages (Allot.live): the tree, its usage, the policy and the audit trail. Shares
   * typed and not saved are kept (those of a node removed meanwhile dropped); while a share is being typed the page is
   * not redrawn under the cursor, and the next tick reloads.
   */
  async function refresh() {
    if (document.activeElement && document.activeElement.matches('input.share')) {
      return;
    }
    tree = (await api('/v1/allocations')).allocations;
    Allot.setTree(tree);
    for (const path of [...edits.keys(), ...invalid.keys()]) {
      if (!tree.some(a => a.path === path)) {
        edits.delete(path);
        invalid.delete(path);
      }
    }
    showEditControls();
    await load();
    await policy();
    await audit();
    document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
  }

  /** Save and Reset, for those who may edit some node of the tree. */
  function showEditControls() {
    document.getElementById('edit-controls').hidden = !tree.some(a => Allot.mayEdit(a.path));
  }

  /** The policy's settings, one row each: the shared ones, then the policy's own as policy-name.setting. */
  async function policy() {
    const p = await api('/v1/policy');
    document.getElementById('policy-source').textContent = 'policy ' + p.policy + ' \u00b7 source: ' + p.source;
    const body = document.querySelector('#policy tbody');
    body.textContent = '';
    const rows = [];
    for (const [k, v] of Object.entries(p.settings)) {
      if (v !== null && typeof v === 'object') {
        for (const [k2, v2] of Object.entries(v)) {
          rows.push([k + '.' + k2, v2]);
        }
      } else {
        rows.push([k, v]);
      }
    }
    for (const [k, v] of rows) {
      body.appendChild(el('tr', { 'data-setting': k }, el('td', { class: 'setting' }, k), el('td', { class: 'value' }, String(v))));
    }
  }

  async function load() {
    const since = document.getElementById('range').value;
    usage = await api('/v1/allocations/usage?since=' + since + '&step=1h');
    render();
  }

  /** Entitlements from shares, as the core computes them: normalised among siblings, multiplied down the tree. */
  function entitlements(shareOf) {
    const sums = new Map();
    for (const a of tree) {
      sums.set(a.parent, (sums.get(a.parent) || 0) + shareOf(a));
    }
    const out = new Map();
    for (const a of tree) { // parents come before children
      const up = a.parent === null ? 1 : out.get(a.parent);
      const sum = sums.get(a.parent);
      out.set(a.path, sum > 0 ? up * shareOf(a) / sum : 0);
    }
    return out;
  }

  function render() {
    const body = document.querySelector('#tree tbody');
    body.textContent = '';
    const rows = new Map(usage.allocations.map(r => [r.path, r]));
    const preview = edits.size ? entitlements(a => edits.has(a.path) ? edits.get(a.path) : a.share) : null;
    document.querySelectorAll('.preview-col').forEach(c => { c.hidden = !preview; });
    document.getElementById('save').disabled = !edits.size || invalid.size > 0;
    document.getElementById('reset').disabled = !edits.size && !invalid.size;
    const message = document.getElementById('share-error');
    message.textContent = invalid.size ? 'Not saved: the share of ' + [...invalid.keys()].join(', ')
      + ' must be a number of 0 or more (e.g. 2 or 0.5); mend it or Reset.' : '';
    message.hidden = !invalid.size;
    for (const a of tree) {
      const r = rows.get(a.path);
      const depth = a.path.split('/').length - 1;
      const share = Allot.mayEdit(a.path)
        ? el('input', { class: 'share' + (invalid.has(a.path) ? ' invalid' : ''), type: 'number', min: '0',
          step: 'any', 'data-path': a.path, 'aria-invalid': invalid.has(a.path) ? 'true' : 'false',
          value: invalid.has(a.path) ? invalid.get(a.path) : edits.has(a.path) ? edits.get(a.path) : a.share,
          onchange: e => { shareTyped(a, e.target); render(); } })
        : fmt.num(a.share, 2);
      const newEnt = preview ? preview.get(a.path) : null;
      const tr = el('tr', { 'data-path': a.path, class: a.path === selected ? 'selected' : null,
        onclick: e => { if (e.target.tagName !== 'INPUT') { select(a.path); } } },
        el('td', { class: 'path' }, el('span', { class: 'indent', style: 'width:' + depth * 18 + 'px' }),
          el('a', { href: '#', onclick: e => e.preventDefault() }, a.path.substring(a.path.lastIndexOf('/') + 1))),
        el('td', { class: 'num share-cell' }, share),
        el('td', { class: 'num entitlement' }, fmt.pct(r.entitlement, 1)),
        el('td', { class: 'num preview preview-col' + (preview && Math.abs(newEnt - r.entitlement) > 1e-12 ? ' changed' : ''),
          hidden: !preview }, preview ? fmt.pct(newEnt, 1) : ''),
        el('td', { class: 'num allocated' }, fmt.gpuHours(r.gpuSeconds, 2)),
        el('td', { class: 'num unallocated' }, fmt.gpuHours(r.unallocatedGpuSeconds, 2)),
        el('td', { class: 'num entitled' }, fmt.gpuHours(r.entitledGpuSeconds, 2)),
        el('td', { class: 'num owed' }, fmt.gpuHours(r.owedGpuSeconds, 2)),
        el('td', { class: 'num paid' }, fmt.pct(r.paidFraction, 0)),
        el('td', { class: 'managers muted' }, a.managers.join(', ')));
      body.appendChild(tr);
    }
    if (!tree.length) {
      // a new service: say so and how the tree comes, rather than bare headers over an empty chart box
      body.appendChild(el('tr', {}, el('td', { colspan: 10, class: 'muted', id: 'no-allocations' },
        'No allocations yet. An administrator creates them with ', el('code', {}, 'allot budget set PATH --share W'),
        ', the root first (e.g. ', el('code', {}, 'allot budget set lab --share 1'), ', then ',
        el('code', {}, 'allot budget set lab/team --share 2'), '); until there is one (and a node), the scheduler does not start.')));
    }
    document.getElementById('chart').hidden = !tree.length;
    document.getElementById('chart-title').hidden = !tree.length;
    select(selected && rows.has(selected) ? selected : tree.length ? tree[0].path : null);
  }

  /** Takes a typed share: a number >= 0 is an edit (none when it is the share saved); anything else is invalid. */
  function shareTyped(a, input) {
    const text = input.value.trim();
    const v = Number(text);
    if (text === '' || input.validity.badInput || !Number.isFinite(v) || v < 0) {
      invalid.set(a.path, input.value);
      edits.delete(a.path);
      return;
    }
    invalid.delete(a.path);
    if (v === a.share) {
      edits.delete(a.path);
    } else {
      edits.set(a.path, v);
    }
  }

  function select(path) {
    selected = path;
    document.querySelectorAll('#tree tbody tr').forEach(tr => tr.classList.toggle('selected', tr.dataset.path === path));
    const r = usage.allocations.find(x => x.path === path);
    const box = document.getElementById('chart');
    if (plot) {
      plot.destroy();
      plot = null;
    }
    if (!r || !r.series) {
      return;
    }
    document.getElementById('chart-title').textContent = path + ': GPUs received per hour against entitlement and owed';
    const stepSeconds = r.series.length > 1 ? (Date.parse(r.series[1].start) - Date.parse(r.series[0].start)) / 1000 : 3600;
    const x = r.series.map(p => Date.parse(p.start) / 1000);
    const per = k => r.series.map(p => p[k] / stepSeconds);
    const data = [x, per('gpuSeconds'), r.series.map(p => (p.gpuSeconds + p.unallocatedGpuSeconds) / stepSeconds),
      per('entitledGpuSeconds'), per('owedGpuSeconds')];
    plot = new uPlot({
      width: Math.max(600, box.clientWidth - 16), height: 260,
      series: [{},
        { label: 'allocated', stroke: '#2f6fd6', fill: 'rgba(47,111,214,0.35)', width: 1.5 },
        { label: 'allocated + unallocated', stroke: '#8e44ad', fill: 'rgba(142,68,173,0.12)', width: 1 },
        { label: 'entitled', stroke: '#1e8e3e', width: 2, dash: [6, 4] },
        { label: 'owed', stroke: '#e67e22', width: 2 }],
      axes: [{}, { label: 'GPUs' }],
      scales: { x: { time: true } },
    }, data, box);
  }

  async function save() {
    if (invalid.size) {
      return; // the button is disabled then; a click that raced the change event saves nothing
    }
    for (const [path, share] of edits) {
      const a = tree.find(t => t.path === path);
      await api('/v1/allocations/' + path.split('/').map(encodeURIComponent).join('/'),
        { method: 'PUT', body: { share, managers: a.managers, members: a.members } });
    }
    edits.clear();
    tree = (await api('/v1/allocations')).allocations;
    Allot.setTree(tree);
    await load();
    await audit();
  }

  async function audit() {
    if (Allot.session.role !== 'admin' && !tree.some(a => a.managers.includes(Allot.session.user))) {
      return; // only administrators and managers read the trail (the API refuses others)
    }
    let entries;
    try {
      entries = (await api('/v1/audit?limit=20')).entries;
    } catch (e) {
      if (e.status === 403) {
        return; // members do not read the trail
      }
      throw e;
    }
    document.getElementById('audit-section').hidden = false;
    const body = document.querySelector('#audit tbody');
    body.textContent = '';
    for (const e of entries) {
      const share = v => v && typeof v.share === 'number' ? fmt.num(v.share, 2) : '\u2013';
      body.appendChild(el('tr', { 'data-id': e.id }, el('td', {}, fmt.time(e.at)), el('td', { class: 'actor' }, e.actor),
        el('td', { class: 'action' }, e.action), el('td', { class: 'subject' }, e.subject || ''),
        el('td', { class: 'num before' }, share(e.before)), el('td', { class: 'num after' }, share(e.after))));
    }
  }
})();
