// The campaign page: GET /v1/campaigns/{name}: its totals and ETA, its contract (the command and environment only
// when the API shows them to this user, and how each shard is launched with them) and, per shard, its family, tier,
// phase, units done as a bar, rate and where the rate came from, remaining time, ETA, hold, GPU-hours, requeues and
// promotion, each shard leading to its current workload's page. Reloaded while open (Allot.live) until the campaign
// is done or cancelled. Those who may cancel it (DELETE /v1/campaigns/{name}) have a Cancel button while it runs.
// Secrets in the command and environment are masked on screen (secrets.js, allot show's rule) until its Show button.
'use strict';
(async () => {
  const { api, el, fmt } = Allot;
  // whether this page shows the secrets in the command and environment whole (its Show button); masked at first
  let showSecrets = false;
  try {
    await Allot.signedIn();
    Allot.setTree((await api('/v1/allocations')).allocations);
    Allot.frame('Campaigns');
    const name = decodeURIComponent(location.pathname.substring('/campaigns/'.length).replace(/\/+$/, '')); // a link's trailing slash is no part of it
    const path = '/v1/campaigns/' + encodeURIComponent(name);
    Allot.cancelAction(document.getElementById('actions'), 'campaign', 'Cancel campaign ' + name + '? Its waiting'
      + ' shards leave the queue and its running ones are stopped; the units done stay done. This cannot be undone.',
    async () => render(await api(path, { method: 'DELETE' })));
    const first = await api(path);
    render(first);
    document.body.dataset.ready = 'true';
    if (first.state === 'running') {
      const stop = Allot.live(async () => {
        const c = await api(path);
        render(c);
        document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
        if (c.state !== 'running') {
          stop();
        }
      });
    }
  } catch (e) {
    Allot.fail(e);
    if (document.body.dataset.ready !== 'true') {
      // nothing to show (no such campaign): the error alone, not an empty contract and bare shard headers under it
      document.querySelectorAll('main > h2, main > dl, main > p, main > table').forEach(n => { n.hidden = true; });
    }
  }

  function render(c) {
    document.getElementById('title').textContent = 'Campaign ' + c.name;
    document.title = 'Allot: campaign ' + c.name;
    // who may cancel is who may see its command (the API's one rule, Permissions.ownerManagerOrAdmin): the API's
    // redaction says which this user is, so the page repeats no rule of its own (the API still refuses)
    document.getElementById('actions').hidden = c.redacted || c.state !== 'running';
    const protectedNow = c.shards.filter(s => s.tier === 'protected' && s.phase === 'running').length;
    const cards = document.getElementById('cards');
    cards.textContent = '';
    for (const [k, v, id] of [['units done', Allot.progress(c.unitsDone, c.unitsTotal, 'campaign ' + c.name), 'c-units'],
      ['ETA (UTC)', c.etaAt ? fmt.time(c.etaAt) : c.state === 'running' ? 'unknown' : '\u2013', 'c-eta'],
      ['GPU-hours used', fmt.num(c.gpuHoursUsed, 2), 'c-used'], ['GPU-hours charged', fmt.num(c.gpuHoursCharged, 2), 'c-charged'],
      ['running protected', protectedNow + ' (slots: ' + c.protectedSlots + ')', 'c-protected']]) {
      cards.appendChild(el('div', { class: 'card', id }, el('div', { class: 'v' }, v), el('div', { class: 'k' }, k)));
    }
    const contract = document.getElementById('contract');
    contract.textContent = '';
    const b = c.brakes;
    const brakes = [b.shardGpuHours !== null && 'a shard ' + fmt.num(b.shardGpuHours, 2) + ' GPU-h',
      b.shardRequeues !== null && 'a shard ' + b.shardRequeues + ' requeues',
      b.campaignGpuHours !== null && 'the campaign ' + fmt.num(b.campaignGpuHours, 2) + ' GPU-h',
      b.campaignCost !== null && 'the campaign costs ' + fmt.num(b.campaignCost, 2),
      b.pricePerGpuHour !== null && 'price ' + fmt.num(b.pricePerGpuHour, 2) + ' per GPU-h'].filter(Boolean);
    // secrets in them are masked on screen as allot show masks them (Allot.secrets), until this page's Show button
    const secrets = c.redacted ? null : Allot.secrets.shown(c.command, c.environment, showSecrets, () => {
      showSecrets = !showSecrets;
      render(c);
    });
    const command = c.redacted ? el('span', { class: 'muted', id: 'command' }, 'hidden: only its owner, managers of its allocation and administrators see it')
      : el('code', { id: 'command' }, secrets.command);
    const env = c.redacted ? el('span', { class: 'muted', id: 'environment' }, 'hidden')
      : el('code', { id: 'environment' }, secrets.environment || '\u2013');
    // how a shard is launched (ShardSubmissions, CampaignController.launchEnvironment): names only, never values
    const launch = ['the command with ', el('code', {}, '{shard}'), ' replaced by its index; its environment adds ',
      el('code', {}, 'ALLOT_CAMPAIGN'), ', ', el('code', {}, 'ALLOT_SHARD'), ', ', el('code', {}, 'ALLOT_UNITS'),
      ' (its units in all), ', el('code', {}, 'ALLOT_FAMILY'), ' (when it has one) and ', el('code', {}, 'ALLOT_RESUME_FROM'),
      ' (its units done when it starts: it resumes from there)'];
    for (const [k, v, cls] of [['State', el('span', { class: 'badge ' + c.state }, c.state), 'state'], ['Owner', c.owner, 'owner'],
      ['Allocation', c.allocation, 'allocation'], ['Protected slots', c.protectedSlots, 'slots'],
      ['GPUs per shard', c.gpus, 'gpus'], ['Minimum runtime', c.minRuntime, 'min-runtime'], ['Priority', c.priority, 'priority'],
      ['Declared rate', c.secondsPerUnit === null ? '\u2013' : fmt.num(c.secondsPerUnit, 2) + ' s per unit', 'declared'],
      ['Brakes', brakes.length ? brakes.join(', ') : 'none', 'brakes'],
      ['Failure retries', c.failureRetries ? 'a failed shard is queued again by itself up to ' + c.failureRetries
        + (c.failureRetries === 1 ? ' time' : ' times') : 'none: a failed shard is held until someone retries it', 'failure-retries'], ['Created', fmt.time(c.createdAt) + ' UTC', 'created'],
      ['Strategy', c.strategy === 'allot' ? 'allot (longest remaining work first, promotion in place)' : c.strategy, 'strategy'],
      ['Command', command, 'command-row'], ['Environment', env, 'environment-row'],
      ...(secrets && secrets.row ? [['Secrets', secrets.row, 'secrets']] : []), ['Each shard runs', launch, 'launch']]) {
      contract.appendChild(el('dt', {}, k));
      contract.appendChild(el('dd', { class: cls }, v));
    }
    const body = document.querySelector('#shards tbody');
    body.textContent = '';
    for (const s of c.shards) {
      body.appendChild(el('tr', { 'data-index': s.index },
        el('td', { class: 'num index' }, s.index), el('td', { class: 'family' }, s.family === null ? '\u2013' : s.family),
        el('td', { class: 'tier' }, s.tier || '\u2013'),
        el('td', { class: 'phase' }, el('span', { class: 'badge ' + s.phase }, s.phase)),
        el('td', { class: 'units' }, Allot.progress(s.unitsDone, s.units, 'shard ' + s.index)),
        el('td', { class: 'num rate' }, s.rateSource === 'none' ? '\u2013' : fmt.num(s.secondsPerUnit, 2)),
        el('td', { class: 'source' }, s.rateSource),
        el('td', { class: 'num remaining' }, s.phase === 'done' ? '\u2013' : fmt.dur(s.remainingSeconds)),
        el('td', { class: 'eta when' }, s.etaAt ? fmt.time(s.etaAt) : s.phase === 'done' || c.state !== 'running' ? '\u2013' : 'unknown'),
        el('td', { class: 'held-reason' }, s.heldReason || ''),
        el('td', { class: 'num used' }, fmt.num(s.gpuHoursUsed, 2)), el('td', { class: 'num requeues' }, s.requeues),
        el('td', { class: 'num failures' }, s.failures),
        el('td', { class: 'promoted when', title: s.promotionDetail || null }, s.promotedAt ? fmt.time(s.promotedAt) : '\u2013'),
        el('td', { class: 'workload' }, s.workload ? el('a', { href: '/workloads/' + encodeURIComponent(s.workload) }, s.workload) : '\u2013')));
    }
  }
})();
