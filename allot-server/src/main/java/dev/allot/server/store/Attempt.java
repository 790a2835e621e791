package dev.allot.server.store;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import java.util.List;
import java.util.Objects;

/**
 * One attempt of one workload as stored: where it ran, where it is, and once ended how and why.
 *
 * @param placement      the GPUs it was given, node by node, in the policy's placement order
 * @param endedAtMillis  null while open
 * @param outcome        null while open
 * @param reason         the scheduler's words for people (exit code, preemption cause), which every viewer reads; may
 *                       be null
 * @param reasonDetail   the backend's words about it (a launch's error), which may repeat the workload's command and
 *                       environment and so are shown only to those who may see them ({@link AttemptReasons}); may be
 *                       null
 * @param preemptor      the workload it was preempted for, when it was; otherwise null
 * @param lostGpuSeconds GPU-seconds of work thrown away when it ended (progress since the last checkpoint); null
 *                       when unknown or not applicable
 * @param stopRequestedAtMillis when the scheduler asked it to stop; null if it never did
 * @param chargedFromMillis from when it is charged to its allocation: its start for allocated work, the moment it was
 *                          promoted in place for unallocated work that took a campaign's protected slot, null when it
 *                          was never charged
 */
public record Attempt(
        AttemptKey key,
        List<Launch.NodeGpus> placement,
        AttemptPhase phase,
        long startedAtMillis,
        Long endedAtMillis,
        AttemptOutcome outcome,
        String reason,
        String reasonDetail,
        String preemptor,
        Double lostGpuSeconds,
        Long stopRequestedAtMillis,
        Long chargedFromMillis) {

    public Attempt {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(phase, "phase");
        placement = List.copyOf(placement);
    }

    /** The reason as a viewer reads it ({@link AttemptReasons#shown}); null when there is none. */
    public String reasonFor(boolean maySeeDetails) {
        return AttemptReasons.shown(reason, reasonDetail, maySeeDetails);
    }

    /** The reason with the backend's words: as its owner reads it. */
    public String reasonInFull() {
        return reasonFor(true);
    }

    /** GPUs in all. */
    public int gpus() {
        return placement.stream().mapToInt(p -> p.gpus().size()).sum();
    }

    /** When its contract began: its charging start when it is charged, else its start. */
    public long contractStartMillis() {
        return chargedFromMillis != null ? chargedFromMillis : startedAtMillis;
    }

    /** Whether it began unallocated and was promoted in place: charged from a moment after its start. */
    public boolean promoted() {
        return chargedFromMillis != null && chargedFromMillis > startedAtMillis;
    }

    /** Not ended yet. */
    public boolean open() {
        return phase != AttemptPhase.ENDED;
    }

    /** Ended by a preemption: requeued to run again, or for good ({@link AttemptOutcome#preempted}). */
    public boolean preempted() {
        return outcome != null && outcome.preempted();
    }
}
