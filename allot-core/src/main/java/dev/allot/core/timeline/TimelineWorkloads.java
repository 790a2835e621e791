package dev.allot.core.timeline;

import java.util.List;

/**
 * The workloads a {@link TimelineData} refers to, column by column, by the index its runs use: its allocation (leaf
 * index, -1 when unknown), GPUs, submission, declared duration (-1 when not declared), minimum runtime as applied
 * (after the cap), whether it can resume (1) or not (0), its priority and kind (indexes into the name lists). Part
 * of the format the shared drawing code reads (the report's {@code workloads}, the live timeline's too).
 */
public record TimelineWorkloads(List<String> ids, int[] allocation, int[] gpus, long[] submitSeconds,
                                long[] durationSeconds, long[] minRuntimeSeconds, int[] resumable,
                                List<String> priorities, int[] priority, List<String> kinds, int[] kind) {
}
