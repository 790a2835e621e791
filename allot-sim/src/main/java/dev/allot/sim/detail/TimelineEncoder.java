package dev.allot.sim.detail;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.sim.timeline.GpuTimeline;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the per-GPU bars of a {@link GpuTimeline} back into runs (a 16-GPU gang is one run, not 16 bars) and
 * writes them as {@link TimelineData}: sorted by start then workload, starts delta-coded, GPUs as
 * (node, first lane, lane count) triples.
 */
final class TimelineEncoder {
    /** Why a run that ended at a given time was stopped; null when it was not. */
    interface Causes {
        PreemptionCause of(int jobIndex, long endSeconds);
    }

    private TimelineEncoder() {
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
        // Runs: maximal groups of consecutive bars of one workload with one start and end (a run's bars are added
        // together when it stops, node by node in placement order, lanes ascending).
        int n = bars.size();
        int[] firstBar = new int[n + 1];
        int runs = 0;
        for (int b = 0; b < n; b++) {
            if (b == 0 || bars.workload(b) != bars.workload(b - 1) || bars.startSeconds(b) != bars.startSeconds(b - 1)
                    || bars.endSeconds(b) != bars.endSeconds(b - 1)) {
                firstBar[runs++] = b;
            }
        }
        firstBar[runs] = n;
        Integer[] order = new Integer[runs];
        for (int r = 0; r < runs; r++) {
            order[r] = r;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compare(bars.startSeconds(firstBar[a]), bars.startSeconds(firstBar[b]));
            if (c != 0) {
                return c;
            }
            return Integer.compare(jobOfTimelineWorkload[bars.workload(firstBar[a])], jobOfTimelineWorkload[bars.workload(firstBar[b])]);
        });
        int[] workload = new int[runs];
        long[] startDelta = new long[runs];
        long[] duration = new long[runs];
        long[] protectedFor = new long[runs];
        int[] end = new int[runs];
        int[] cause = new int[runs];
        int[] preemptor = new int[runs];
        int[] parts = new int[runs];
        int[] slots = new int[n * 3];
        int slotCount = 0;
        long previousStart = 0;
        for (int i = 0; i < runs; i++) {
            int r = order[i];
            int b0 = firstBar[r];
            int job = jobOfTimelineWorkload[bars.workload(b0)];
            long start = bars.startSeconds(b0);
            long stop = bars.endSeconds(b0);
            workload[i] = job;
            startDelta[i] = start - previousStart;
            previousStart = start;
            duration[i] = stop - start;
            long preemptible = bars.preemptibleFromSeconds(b0);
            protectedFor[i] = preemptible == Long.MAX_VALUE ? -1 : preemptible - start;
            end[i] = bars.end(b0).ordinal();
            PreemptionCause c = causes.of(job, stop);
            cause[i] = c == null ? -1 : c.kind().ordinal();
            preemptor[i] = c == null || c.preemptorId() == null ? -1 : jobIndex.getOrDefault(c.preemptorId(), -1);
            int triples = 0;
            for (int b = b0; b < firstBar[r + 1]; b++) {
                boolean extends_ = b > b0 && bars.node(b) == bars.node(b - 1) && bars.lane(b) == bars.lane(b - 1) + 1;
                if (extends_) {
                    slots[slotCount - 1]++;
                } else {
                    slots[slotCount++] = bars.node(b);
                    slots[slotCount++] = bars.lane(b);
                    slots[slotCount++] = 1;
                    triples++;
                }
            }
            parts[i] = triples;
        }
        List<GpuTimeline.NodePeriod> periods = bars.nodePeriods().stream()
                .sorted(java.util.Comparator.comparingLong(GpuTimeline.NodePeriod::fromSeconds)
                        .thenComparingInt(GpuTimeline.NodePeriod::node)
                        .thenComparing(GpuTimeline.NodePeriod::state))
                .toList();
        int p = periods.size();
        int[] periodNode = new int[p];
        int[] periodState = new int[p];
        long[] from = new long[p];
        long[] to = new long[p];
        for (int i = 0; i < p; i++) {
            GpuTimeline.NodePeriod np = periods.get(i);
            periodNode[i] = np.node();
            periodState[i] = np.state().ordinal();
            from[i] = np.fromSeconds();
            to[i] = np.toSeconds();
        }
        return new TimelineData(runs, workload, startDelta, duration, protectedFor, end, cause, preemptor, parts,
                Arrays.copyOf(slots, slotCount), periodNode, periodState, from, to);
    }
}
