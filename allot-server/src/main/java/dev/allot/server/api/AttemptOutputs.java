package dev.allot.server.api;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptOutput;
import dev.allot.core.backend.Backend;
import java.util.Objects;
import java.util.Optional;

/**
 * Where {@code GET /v1/workloads/{id}/output} reads an attempt's output: the service's backend, which keeps it (the
 * local backend's logs) or says where it goes instead (Slurm writes it on the cluster). Apart from the loop's view of
 * the backend: reading a log takes no lock of the scheduler's and starts or stops nothing.
 */
public interface AttemptOutputs {
    /** The end of the attempt's output, empty where the backend keeps none the service can read. */
    Optional<AttemptOutput> output(AttemptKey attempt, int maxBytes);

    /** Where the output goes when {@link #output} is empty. */
    String elsewhere();

    /** No output anywhere the service can read (an API without a backend, in tests). */
    AttemptOutputs NONE = new AttemptOutputs() {
        @Override
        public Optional<AttemptOutput> output(AttemptKey attempt, int maxBytes) {
            return Optional.empty();
        }

        @Override
        public String elsewhere() {
            return "this service has no backend that keeps output";
        }
    };

    /** The outputs {@code backend} keeps. */
    static AttemptOutputs of(Backend backend) {
        Objects.requireNonNull(backend, "backend");
        return new AttemptOutputs() {
            @Override
            public Optional<AttemptOutput> output(AttemptKey attempt, int maxBytes) {
                return backend.output(attempt, maxBytes);
            }

            @Override
            public String elsewhere() {
                return backend.outputElsewhere();
            }
        };
    }
}
