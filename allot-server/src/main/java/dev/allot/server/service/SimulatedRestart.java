package dev.allot.server.service;

import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import java.time.Duration;
import java.time.Instant;

/**
 * What a simulated backend made at a start (or at the start of a term of leadership) knows of the work that ran
 * before: every attempt the store has open, as a run from its stored start, with its workload's declared duration,
 * stopped when the store says its stop was asked. A real backend answers the restarted scheduler's probe from the
 * work itself; the simulated one runs nothing, so the store is all it can rebuild from, and without it a restart
 * ended every running workload as lost ("did not know it after a restart"). A resumed attempt is given its workload's
 * whole duration (the store does not keep the progress of earlier attempts; a restarted core counts the whole
 * duration too).
 */
final class SimulatedRestart {
    private SimulatedRestart() {
    }

    /** Tells {@code backend} of every open attempt in {@code store}; returns it. */
    static SimulatedBackend remembering(SimulatedBackend backend, Store store) {
        for (Attempt a : store.attempts().openAttempts()) {
            Workload w = store.workloads().workload(a.key().workloadId()).orElse(null);
            if (w == null) {
                continue;
            }
            backend.remember(a.key(), Instant.ofEpochMilli(a.startedAtMillis()),
                    w.durationSeconds() == null ? null : Duration.ofSeconds(w.durationSeconds()),
                    a.stopRequestedAtMillis() == null ? null : Instant.ofEpochMilli(a.stopRequestedAtMillis()));
        }
        return backend;
    }
}
