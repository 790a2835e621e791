package dev.allot.server.store;

import java.util.List;

/**
 * What {@link Workloads#changesSince} read: the workloads whose rows changed at or after a cursor (each as it is now,
 * once, in the order of their changes, ties by seq), and the cursor to ask from next time. A cursor is opaque: it
 * comes from {@link Workloads#changeCursor} or from the last answer, and means something different on each store
 * (see {@link Workloads#changesSince}). A row may come again in a later answer though it did not change again.
 */
public record WorkloadChanges(List<Workload> workloads, long cursor) {
    public WorkloadChanges {
        workloads = List.copyOf(workloads);
    }
}
