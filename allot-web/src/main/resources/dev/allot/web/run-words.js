/**
 * A run of the per-GPU timeline in words: what its tooltip says of the run under the mouse (its workload and
 * allocation, its contract, when it ran and how long it was protected, when it was submitted, why it ended, where it
 * ran). Apart from timeline.js, which draws the runs and handles the mouse: these words change with what a run
 * carries, the drawing with how runs are shown. M is the timeline's model (model.js, or the live page's: M.endWords
 * and M.runNote(run) add to the words), d the decoded run (M.decode), r a run's index in it, and when(seconds) an
 * instant's words. Answers the workload's id and the tooltip's HTML (every text from the data escaped).
 */
const RUN_CAUSES = ['UNALLOCATED', 'FAIR_SHARE', 'PRIORITY', 'HOST_DRAIN'];

function describeRun(M, d, r, when) {
  const { ALLOCS, LEAVES, W, NODES, chip } = M;
  const t = d.t;
  const wl = t.workload[r];
  const leaf = W.allocation[wl];
  const path = leaf >= 0 ? ALLOCS[LEAVES[leaf]].path : '(unknown allocation)';
  const min = W.minRuntimeSeconds[wl];
  const contract = min === 0 ? 'unallocated (minimum runtime 0: free, always preemptible)'
    : 'minimum runtime ' + dur(min) + ', ' + (W.resumable[wl] ? 'resumable' : 'not resumable');
  const endKind = (M.endWords || ['completed', 'preempted', 'preempted and requeued', 'still running at the end'])[t.end[r]];
  let why = endKind;
  if (t.cause[r] >= 0) {
    const cause = { UNALLOCATED: 'it ran unallocated', FAIR_SHARE: 'fair share', PRIORITY: 'priority', HOST_DRAIN: 'its host was drained' }[RUN_CAUSES[t.cause[r]]] || RUN_CAUSES[t.cause[r]];
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
      + '<div class="row">ran ' + when(d.start[r]) + ' – ' + when(d.end[r]) + ' (' + dur(d.end[r] - d.start[r]) + ')'
      + (protectedFor > 0 ? ', protected for ' + dur(protectedFor) : protectedFor < 0 ? ', protected throughout' : '') + '</div>'
      + '<div class="row">submitted ' + when(W.submitSeconds[wl])
      + (W.durationSeconds[wl] >= 0 ? ', needs ' + dur(W.durationSeconds[wl]) + ' of work' : '') + '</div>'
      + '<div class="row">ended: ' + esc(why) + '</div>'
      + (M.runNote ? '<div class="row">' + esc(M.runNote(r)) + '</div>' : '')
      + '<div class="row muted">' + esc(where.join(', ')) + '</div>',
  };
}
