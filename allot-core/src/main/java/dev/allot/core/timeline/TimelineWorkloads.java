package dev.allot.core.timeline;

import dev.allot.core.model.Priority;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The workloads a {@link TimelineData} refers to, column by column, by the index its runs use: its allocation (leaf
 * index, -1 when unknown), GPUs, submission, declared duration (-1 when not declared), minimum runtime as applied
 * (after the cap), whether it can resume (1) or not (0), its priority and kind (indexes into the name lists). Part
 * of the format the shared drawing code reads (the report's {@code workloads}, the live timeline's too); {@link #of}
 * lays the columns out, for the simulator's report and the service's live timeline alike.
 */
public record TimelineWorkloads(List<String> ids, int[] allocation, int[] gpus, long[] submitSeconds,
                                long[] durationSeconds, long[] minRuntimeSeconds, int[] resumable,
                                List<String> priorities, int[] priority, List<String> kinds, int[] kind) {

    /**
     * One workload, as a row of the columns: {@code allocation} its leaf's index (-1 when unknown),
     * {@code submitSeconds} on the timeline's clock, {@code durationSeconds} -1 when not declared,
     * {@code minRuntimeSeconds} as applied.
     */
    public record Row(String id, int allocation, int gpus, long submitSeconds, long durationSeconds,
                      long minRuntimeSeconds, boolean resumable, Priority priority, String kind) {
    }

    /**
     * The columns of these workloads, in this order (the index the runs use). Priorities are named by all of
     * {@link Priority}'s values in lower case, indexed by ordinal; kinds by the distinct kinds in sorted order.
     */
    public static TimelineWorkloads of(List<Row> rows) {
        int n = rows.size();
        List<String> ids = new ArrayList<>(n);
        int[] allocation = new int[n];
        int[] gpus = new int[n];
        long[] submit = new long[n];
        long[] duration = new long[n];
        long[] minRuntime = new long[n];
        int[] resumable = new int[n];
        int[] priority = new int[n];
        int[] kind = new int[n];
        SortedMap<String, Integer> kinds = new TreeMap<>();
        for (Row w : rows) {
            kinds.put(w.kind(), 0);
        }
        int k = 0;
        for (var e : kinds.entrySet()) {
            e.setValue(k++);
        }
        for (int i = 0; i < n; i++) {
            Row w = rows.get(i);
            ids.add(w.id());
            allocation[i] = w.allocation();
            gpus[i] = w.gpus();
            submit[i] = w.submitSeconds();
            duration[i] = w.durationSeconds();
            minRuntime[i] = w.minRuntimeSeconds();
            resumable[i] = w.resumable() ? 1 : 0;
            priority[i] = w.priority().ordinal();
            kind[i] = kinds.get(w.kind());
        }
        return new TimelineWorkloads(ids, allocation, gpus, submit, duration, minRuntime, resumable,
                Arrays.stream(Priority.values()).map(p -> p.name().toLowerCase(Locale.ROOT)).toList(), priority,
                List.copyOf(kinds.keySet()), kind);
    }
}
