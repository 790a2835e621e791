/**
 * The standard charts (uPlot) and their tables: usage against entitlement, queue waits, preemptions. The policy
 * shown is set with show(); the waits compare every policy at once.
 */
function createCharts(M) {
  const { DOC, ALLOCS, parentOf, LEAVES, LEAF_COLOUR, chip, POLICIES, RUNS, METRICS, policyColour, W, WORKLOAD_BY_ID } = M;
  let current = POLICIES[0];
  const charts = new Map();

  function chartWidth(container) {
    return Math.max(320, container.clientWidth || 600);
  }

  function makeChart(id, opts, data) {
    const box = $(id);
    if (charts.has(id)) charts.get(id).destroy();
    box.innerHTML = '';
    opts.width = chartWidth(box);
    const u = new uPlot(opts, data, box);
    charts.set(id, u);
    return u;
  }

  function timeAxis() {
    return {
      values: (u, splits) => splits.map((s) => (s % DAY === 0 ? 'day ' + s / DAY : at(s))),
      space: 70,
      incrs: [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY],
    };
  }

  function hoursX(run) {
    const xs = new Array(run.hourly.hours);
    for (let h = 0; h < xs.length; h++) xs[h] = h * HOUR;
    return xs;
  }

  function withAlpha(colour, alpha) {
    return colour.replace('hsl(', 'hsla(').replace(')', ',' + alpha + ')');
  }

  // ---- usage against entitlement

  function renderUsage() {
    const m = METRICS.get(current);
    const sel = $('usage-alloc');
    const previous = sel.value;
    const order = m.allocations.map((a, leaf) => ({ a, leaf }))
      .sort((x, y) => (x.a.paidFraction === null) - (y.a.paidFraction === null) || (x.a.paidFraction - y.a.paidFraction) || x.a.name.localeCompare(y.a.name));
    sel.innerHTML = '<option value="-1">all allocations</option>' + order.map(({ a, leaf }) =>
      '<option value="' + leaf + '">' + esc(a.name) + ' (paid ' + pct(a.paidFraction, 0) + ')</option>').join('');
    sel.value = previous !== '' && sel.querySelector('option[value="' + previous + '"]') ? previous : String(order[0].leaf);
    sel.onchange = () => usageChart(Number(sel.value));
    usageChart(Number(sel.value));

    const rows = order.map(({ a, leaf }) => ({
      cells: [{ html: chip(leaf) + esc(a.path) }, pct(a.entitlement), num(a.owedGpuHours, 0), num(a.receivedGpuHours, 0),
        { html: pct(a.paidFraction) + (a.paidFraction !== null ? '<span class="bar" style="width:' + Math.round(a.paidFraction * 60) + 'px"></span>' : '<span class="bar" style="width:0"></span>') },
        pct(a.paidFractionDaily), pct(a.paidFractionWindow), num(a.unallocatedGpuHours, 0), num(a.preemptions), dur(a.waits.p90)],
    }));
    $('paid-table').innerHTML = table([{ label: 'Allocation' }, { label: 'Entitled' }, { label: 'Owed GPU-h' }, { label: 'Received GPU-h' },
      { label: 'Paid' }, { label: 'Per day' }, { label: 'Per lookback' }, { label: 'Unallocated GPU-h' }, { label: 'Preempted' },
      { label: 'Wait p90' }], rows);

    // Roll up programs: sums of owed, received and paid (paid fraction x owed, hourly, per day and per lookback
    // window) over the leaves below each node.
    const agg = ALLOCS.map(() => ({ owed: 0, received: 0, paid: 0, paidDaily: 0, paidWindow: 0, unalloc: 0, preempted: 0, workloads: 0 }));
    m.allocations.forEach((a, leaf) => {
      for (let n = LEAVES[leaf]; n >= 0; n = parentOf[n]) {
        const g = agg[n];
        g.owed += a.owedGpuHours;
        g.received += a.receivedGpuHours;
        g.paid += (a.paidFraction || 0) * a.owedGpuHours;
        g.paidDaily += (a.paidFractionDaily || 0) * a.owedGpuHours;
        g.paidWindow += (a.paidFractionWindow || 0) * a.owedGpuHours;
        g.unalloc += a.unallocatedGpuHours;
        g.preempted += a.preemptions;
        g.workloads += a.workloads;
      }
    });
    const treeRows = ALLOCS.map((a, n) => {
      const depth = a.path.split('/').length - 1;
      const g = agg[n];
      const leaf = a.leaf ? LEAVES.indexOf(n) : -1;
      return {
        cls: a.leaf ? '' : 'group',
        cells: [{ html: '&nbsp;'.repeat(depth * 4) + (leaf >= 0 ? chip(leaf) : '') + esc(a.name) }, pct(a.entitlement),
          num(g.owed, 0), num(g.received, 0), g.owed > 0 ? pct(g.paid / g.owed) : '–', g.owed > 0 ? pct(g.paidDaily / g.owed) : '–',
          g.owed > 0 ? pct(g.paidWindow / g.owed) : '–', num(g.unalloc, 0), num(g.preempted)],
      };
    });
    $('tree-table').innerHTML = table([{ label: 'Allocation' }, { label: 'Entitled' }, { label: 'Owed GPU-h' },
      { label: 'Received GPU-h' }, { label: 'Paid' }, { label: 'Per day' }, { label: 'Per lookback' }, { label: 'Unallocated GPU-h' },
      { label: 'Preempted' }], treeRows)
      + '<p class="muted small">Owed: each hour, the smaller of the entitlement and what the allocation\'s allocated work asked for. Paid: owed GPU-time received, summed hour by hour.'
      + ' Per day and per lookback: owed and received summed over each day and each lookback window (' + esc(DOC.scenario.settings.lookback || '') + ') before taking the smaller, so GPU-time received beyond what was owed in one hour makes up for a shortfall in another hour of the same period.</p>';
  }

  function usageChart(leaf) {
    const run = RUNS.get(current);
    const list = run.hourly.allocations;
    const pick = leaf >= 0 ? [list[leaf]] : list;
    const hours = run.hourly.hours;
    const sum = (key) => {
      const out = new Array(hours).fill(0);
      for (const a of pick) for (let h = 0; h < hours; h++) out[h] += a[key][h];
      return out.map((v) => Math.round(v * 100) / 100);
    };
    const alloc = sum('allocatedGpus');
    const unalloc = sum('unallocatedGpus');
    const stacked = alloc.map((v, h) => Math.round((v + unalloc[h]) * 100) / 100);
    const colour = leaf >= 0 ? LEAF_COLOUR[leaf] : 'hsl(215,55%,45%)';
    const raw = [null, unalloc, alloc, null, null];
    makeChart('usage-chart', {
      height: 300,
      scales: { x: { time: false } },
      axes: [timeAxis(), { label: 'GPUs', size: 56 }],
      series: [
        { label: 'time', value: (u, v) => (v === null ? '–' : at(v)) },
        { label: 'received unallocated (stacked)', stroke: withAlpha(colour, 0.55), fill: withAlpha(colour, 0.22), width: 1, value: (u, v, s, i) => (i === null ? '–' : num(raw[1][i], 1)) },
        { label: 'received allocated', stroke: colour, fill: withAlpha(colour, 0.65), width: 1, value: (u, v) => num(v, 1) },
        { label: 'entitled', stroke: '#1d2329', dash: [6, 4], width: 1.5, value: (u, v) => num(v, 1) },
        { label: 'owed', stroke: '#d62728', width: 2, value: (u, v) => num(v, 1) },
      ],
    }, [hoursX(run), stacked, alloc, sum('entitledGpus'), sum('owedGpus')]);
  }

  // ---- waits

  function curve(waitCurve) {
    const xs = [];
    const ys = [];
    const q = waitCurve.seconds;
    for (let i = 0; i < q.length; i++) {
      const x = Math.max(1, q[i]);
      const y = i / (q.length - 1);
      if (xs.length && xs[xs.length - 1] === x) ys[ys.length - 1] = y;
      else { xs.push(x); ys.push(y); }
    }
    return [xs, ys];
  }

  /** Ticks a reader knows on a logarithmic wait axis: 1s, 10s, 1m, 10m, 1h, 6h, 1d, 1w, 30d, 1y. */
  function logSplits(u) {
    const [lo, hi] = [u.scales.x.min, u.scales.x.max];
    return [1, 10, 60, 600, HOUR, 6 * HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY].filter((v) => v >= lo && v <= hi);
  }

  function renderWaits() {
    const box = $('wait-charts');
    box.innerHTML = '';
    const classes = ['debug', 'large', 'all'];
    for (const cls of classes) {
      const id = 'wait-' + cls;
      box.appendChild(el('div', null, '<h3>' + esc(cls) + '</h3><div id="' + id + '" class="chart"></div>'));
    }
    for (const cls of classes) {
      const id = 'wait-' + cls;
      const present = POLICIES.filter((p) => RUNS.get(p).waitCurves[cls].seconds.length > 0);
      if (!present.length) {
        $(id).innerHTML = '<p class="muted">no ' + esc(cls) + ' workloads started</p>';
        continue;
      }
      const data = uPlot.join(present.map((p) => curve(RUNS.get(p).waitCurves[cls])));
      const marks = present.map((p) => METRICS.get(p).waits[cls]);
      makeChart(id, {
        height: 260,
        scales: { x: { time: false, distr: 3, log: 10 }, y: { range: [0, 1] } },
        axes: [{ splits: logSplits, values: (u, splits) => splits.map((s) => dur(s)), space: 50 }, { values: (u, s) => s.map((v) => Math.round(v * 100) + '%'), size: 46 }],
        series: [{ label: 'wait', value: (u, v) => (v === null ? '–' : dur(v)) }].concat(present.map((p) => ({
          label: p, stroke: policyColour(p), width: 2, spanGaps: true, value: (u, v) => (v === null ? '–' : pct(v, 1)),
        }))),
        hooks: {
          draw: [(u) => {
            const g = u.ctx;
            g.save();
            g.font = Math.round(10 * devicePixelRatio) + 'px system-ui, sans-serif';
            present.forEach((p, k) => {
              if (!u.series[k + 1].show || !marks[k]) return;
              [['p50', 0.5], ['p90', 0.9], ['p99', 0.99]].forEach(([name, q]) => {
                const v = marks[k][name];
                if (v === null || v === undefined) return;
                const x = u.valToPos(Math.max(1, v), 'x', true);
                const y = u.valToPos(q, 'y', true);
                g.fillStyle = policyColour(p);
                g.beginPath();
                g.arc(x, y, 3.5 * devicePixelRatio, 0, 2 * Math.PI);
                g.fill();
                if (k === 0) { g.fillStyle = '#3c4650'; g.fillText(name, x - 26 * devicePixelRatio, y - 4 * devicePixelRatio); }
              });
            });
            g.restore();
          }],
        },
      }, data);
    }
    const rows = [];
    for (const cls of classes) {
      for (const p of POLICIES) {
        const w = METRICS.get(p).waits[cls];
        rows.push({ cells: [cls, { html: '<span class="chip" style="background:' + policyColour(p) + '"></span>' + esc(p) }, num(w.count), num(w.neverStarted), dur(w.p50), dur(w.p90), dur(w.p99), dur(w.max)] });
      }
    }
    $('wait-table').innerHTML = '<h3>Percentiles</h3>' + table([{ label: 'Class', cls: 'text' }, { label: 'Policy', cls: 'text' }, { label: 'Started' }, { label: 'Never started' },
      { label: 'p50' }, { label: 'p90' }, { label: 'p99' }, { label: 'max' }], rows)
      + '<p class="muted small">Curves: share of the started workloads of a class that waited at most the time on the (logarithmic) axis; dots mark p50, p90 and p99.</p>';
  }

  // ---- preemptions

  function stackedChart(id, run, key, extra) {
    const list = run.hourly.allocations;
    const hours = run.hourly.hours;
    const used = [];
    list.forEach((a, leaf) => { if (a[key].some((v) => v > 0)) used.push(leaf); });
    const layers = used.map((leaf) => list[leaf][key]);
    if (extra) layers.push(extra.values);
    if (!layers.length) {
      if (charts.has(id)) { charts.get(id).destroy(); charts.delete(id); }
      $(id).innerHTML = '<p class="muted">none in this run</p>';
      return;
    }
    // Stacked: the series are cumulative sums, drawn top layer first so each fill shows its own band.
    const cum = [];
    let acc = new Array(hours).fill(0);
    for (const l of layers) {
      acc = acc.map((v, h) => Math.round((v + l[h]) * 100) / 100);
      cum.push(acc);
    }
    const series = [{ label: 'time', value: (u, v) => (v === null ? '–' : at(v)) }];
    const data = [hoursX(run)];
    for (let k = layers.length - 1; k >= 0; k--) {
      const isExtra = extra && k === layers.length - 1;
      const colour = isExtra ? 'hsl(0,0%,45%)' : LEAF_COLOUR[used[k]];
      const raw = layers[k];
      series.push({
        label: isExtra ? extra.label : list[used[k]].allocation, stroke: colour, fill: withAlpha(colour, 0.85), width: 0,
        paths: uPlot.paths.stepped({ align: 1 }), value: (u, v, s, i) => (i === null ? '–' : num(raw[i], key === 'lostGpuHours' ? 1 : 0)),
      });
      data.push(cum[k]);
    }
    makeChart(id, { height: 260, scales: { x: { time: false } }, axes: [timeAxis(), { size: 50 }], series, legend: { live: true } }, data);
  }

  function renderPreemptions() {
    const run = RUNS.get(current);
    const drains = run.hourly.drainEvictions.some((v) => v > 0) ? { label: 'host drains', values: run.hourly.drainEvictions } : null;
    stackedChart('preempt-chart', run, 'preemptions', drains);
    stackedChart('lost-chart', run, 'lostGpuHours', null);
    const leafOfWorkload = (id) => W.allocation[WORKLOAD_BY_ID.get(id)];
    const rows = run.largestPreemptions.map((e) => {
      const victims = e.victims.slice(0, 3).map((v) => chip(leafOfWorkload(v)) + esc(v)).join(', ') + (e.victims.length > 3 ? ' and ' + (e.victims.length - 3) + ' more' : '');
      const by = e.preemptor ? chip(leafOfWorkload(e.preemptor)) + esc(e.preemptor) : 'host ' + esc(e.node);
      return { cells: [at(e.timeSeconds), e.kind.toLowerCase().replace('_', ' '), { html: by }, { html: victims }, num(e.gpus), num(e.lostGpuHours, 1), { html: esc(e.reason), cls: 'text' }] };
    });
    $('preempt-table').innerHTML = rows.length
      ? table([{ label: 'When' }, { label: 'Rule' }, { label: 'For' }, { label: 'Stopped', cls: 'text' },
        { label: 'GPUs' }, { label: 'Lost GPU-h' }, { label: 'The policy\'s reason', cls: 'text' }], rows)
      : '<p class="muted">No preemptions in this run.</p>';
  }

  /** What each chart shows, for tests: its series and how many non-empty points they have. */
  function state() {
    const out = [];
    for (const [id, u] of charts) {
      let points = 0;
      for (let s = 1; s < u.data.length; s++) for (const v of u.data[s]) if (v !== null && v !== 0) points++;
      out.push({ id, series: u.series.length - 1, points, width: u.width, height: u.height });
    }
    return out;
  }

  return {
    show(policy) {
      current = policy;
      renderUsage();
      renderPreemptions();
    },
    renderWaits,
    state,
    resize() {
      for (const u of charts.values()) u.setSize({ width: chartWidth(u.root.parentElement), height: u.height });
    },
  };
}
