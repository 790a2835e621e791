package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.WorkloadState;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole service on the simulated backend, restarted (closed, then started again on the same data directory) while
 * work runs, with a clock moved by hand and cycles run by the test: the running work keeps running through the
 * restart, as it would on a real backend, and ends when its declared duration says, not as lost.
 */
class SimulatedRestartTest {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);

    private Service start() {
        return Service.start(ServiceConfig.defaults(dir).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofHours(1)), clock);
    }

    private String submit(Service s, long durationSeconds, long minRuntimeSeconds, boolean resumable) {
        return s.store().workloads().submit(NewWorkload.builder("a", "u").gpus(2).durationSeconds(durationSeconds)
                .minRuntimeSeconds(minRuntimeSeconds).resumable(resumable).command(List.of("train.py"))
                .submittedAtMillis(clock.millis()).build()).id();
    }

    private static WorkloadState stateOf(Service s, String id) {
        return s.store().workloads().workload(id).orElseThrow().state();
    }

    @Test
    void givenRunningWorkOnTheSimulatedBackend_whenTheServiceRestarts_thenItKeepsRunningAndEndsOnTime() {
        try (Store s = Store.sqlite(dir)) {
            s.allocations().putAllocation(new Allocation("a", 1, List.of(), List.of()), "test", T0.toEpochMilli());
            s.nodes().putNode(new Node("n1", 4, true, null, T0.toEpochMilli()));
        }
        String protectedOne;
        String unprotected;
        try (Service first = start()) {
            // Given two non-resumable workloads of an hour, one allocated (protected an hour), one unallocated ...
            protectedOne = submit(first, 3600, 3600, false);
            unprotected = submit(first, 3600, 0, false);
            first.loop().runOnce();
            first.loop().runOnce();
            assertThat(stateOf(first, protectedOne)).isEqualTo(WorkloadState.RUNNING);
            assertThat(stateOf(first, unprotected)).isEqualTo(WorkloadState.RUNNING);
        }
        // ... when the service is down for ten minutes and starts again on the same data directory ...
        clock.advance(Duration.ofMinutes(10));
        try (Service second = start()) {
            second.loop().runOnce();
            second.loop().runOnce();
            // ... then both keep running on their first attempt, which stays open.
            for (String id : List.of(protectedOne, unprotected)) {
                assertThat(stateOf(second, id)).as(id).isEqualTo(WorkloadState.RUNNING);
                assertThat(second.store().attempts().attempts(id)).as(id).singleElement()
                        .satisfies(a -> assertThat(a.open()).isTrue());
            }
            assertThat(second.loop().counters().adoptedAtLoad()).isEqualTo(2);

            // Just before its hour (counted from its start, not from the restart) each still runs; at the hour it
            // completes, the same attempt.
            clock.advance(Duration.ofMinutes(49));
            second.loop().runOnce();
            assertThat(stateOf(second, protectedOne)).isEqualTo(WorkloadState.RUNNING);
            clock.advance(Duration.ofMinutes(1));
            second.loop().runOnce();
            for (String id : List.of(protectedOne, unprotected)) {
                assertThat(stateOf(second, id)).as(id).isEqualTo(WorkloadState.COMPLETED);
                assertThat(second.store().attempts().attempts(id)).as(id).singleElement()
                        .extracting(Attempt::outcome).isEqualTo(AttemptOutcome.COMPLETED);
            }
        }
    }
}
