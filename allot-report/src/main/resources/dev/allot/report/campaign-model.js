/*
 * What the campaign report reads from its document once: the strategies and their colours, the shards (longest work
 * first: the rows of the shards' view) and, per run, what its books say about each shard (its runs in order, first
 * start, end, hours protected).
 */
const STRATEGY_COLOURS = ['#2459a8', '#d9822b', '#2e9e5b', '#8e44ad', '#c0392b', '#16a085', '#7f6d00', '#5d6d7e'];
const PROTECTED = '#2459a8';
const UNALLOCATED = '#f0b44c';
const WAITING = '#b9c1c9';
const PREEMPTED = '#d62728';
const RESTARTED = '#1d2329';
const PROMOTED = '#2e9e5b';

function campaignModel(DOC) {
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
  const hours = (s) => s / HOUR;
  const seedLabel = (s) => (s.seed === null ? 'the scenario' : 'seed ' + s.seed);
  /** A shard's id without the campaign's name: s07. */
  const shortId = (i) => SHARDS.id[i].replace(/^.*-(s\d+)$/, '$1');

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

  /** The shard that finished last, or the first one that did not finish when the campaign did not. */
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

  return { STRATEGIES, SHARDS, N, ENDS, colour, workSeconds, ORDER, ROW_OF, hours, seedLabel, shortId, shardsOf,
    lastShard, protectedSeconds };
}
