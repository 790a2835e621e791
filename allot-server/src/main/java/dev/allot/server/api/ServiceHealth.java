package dev.allot.server.api;

import java.util.Optional;

/**
 * Where {@code GET /v1/health} learns whether the service works, beyond answering: the service reports a scheduling
 * loop whose cycles fail (the API then answers 503 with the reason, and 200 again once cycles succeed).
 */
@FunctionalInterface
public interface ServiceHealth {
    /** Nothing to report: the API answers ok whenever it answers. */
    ServiceHealth OK = Optional::empty;

    /**
     * What is wrong, since when (epoch millis) and how many times in a row it failed; empty when nothing is.
     */
    Optional<Problem> problem();

    /** Something that keeps the service from doing its work: what (the last failure's message), since when. */
    record Problem(String what, String lastError, long sinceMillis, long failures) {
    }

    /**
     * The backend not seen lately at {@code nowMillis}: its observations have failed for a while, so what runs is
     * shown as last seen. Empty when it was seen, or the service does not say (tests without a loop, a standby).
     */
    default Optional<BackendUnseen> backendUnseen(long nowMillis) {
        return Optional.empty();
    }

    /**
     * The backend not seen: its name, the last failure's message, when it was last observed (epoch millis, -1 when
     * not since the service started), since when observations fail, how many failed in a row.
     */
    record BackendUnseen(String backend, String lastError, long lastObservedMillis, long sinceMillis, long failures) {
    }

    /** Who leads, as this instance knows it; empty when the service does not say (tests without a loop). */
    default Optional<Leader> leader() {
        return Optional.empty();
    }

    /**
     * Leadership as {@code /v1/health} tells it: this instance's {@code role} ({@code leader} or {@code standby}), its
     * name, the name of the leader as last read from the database (null when none is known: before the first read,
     * when the database cannot be read, or when this instance's own lease lapsed; never this instance unless its role
     * is {@code leader}), and the epoch it leads at (0 for a standby).
     */
    record Leader(String role, String instance, String leader, long epoch) {
    }
}
