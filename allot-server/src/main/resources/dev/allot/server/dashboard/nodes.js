// The nodes page: GET /v1/nodes (registered nodes and their health) and GET /v1/drains (the scheduler's view of the
// unhealthy ones: draining or drained, the work still on them, when the drain can complete). Reloaded while open
// (Allot.live).
'use strict';
(async () => {
  const { api, el, fmt } = Allot;
  try {
    await Allot.signedIn();
    Allot.setTree((await api('/v1/allocations')).allocations);
    Allot.frame('Nodes');
    await load();
    document.body.dataset.ready = 'true';
    Allot.live(load);
  } catch (e) {
    Allot.fail(e);
  }

  async function load() {
    const [nodes, drains] = await Promise.all([api('/v1/nodes'), api('/v1/drains')]);
    const drainOf = new Map(drains.nodes.map(d => [d.node, d]));
    const cards = document.getElementById('cards');
    cards.textContent = '';
    const healthy = nodes.nodes.filter(n => n.healthy);
    const gpus = list => list.reduce((s, n) => s + n.gpus, 0);
    for (const [k, v, id] of [['nodes', nodes.nodes.length, 'c-nodes'], ['healthy GPUs', gpus(healthy) + ' of ' + gpus(nodes.nodes), 'c-gpus'],
      ['draining', drains.nodes.filter(d => d.status === 'draining').length, 'c-draining'],
      ['drained', drains.nodes.filter(d => d.status === 'drained').length, 'c-drained']]) {
      cards.appendChild(el('div', { class: 'card', id }, el('div', { class: 'v' }, v), el('div', { class: 'k' }, k)));
    }
    const body = document.querySelector('#nodes tbody');
    body.textContent = '';
    for (const n of nodes.nodes) {
      const d = drainOf.get(n.name);
      body.appendChild(el('tr', { 'data-node': n.name },
        el('td', { class: 'name' }, n.name), el('td', { class: 'num gpus' }, n.gpus),
        el('td', { class: 'health' }, el('span', { class: 'badge ' + (n.healthy ? 'healthy' : 'unhealthy') }, n.healthy ? 'healthy' : 'unhealthy')),
        el('td', { class: 'reason' }, n.reason || ''),
        el('td', { class: 'drain' }, d ? el('span', { class: 'badge ' + d.status }, d.status) : n.healthy ? '' : 'not yet seen by the scheduler'),
        el('td', { class: 'running' }, d ? d.workloads.map((id, i) => [i ? ', ' : '', el('a', { href: '/workloads/' + encodeURIComponent(id) }, id)]) : ''),
        el('td', { class: 'completes' }, d && d.status === 'draining' ? (d.completesAt ? fmt.time(d.completesAt) + ' UTC' : 'at the next cycle') : ''),
        el('td', { class: 'muted' }, fmt.time(n.updatedAt))));
    }
    if (!nodes.nodes.length) {
      // a new service: say so and how nodes come (the README's service section), rather than bare headers
      body.appendChild(el('tr', {}, el('td', { colspan: 8, class: 'muted', id: 'no-nodes' },
        'No nodes registered yet. On the local backend ', el('code', {}, 'allot serve'),
        ' registers its own node at each start (', el('code', {}, '--node'), ', ', el('code', {}, '--gpus'),
        '); on the simulated backend an administrator registers each with ', el('code', {}, 'allot nodes set NAME --gpus N'),
        ' (', el('code', {}, 'PUT /v1/nodes/NAME {"gpus": N}'), '); on Slurm they come from Slurm\'s node list. Until there is one (and an allocation), the scheduler does not start.')));
    }
  }
})();
