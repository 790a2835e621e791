/*
 * Allot's campaign report. The comparison table is in the page as the terminal prints it; this script draws, for a
 * chosen seed, from the document embedded in the page (schema allot.campaign-report/1): units done over time per
 * strategy (uPlot), each strategy's last shard to finish, every shard's runs as a bar (own canvas code: protected,
 * unallocated, waiting, promotions, restarts, preemptions: campaign-shards.js) and the shards running over time.
 * window.allotCampaign exposes the state the browser tests check.
 */
const C = window.allotCampaign = { ready: false, error: null };

function campaignMain(DOC) {
  const M = campaignModel(DOC);
  const { STRATEGIES, SHARDS, N, colour, workSeconds, hours, seedLabel, shortId, shardsOf, lastShard, protectedSeconds } = M;
  const charts = new Map();
  let seedIndex = 0;
  let current = STRATEGIES[0];

  const seed = () => DOC.seeds[seedIndex];
  const runOf = (name) => seed().runs.find((r) => r.strategy === name);

  C.strategies = STRATEGIES.slice();
  C.seeds = DOC.seeds.map((s) => s.seed);
  C.seed = () => seed().seed;
  C.strategy = () => current;

  function makeChart(id, opts, data) {
    const box = $(id);
    if (charts.has(id)) charts.get(id).destroy();
    box.innerHTML = '';
    opts.width = Math.max(320, box.clientWidth || 600);
    const u = new uPlot(opts, data, box);
    charts.set(id, u);
    return u;
  }

  function hoursAxis(label) {
    return { label, values: (u, splits) => splits.map((v) => num(v, 0) + 'h'), space: 60 };
  }

  // ---- the table in the page: chips in the strategies' colours

  function colourTable() {
    document.querySelectorAll('#comparison-table tr[data-strategy]').forEach((tr) => {
      const name = tr.getAttribute('data-strategy');
      const chip = tr.querySelector('.chip');
      if (chip) chip.style.background = STRATEGIES.includes(name) ? colour(name) : WAITING;
    });
  }


  // ---- progress

  function renderProgress() {
    const s = seed();
    const xs = s.x.map((t) => hours(t - s.fromSeconds));
    const series = [{ label: 'since submission', value: (u, v) => (v === null ? '–' : num(v, 1) + 'h') }];
    const data = [xs];
    for (const r of s.runs) {
      series.push({ label: r.strategy, stroke: colour(r.strategy), width: 2, value: (u, v) => num(v) });
      data.push(r.unitsDoneAt);
    }
    const total = s.runs[0].unitsTotal;
    makeChart('progress-chart', {
      height: 300,
      scales: { x: { time: false }, y: { range: [0, total * 1.02] } },
      axes: [hoursAxis('hours since submission'), { label: 'units done (of ' + num(total) + ')', size: 60 }],
      series,
      hooks: {
        draw: [(u) => {
          // a dot where each strategy's campaign ended
          const g = u.ctx;
          g.save();
          s.runs.forEach((r, k) => {
            if (!u.series[k + 1].show || r.endSeconds < 0) return;
            const x = u.valToPos(hours(r.endSeconds - s.fromSeconds), 'x', true);
            const y = u.valToPos(total, 'y', true);
            g.fillStyle = colour(r.strategy);
            g.beginPath();
            g.arc(x, y, 4 * devicePixelRatio, 0, 2 * Math.PI);
            g.fill();
          });
          g.restore();
        }],
      },
    }, data);

    const rows = s.runs.map((r) => {
      const last = lastShard(r);
      const sh = shardsOf(r)[last];
      const first = sh.firstStart;
      return {
        cls: r.strategy === current ? 'current' : '',
        cells: [{ html: '<span class="chip" style="background:' + colour(r.strategy) + '"></span>' + esc(r.strategy) },
          r.endSeconds >= 0 ? num(hours(r.makespanSeconds), 1) : 'unfinished (' + num(r.unitsDone) + ' of ' + num(r.unitsTotal) + ')',
          num(hours(r.chargedGpuSeconds), 1), num(hours(r.lostGpuSeconds), 1), num(hours(r.unallocatedGpuSeconds), 1),
          num(r.restarts), num(r.promotions), num(r.preemptions),
          shortId(last) + ' (' + SHARDS.family[last] + ', ' + num(hours(workSeconds[last]), 1) + 'h of work)',
          first === null ? 'never' : '+' + num(hours(first - s.fromSeconds), 1) + 'h',
          num(hours(protectedSeconds(r, last)), 1), num(sh.runs.length)],
      };
    });
    $('seed-table').innerHTML = '<h3>' + esc(seedLabel(s)) + '</h3>' + table([{ label: 'Strategy' }, { label: 'Makespan h' },
      { label: 'Charged GPU-h' }, { label: 'Lost GPU-h' }, { label: 'Free GPU-h' }, { label: 'Restarts' }, { label: 'Promotions' },
      { label: 'Preempted' }, { label: 'Last shard to finish' }, { label: 'Its first start' },
      { label: 'Its protected h' }, { label: 'Its runs' }], rows);
  }

  const shards = createShardView(M, { seed, runOf, strategy: () => current });


  // ---- shards running over time

  function renderRunning() {
    const s = seed();
    const run = runOf(current);
    const a = run.attempts;
    const xs = s.x;
    const prot = new Array(xs.length).fill(0);
    const free = new Array(xs.length).fill(0);
    for (let k = 0; k < a.shard.length; k++) {
      const start = a.startSeconds[k];
      const stop = a.endSeconds[k];
      const pf = a.protectedFromSeconds[k];
      let lo = 0;
      let hi = xs.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (xs[mid] < start) lo = mid + 1; else hi = mid; }
      for (let p = lo; p < xs.length && xs[p] < stop; p++) {
        if (pf >= 0 && xs[p] >= pf) prot[p]++; else free[p]++;
      }
    }
    const both = prot.map((v, p) => v + free[p]);
    const series = [{ label: 'since submission', value: (u, v) => (v === null ? '–' : num(v, 1) + 'h') },
      { label: 'running (protected + unallocated)', stroke: UNALLOCATED, fill: UNALLOCATED, width: 1, paths: uPlot.paths.stepped({ align: 1 }),
        value: (u, v, si, i) => (i === null ? '–' : num(free[i]) + ' unallocated') },
      { label: 'running protected', stroke: PROTECTED, fill: PROTECTED, width: 1, paths: uPlot.paths.stepped({ align: 1 }), value: (u, v) => num(v) }];
    const data = [xs.map((t) => hours(t - s.fromSeconds)), both, prot];
    if (DOC.protectedShards !== null && DOC.protectedShards !== undefined) {
      series.push({ label: 'declared protected slots', stroke: '#1d2329', dash: [6, 4], width: 1.5, value: (u, v) => num(v) });
      data.push(xs.map(() => DOC.protectedShards));
    }
    makeChart('running-chart', {
      height: 220,
      scales: { x: { time: false } },
      axes: [hoursAxis('hours since submission'), { label: 'shards', size: 50 }],
      series,
    }, data);
  }

  // ---- selection

  function renderTabs() {
    const box = $('strategy-tabs');
    box.innerHTML = '';
    for (const name of STRATEGIES) {
      const b = el('button', { role: 'tab', 'aria-selected': String(name === current), 'data-strategy': name },
        '<span class="chip" style="background:' + colour(name) + '"></span>' + esc(name));
      b.addEventListener('click', () => C.setStrategy(name));
      box.appendChild(b);
    }
    document.querySelectorAll('.strategy-name').forEach((e) => { e.textContent = '· ' + current; });
    document.querySelectorAll('.seed-name').forEach((e) => { e.textContent = '· ' + seedLabel(seed()); });
    document.querySelectorAll('#seed-table tr').forEach((tr) => {
      const first = tr.querySelector('td');
      if (first) tr.classList.toggle('current', first.textContent === current);
    });
  }

  C.setStrategy = function (name) {
    if (!STRATEGIES.includes(name)) throw new Error('no strategy ' + name + ' in this report; it has ' + STRATEGIES.join(', '));
    current = name;
    renderTabs();
    shards.draw();
    renderRunning();
  };

  C.setSeed = function (value) {
    const i = DOC.seeds.findIndex((s) => String(s.seed) === String(value));
    if (i < 0) throw new Error('no seed ' + value + ' in this report; it has ' + C.seeds.join(', '));
    seedIndex = i;
    $('seed').value = String(i);
    renderProgress();
    renderTabs();
    shards.draw();
    renderRunning();
  };

  /** What each uPlot chart shows, for tests: its series, how many non-empty points they have, their last values. */
  C.charts = function () {
    const out = [];
    for (const [id, u] of charts) {
      let points = 0;
      for (let k = 1; k < u.data.length; k++) for (const v of u.data[k]) if (v !== null && v !== 0) points++;
      out.push({ id, series: u.series.length - 1, points, width: u.width, height: u.height,
        last: u.data.slice(1).map((d) => d[d.length - 1]) });
    }
    return out;
  };

  C.gantt = shards.state;

  function start() {
    colourTable();
    const sel = $('seed');
    sel.innerHTML = DOC.seeds.map((s, i) => '<option value="' + i + '">' + esc(seedLabel(s)) + '</option>').join('');
    sel.onchange = () => C.setSeed(DOC.seeds[Number(sel.value)].seed);
    $('seed-box').hidden = DOC.seeds.length < 2;
    shards.renderLegend();
    shards.installHover();
    C.setSeed(DOC.seeds[0].seed);
    window.addEventListener('resize', () => {
      for (const u of charts.values()) u.setSize({ width: Math.max(320, u.root.parentElement.clientWidth), height: u.height });
      shards.draw();
    });
    $('footer').textContent = 'Allot ' + DOC.allot + ' · data schema ' + DOC.schema + ' · every chart is drawn from the runs embedded in this file; it needs no network.';
    C.ready = true;
    C.drawnMs = Math.round(performance.now());
    if (location.hash.length > 1 && document.getElementById(location.hash.substring(1))) {
      document.getElementById(location.hash.substring(1)).scrollIntoView();
    }
  }

  start();
}

inflate(document.getElementById('allot-campaign-data')).then(campaignMain).catch((e) => {
  C.error = String(e && e.stack || e);
  const box = document.createElement('pre');
  box.className = 'load-error';
  box.textContent = 'The report could not be drawn: ' + C.error;
  document.body.insertBefore(box, document.body.firstChild);
  throw e;
});
