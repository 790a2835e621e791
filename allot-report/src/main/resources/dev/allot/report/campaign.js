/*
 * Allot's campaign report. The comparison table is in the page as the terminal prints it; this script draws, for a
 * chosen seed, from the document embedded in the page (schema allot.campaign-report/1): units done over time per
 * strategy (uPlot), each strategy's last shard to finish, every shard's runs as a bar (own canvas code: protected,
 * unallocated, waiting, promotions, restarts, preemptions) and the shards running over time. window.allotCampaign
 * exposes the state the browser tests check.
 */
const C = window.allotCampaign = { ready: false, error: null };
const STRATEGY_COLOURS = ['#2459a8', '#d9822b', '#2e9e5b', '#8e44ad', '#c0392b', '#16a085', '#7f6d00', '#5d6d7e'];
const PROTECTED = '#2459a8';
const UNALLOCATED = '#f0b44c';
const WAITING = '#b9c1c9';
const PREEMPTED = '#d62728';
const RESTARTED = '#1d2329';
const PROMOTED = '#2e9e5b';
const ROW = 15;
const AXIS = 26;
const LABEL = 190;

function campaignMain(DOC) {
  const STRATEGIES = DOC.strategies;
  const SHARDS = DOC.shards;
  const N = SHARDS.id.length;
  const ENDS = DOC.ends;
  const colour = (name) => STRATEGY_COLOURS[STRATEGIES.indexOf(name) % STRATEGY_COLOURS.length];
  const workSeconds = SHARDS.units.map((u, i) => u * SHARDS.secondsPerUnit[i]);
  // longest work first, the order LPT parks them in: the same rows under every strategy
  const ORDER = SHARDS.id.map((id, i) => i).sort((a, b) => workSeconds[b] - workSeconds[a] || a - b);
  const ROW_OF = new Int32Array(N);
  ORDER.forEach((shard, row) => { ROW_OF[shard] = row; });
  const charts = new Map();
  let seedIndex = 0;
  let current = STRATEGIES[0];
  let gantt = { bars: 0, hovered: null, tip: '' };

  const seed = () => DOC.seeds[seedIndex];
  const runOf = (name) => seed().runs.find((r) => r.strategy === name);
  const hours = (s) => s / HOUR;
  const seedLabel = (s) => (s.seed === null ? 'the scenario' : 'seed ' + s.seed);
  /** A shard's id without the campaign's name: s07. */
  const shortId = (i) => SHARDS.id[i].replace(/^.*-(s\d+)$/, '$1');

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

  // ---- what a run's books say, worked out once per run

  /** Per shard: its runs in order (indexes into the run's attempt columns), first start and end. */
  function shardsOf(run) {
    if (run.byShard) return run.byShard;
    const a = run.attempts;
    const byShard = [];
    for (let i = 0; i < N; i++) byShard.push({ runs: [], firstStart: null, end: run.shardEndSeconds[i] });
    for (let k = 0; k < a.shard.length; k++) {
      const s = byShard[a.shard[k]];
      s.runs.push(k);
      if (s.firstStart === null) s.firstStart = a.startSeconds[k];
    }
    run.byShard = byShard;
    return byShard;
  }

  /** The shard that finished last (or, when the campaign did not finish, the one with the most units left). */
  function lastShard(run) {
    let best = -1;
    for (let i = 0; i < N; i++) {
      const e = run.shardEndSeconds[i];
      if (best < 0) { best = i; continue; }
      const b = run.shardEndSeconds[best];
      if ((e < 0 && b >= 0) || (e >= 0 && b >= 0 && e > b)) best = i;
    }
    return best;
  }

  function protectedSeconds(run, shard) {
    const a = run.attempts;
    let sum = 0;
    for (const k of shardsOf(run)[shard].runs) {
      if (a.protectedFromSeconds[k] >= 0) sum += a.endSeconds[k] - a.protectedFromSeconds[k];
    }
    return sum;
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

  // ---- shards: one row per shard, its runs as bars

  function ganttGeometry() {
    const canvas = $('shard-canvas');
    const width = Math.max(600, $('shard-box').clientWidth || 1000);
    const height = AXIS + N * ROW + 8;
    const s = seed();
    const span = Math.max(1, s.toSeconds - s.fromSeconds);
    const plot = width - LABEL - 12;
    return {
      canvas, width, height, s,
      x: (t) => LABEL + (t - s.fromSeconds) / span * plot,
      t: (x) => s.fromSeconds + (x - LABEL) / plot * span,
      y: (row) => AXIS + row * ROW,
    };
  }

  function tickHours(spanHours, plotWidth) {
    for (const h of [1, 2, 3, 6, 12, 24, 48, 96, 168]) if (spanHours / h <= plotWidth / 70) return h;
    return 336;
  }

  function drawGantt() {
    const G = ganttGeometry();
    const { canvas, width, height, s } = G;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.height = height + 'px';
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    // hour ticks
    const spanHours = hours(s.toSeconds - s.fromSeconds);
    const step = tickHours(spanHours, width - LABEL);
    g.strokeStyle = '#e6e9ec';
    g.fillStyle = '#5f6b76';
    g.lineWidth = 1;
    for (let h = 0; h <= spanHours + 1e-9; h += step) {
      const x = Math.round(G.x(s.fromSeconds + h * HOUR)) + 0.5;
      g.beginPath();
      g.moveTo(x, AXIS - 4);
      g.lineTo(x, height);
      g.stroke();
      g.fillText(h + 'h', x + 2, AXIS - 12);
    }
    const run = runOf(current);
    const a = run.attempts;
    const byShard = shardsOf(run);
    let bars = 0;
    for (let row = 0; row < N; row++) {
      const shard = ORDER[row];
      const y = G.y(row);
      g.fillStyle = '#1d2329';
      g.fillText(shortId(shard) + '  ' + SHARDS.family[shard] + '  ' + num(hours(workSeconds[shard]), 1) + 'h', 6, y + ROW / 2);
      const sh = byShard[shard];
      const end = sh.end >= 0 ? sh.end : run.simulationEndSeconds;
      // in the campaign from its submission to its end: waiting wherever no run covers it
      g.fillStyle = WAITING;
      g.fillRect(G.x(s.fromSeconds), y + ROW / 2 - 1, Math.max(1, G.x(end) - G.x(s.fromSeconds)), 2);
      for (const k of sh.runs) {
        const start = a.startSeconds[k];
        const stop = a.endSeconds[k];
        const pf = a.protectedFromSeconds[k];
        const split = pf >= 0 ? Math.max(start, pf) : stop;
        if (split > start) {
          g.fillStyle = UNALLOCATED;
          g.fillRect(G.x(start), y + 2, Math.max(1, G.x(split) - G.x(start)), ROW - 4);
        }
        if (stop > split) {
          g.fillStyle = PROTECTED;
          g.fillRect(G.x(split), y + 2, Math.max(1, G.x(stop) - G.x(split)), ROW - 4);
        }
        bars++;
        const how = ENDS[a.end[k]];
        if (how === 'preempted' || how === 'restarted') {
          g.fillStyle = how === 'preempted' ? PREEMPTED : RESTARTED;
          if (how === 'preempted') g.fillRect(Math.round(G.x(stop)), y + 1, 1, ROW - 2);
          else g.fillRect(Math.round(G.x(stop)) - 1, y, 3, ROW);
        }
        if (pf > start) {
          const px = G.x(pf);
          g.fillStyle = PROMOTED;
          g.beginPath();
          g.moveTo(px - 4, y + ROW - 1);
          g.lineTo(px + 4, y + ROW - 1);
          g.lineTo(px, y + 2);
          g.closePath();
          g.fill();
        }
      }
    }
    // every strategy's end in this seed; the one shown in full
    for (const r of s.runs) {
      if (r.endSeconds < 0) continue;
      const x = Math.round(G.x(r.endSeconds)) + 0.5;
      g.strokeStyle = colour(r.strategy);
      g.lineWidth = r.strategy === current ? 2 : 1;
      g.setLineDash(r.strategy === current ? [] : [4, 3]);
      g.beginPath();
      g.moveTo(x, AXIS - 2);
      g.lineTo(x, height);
      g.stroke();
      g.setLineDash([]);
      if (r.strategy === current) {
        g.fillStyle = colour(r.strategy);
        g.fillText(r.strategy + ' ends +' + num(hours(r.makespanSeconds), 1) + 'h', Math.min(x + 3, width - 120), 7);
      }
    }
    gantt.bars = bars;
    gantt.geometry = G;
  }

  /** The shard and run under a point of the canvas (CSS pixels), or null. */
  function hit(px, py) {
    const G = gantt.geometry;
    if (!G || px < LABEL || py < AXIS) return null;
    const row = Math.floor((py - AXIS) / ROW);
    if (row < 0 || row >= N) return null;
    const shard = ORDER[row];
    const run = runOf(current);
    const a = run.attempts;
    const t = G.t(px);
    const slack = (G.t(px + 3) - G.t(px));
    let found = -1;
    for (const k of shardsOf(run)[shard].runs) {
      if (a.startSeconds[k] - slack <= t && t <= a.endSeconds[k] + slack) found = k;
    }
    return { shard, attempt: found, t };
  }

  function describe(h) {
    const run = runOf(current);
    const a = run.attempts;
    const s = seed();
    const i = h.shard;
    const sh = shardsOf(run)[i];
    const rel = (t) => '+' + num(hours(t - s.fromSeconds), 2) + 'h';
    const lines = [SHARDS.id[i] + ': ' + SHARDS.family[i] + ', ' + num(SHARDS.units[i]) + ' units of ' + dur(SHARDS.secondsPerUnit[i])
      + ' (' + num(hours(workSeconds[i]), 1) + 'h of work)',
    'first start ' + (sh.firstStart === null ? 'never' : rel(sh.firstStart)) + ', ' + (sh.end >= 0 ? 'done ' + rel(sh.end) : 'unfinished')
      + ', ' + sh.runs.length + ' run' + (sh.runs.length === 1 ? '' : 's') + ', protected ' + num(hours(protectedSeconds(run, i)), 1) + 'h'];
    if (h.attempt >= 0) {
      const k = h.attempt;
      const pf = a.protectedFromSeconds[k];
      lines.push('this run: ' + rel(a.startSeconds[k]) + ' to ' + rel(a.endSeconds[k]) + ' (' + dur(a.endSeconds[k] - a.startSeconds[k]) + '), units '
        + num(a.fromUnits[k]) + ' to ' + num(a.toUnits[k]));
      lines.push(pf < 0 ? 'unallocated throughout' : pf > a.startSeconds[k] ? 'unallocated, promoted in place ' + rel(pf) : 'protected from its start');
      lines.push('ended: ' + ENDS[a.end[k]]);
    } else {
      lines.push(h.t < (sh.firstStart === null ? Infinity : sh.firstStart) ? 'waiting for its first start' : sh.end >= 0 && h.t > sh.end ? 'done' : 'waiting');
    }
    return lines.join('\n');
  }

  function installHover() {
    const canvas = $('shard-canvas');
    const tip = $('shard-tip');
    canvas.addEventListener('mousemove', (e) => {
      const r = canvas.getBoundingClientRect();
      const px = e.clientX - r.left;
      const py = e.clientY - r.top;
      const h = hit(px, py);
      if (!h) {
        tip.hidden = true;
        gantt.hovered = null;
        return;
      }
      gantt.hovered = SHARDS.id[h.shard];
      gantt.tip = describe(h);
      tip.textContent = gantt.tip;
      tip.hidden = false;
      tip.style.left = Math.min(px + 14, r.width - 380) + 'px';
      tip.style.top = (py + 14) + 'px';
    });
    canvas.addEventListener('mouseleave', () => { tip.hidden = true; gantt.hovered = null; });
  }

  function renderLegend() {
    const sw = (c) => '<span class="swatch" style="background:' + c + '"></span>';
    $('shard-legend').innerHTML = ['<span>' + sw(PROTECTED) + 'running protected (charged)</span>',
      '<span>' + sw(UNALLOCATED) + 'running unallocated (free, preemptible)</span>',
      '<span>' + sw(WAITING) + 'waiting (thin line)</span>',
      '<span style="color:' + PROMOTED + '">&#9650;</span><span>promoted in place</span>',
      '<span>' + sw(PREEMPTED) + 'preempted by the policy</span>',
      '<span>' + sw(RESTARTED) + 'restarted by the campaign</span>',
      '<span>rows: longest work first; vertical lines: each strategy\'s end (dashed: the others)</span>'].join('');
  }

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
    drawGantt();
    renderRunning();
  };

  C.setSeed = function (value) {
    const i = DOC.seeds.findIndex((s) => String(s.seed) === String(value));
    if (i < 0) throw new Error('no seed ' + value + ' in this report; it has ' + C.seeds.join(', '));
    seedIndex = i;
    $('seed').value = String(i);
    renderProgress();
    renderTabs();
    drawGantt();
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

  C.gantt = {
    barsDrawn: () => gantt.bars,
    hovered: () => gantt.hovered,
    tipText: () => gantt.tip,
    /** Viewport coordinates of the middle of a shard's first run under the strategy shown, for tests. */
    locate(id) {
      const shard = SHARDS.id.indexOf(id);
      if (shard < 0) throw new Error('no shard ' + id);
      const run = runOf(current);
      const k = shardsOf(run)[shard].runs[0];
      const G = gantt.geometry;
      const r = G.canvas.getBoundingClientRect();
      const mid = (run.attempts.startSeconds[k] + run.attempts.endSeconds[k]) / 2;
      return { x: Math.round(r.left + G.x(mid)), y: Math.round(r.top + G.y(ROW_OF[shard]) + ROW / 2) };
    },
  };

  function start() {
    colourTable();
    const sel = $('seed');
    sel.innerHTML = DOC.seeds.map((s, i) => '<option value="' + i + '">' + esc(seedLabel(s)) + '</option>').join('');
    sel.onchange = () => C.setSeed(DOC.seeds[Number(sel.value)].seed);
    $('seed-box').hidden = DOC.seeds.length < 2;
    renderLegend();
    installHover();
    C.setSeed(DOC.seeds[0].seed);
    window.addEventListener('resize', () => {
      for (const u of charts.values()) u.setSize({ width: Math.max(320, u.root.parentElement.clientWidth), height: u.height });
      drawGantt();
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
