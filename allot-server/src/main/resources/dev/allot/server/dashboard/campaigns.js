// The campaigns page: GET /v1/campaigns (the signed-in user's campaigns and those in allocations it manages, every
// campaign for an administrator), one row each with its units done as a bar, its protected slots and the scheduler's
// ETA; a campaign's name leads to its page. Reloaded while open (Allot.live).
'use strict';
(async () => {
  const { api, el, fmt } = Allot;
  try {
    await Allot.signedIn();
    Allot.setTree((await api('/v1/allocations')).allocations);
    Allot.frame('Campaigns');
    await load();
    document.body.dataset.ready = 'true';
    Allot.live(async () => {
      await load();
      document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
    });
  } catch (e) {
    Allot.fail(e);
  }

  async function load() {
    const campaigns = (await api('/v1/campaigns')).campaigns;
    const cards = document.getElementById('cards');
    cards.textContent = '';
    const running = campaigns.filter(c => c.state === 'running');
    const sum = (list, f) => list.reduce((s, c) => s + f(c), 0);
    for (const [k, v, id] of [['campaigns', campaigns.length, 'c-campaigns'], ['running', running.length, 'c-running'],
      ['units done, running campaigns', fmt.num(sum(running, c => c.unitsDone)) + ' of ' + fmt.num(sum(running, c => c.unitsTotal)), 'c-units']]) {
      cards.appendChild(el('div', { class: 'card', id }, el('div', { class: 'v' }, v), el('div', { class: 'k' }, k)));
    }
    const body = document.querySelector('#campaigns tbody');
    body.textContent = '';
    for (const c of campaigns) {
      body.appendChild(el('tr', { 'data-name': c.name },
        el('td', { class: 'name' }, el('a', { href: '/campaigns/' + encodeURIComponent(c.name) }, c.name)),
        el('td', { class: 'owner' }, c.owner), el('td', { class: 'alloc' }, c.allocation),
        el('td', { class: 'state' }, el('span', { class: 'badge ' + c.state }, c.state)),
        el('td', { class: 'units' }, Allot.progress(c.unitsDone, c.unitsTotal, 'campaign ' + c.name)),
        el('td', { class: 'slots' }, c.protectedSlots),
        el('td', { class: 'num shards' }, c.shards.length),
        el('td', { class: 'num used' }, fmt.num(c.gpuHoursUsed, 2)),
        el('td', { class: 'eta when' }, eta(c))));
    }
    if (!campaigns.length) {
      // in the words of someone at a terminal (the CLI), and whose campaigns the list holds: the viewer's own and
      // those in the allocations it manages (a manager's members' campaigns were in no list)
      body.appendChild(el('tr', {}, el('td', { colspan: 9, class: 'muted', id: 'no-campaigns' },
        Allot.session.role === 'admin' ? 'No campaigns yet. ' : 'You have no campaigns (this page lists your own and those'
          + ' in the allocations you manage; another user\'s opens at /campaigns/NAME). ',
        el('code', {}, 'allot campaign submit FILE'), ' submits one (POST /v1/campaigns).')));
    }
  }

  /** The campaign's ETA; a running one without an estimate says why there may be none. */
  function eta(c) {
    return c.etaAt ? fmt.time(c.etaAt)
      : c.state === 'running' ? el('span', { class: 'muted', title: 'a held shard, or waiting shards without a protected slot' }, 'unknown')
        : '\u2013';
  }
})();
