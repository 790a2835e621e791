/*
 * Allot's visual report. Draws everything from the JSON document embedded in the page (schema allot.simulate/1
 * with its runs): a summary, the per-GPU timeline (own canvas code: one row per GPU, bars from a compact
 * columnar encoding, so 100k runs stay smooth), usage against entitlement, queue-wait distributions and
 * preemptions (uPlot). window.allotReport exposes the state the browser tests check.
 */
(function () {
  'use strict';

  const R = window.allotReport = { ready: false, firstPaintMs: null, error: null };
  const $ = (id) => document.getElementById(id);
  const POLICY_COLOURS = ['#2459a8', '#d9822b', '#2e9e5b', '#8e44ad', '#c0392b', '#16a085', '#7f6d00', '#5d6d7e'];
  const HOUR = 3600;
  const DAY = 86400;

  // ---------------------------------------------------------------- formatting

  function num(v, digits) {
    if (v === null || v === undefined || Number.isNaN(v)) return '–';
    return Number(v).toLocaleString('en-US', { minimumFractionDigits: digits || 0, maximumFractionDigits: digits || 0 });
  }

  function pct(v, digits) {
    return v === null || v === undefined ? '–' : num(v * 100, digits === undefined ? 1 : digits) + '%';
  }

  /** A duration in seconds, two units at most: 3d 4h, 2h 05m, 12m 30s, 45s. */
  function dur(s) {
    if (s === null || s === undefined) return '–';
    s = Math.round(s);
    if (s < 60) return s + 's';
    if (s < HOUR) return Math.floor(s / 60) + 'm' + (s % 60 ? ' ' + String(s % 60).padStart(2, '0') + 's' : '');
    if (s < DAY) return Math.floor(s / HOUR) + 'h' + (s % HOUR >= 60 ? ' ' + String(Math.floor(s % HOUR / 60)).padStart(2, '0') + 'm' : '');
    return Math.floor(s / DAY) + 'd' + (s % DAY >= HOUR ? ' ' + Math.floor(s % DAY / HOUR) + 'h' : '');
  }

  /** A simulated instant: day and clock time since the start of the scenario. */
  function at(s) {
    const d = Math.floor(s / DAY);
    const r = s - d * DAY;
    const hh = String(Math.floor(r / HOUR)).padStart(2, '0');
    const mm = String(Math.floor(r % HOUR / 60)).padStart(2, '0');
    const ss = r % 60 ? ':' + String(Math.floor(r % 60)).padStart(2, '0') : '';
    return 'd' + d + ' ' + hh + ':' + mm + ss;
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  }

  function el(tag, attrs, html) {
    const e = document.createElement(tag);
    if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
    if (html !== undefined) e.innerHTML = html;
    return e;
  }

  function table(head, rows, cls) {
    let h = '<table' + (cls ? ' class="' + cls + '"' : '') + '><thead><tr>';
    for (const c of head) h += '<th' + (c.cls ? ' class="' + c.cls + '"' : '') + '>' + c.label + '</th>';
    h += '</tr></thead><tbody>';
    for (const r of rows) {
      h += '<tr' + (r.cls ? ' class="' + r.cls + '"' : '') + '>';
      r.cells.forEach((c, i) => {
        const cl = [head[i] && head[i].cls, c && c.cls].filter(Boolean).join(' ');
        h += '<td' + (cl ? ' class="' + cl + '"' : '') + '>' + (c && c.html !== undefined ? c.html : esc(c === null ? '–' : c)) + '</td>';
      });
      h += '</tr>';
    }
    return h + '</tbody></table>';
  }

  /** Draws the whole report from the document. */
  function main(DOC) {
    // ---------------------------------------------------------------- the allocation tree and its colours

    const ALLOCS = DOC.scenario.allocations;            // tree nodes, preorder, root first
    const byPath = new Map(ALLOCS.map((a, i) => [a.path, i]));
    const parentOf = ALLOCS.map((a) => {
      const cut = a.path.lastIndexOf('/');
      return cut < 0 ? -1 : byPath.get(a.path.substring(0, cut));
    });
    const LEAVES = ALLOCS.map((a, i) => i).filter((i) => ALLOCS[i].leaf);   // leaf index -> tree node
    const LEAF_COLOUR = leafColours();

    /**
     * One hue per program (a leaf's parent, or the leaf itself when it hangs off the root), evenly spaced; shades of
     * that hue, nudged in hue as well, tell the projects of a program apart. Readable for 15+ allocations.
     */
    function leafColours() {
      const groupOf = LEAVES.map((n) => (parentOf[n] > 0 ? parentOf[n] : n));
      const groups = [...new Set(groupOf)];
      return LEAVES.map((n, leaf) => {
        const g = groups.indexOf(groupOf[leaf]);
        const members = LEAVES.filter((m, l) => groupOf[l] === groupOf[leaf]);
        const j = members.indexOf(n);
        const m = members.length;
        let hue = (205 + g * 360 / groups.length) % 360;
        let light = 46;
        if (m > 1) {
          hue += (j - (m - 1) / 2) * Math.min(12, 48 / m);
          light = 32 + j * (34 / (m - 1));
        } else if (groups.length > 8) {
          light = g % 2 ? 58 : 40;
        }
        return 'hsl(' + ((hue + 360) % 360).toFixed(0) + ',' + (m > 1 ? 62 : 66) + '%,' + light.toFixed(0) + '%)';
      });
    }

    function chip(leaf) {
      return '<span class="chip" style="background:' + LEAF_COLOUR[leaf] + '"></span>';
    }

    function leafIndexByName(name) {
      return LEAVES.findIndex((n) => ALLOCS[n].name === name);
    }

    // ---------------------------------------------------------------- policies

    const POLICIES = DOC.policies.map((p) => p.policy);
    const RUNS = new Map(DOC.runs.map((r) => [r.policy, r]));
    const METRICS = new Map(DOC.policies.map((p) => [p.policy, p]));
    let current = POLICIES[0];
    R.policies = POLICIES.slice();
    R.colours = LEAF_COLOUR.slice();
    R.policy = () => current;

    function policyColour(name) {
      return POLICY_COLOURS[POLICIES.indexOf(name) % POLICY_COLOURS.length];
    }

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
      timeline.show(name);
      renderUsage();
      renderPreemptions();
    };

    // ---------------------------------------------------------------- summary

    function renderSummary() {
      const s = DOC.scenario;
      const gpusPerNode = DOC.nodes.gpus;
      const shapes = new Map();
      gpusPerNode.forEach((g) => shapes.set(g, (shapes.get(g) || 0) + 1));
      const shape = [...shapes.entries()].map(([g, n]) => n + ' x ' + g + ' GPUs').join(', ');
      $('title').textContent = 'Allot report: ' + s.name;
      $('subtitle').textContent = num(s.nodes) + ' nodes (' + shape + '), ' + num(s.gpus) + ' GPUs, ' + num(s.workloads)
        + ' workloads, ' + POLICIES.length + ' ' + (POLICIES.length === 1 ? 'policy' : 'policies') + ', ' + dur(DOC.runs[0].endSeconds) + ' simulated';

      const w = (cls, q) => (m) => { const x = m.waits[cls]; return x && x[q] !== null ? dur(x[q]) : '–'; };
      const rows = [
        ['Workloads', (m) => num(m.workloads)],
        ['Completed', (m) => num(m.completed), +1],
        ['Stopped for good (not resumable)', (m) => num(m.preemptedFinal), -1],
        ['Unfinished at the end', (m) => num(m.unfinished), -1],
        ['Occupancy', (m) => pct(m.occupancy), +1, (m) => m.occupancy],
        ['Share of busy GPU-time unallocated', (m) => pct(m.unallocatedShare)],
        ['Paid fraction (owed GPU-time received)', (m) => pct(m.paidFraction), +1, (m) => m.paidFraction],
        ['Mean demand / healthy GPUs', (m) => num(m.meanDemandRatio, 2)],
        ['Wait p50, all', w('all', 'p50'), -1, (m) => m.waits.all.p50],
        ['Wait p90, all', w('all', 'p90'), -1, (m) => m.waits.all.p90],
        ['Wait p90, debug', w('debug', 'p90'), -1, (m) => m.waits.debug.p90],
        ['Wait p99, debug', w('debug', 'p99'), -1, (m) => m.waits.debug.p99],
        ['Wait p90, large', w('large', 'p90'), -1, (m) => m.waits.large.p90],
        ['Preemptions', (m) => num(m.preemptions), -1, (m) => m.preemptions],
        ['Drain evictions', (m) => num(m.drainEvictions)],
        ['Requeues', (m) => num(m.requeues)],
        ['Lost GPU-hours', (m) => num(m.lostGpuHours, 1), -1, (m) => m.lostGpuHours],
        ['Node-hours drains waited beyond contracts', (m) => num(m.drainBlockedHours, 1), -1, (m) => m.drainBlockedHours],
        ['Drains (without waiting)', (m) => num(m.drains) + ' (' + num(m.drainsWithoutWaiting) + ')'],
      ];
      const ms = POLICIES.map((p) => METRICS.get(p));
      const head = [{ label: 'Metric', cls: 'text' }].concat(POLICIES.map((p) => ({ label: '<span class="chip" style="background:' + policyColour(p) + '"></span>' + esc(p) })));
      const body = rows.map(([label, f, better, value]) => {
        let best = -1;
        if (better && value && ms.length > 1) {
          const vals = ms.map((m) => { const v = value(m); return v === null || v === undefined ? NaN : v; });
          const finite = vals.filter((v) => !Number.isNaN(v));
          if (finite.length > 1 && new Set(finite).size > 1) {
            const target = better > 0 ? Math.max(...finite) : Math.min(...finite);
            best = vals.indexOf(target);
          }
        }
        return { cells: [label].concat(ms.map((m, i) => ({ html: esc(f(m)), cls: i === best ? 'best' : '' }))), cls: 'best' };
      });
      $('metrics').innerHTML = table(head, body) + '<p class="muted small">Bold: the best policy on that line. Waits run from submission to first start; debug is up to 8 GPUs with a minimum runtime of at most 15 minutes, large is 64 GPUs or more.</p>';

      const inputs = el('div', { class: 'inputs' });
      const tree = ALLOCS.slice(1).map((a, k) => {
        const i = k + 1;
        const depth = a.path.split('/').length - 2;
        const leaf = a.leaf ? LEAVES.indexOf(i) : -1;
        return { cells: [{ html: '&nbsp;'.repeat(depth * 4) + (leaf >= 0 ? chip(leaf) : '') + esc(a.name) }, num(a.share, 0), pct(a.entitlement, 1)] };
      });
      inputs.appendChild(el('div', null, '<h3>Allocation tree</h3>' + table([{ label: 'Allocation', cls: 'text' }, { label: 'Share' }, { label: 'Entitlement' }], tree)));
      const settings = Object.entries(s.settings).map(([k, v]) => [k, v]);
      if (s.trace) {
        for (const [k, v] of Object.entries(s.trace)) settings.push(['trace ' + k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
      }
      inputs.appendChild(el('div', null, '<h3>Cluster and scenario</h3>' + table([{ label: 'Setting', cls: 'text' }, { label: 'Value', cls: 'text' }],
        [['name', s.name], ['nodes', num(s.nodes) + ' (' + shape + ')'], ['node names', DOC.nodes.names[0] + ' … ' + DOC.nodes.names[DOC.nodes.names.length - 1]],
          ['GPUs', num(s.gpus)], ['health events', num(s.healthEvents)], ['workloads', num(s.workloads) + (s.rejected ? ' (' + num(s.rejected) + ' rows skipped)' : '')]]
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

    // ---------------------------------------------------------------- the per-GPU timeline

    const W = DOC.workloads;
    const NODES = DOC.nodes;
    const FIRST_ROW = new Int32Array(NODES.gpus.length + 1);
    NODES.gpus.forEach((g, n) => { FIRST_ROW[n + 1] = FIRST_ROW[n] + g; });
    const ROWS = FIRST_ROW[NODES.gpus.length];
    const ROW_NODE = new Int32Array(ROWS);
    for (let n = 0; n < NODES.gpus.length; n++) ROW_NODE.fill(n, FIRST_ROW[n], FIRST_ROW[n + 1]);
    const WORKLOAD_BY_ID = new Map(W.ids.map((id, i) => [id, i]));

    /** Decodes a run's timeline into per-row bar lists (CSR: rowStart, barRun), sorted by start within a row. */
    function decode(run) {
      const t = run.timeline;
      const n = t.runs;
      const start = new Float64Array(n);
      const end = new Float64Array(n);
      const partAt = new Int32Array(n + 1);
      let s = 0;
      for (let i = 0; i < n; i++) {
        s += t.startDelta[i];
        start[i] = s;
        end[i] = s + t.durationSeconds[i];
        partAt[i + 1] = partAt[i] + t.parts[i];
      }
      const perRow = new Int32Array(ROWS + 1);
      const slots = t.slots;
      for (let k = 0; k < slots.length; k += 3) {
        const row = FIRST_ROW[slots[k]] + slots[k + 1];
        for (let c = 0; c < slots[k + 2]; c++) perRow[row + c + 1]++;
      }
      for (let r = 0; r < ROWS; r++) perRow[r + 1] += perRow[r];
      const fill = perRow.slice(0, ROWS);
      const barRun = new Int32Array(perRow[ROWS]);
      for (let i = 0; i < n; i++) {
        for (let p = partAt[i]; p < partAt[i + 1]; p++) {
          const row = FIRST_ROW[slots[3 * p]] + slots[3 * p + 1];
          for (let c = 0; c < slots[3 * p + 2]; c++) barRun[fill[row + c]++] = i;
        }
      }
      return { t, n, start, end, partAt, rowStart: perRow, barRun, endSeconds: run.endSeconds };
    }

    const timeline = (function () {
      const box = $('tl-box');
      const canvas = $('tl-canvas');
      const scroller = $('tl-scroll');
      const spacer = $('tl-spacer');
      const tip = $('tl-tip');
      const ctx = canvas.getContext('2d');
      const GUTTER = 118;
      const AXIS = 26;
      const SCROLLBAR = 16;
      const cache = new Map();
      let d = null;
      let t0 = 0;
      let t1 = 1;
      let rowH = 2;
      let width = 0;
      let height = 0;
      let highlight = -1;
      let barsDrawn = 0;
      let hover = null;
      const hatch = makeHatch();

      function makeHatch() {
        const c = document.createElement('canvas');
        c.width = c.height = 6;
        const g = c.getContext('2d');
        g.strokeStyle = 'rgba(255,255,255,0.75)';
        g.lineWidth = 1.6;
        g.beginPath();
        g.moveTo(0, 6); g.lineTo(6, 0);
        g.moveTo(-1, 1); g.lineTo(1, -1);
        g.moveTo(5, 7); g.lineTo(7, 5);
        g.stroke();
        return ctx.createPattern(c, 'repeat');
      }

      function plotW() { return width - GUTTER - SCROLLBAR; }
      function plotH() { return height - AXIS; }
      function xOf(t) { return GUTTER + (t - t0) / (t1 - t0) * plotW(); }
      function tOf(x) { return t0 + (x - GUTTER) / plotW() * (t1 - t0); }

      function resize() {
        const dpr = window.devicePixelRatio || 1;
        width = box.clientWidth;
        height = box.clientHeight;
        canvas.width = Math.round(width * dpr);
        canvas.height = Math.round(height * dpr);
        canvas.style.width = width + 'px';
        canvas.style.height = height + 'px';
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        spacer.style.height = (ROWS * rowH + 4) + 'px';
      }

      function show(policy) {
        if (!cache.has(policy)) cache.set(policy, decode(RUNS.get(policy)));
        d = cache.get(policy);
        t0 = 0;
        t1 = Math.max(d.endSeconds, 60);
        draw();
      }

      /**
       * Sets the height of a GPU row in pixels; 0 fits the whole cluster in view, and when that leaves less than a
       * pixel per GPU, each pixel row shows one GPU of the several it stands for (a sample, like a scaled image).
       */
      function setRowHeight(px) {
        const top = scroller.scrollTop / rowH;
        rowH = px > 0 ? px : fitRowHeight();
        $('tl-row').value = String(px);
        spacer.style.height = (ROWS * rowH + 4) + 'px';
        scroller.scrollTop = top * rowH;
        draw();
      }

      function setRange(a, b, later) {
        const span = Math.max(60, b - a);
        const maxT = Math.max(d.endSeconds, 60);
        a = Math.max(0, Math.min(a, maxT - span));
        t0 = a;
        t1 = Math.min(maxT, a + span);
        if (later) drawSoon(); else draw();
      }

      /** Redraws at the next frame: a burst of wheel, drag or scroll events costs one drawing per frame. */
      let pending = false;
      function drawSoon() {
        if (pending) return;
        pending = true;
        requestAnimationFrame(() => { pending = false; draw(); });
      }

      function zoom(factor, centreT, later) {
        const c = centreT === undefined ? (t0 + t1) / 2 : centreT;
        setRange(c - (c - t0) * factor, c + (t1 - c) * factor, later);
      }

      /** First bar of a row whose end is after t (bars of a row do not overlap, so ends ascend with starts). */
      function firstEndingAfter(row, t) {
        let lo = d.rowStart[row];
        let hi = d.rowStart[row + 1];
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (d.end[d.barRun[mid]] <= t) lo = mid + 1; else hi = mid;
        }
        return lo;
      }

      function visibleRows() {
        const top = scroller.scrollTop;
        const first = Math.max(0, Math.floor(top / rowH));
        const last = Math.min(ROWS, Math.ceil((top + plotH()) / rowH));
        return [first, last, top];
      }

      function draw() {
        if (!d) return;
        const t = d.t;
        ctx.clearRect(0, 0, width, height);
        ctx.fillStyle = '#fbfcfd';
        ctx.fillRect(GUTTER, AXIS, plotW(), plotH());
        const [first, last, top] = visibleRows();
        const yOfRow = (r) => AXIS + r * rowH - top;
        ctx.save();
        ctx.beginPath();
        ctx.rect(GUTTER, AXIS, plotW(), plotH());
        ctx.clip();
        // Node periods: unhealthy (red) and drained (grey) behind the bars.
        for (let i = 0; i < t.periodNode.length; i++) {
          const n = t.periodNode[i];
          if (FIRST_ROW[n + 1] <= first || FIRST_ROW[n] >= last) continue;
          if (t.periodToSeconds[i] <= t0 || t.periodFromSeconds[i] >= t1) continue;
          const x = xOf(Math.max(t0, t.periodFromSeconds[i]));
          const w = Math.max(1, xOf(Math.min(t1, t.periodToSeconds[i])) - x);
          ctx.fillStyle = t.periodState[i] === 0 ? 'rgba(214,39,40,0.16)' : 'rgba(90,90,90,0.28)';
          ctx.fillRect(x, yOfRow(FIRST_ROW[n]), w, NODES.gpus[n] * rowH);
        }
        const gap = rowH >= 4 ? 1 : 0;
        const h = Math.max(1, rowH - gap);
        // Batched: one path per allocation colour, one for the hatching, one for the red outlines, each filled or
        // stroked once. Edges snap to whole pixels, so the rasteriser takes its fast path for thousands of bars.
        const fills = LEAF_COLOUR.map(() => new Path2D());
        const unknown = new Path2D();
        const hatched = new Path2D();
        const outlines = new Path2D();
        const marks = new Path2D();
        let drawn = 0;
        const step = rowH >= 1 ? 1 : Math.ceil(1 / rowH);
        for (let row = first - first % step; row < last; row += step) {
          const y = Math.round(yOfRow(row));
          const stop = d.rowStart[row + 1];
          let lastX = -1;
          for (let b = firstEndingAfter(row, t0); b < stop; b++) {
            const r = d.barRun[b];
            const s = d.start[r];
            if (s >= t1) break;
            const e = d.end[r];
            const x = Math.round(xOf(Math.max(s, t0)));
            const x2 = Math.round(xOf(Math.min(e, t1)));
            if (x2 <= lastX) continue;                  // within a pixel already drawn on this row
            const xs = Math.max(x, lastX);
            const w = Math.max(1, x2 - xs);
            lastX = xs + w;
            const leaf = W.allocation[t.workload[r]];
            (leaf >= 0 ? fills[leaf] : unknown).rect(xs, y, w, h);
            const p = t.protectedSeconds[r];
            if (p >= 0 && w >= 2) {
              const xp = Math.max(xs, Math.round(xOf(Math.max(t0, s + p))));
              if (xp < x2) hatched.rect(xp, y, x2 - xp, h);
            }
            if (t.end[r] === 1 || t.end[r] === 2) {
              if (h >= 4 && w >= 4) outlines.rect(xs + 0.5, y + 0.5, w - 1, h - 1);
              else if (e < t1 && w >= 3) marks.rect(xs + w - 1, y, 1, h);
            }
            drawn++;
          }
        }
        fills.forEach((path, leaf) => {
          ctx.globalAlpha = highlight >= 0 && leaf !== highlight ? 0.12 : 1;
          ctx.fillStyle = LEAF_COLOUR[leaf];
          ctx.fill(path);
        });
        ctx.globalAlpha = highlight >= 0 ? 0.12 : 1;
        ctx.fillStyle = '#888';
        ctx.fill(unknown);
        ctx.globalAlpha = 1;
        ctx.fillStyle = hatch;
        ctx.fill(hatched);
        // Preempted runs: a red outline (or a red end mark on thin rows), on top of every bar.
        ctx.strokeStyle = '#e00000';
        ctx.lineWidth = 1;
        ctx.stroke(outlines);
        ctx.fillStyle = '#e00000';
        ctx.fill(marks);
        ctx.globalAlpha = 1;
        ctx.restore();
        barsDrawn = drawn;
        drawGutter(first, last, yOfRow);
        drawAxis();
        $('tl-range').textContent = at(t0) + ' – ' + at(t1) + ' (' + dur(t1 - t0) + '), ' + num(ROWS) + ' GPUs';
        if (R.firstPaintMs === null) R.firstPaintMs = Math.round(performance.now());
      }

      function drawGutter(first, last, yOfRow) {
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, AXIS, GUTTER, plotH());
        ctx.font = '11px system-ui, sans-serif';
        ctx.textBaseline = 'middle';
        let lastLabelY = -100;
        for (let n = ROW_NODE[first] || 0; n < NODES.gpus.length && FIRST_ROW[n] < last; n++) {
          const y = yOfRow(FIRST_ROW[n]);
          const hh = NODES.gpus[n] * rowH;
          if (y >= AXIS && hh >= 4) {
            ctx.fillStyle = '#c9d0d6';
            ctx.fillRect(GUTTER - 6, y, plotW() + 6, 0.6);
          }
          const mid = Math.max(AXIS + 6, y + hh / 2);
          if (mid - lastLabelY >= 12 && mid < height - 4) {
            ctx.fillStyle = '#3c4650';
            ctx.fillText(NODES.names[n], 6, mid);
            lastLabelY = mid;
          }
        }
      }

      function drawAxis() {
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, width, AXIS);
        const steps = [60, 300, 900, 1800, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY];
        const perPx = (t1 - t0) / plotW();
        const step = steps.find((s) => s / perPx >= 90) || steps[steps.length - 1];
        ctx.font = '11px system-ui, sans-serif';
        ctx.textBaseline = 'middle';
        ctx.fillStyle = '#3c4650';
        for (let s = Math.ceil(t0 / step) * step; s <= t1; s += step) {
          const x = xOf(s);
          ctx.fillStyle = '#c9d0d6';
          ctx.fillRect(x, AXIS - 6, 1, 6);
          ctx.fillStyle = '#3c4650';
          const label = step >= DAY ? 'day ' + Math.round(s / DAY) : at(s);
          if (x + 3 < width - SCROLLBAR - 40) ctx.fillText(label, x + 3, AXIS / 2);
        }
        ctx.fillStyle = '#9aa5b0';
        ctx.fillRect(GUTTER, AXIS - 1, plotW(), 1);
      }

      /** The bar under a point of the canvas, as {run, row}; a little slack on thin bars. */
      function barAt(x, y) {
        if (!d || x < GUTTER || y < AXIS || x > width - SCROLLBAR) return null;
        let row = Math.floor((y - AXIS + scroller.scrollTop) / rowH);
        if (rowH < 1) row -= row % Math.ceil(1 / rowH);
        if (row < 0 || row >= ROWS) return null;
        const slack = 2 * (t1 - t0) / plotW();
        const t = tOf(x);
        const stop = d.rowStart[row + 1];
        for (let b = firstEndingAfter(row, t - slack); b < stop; b++) {
          const r = d.barRun[b];
          if (d.start[r] > t + slack) break;
          return { run: r, row };
        }
        return null;
      }

      function describe(hit) {
        const t = d.t;
        const r = hit.run;
        const wl = t.workload[r];
        const leaf = W.allocation[wl];
        const path = leaf >= 0 ? ALLOCS[LEAVES[leaf]].path : '(unknown allocation)';
        const min = W.minRuntimeSeconds[wl];
        const contract = min === 0 ? 'unallocated (minimum runtime 0: free, always preemptible)'
          : 'minimum runtime ' + dur(min) + ', ' + (W.resumable[wl] ? 'resumable' : 'not resumable');
        const endKind = ['completed', 'preempted', 'preempted and requeued', 'still running at the end'][t.end[r]];
        let why = endKind;
        if (t.cause[r] >= 0) {
          const cause = { UNALLOCATED: 'it ran unallocated', FAIR_SHARE: 'fair share', PRIORITY: 'priority', HOST_DRAIN: 'its host was drained' }[CAUSES[t.cause[r]]] || CAUSES[t.cause[r]];
          why += ' (' + cause + (t.preemptor[r] >= 0 ? '; for ' + W.ids[t.preemptor[r]] : '') + ')';
        }
        const where = [];
        for (let p = d.partAt[r]; p < d.partAt[r + 1]; p++) {
          const n = t.slots[3 * p];
          const first = t.slots[3 * p + 1];
          const count = t.slots[3 * p + 2];
          where.push(NODES.names[n] + ' GPU ' + (count > 1 ? first + '-' + (first + count - 1) : first));
        }
        const protectedFor = t.protectedSeconds[r];
        return {
          id: W.ids[wl],
          html: '<b>' + esc(W.ids[wl]) + '</b> ' + chip(leaf) + esc(path)
            + '<div class="row">' + W.gpus[wl] + ' GPUs · ' + esc(W.kinds[W.kind[wl]]) + ' · priority ' + esc(W.priorities[W.priority[wl]]) + '</div>'
            + '<div class="row">' + esc(contract) + '</div>'
            + '<div class="row">ran ' + at(d.start[r]) + ' – ' + at(d.end[r]) + ' (' + dur(d.end[r] - d.start[r]) + ')'
            + (protectedFor > 0 ? ', protected for ' + dur(protectedFor) : protectedFor < 0 ? ', protected throughout' : '') + '</div>'
            + '<div class="row">submitted ' + at(W.submitSeconds[wl]) + ', needs ' + dur(W.durationSeconds[wl]) + ' of work</div>'
            + '<div class="row">ended: ' + esc(why) + '</div>'
            + '<div class="row muted">' + esc(where.join(', ')) + '</div>',
        };
      }

      const CAUSES = ['UNALLOCATED', 'FAIR_SHARE', 'PRIORITY', 'HOST_DRAIN'];

      function onMove(ev) {
        const rect = canvas.getBoundingClientRect();
        const hit = barAt(ev.clientX - rect.left, ev.clientY - rect.top);
        if (!hit) {
          tip.hidden = true;
          hover = null;
          return;
        }
        const info = describe(hit);
        hover = info.id;
        tip.innerHTML = info.html;
        tip.hidden = false;
        const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
        const y = ev.clientY + 16 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 16;
        tip.style.left = x + 'px';
        tip.style.top = y + 'px';
      }

      let dragFrom = null;
      canvas.addEventListener('mousedown', (ev) => {
        dragFrom = { x: ev.clientX, t0, t1, top: scroller.scrollTop, y: ev.clientY };
        canvas.classList.add('dragging');
      });
      window.addEventListener('mouseup', () => { dragFrom = null; canvas.classList.remove('dragging'); });
      window.addEventListener('mousemove', (ev) => {
        if (!dragFrom) return;
        const dt = (ev.clientX - dragFrom.x) / plotW() * (dragFrom.t1 - dragFrom.t0);
        scroller.scrollTop = dragFrom.top - (ev.clientY - dragFrom.y);
        setRange(dragFrom.t0 - dt, dragFrom.t1 - dt, true);
      });
      canvas.addEventListener('mousemove', onMove);
      canvas.addEventListener('mouseleave', () => { tip.hidden = true; hover = null; });
      canvas.addEventListener('wheel', (ev) => {
        ev.preventDefault();
        if (ev.shiftKey) {
          scroller.scrollTop += ev.deltaY;
          return;
        }
        const rect = canvas.getBoundingClientRect();
        const x = ev.clientX - rect.left;
        zoom(ev.deltaY > 0 ? 1.25 : 0.8, x >= GUTTER ? tOf(x) : undefined, true);
      }, { passive: false });
      scroller.addEventListener('scroll', () => drawSoon());
      $('tl-zoom-in').addEventListener('click', () => zoom(0.5));
      $('tl-zoom-out').addEventListener('click', () => zoom(2));
      $('tl-reset').addEventListener('click', () => setRange(0, d.endSeconds));
      $('tl-row').addEventListener('change', (ev) => setRowHeight(Number(ev.target.value)));
      $('tl-clear').addEventListener('click', () => { highlight = -1; $('tl-jump').value = ''; draw(); });
      $('tl-jump').addEventListener('change', (ev) => jump(ev.target.value));

      /** Jumps to a node (scrolls to its GPUs) or an allocation (highlights its bars, scrolls to its first one). */
      function jump(text) {
        const q = text.trim().replace(/^(node|allocation) /, '');
        const node = NODES.names.indexOf(q);
        if (node >= 0) {
          scroller.scrollTop = FIRST_ROW[node] * rowH;
          draw();
          return 'node';
        }
        const leaf = leafIndexByName(q) >= 0 ? leafIndexByName(q) : LEAVES.findIndex((n) => ALLOCS[n].path === q);
        if (leaf >= 0) {
          highlight = leaf;
          for (let row = 0; row < ROWS; row++) {
            let found = false;
            for (let b = d.rowStart[row]; b < d.rowStart[row + 1]; b++) {
              if (W.allocation[d.t.workload[d.barRun[b]]] === leaf) { found = true; break; }
            }
            if (found) { scroller.scrollTop = Math.max(0, (row - 2) * rowH); break; }
          }
          draw();
          return 'allocation';
        }
        return null;
      }

      function fillJumpList() {
        const list = $('tl-jump-list');
        const opts = NODES.names.map((n) => 'node ' + n).concat(LEAVES.map((n) => 'allocation ' + ALLOCS[n].name));
        list.innerHTML = opts.map((o) => '<option value="' + esc(o) + '">').join('');
        const legend = $('tl-legend');
        let html = '';
        let group = null;
        LEAVES.forEach((n, leaf) => {
          const g = parentOf[n] > 0 ? ALLOCS[parentOf[n]].name : null;
          if (g !== group && g !== null) html += '<span class="group">' + esc(g) + '</span>';
          group = g;
          html += '<span class="item" data-leaf="' + leaf + '">' + chip(leaf) + esc(ALLOCS[n].name) + '</span>';
        });
        legend.innerHTML = html;
        legend.querySelectorAll('.item').forEach((s) => s.addEventListener('click', () => {
          const leaf = Number(s.getAttribute('data-leaf'));
          highlight = highlight === leaf ? -1 : leaf;
          draw();
        }));
      }

      /** The row height that shows every GPU at once: whole pixels if it can, else a fraction. */
      function fitRowHeight() {
        const fit = (box.clientHeight - AXIS) / ROWS;
        return fit >= 1 ? Math.floor(fit) : fit;
      }

      function init() {
        fillJumpList();
        resize();
        const fit = fitRowHeight();
        rowH = fit < 1 ? fit : [1, 2, 3, 4, 6, 8, 12, 16].filter((v) => v <= fit).pop();
        $('tl-row').value = fit < 1 ? '0' : String(rowH);
        spacer.style.height = (ROWS * rowH + 4) + 'px';
        window.addEventListener('resize', () => { resize(); draw(); });
      }

      /** Where the middle of a run of a workload is drawn, in viewport coordinates (scrolls and zooms to it). */
      function locate(id) {
        const wl = WORKLOAD_BY_ID.get(id);
        if (wl === undefined) throw new Error('no workload ' + id);
        let r = -1;
        for (let i = 0; i < d.n; i++) if (d.t.workload[i] === wl) { r = i; break; }
        if (r < 0) return null;
        const p = d.partAt[r];
        const row = FIRST_ROW[d.t.slots[3 * p]] + d.t.slots[3 * p + 1];
        if (d.start[r] < t0 || d.end[r] > t1) {
          const pad = (d.end[r] - d.start[r]) * 0.5 + 60;
          setRange(d.start[r] - pad, d.end[r] + pad);
        }
        const [first, last] = visibleRows();
        if (row < first || row >= last) scroller.scrollTop = Math.max(0, (row - 3) * rowH);
        draw();
        const y = AXIS + row * rowH - scroller.scrollTop;
        const before = canvas.getBoundingClientRect();
        if (before.top + y < 80 || before.top + y > window.innerHeight - 10) box.scrollIntoView({ block: 'center' });
        const rect = canvas.getBoundingClientRect();
        const mid = (Math.max(d.start[r], t0) + Math.min(d.end[r], t1)) / 2;
        return { x: Math.round(rect.left + xOf(mid)), y: Math.round(rect.top + AXIS + row * rowH - scroller.scrollTop + rowH / 2), row };
      }

      return {
        init, show, draw, locate, jump,
        range: () => [t0, t1],
        setRange, zoom, setRowHeight,
        rowHeight: () => rowH,
        rows: () => ROWS,
        barsDrawn: () => barsDrawn,
        hovered: () => (tip.hidden ? null : hover),
        tipText: () => (tip.hidden ? '' : tip.textContent),
      };
    })();
    R.timeline = timeline;

    // ---------------------------------------------------------------- charts (uPlot)

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
          num(a.unallocatedGpuHours, 0), num(a.preemptions), dur(a.waits.p90)],
      }));
      $('paid-table').innerHTML = table([{ label: 'Allocation' }, { label: 'Entitled' }, { label: 'Owed GPU-h' }, { label: 'Received GPU-h' },
        { label: 'Paid' }, { label: 'Unallocated GPU-h' }, { label: 'Preempted' }, { label: 'Wait p90' }], rows);

      // Roll up programs: sums of owed, received and paid (paid fraction x owed) over the leaves below each node.
      const agg = ALLOCS.map(() => ({ owed: 0, received: 0, paid: 0, unalloc: 0, preempted: 0, workloads: 0 }));
      m.allocations.forEach((a, leaf) => {
        for (let n = LEAVES[leaf]; n >= 0; n = parentOf[n]) {
          const g = agg[n];
          g.owed += a.owedGpuHours;
          g.received += a.receivedGpuHours;
          g.paid += (a.paidFraction || 0) * a.owedGpuHours;
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
            num(g.owed, 0), num(g.received, 0), g.owed > 0 ? pct(g.paid / g.owed) : '–', num(g.unalloc, 0), num(g.preempted)],
        };
      });
      $('tree-table').innerHTML = table([{ label: 'Allocation' }, { label: 'Entitled' }, { label: 'Owed GPU-h' },
        { label: 'Received GPU-h' }, { label: 'Paid' }, { label: 'Unallocated GPU-h' }, { label: 'Preempted' }], treeRows)
        + '<p class="muted small">Owed: each hour, the smaller of the entitlement and what the allocation\'s allocated work asked for. Paid: owed GPU-time received, summed hour by hour.</p>';
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
    R.charts = function () {
      const out = [];
      for (const [id, u] of charts) {
        let points = 0;
        for (let s = 1; s < u.data.length; s++) for (const v of u.data[s]) if (v !== null && v !== 0) points++;
        out.push({ id, series: u.series.length - 1, points, width: u.width, height: u.height });
      }
      return out;
    };

    // ---------------------------------------------------------------- start

    function start() {
      renderSummary();
      timeline.init();
      renderTabs();
      timeline.show(current);
      renderUsage();
      renderWaits();
      renderPreemptions();
      window.addEventListener('resize', () => {
        for (const u of charts.values()) u.setSize({ width: chartWidth(u.root.parentElement), height: u.height });
      });
      R.ready = true;
      R.drawnMs = Math.round(performance.now());
      if (location.hash.length > 1 && document.getElementById(location.hash.substring(1))) {
        document.getElementById(location.hash.substring(1)).scrollIntoView();
      }
      console.info('allot report: data read at ' + R.dataMs + ' ms, timeline painted at ' + R.firstPaintMs
        + ' ms, everything drawn at ' + R.drawnMs + ' ms after navigation');
    }

    R.dataMs = Math.round(performance.now());
    start();
  }

  /**
   * The embedded document: gzip-compressed JSON in base64 (a third to a fifth of the plain size), inflated with the
   * browser's own DecompressionStream; plain JSON is read as it is.
   */
  async function load() {
    const holder = document.getElementById('allot-data');
    const text = holder.textContent.trim();
    if (holder.type === 'application/json') return JSON.parse(text);
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(inflated).text());
  }

  load().then(main).catch((e) => {
    R.error = String(e && e.stack || e);
    const box = document.createElement('pre');
    box.className = 'load-error';
    box.textContent = 'The report could not be drawn: ' + R.error;
    document.body.insertBefore(box, document.body.firstChild);
    throw e;
  });
})();
