package dev.allot.server.store;

import dev.allot.core.model.Priority;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A workload as stored: what was submitted ({@link NewWorkload}'s fields), the id and sequence number the store
 * gave it, and where it is now.
 *
 * @param seq             the store's submission order, strictly increasing, never reused (may have gaps)
 * @param id              {@code w-<seq>}
 * @param progressDone    the last progress reported, null when none was
 * @param progressTotal   the total the last progress report was out of, null when none was
 * @param cancelRequested someone asked to cancel it; a running workload stays running until its attempt ends
 * @param heldReason      why a waiting workload is held by a safety brake (not given to the scheduler's queue), null
 *                        when it is not held
 */
public record Workload(
        long seq,
        String id,
        String allocationPath,
        String user,
        int gpus,
        int gpusPerNode,
        Long durationSeconds,
        long minRuntimeSeconds,
        boolean resumable,
        Priority priority,
        String kind,
        List<String> command,
        SortedMap<String, String> environment,
        WorkloadState state,
        long submittedAtMillis,
        Long progressDone,
        Long progressTotal,
        boolean cancelRequested,
        String idempotencyKey,
        String heldReason) {

    public Workload {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
        command = List.copyOf(command);
        environment = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(environment));
    }

    /** The same workload in another state (what a write of its state alone leaves). */
    public Workload withState(WorkloadState next) {
        return new Workload(seq, id, allocationPath, user, gpus, gpusPerNode, durationSeconds, minRuntimeSeconds,
                resumable, priority, kind, command, environment, next, submittedAtMillis, progressDone, progressTotal,
                cancelRequested, idempotencyKey, heldReason);
    }

    /** True when the workload declared a minimum runtime: it is charged and protected for that long. */
    public boolean allocated() {
        return allocated(minRuntimeSeconds);
    }

    /** Whether a workload of this minimum runtime is allocated ({@link #allocated()}: the one rule). */
    public static boolean allocated(long minRuntimeSeconds) {
        return minRuntimeSeconds > 0;
    }

    /** True when a safety brake holds it: it waits, but the scheduler will not start it until released. */
    public boolean held() {
        return heldReason != null;
    }
}
