/**
 * What the report reads from the document once: the allocation tree and its colours, the policies and their runs,
 * the cluster's GPU rows and the workloads; and the decoding of a run's compact timeline into per-row bar lists.
 * loadRun(policy) resolves a policy's run once its timeline has been read.
 */
function readModel(DOC, loadRun) {
  const POLICY_COLOURS = ['#2459a8', '#d9822b', '#2e9e5b', '#8e44ad', '#c0392b', '#16a085', '#7f6d00', '#5d6d7e'];
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

  const POLICIES = DOC.policies.map((p) => p.policy);
  const RUNS = new Map(DOC.runs.map((r) => [r.policy, r]));
  const METRICS = new Map(DOC.policies.map((p) => [p.policy, p]));

  function policyColour(name) {
    return POLICY_COLOURS[POLICIES.indexOf(name) % POLICY_COLOURS.length];
  }

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

  return {
    DOC, loadRun, ALLOCS, parentOf, LEAVES, LEAF_COLOUR, chip, leafIndexByName, POLICIES, RUNS, METRICS, policyColour,
    W, NODES, FIRST_ROW, ROWS, ROW_NODE, WORKLOAD_BY_ID, decode,
  };
}
