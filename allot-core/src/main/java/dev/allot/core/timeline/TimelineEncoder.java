package dev.allot.core.timeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Writes {@link TimelineData}, the one encoder of that format: collects runs and node periods in any order, then
 * sorts the runs by start then workload (stably: runs that tie keep the order they were added in), delta-codes the
 * starts, and sorts the periods by start, node and state. The simulator adds the runs it rebuilt from its per-GPU
 * bars; the service adds its stored attempts.
 */
public final class TimelineEncoder {
    /**
     * One run of a workload on its GPUs.
     *
     * @param workload         index into the document's workloads
     * @param protectedSeconds how long from its start it was protected: -1 for the whole run, 0 for none
     * @param end              index into {@link TimelineData#ENDS}
     * @param cause            index into {@link TimelineData#CAUSES}, -1 when it was not stopped
     * @param preemptor        the workload that took its GPUs, -1 when none
     * @param slots            its GPUs as (node index, first lane, lane count) triples
     */
    public record Run(int workload, long startSeconds, long endSeconds, long protectedSeconds, int end, int cause,
                      int preemptor, int[] slots) {
        public Run {
            Objects.requireNonNull(slots, "slots");
            if (slots.length == 0 || slots.length % 3 != 0) {
                throw new IllegalArgumentException("a run's slots are (node, first lane, count) triples, at least one;"
                        + " got " + slots.length + " numbers");
            }
            if (endSeconds < startSeconds) {
                throw new IllegalArgumentException("a run ends (" + endSeconds + " s) before it starts (" + startSeconds + " s)");
            }
        }
    }

    /** A node's unhealthy or drained period; {@code state} is {@link TimelineData#UNHEALTHY} or {@link TimelineData#DRAINED}. */
    public record Period(int node, int state, long fromSeconds, long toSeconds) {
    }

    private final List<Run> runs = new ArrayList<>();
    private final List<Period> periods = new ArrayList<>();

    public TimelineEncoder add(Run run) {
        runs.add(Objects.requireNonNull(run, "run"));
        return this;
    }

    public TimelineEncoder add(Period period) {
        periods.add(Objects.requireNonNull(period, "period"));
        return this;
    }

    /** The timeline of what was added. */
    public TimelineData encode() {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingLong(Run::startSeconds).thenComparingInt(Run::workload));
        int n = sorted.size();
        int[] workload = new int[n];
        long[] startDelta = new long[n];
        long[] duration = new long[n];
        long[] protectedFor = new long[n];
        int[] end = new int[n];
        int[] cause = new int[n];
        int[] preemptor = new int[n];
        int[] parts = new int[n];
        int slotCount = 0;
        for (Run r : sorted) {
            slotCount += r.slots().length;
        }
        int[] slots = new int[slotCount];
        int at = 0;
        long previousStart = 0;
        for (int i = 0; i < n; i++) {
            Run r = sorted.get(i);
            workload[i] = r.workload();
            startDelta[i] = r.startSeconds() - previousStart;
            previousStart = r.startSeconds();
            duration[i] = r.endSeconds() - r.startSeconds();
            protectedFor[i] = r.protectedSeconds();
            end[i] = r.end();
            cause[i] = r.cause();
            preemptor[i] = r.preemptor();
            parts[i] = r.slots().length / 3;
            System.arraycopy(r.slots(), 0, slots, at, r.slots().length);
            at += r.slots().length;
        }
        List<Period> byStart = new ArrayList<>(periods);
        byStart.sort(Comparator.comparingLong(Period::fromSeconds).thenComparingInt(Period::node)
                .thenComparingInt(Period::state));
        int p = byStart.size();
        int[] periodNode = new int[p];
        int[] periodState = new int[p];
        long[] from = new long[p];
        long[] to = new long[p];
        for (int i = 0; i < p; i++) {
            Period np = byStart.get(i);
            periodNode[i] = np.node();
            periodState[i] = np.state();
            from[i] = np.fromSeconds();
            to[i] = np.toSeconds();
        }
        return new TimelineData(n, workload, startDelta, duration, protectedFor, end, cause, preemptor, parts,
                Arrays.copyOf(slots, slotCount), periodNode, periodState, from, to);
    }
}
