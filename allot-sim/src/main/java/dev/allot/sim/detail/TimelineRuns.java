package dev.allot.sim.detail;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.timeline.TimelineData;
import dev.allot.core.timeline.TimelineEncoder;
import dev.allot.sim.timeline.GpuTimeline;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the per-GPU bars of a {@link GpuTimeline} back into runs (a 16-GPU gang is one run, not 16 bars), its GPUs
 * as (node, first lane, lane count) triples, and has the core's {@link TimelineEncoder} write them as
 * {@link TimelineData}.
 */
final class TimelineRuns {
    /** Why a run that ended at a given time was stopped; null when it was not. */
    interface Causes {
        PreemptionCause of(int jobIndex, long endSeconds);
    }

    private TimelineRuns() {
    }

    static TimelineData encode(GpuTimeline bars, ClusterState state, Causes causes) {
        List<Job> jobs = state.jobs();
        Map<String, Integer> jobIndex = new HashMap<>(jobs.size() * 2);
        for (Job j : jobs) {
            jobIndex.put(j.id(), j.index());
        }
        int[] jobOfTimelineWorkload = new int[bars.workloadIds().size()];
        for (int w = 0; w < jobOfTimelineWorkload.length; w++) {
            jobOfTimelineWorkload[w] = jobIndex.get(bars.workloadIds().get(w));
        }
        TimelineEncoder encoder = new TimelineEncoder();
        // Runs: maximal groups of consecutive bars of one workload with one start and end (a run's bars are added
        // together when it stops, node by node in placement order, lanes ascending).
        int n = bars.size();
        int b0 = 0;
        while (b0 < n) {
            int stop = b0 + 1;
            while (stop < n && bars.workload(stop) == bars.workload(b0) && bars.startSeconds(stop) == bars.startSeconds(b0)
                    && bars.endSeconds(stop) == bars.endSeconds(b0)) {
                stop++;
            }
            encoder.add(run(bars, b0, stop, jobOfTimelineWorkload, jobIndex, causes));
            b0 = stop;
        }
        for (GpuTimeline.NodePeriod p : bars.nodePeriods()) {
            encoder.add(new TimelineEncoder.Period(p.node(), p.state() == GpuTimeline.NodeState.UNHEALTHY
                    ? TimelineData.UNHEALTHY : TimelineData.DRAINED, p.fromSeconds(), p.toSeconds()));
        }
        return encoder.encode();
    }

    /** The run of bars {@code [b0, stop)}. */
    private static TimelineEncoder.Run run(GpuTimeline bars, int b0, int stop, int[] jobOfTimelineWorkload,
                                           Map<String, Integer> jobIndex, Causes causes) {
        int job = jobOfTimelineWorkload[bars.workload(b0)];
        long start = bars.startSeconds(b0);
        long end = bars.endSeconds(b0);
        long preemptible = bars.preemptibleFromSeconds(b0);
        PreemptionCause c = causes.of(job, end);
        int[] slots = new int[(stop - b0) * 3];
        int count = 0;
        for (int b = b0; b < stop; b++) {
            boolean extends_ = b > b0 && bars.node(b) == bars.node(b - 1) && bars.lane(b) == bars.lane(b - 1) + 1;
            if (extends_) {
                slots[count - 1]++;
            } else {
                slots[count++] = bars.node(b);
                slots[count++] = bars.lane(b);
                slots[count++] = 1;
            }
        }
        return new TimelineEncoder.Run(job, start, end, preemptible == Long.MAX_VALUE ? -1 : preemptible - start,
                bars.end(b0).ordinal(), c == null ? -1 : c.kind().ordinal(),
                c == null || c.preemptorId() == null ? -1 : jobIndex.getOrDefault(c.preemptorId(), -1),
                java.util.Arrays.copyOf(slots, count));
    }
}
