package dev.allot.core.backend;

import java.util.Objects;

/** One attempt of one workload: the n-th time it was started (1-based). */
public record AttemptKey(String workloadId, int attempt) implements Comparable<AttemptKey> {
    public AttemptKey {
        Objects.requireNonNull(workloadId, "workloadId");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt numbers start at 1, got " + attempt + " for " + workloadId);
        }
    }

    @Override
    public int compareTo(AttemptKey o) {
        int c = workloadId.compareTo(o.workloadId);
        return c != 0 ? c : Integer.compare(attempt, o.attempt);
    }

    @Override
    public String toString() {
        return workloadId + "#" + attempt;
    }
}
