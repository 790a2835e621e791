/*
 * The live GPU timeline page (/timeline): polls GET /v1/timeline and draws it with the report's own timeline code
 * (allot-web: format.js, model.js, timeline.js, concatenated before this file in one function scope). Each poll
 * swaps the new data in with timeline.setModel, which redraws within the same frame, keeping the zoom and the
 * scroll position, so nothing flickers. window.allotTimeline exposes the state the browser tests check.
 */
const LIVE = 'live';
const P = window.allotTimeline = { ready: false, firstPaintMs: null, error: null, polls: 0, runs: 0, hours: 24 };
const pollSeconds = Math.max(1, Number(new URLSearchParams(location.search).get('poll')) || 12);

/**
 * The dashboard's session (dashboard.js, loaded before this page's script): the session cookie authenticates the
 * calls, and a signed-out browser is sent to the sign-in page (Allot.api does that on a 401 too).
 */
async function fetchTimeline(hours) {
  return Allot.api('/v1/timeline?hours=' + hours);
}

/** An instant, seconds since the epoch, in UTC: 03-01 09:00. */
function utc(epochSeconds) {
  return new Date(epochSeconds * 1000).toISOString().slice(5, 16).replace('T', ' ');
}

/** The model the timeline draws: the answer laid out as a report document with one run, and wall-clock labels. */
function liveModel(v) {
  const run = { policy: LIVE, endSeconds: v.endSeconds, timeline: v.timeline };
  const doc = {
    scenario: { allocations: v.allocations }, nodes: v.nodes, workloads: v.workloads,
    policies: [{ policy: LIVE }], runs: [run],
  };
  const M = readModel(doc, () => Promise.resolve(run));
  M.originSeconds = v.originSeconds;
  M.formatInstant = (s) => utc(v.originSeconds + s);
  M.formatDay = (s) => utc(v.originSeconds + s).slice(0, 5);
  M.endWords = ['completed', 'preempted', 'preempted and requeued', 'still running', 'failed', 'cancelled', 'lost'];
  M.runNote = (r) => v.notes[r];
  return M;
}

/**
 * Where the first view starts: when everything in the window happened in its last quarter (a service started an
 * hour ago, seen over 24 hours), a little before the first run, so the runs are not a sliver at the right edge;
 * else 0, the whole window. Only the first view: the window selector and "Whole window" show the whole window.
 */
function activeFrom(v) {
  if (!v.timeline.runs) return 0;
  const first = Math.max(0, v.timeline.startDelta[0]);
  if (first < v.endSeconds * 0.75) return 0;
  return Math.max(0, Math.floor(first - Math.max(60, (v.endSeconds - first) * 0.05)));
}

let timeline = null;
P.refresh = () => refresh(false);
let shown = null;

function status(text, isError) {
  const s = $('status');
  s.textContent = text;
  s.className = isError ? 'error small' : 'muted small';
}

/** Fetches the window and draws it; the first call creates the timeline, later ones swap the data in. */
async function refresh(wholeWindow) {
  const hours = P.hours;
  const v = await fetchTimeline(hours);
  if (hours !== P.hours) return;              // the window changed while this was on its way
  const M = liveModel(v);
  const before = shown;
  shown = v;                                  // before any await: a refresh overlapping this one shifts from here
  if (!timeline) {
    timeline = createTimeline(M, P);
    P.timeline = timeline;
    timeline.init();
    await timeline.show(LIVE);
    const active = activeFrom(v);
    if (active > 0) timeline.setRange(active, v.endSeconds);
  } else {
    await timeline.setModel(M, before ? v.originSeconds - before.originSeconds : 0);
    if (wholeWindow) timeline.setRange(0, v.endSeconds);
  }
  P.runs = v.timeline.runs;
  P.polls++;
  P.error = null;
  P.ready = true;
  status('updated ' + utc(v.originSeconds + v.endSeconds) + ' UTC · ' + count(v.timeline.runs, 'attempt') + ', '
    + count(v.workloads.ids.length, 'workload') + ' in the window · refreshed every ' + pollSeconds + ' s');
}

function failed(e) {
  P.error = String(e && e.message ? e.message : e);
  status('could not refresh: ' + P.error + (shown ? ' (showing the last answer)' : ''), true);
}

function poll() {
  const next = () => setTimeout(poll, pollSeconds * 1000);
  if (document.hidden) { next(); return; }
  refresh(false).catch(failed).finally(next);
}

$('window').addEventListener('change', (ev) => {
  P.hours = Number(ev.target.value);
  refresh(true).catch(failed);
});

Allot.signedIn().then(async () => {
  Allot.setTree((await Allot.api('/v1/allocations')).allocations); // so the frame says manager where one is
  Allot.frame('Timeline');
  return refresh(true).catch(failed).finally(() => setTimeout(poll, pollSeconds * 1000));
}).catch(failed);
