package dev.allot.core.policy;

/**
 * Why a running job is stopped, in data and in words.
 *
 * @param kind        the rule that allowed it
 * @param preemptorId the waiting workload that needed the GPUs; null for a host drain
 * @param node        the drained node's name for {@link Kind#HOST_DRAIN}; null otherwise
 * @param explanation a sentence a user can read, with the numbers that decided it
 */
public record PreemptionCause(Kind kind, String preemptorId, String node, String explanation) {

    /** The rule behind a preemption. */
    public enum Kind {
        /** The victim ran unallocated (free, always preemptible) and allocated work needed the GPUs. */
        UNALLOCATED,
        /** The preemptor's allocation ranks above the victim's in fair share; the victim was past its minimum runtime. */
        FAIR_SHARE,
        /** Higher-priority work (of the same allocation under {@code allocation}; of anyone under {@code legacy}). */
        PRIORITY,
        /** The victim's host is unhealthy and the victim may leave (past its minimum runtime, or unallocated). */
        HOST_DRAIN
    }

    public static PreemptionCause drain(String node, String explanation) {
        return new PreemptionCause(Kind.HOST_DRAIN, null, node, explanation);
    }

    public static PreemptionCause by(Kind kind, String preemptorId, String explanation) {
        return new PreemptionCause(kind, preemptorId, null, explanation);
    }
}
