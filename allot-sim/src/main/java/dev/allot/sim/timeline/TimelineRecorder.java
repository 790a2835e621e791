package dev.allot.sim.timeline;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.GpuLanes;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationListener;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Records a per-GPU timeline while a simulation runs. The policies place work as GPU counts per node; this gives
 * each run concrete GPU lanes with {@link GpuLanes}, as the service does: on each node, the lowest-numbered lanes
 * free at its start (deterministic, and a run keeps its lanes until it stops). Call {@link #finish} with the time the simulation stopped to close runs still
 * going.
 */
public final class TimelineRecorder implements SimulationListener {
    private GpuTimeline timeline;
    private BitSet[] busy;
    /** No lane is ever held by a stopping run in a simulation: runs stop at once. */
    private BitSet[] noneHeld;
    private int[] sizes;
    private final Map<Job, Open> open = new HashMap<>();
    private int[] workloadIndexOfJob = new int[0];
    private final Map<String, Integer> nodeByName = new HashMap<>();
    private long[] unhealthySince;
    private long[] drainedSince;

    /** A run in progress: its lanes per node (in placement order) and what a bar needs. */
    private record Open(Placement placement, int[][] lanes, long start, long preemptibleFrom, int workload) {
    }

    @Override
    public void onBegin(ClusterState state) {
        int[] gpus = new int[state.nodes().count()];
        busy = new BitSet[gpus.length];
        noneHeld = new BitSet[gpus.length];
        for (int n = 0; n < gpus.length; n++) {
            gpus[n] = state.nodes().free().capacity(n);
            busy[n] = new BitSet(gpus[n]);
            noneHeld[n] = new BitSet();
        }
        sizes = gpus;
        timeline = new GpuTimeline(gpus);
        unhealthySince = new long[gpus.length];
        drainedSince = new long[gpus.length];
        for (int n = 0; n < gpus.length; n++) {
            nodeByName.put(state.nodes().name(n), n);
            unhealthySince[n] = state.nodes().isHealthy(n) ? -1 : state.now();
            drainedSince[n] = -1;
        }
    }

    @Override
    public void onHealth(long time, String node, boolean healthy) {
        int n = nodeByName.get(node);
        if (healthy) {
            endPeriods(n, time);
        } else if (unhealthySince[n] < 0) {
            unhealthySince[n] = time;
        }
    }

    @Override
    public void onDrained(long time, String node) {
        int n = nodeByName.get(node);
        if (drainedSince[n] < 0) {
            drainedSince[n] = time;
        }
    }

    private void endPeriods(int n, long time) {
        if (drainedSince[n] >= 0) {
            timeline.addPeriod(new GpuTimeline.NodePeriod(n, GpuTimeline.NodeState.DRAINED, drainedSince[n], time));
            drainedSince[n] = -1;
        }
        if (unhealthySince[n] >= 0) {
            timeline.addPeriod(new GpuTimeline.NodePeriod(n, GpuTimeline.NodeState.UNHEALTHY, unhealthySince[n], time));
            unhealthySince[n] = -1;
        }
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        int[][] lanes = GpuLanes.choose(placement, busy, noneHeld, sizes).lanes();
        for (int i = 0; i < placement.nodeCount(); i++) {
            for (int lane : lanes[i]) {
                busy[placement.node(i)].set(lane);
            }
        }
        int idx = job.index();
        if (idx >= workloadIndexOfJob.length) {
            int old = workloadIndexOfJob.length;
            workloadIndexOfJob = Arrays.copyOf(workloadIndexOfJob, Math.max(idx + 1, old * 2));
            Arrays.fill(workloadIndexOfJob, old, workloadIndexOfJob.length, -1);
        }
        workloadIndexOfJob[idx] = timeline.workloadIndex(job.id(), workloadIndexOfJob[idx]);
        long preemptible = job.allocated() ? job.protectedUntilSeconds() : time;
        open.put(job, new Open(placement, lanes, time, preemptible, workloadIndexOfJob[idx]));
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause,
                          ClusterState.PreemptionResult result) {
        close(job, time, result.requeued() ? GpuTimeline.End.REQUEUED : GpuTimeline.End.PREEMPTED);
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        close(job, time, GpuTimeline.End.COMPLETED);
    }

    /** Closes every run still going at {@code time} and returns the timeline. */
    public GpuTimeline finish(long time) {
        Job[] running = open.keySet().toArray(new Job[0]);
        Arrays.sort(running, (a, b) -> Integer.compare(a.index(), b.index()));
        for (Job j : running) {
            close(j, time, GpuTimeline.End.RUNNING_AT_END);
        }
        for (int n = 0; n < timeline.nodeCount(); n++) {
            endPeriods(n, time);
        }
        return timeline;
    }

    private void close(Job job, long time, GpuTimeline.End how) {
        Open o = open.remove(job);
        if (o == null) {
            throw new IllegalStateException("no run of " + job.id() + " to end at " + time);
        }
        long preemptible = o.preemptibleFrom() < time ? o.preemptibleFrom() : Long.MAX_VALUE;
        for (int i = 0; i < o.placement().nodeCount(); i++) {
            int n = o.placement().node(i);
            for (int lane : o.lanes()[i]) {
                busy[n].clear(lane);
                timeline.add(n, lane, o.start(), time, preemptible, o.workload(), how);
            }
        }
    }
}
