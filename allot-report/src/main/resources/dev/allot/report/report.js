/*
 * Allot's visual report. Draws everything from the JSON document embedded in the page (schema allot.simulate/1
 * with its runs): a summary, the per-GPU timeline (timeline.js: own canvas code, so 100k runs stay smooth), usage
 * against entitlement, queue-wait distributions and preemptions (charts.js, uPlot). window.allotReport exposes the
 * state the browser tests check. The page's scripts are concatenated, in order, inside one function scope.
 */
const R = window.allotReport = { ready: false, firstPaintMs: null, error: null };

/** Draws the whole report from the document. */
function main(DOC) {
  const M = readModel(DOC, timelineLoader(DOC, firstTimeline));
  const { ALLOCS, LEAVES, LEAF_COLOUR, chip, POLICIES, RUNS, METRICS, policyColour } = M;
  let current = POLICIES[0];
  R.policies = POLICIES.slice();
  R.colours = LEAF_COLOUR.slice();
  R.policy = () => current;
  const timeline = createTimeline(M, R);
  R.timeline = timeline;
  const charts = createCharts(M);
  R.charts = charts.state;

  function renderTabs() {
    const box = $('policy-tabs');
    box.innerHTML = '';
    for (const p of POLICIES) {
      const b = el('button', { role: 'tab', 'aria-selected': String(p === current), 'data-policy': p }, esc(p));
      b.addEventListener('click', () => R.setPolicy(p));
      box.appendChild(b);
    }
    document.querySelectorAll('.policy-name').forEach((e) => { e.textContent = '· ' + current; });
  }

  R.setPolicy = function (name) {
    if (!RUNS.has(name)) throw new Error('no policy ' + name + ' in this report; it has ' + POLICIES.join(', '));
    current = name;
    renderTabs();
    charts.show(name);
    return timeline.show(name);
  };

  function renderSummary() {
    const s = DOC.scenario;
    const gpusPerNode = DOC.nodes.gpus;
    const shapes = new Map();
    gpusPerNode.forEach((g) => shapes.set(g, (shapes.get(g) || 0) + 1));
    const shape = [...shapes.entries()].map(([g, n]) => n + ' x ' + count(g, 'GPU')).join(', ');
    $('title').textContent = 'Allot report: ' + s.name;
    $('subtitle').textContent = count(s.nodes, 'node') + ' (' + shape + '), ' + count(s.gpus, 'GPU') + ', '
      + count(s.workloads, 'workload') + ', ' + count(POLICIES.length, 'policy', 'policies') + ', ' + dur(DOC.runs[0].endSeconds) + ' simulated';

    const w = (cls, q) => (m) => { const x = m.waits[cls]; return x && x[q] !== null ? dur(x[q]) : '–'; };
    const rows = [
      ['Workloads', (m) => num(m.workloads)],
      ['Completed', (m) => num(m.completed), +1],
      ['Stopped for good (not resumable)', (m) => num(m.preemptedFinal), -1],
      ['Unfinished at the end', (m) => num(m.unfinished), -1],
      ['Occupancy', (m) => pct(m.occupancy), +1, (m) => m.occupancy],
      ['Occupancy while work waited', (m) => pct(m.occupancyWhileWaiting), +1, (m) => m.occupancyWhileWaiting],
      ['Share of busy GPU-time unallocated', (m) => pct(m.unallocatedShare)],
      ['Paid fraction (owed GPU-time received, hour by hour)', (m) => pct(m.paidFraction), +1, (m) => m.paidFraction],
      ['Paid over days (owed and received summed per day)', (m) => pct(m.paidFractionDaily), +1, (m) => m.paidFractionDaily],
      ['Paid over lookback windows (summed per ' + (s.settings.lookback || 'lookback') + ')', (m) => pct(m.paidFractionWindow), +1, (m) => m.paidFractionWindow],
      ['Mean demand / healthy GPUs', (m) => num(m.meanDemandRatio, 2)],
      ['Wait p50, all', w('all', 'p50'), -1, (m) => m.waits.all.p50],
      ['Wait p90, all', w('all', 'p90'), -1, (m) => m.waits.all.p90],
      ['Wait p90, debug', w('debug', 'p90'), -1, (m) => m.waits.debug.p90],
      ['Wait p99, debug', w('debug', 'p99'), -1, (m) => m.waits.debug.p99],
      ['Wait p90, large', w('large', 'p90'), -1, (m) => m.waits.large.p90],
      ['Preemptions', (m) => num(m.preemptions), -1, (m) => m.preemptions],
      ['Preemptions of unallocated (free) work', (m) => num(m.unallocatedPreemptions)],
      ['Drain evictions', (m) => num(m.drainEvictions)],
      ['Requeues', (m) => num(m.requeues)],
      ['Lost GPU-hours', (m) => num(m.lostGpuHours, 1), -1, (m) => m.lostGpuHours],
      ['Lost / delivered GPU-hours (whole run)', (m) => pct(m.lostShare, 2), -1, (m) => m.lostShare],
      ['Lost by allocated work / delivered GPU-hours', (m) => pct(m.allocatedLostShare, 2), -1, (m) => m.allocatedLostShare],
      ['Delivered GPU-hours (every attempt, whole run)', (m) => num(m.deliveredGpuHours, 1)],
      ['Node-hours drains waited beyond contracts', (m) => num(m.drainBlockedHours, 1), -1, (m) => m.drainBlockedHours],
      ['Drains (without waiting)', (m) => num(m.drains) + ' (' + num(m.drainsWithoutWaiting) + ')'],
    ];
    const ms = POLICIES.map((p) => METRICS.get(p));
    const head = [{ label: 'Metric', cls: 'text' }].concat(POLICIES.map((p) => ({ label: '<span class="chip" style="background:' + policyColour(p) + '"></span>' + esc(p) })));
    // Bold: every policy that shows the best value of the line, so a tie is bold in each tied column (only the
    // first was, which read as the others doing worse); nothing when every policy shows the same.
    const body = rows.map(([label, f, better, value]) => {
      const texts = ms.map((m) => f(m));
      let bestText = null;
      if (better && value && ms.length > 1) {
        const vals = ms.map((m) => { const v = value(m); return v === null || v === undefined ? NaN : v; });
        const finite = vals.filter((v) => !Number.isNaN(v));
        if (finite.length > 1 && new Set(finite).size > 1) {
          const target = better > 0 ? Math.max(...finite) : Math.min(...finite);
          bestText = texts[vals.indexOf(target)];
          if (texts.every((t, i) => Number.isNaN(vals[i]) || t === bestText)) bestText = null;
        }
      }
      return { cells: [label].concat(texts.map((t) => ({ html: esc(t), cls: t === bestText ? 'best' : '' }))), cls: 'best' };
    });
    $('metrics').innerHTML = table(head, body) + '<p class="muted small">Bold: the best policy on that line. Waits run from submission to first start; debug is up to 8 GPUs with a minimum runtime of at most 15 minutes, large is 64 GPUs or more.</p>';

    // A share as written, by the text report's rule (TextReport.share): whole numbers as they are, others to 3
    // decimals from 1 up and to 3 significant digits below. They were rounded to whole numbers, so a trace's teams
    // (shares 0.828, 0.169, 0.003) read 1, 0, 0, and a share of 0 means an allocation entitled to nothing.
    const share = (v) => (Number.isInteger(v) ? num(v) : Number(v).toLocaleString('en-US',
      v >= 1 ? { maximumFractionDigits: 3 } : { maximumSignificantDigits: 3 }));
    const inputs = el('div', { class: 'inputs' });
    const tree = ALLOCS.slice(1).map((a, k) => {
      const i = k + 1;
      const depth = a.path.split('/').length - 2;
      const leaf = a.leaf ? LEAVES.indexOf(i) : -1;
      return { cells: [{ html: '&nbsp;'.repeat(depth * 4) + (leaf >= 0 ? chip(leaf) : '') + esc(a.name) }, share(a.share), pct(a.entitlement, 1)] };
    });
    inputs.appendChild(el('div', null, '<h3>Allocation tree</h3>' + table([{ label: 'Allocation', cls: 'text' }, { label: 'Share' }, { label: 'Entitlement' }], tree)));
    const settings = Object.entries(s.settings).map(([k, v]) => [k, v]);
    if (s.trace) settings.push(...traceRows(s.trace));
    inputs.appendChild(el('div', null, '<h3>Cluster and scenario</h3>' + table([{ label: 'Setting', cls: 'text' }, { label: 'Value', cls: 'text' }],
      [['name', s.name], ['nodes', num(s.nodes) + ' (' + shape + ')'], ['node names', DOC.nodes.names[0] + ' … ' + DOC.nodes.names[DOC.nodes.names.length - 1]],
        ['GPUs', num(s.gpus)], ['health events', num(s.healthEvents)], ['workloads', num(s.workloads) + (s.rejected ? ' (' + count(s.rejected, 'row') + ' skipped)' : '')]]
        .concat(settings).map((r) => ({ cells: r })))));
    for (const p of POLICIES) {
      const st = Object.entries(METRICS.get(p).settings);
      inputs.appendChild(el('div', null, '<h3>Policy ' + esc(p) + '</h3>' + (st.length
        ? table([{ label: 'Setting', cls: 'text' }, { label: 'Value', cls: 'text' }], st.map((r) => ({ cells: r })))
        : '<p class="muted">no settings</p>')));
    }
    $('inputs').innerHTML = '';
    $('inputs').appendChild(inputs);
    $('footer').textContent = 'Allot ' + DOC.allot + ' · data schema ' + DOC.schema + ' · every chart is drawn from the run data embedded in this file; it needs no network.';
  }

  /**
   * A replayed trace's import in words, as the text report's 'trace' and 'contract' lines say it: the rows were its
   * JSON fields as they are ('trace skipped {}', 'trace contract {"checkpoint-every":"30m",...}', 'trace
   * timeZeroEpoch 1507529583').
   */
  function traceRows(t) {
    const pairs = (o) => Object.entries(o || {}).map(([k, v]) => k + ' ' + v).join(', ') || 'none';
    const known = [
      ['trace format', t.format], ['trace file', t.file], ['rows read', num(t.rowsRead)], ['rows imported', num(t.imported)],
      ['rows rejected', num(t.rejected)], ['rows skipped', pairs(t.skipped)],
      ['fractional GPU requests rounded up', num(t.roundedUp)], ['workloads made unallocated', num(t.unallocated)],
      ['debug workloads', num(t.debug)], ['resumable workloads', num(t.resumable)], ['contract rule', pairs(t.contract)],
      ['time 0', t.timeZeroEpoch === null || t.timeZeroEpoch === undefined ? 'the trace\'s start'
        : new Date(t.timeZeroEpoch * 1000).toISOString().replace('.000Z', 'Z')],
    ];
    const shown = new Set(['format', 'file', 'rowsRead', 'imported', 'rejected', 'skipped', 'roundedUp', 'unallocated',
      'debug', 'resumable', 'contract', 'timeZeroEpoch']);
    const rest = Object.entries(t).filter(([k]) => !shown.has(k))
      .map(([k, v]) => ['trace ' + k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
    return known.concat(rest);
  }

  async function start() {
    renderSummary();
    timeline.init();
    renderTabs();
    await timeline.show(current);
    charts.show(current);
    charts.renderWaits();
    window.addEventListener('resize', () => charts.resize());
    R.ready = true;
    R.drawnMs = Math.round(performance.now());
    if (location.hash.length > 1 && document.getElementById(location.hash.substring(1))) {
      document.getElementById(location.hash.substring(1)).scrollIntoView();
    }
    console.info('allot report: data read at ' + R.dataMs + ' ms, timeline painted at ' + R.firstPaintMs
      + ' ms, everything drawn at ' + R.drawnMs + ' ms after navigation');
  }

  R.dataMs = Math.round(performance.now());
  return start();
}

/** The document; the runs' timelines stay in their own elements until a policy's timeline is shown. */
function load() {
  return inflate(document.getElementById('allot-data'));
}

/**
 * A function that resolves a policy's run with its timeline, reading the timeline's element the first time;
 * {@code first} is the first run's timeline, already being read while the rest of the document is.
 */
function timelineLoader(DOC, first) {
  const pending = new Map();
  if (first) pending.set(0, first.then((t) => { DOC.runs[0].timeline = t; return DOC.runs[0]; }));
  return (policy) => {
    const i = DOC.runs.findIndex((r) => r.policy === policy);
    const run = DOC.runs[i];
    if (run.timeline) return Promise.resolve(run);
    if (!pending.has(i)) {
      const holder = document.getElementById('allot-timeline-' + i);
      if (!holder) return Promise.reject(new Error('the report has no timeline for ' + policy));
      pending.set(i, inflate(holder).then((t) => { run.timeline = t; return run; }));
    }
    return pending.get(i);
  };
}

const firstTimeline = document.getElementById('allot-timeline-0')
  ? inflate(document.getElementById('allot-timeline-0')) : null;
load().then(main).catch((e) => {
  R.error = String(e && e.stack || e);
  const box = document.createElement('pre');
  box.className = 'load-error';
  box.textContent = 'The report could not be drawn: ' + R.error;
  document.body.insertBefore(box, document.body.firstChild);
  throw e;
});
