package dev.allot.server.api;

import dev.allot.core.model.Durations;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Workload;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a submission that reuses an idempotency key is a retry of the workload stored under it. A retry repeats
 * the submission as it was and is answered that workload; a different submission under the same key (another GPU
 * count, another command) would be answered a workload it did not ask for while nothing of it is stored: accepted
 * and lost. It is refused instead (409), naming the first field that differs, so that the client gives a new key.
 */
final class IdempotentReplays {
    /**
     * Set to {@code true} on the answer to a retry, which stored nothing and is answered the earlier workload (the
     * status stays 201, as the first answer was): a client can say "already submitted" instead of "submitted". Set
     * when the key's workload existed before the submission was stored; two first submissions of one key racing each
     * other may both go without it (the answer is the same workload either way).
     */
    static final String HEADER = "Idempotent-Replayed";

    private IdempotentReplays() {
    }

    /** Refuses {@code asked} when the store answered it {@code stored}, an earlier workload that differs from it. */
    static void requireRetry(NewWorkload asked, Workload stored) {
        if (asked.idempotencyKey() == null || !asked.idempotencyKey().equals(stored.idempotencyKey())) {
            return;
        }
        Optional<String> difference = difference(asked, stored);
        if (difference.isPresent()) {
            throw new ApiException(409, "field 'idempotencyKey': the key was used by " + stored.id() + ", a different"
                    + " submission (" + difference.get() + "); nothing was submitted", "idempotencyKey",
                    "a retry repeats the submission as it was; give a new idempotencyKey for a new workload");
        }
    }

    /** The first field in which the two differ, said as "its gpus is 1, not 2"; empty when they are the same. */
    static Optional<String> difference(NewWorkload asked, Workload stored) {
        if (!asked.allocationPath().equals(stored.allocationPath())) {
            return said("allocation", stored.allocationPath(), asked.allocationPath());
        }
        if (asked.gpus() != stored.gpus()) {
            return said("gpus", stored.gpus(), asked.gpus());
        }
        if (asked.gpusPerNode() != stored.gpusPerNode()) {
            return said("gpusPerNode", stored.gpusPerNode(), asked.gpusPerNode());
        }
        if (asked.minRuntimeSeconds() != stored.minRuntimeSeconds()) {
            return said("minRuntime", Durations.formatSeconds(stored.minRuntimeSeconds()),
                    Durations.formatSeconds(asked.minRuntimeSeconds()));
        }
        if (!Objects.equals(asked.durationSeconds(), stored.durationSeconds())) {
            return said("duration", duration(stored.durationSeconds()), duration(asked.durationSeconds()));
        }
        if (asked.resumable() != stored.resumable()) {
            return said("resumable", stored.resumable(), asked.resumable());
        }
        if (asked.priority() != stored.priority()) {
            return said("priority", stored.priority().label(), asked.priority().label());
        }
        if (!asked.kind().equals(stored.kind())) {
            return said("kind", stored.kind(), asked.kind());
        }
        if (!asked.command().equals(stored.command())) {
            return said("command", String.join(" ", stored.command()), String.join(" ", asked.command()));
        }
        if (!asked.environment().equals(stored.environment())) {
            return Optional.of("its environment differs");
        }
        return Optional.empty();
    }

    private static Optional<String> said(String field, Object stored, Object asked) {
        return Optional.of("its " + field + " is " + stored + ", not " + asked);
    }

    private static String duration(Long seconds) {
        return seconds == null ? "none" : Durations.formatSeconds(seconds);
    }
}
