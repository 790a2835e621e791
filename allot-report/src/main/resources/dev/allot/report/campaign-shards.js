/*
 * The shards' view of the campaign report (own canvas code): one row per shard, longest work first, each of its runs
 * as a bar, protected or unallocated, with promotions, restarts and preemptions marked, every strategy's end as a
 * vertical line, and a tooltip naming the shard and run under the mouse. V gives the seed, a strategy's run and
 * the strategy shown.
 */
const ROW = 15;
const AXIS = 26;
const LABEL = 190;

function createShardView(M, V) {
  const { SHARDS, N, ENDS, colour, workSeconds, ORDER, ROW_OF, hours, shortId, shardsOf, protectedSeconds } = M;
  const gantt = { bars: 0, hovered: null, tip: '', geometry: null };
  const seed = V.seed;
  const runOf = V.runOf;

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
    const run = runOf(V.strategy());
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
      g.lineWidth = r.strategy === V.strategy() ? 2 : 1;
      g.setLineDash(r.strategy === V.strategy() ? [] : [4, 3]);
      g.beginPath();
      g.moveTo(x, AXIS - 2);
      g.lineTo(x, height);
      g.stroke();
      g.setLineDash([]);
      if (r.strategy === V.strategy()) {
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
    const run = runOf(V.strategy());
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
    const run = runOf(V.strategy());
    const a = run.attempts;
    const s = seed();
    const i = h.shard;
    const sh = shardsOf(run)[i];
    const rel = (t) => '+' + num(hours(t - s.fromSeconds), 2) + 'h';
    const lines = [SHARDS.id[i] + ': ' + SHARDS.family[i] + ', ' + num(SHARDS.units[i]) + ' units of ' + dur(SHARDS.secondsPerUnit[i])
      + ' (' + num(hours(workSeconds[i]), 1) + 'h of work)',
    'first start ' + (sh.firstStart === null ? 'never' : rel(sh.firstStart)) + ', ' + (sh.end >= 0 ? 'done ' + rel(sh.end) : 'unfinished')
      + ', ' + count(sh.runs.length, 'run') + ', protected ' + num(hours(protectedSeconds(run, i)), 1) + 'h'];
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

  const state = {
    barsDrawn: () => gantt.bars,
    hovered: () => gantt.hovered,
    tipText: () => gantt.tip,
    /** Viewport coordinates of the middle of a shard's first run under the strategy shown, for tests. */
    locate(id) {
      const shard = SHARDS.id.indexOf(id);
      if (shard < 0) throw new Error('no shard ' + id);
      const run = runOf(V.strategy());
      const k = shardsOf(run)[shard].runs[0];
      const G = gantt.geometry;
      const r = G.canvas.getBoundingClientRect();
      const mid = (run.attempts.startSeconds[k] + run.attempts.endSeconds[k]) / 2;
      return { x: Math.round(r.left + G.x(mid)), y: Math.round(r.top + G.y(ROW_OF[shard]) + ROW / 2) };
    },
  };

  return { draw: drawGantt, installHover, renderLegend, state };
}
