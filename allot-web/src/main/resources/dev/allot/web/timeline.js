/**
 * The per-GPU timeline: one canvas row per GPU, one bar per run, drawn from the decoded columnar runs, batched
 * per colour. Owns its toolbar (zoom, row height, jump), hover tooltip and mouse handling. Shared by the report and
 * the service's live timeline page: time 0 is the start of the run, or of the live window (M.originSeconds, epoch
 * seconds, then aligns the axis and M.formatInstant / M.formatDay label it); setModel swaps in newer live data.
 * What the tooltip says of a run is run-words.js's.
 */
function createTimeline(M, R) {
  let { ALLOCS, parentOf, LEAVES, LEAF_COLOUR, chip, leafIndexByName, loadRun, W, NODES, FIRST_ROW, ROWS, ROW_NODE,
    WORKLOAD_BY_ID, decode } = M;
  const when = (s) => (M.formatInstant ? M.formatInstant(s) : at(s));
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
  let wanted = null;
  let shown = null;
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

  /** Shows a policy's runs, once its timeline is read (the last policy asked for wins); resolves when drawn. */
  function show(policy) {
    wanted = policy;
    return loadRun(policy).then((run) => {
      if (wanted !== policy) return;
      if (!cache.has(policy)) cache.set(policy, decode(run));
      d = cache.get(policy);
      shown = policy;
      t0 = 0;
      t1 = Math.max(d.endSeconds, 60);
      draw();
    });
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
    // Node periods: unhealthy (red) and drained (grey) behind the bars, and as a band along the node's top edge over
    // them (drawn last), so that a node whose GPUs are all busy still shows it.
    const periods = [];
    for (let i = 0; i < t.periodNode.length; i++) {
      const n = t.periodNode[i];
      if (FIRST_ROW[n + 1] <= first || FIRST_ROW[n] >= last) continue;
      if (t.periodToSeconds[i] <= t0 || t.periodFromSeconds[i] >= t1) continue;
      const x = xOf(Math.max(t0, t.periodFromSeconds[i]));
      const w = Math.max(1, xOf(Math.min(t1, t.periodToSeconds[i])) - x);
      ctx.fillStyle = t.periodState[i] === 0 ? 'rgba(214,39,40,0.16)' : 'rgba(90,90,90,0.28)';
      ctx.fillRect(x, yOfRow(FIRST_ROW[n]), w, NODES.gpus[n] * rowH);
      periods.push([i, x, w]);
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
    for (const [i, x, w] of periods) {
      const n = t.periodNode[i];
      ctx.fillStyle = t.periodState[i] === 0 ? '#d62728' : '#5a5a5a';
      ctx.fillRect(x, yOfRow(FIRST_ROW[n]), w, Math.min(3, Math.max(1, NODES.gpus[n] * rowH / 4)));
    }
    ctx.restore();
    barsDrawn = drawn;
    drawGutter(first, last, yOfRow);
    drawAxis();
    $('tl-range').textContent = when(t0) + ' – ' + when(t1) + ' (' + dur(t1 - t0) + '), ' + num(ROWS) + ' GPUs';
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
    const origin = M.originSeconds || 0;
    for (let s = Math.ceil((t0 + origin) / step) * step - origin; s <= t1; s += step) {
      const x = xOf(s);
      ctx.fillStyle = '#c9d0d6';
      ctx.fillRect(x, AXIS - 6, 1, 6);
      ctx.fillStyle = '#3c4650';
      const label = step >= DAY ? (M.formatDay ? M.formatDay(s) : 'day ' + Math.round(s / DAY)) : when(s);
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

  function onMove(ev) {
    const rect = canvas.getBoundingClientRect();
    const hit = barAt(ev.clientX - rect.left, ev.clientY - rect.top);
    if (!hit) {
      tip.hidden = true;
      hover = null;
      return;
    }
    const info = describeRun(M, d, hit.run, when);
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

  let listed = null;
  function fillJumpList() {
    const key = JSON.stringify([NODES.names, LEAVES.map((n) => ALLOCS[n].path), LEAF_COLOUR]);
    if (key === listed) return;
    listed = key;
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

  /**
   * Replaces the model with newer data (the live page's next poll: nodes, workloads and runs may all have changed)
   * and redraws in the same frame, so nothing flickers. The view stays: the whole span if the whole span was shown,
   * else the same instants, moved back by shiftSeconds (how far the new model's time 0 is after the old one's); the
   * scroll position and the highlighted allocation (by name) too. Resolves when drawn.
   */
  function setModel(m, shiftSeconds) {
    const whole = !d || (t0 <= 0 && t1 >= Math.max(d.endSeconds, 60));
    const [a, b] = [t0 - (shiftSeconds || 0), t1 - (shiftSeconds || 0)];
    const highlighted = highlight >= 0 ? ALLOCS[LEAVES[highlight]].path : null;
    M = m;
    ({ ALLOCS, parentOf, LEAVES, LEAF_COLOUR, chip, leafIndexByName, loadRun, W, NODES, FIRST_ROW, ROWS, ROW_NODE,
      WORKLOAD_BY_ID, decode } = m);
    highlight = highlighted === null ? -1 : LEAVES.findIndex((n) => ALLOCS[n].path === highlighted);
    cache.clear();
    fillJumpList();
    if ($('tl-row').value === '0') rowH = fitRowHeight();
    spacer.style.height = (ROWS * rowH + 4) + 'px';
    const policy = shown;
    wanted = policy;
    return loadRun(policy).then((run) => {
      if (wanted !== policy) return;
      d = decode(run);
      cache.set(policy, d);
      if (whole) {
        t0 = 0;
        t1 = Math.max(d.endSeconds, 60);
        draw();
      } else {
        setRange(a, b);
      }
    });
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
    init, show, draw, locate, jump, setModel,
    policy: () => shown,
    range: () => [t0, t1],
    setRange, zoom, setRowHeight,
    rowHeight: () => rowH,
    rows: () => ROWS,
    barsDrawn: () => barsDrawn,
    hovered: () => (tip.hidden ? null : hover),
    tipText: () => (tip.hidden ? '' : tip.textContent),
  };
}
