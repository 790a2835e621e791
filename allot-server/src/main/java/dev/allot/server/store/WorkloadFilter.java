package dev.allot.server.store;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which workloads {@link Workloads#workloads} lists, always in submission order (by seq). Every condition is
 * optional; they combine with AND.
 *
 * @param states           empty for any state
 * @param allocationPrefix null for any; otherwise the allocation with this path and everything below it
 *                         ({@code lab/nlp} matches {@code lab/nlp} and {@code lab/nlp/pretrain}, not {@code lab/nlpx})
 * @param user             null for any
 * @param afterSeq         only workloads with a larger seq: the cursor for the next page (0 from the start)
 * @param limit            at most this many, at least 1
 */
public record WorkloadFilter(Set<WorkloadState> states, String allocationPrefix, String user, long afterSeq, int limit) {
    /** The largest page a caller may ask for. */
    public static final int MAX_LIMIT = 100_000;

    public WorkloadFilter {
        states = states.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(states));
        if (allocationPrefix != null) {
            Allocation.checkPath(allocationPrefix);
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", got " + limit);
        }
        if (afterSeq < 0) {
            throw new IllegalArgumentException("afterSeq must not be negative, got " + afterSeq);
        }
    }

    /** Every workload, up to {@link #MAX_LIMIT}. */
    public static WorkloadFilter all() {
        return new WorkloadFilter(Set.of(), null, null, 0, MAX_LIMIT);
    }

    public WorkloadFilter withStates(WorkloadState... s) {
        return new WorkloadFilter(Set.of(s), allocationPrefix, user, afterSeq, limit);
    }

    public WorkloadFilter withAllocationPrefix(String prefix) {
        return new WorkloadFilter(states, prefix, user, afterSeq, limit);
    }

    public WorkloadFilter withUser(String u) {
        return new WorkloadFilter(states, allocationPrefix, Objects.requireNonNull(u, "user"), afterSeq, limit);
    }

    public WorkloadFilter withAfterSeq(long seq) {
        return new WorkloadFilter(states, allocationPrefix, user, seq, limit);
    }

    public WorkloadFilter withLimit(int n) {
        return new WorkloadFilter(states, allocationPrefix, user, afterSeq, n);
    }
}
