package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.Launch;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The models a what-if reads from the store: durations from completed attempts of the last week (a failed or
 * preempted attempt says nothing of how long the work runs) unless declared, and new work from the submissions of
 * the last week, offered only for the days the store has history of.
 */
class WhatIfHistoryTest {
    private static final long DAY = 86_400_000L;
    private static final long NOW = 1_772_355_600_000L; // 2026-03-01T09:00:00Z

    @TempDir
    Path dataDir;

    @Test
    void durationsComeFromCompletedAttemptsOfTheLastWeekAndNewWorkFromItsSubmissions() {
        try (Store store = Store.sqlite(dataDir)) {
            store.access().putUser(new User("alice", User.Role.USER));
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of("alice")), "root", NOW);
            store.nodes().putNode(new Node("gpu-01", 8, true, null, NOW));
            for (int i = 0; i < 6; i++) {
                run(store, NOW - 2 * DAY + i * 60_000, 2 * 3_600_000L, AttemptOutcome.COMPLETED);
            }
            run(store, NOW - 2 * DAY, 30 * 3_600_000L, AttemptOutcome.FAILED);
            run(store, NOW - 10 * DAY, 50 * 3_600_000L, AttemptOutcome.COMPLETED); // ended before the week

            WhatIfHistory.Models m = WhatIfHistory.read(store, NOW / 1000);

            WorkloadSpec undeclared = CoreBuilder.spec(store.workloads().submit(NewWorkload.builder("lab", "alice")
                    .gpus(8).command(List.of("x")).submittedAtMillis(NOW).build()), NOW / 1000);
            assertThat(m.durations().basis(undeclared)).startsWith("history of 6 finished runs");
            assertThat(m.durations().drawSeconds(undeclared, 0, new SplittableRandom(1))).isEqualTo(7200);
            WorkloadSpec declared = CoreBuilder.spec(store.workloads().submit(NewWorkload.builder("lab", "alice")
                    .gpus(8).durationSeconds(10_800L).command(List.of("x")).submittedAtMillis(NOW).build()), NOW / 1000);
            assertThat(m.durations().basis(declared)).isEqualTo("declared");
            assertThat(m.durations().drawSeconds(declared, 0, new SplittableRandom(1))).isEqualTo(10_800);

            // the store's history begins 10 days ago: every one of the last 7 days may be copied
            assertThat(m.arrivals().daysAvailable(NOW / 1000)).isEqualTo(7);
            assertThat(m.arrivals().basis(NOW / 1000)).contains("the same hour on a recent day (of the last 7)");
        }
    }

    private static void run(Store store, long submittedMillis, long runMillis, AttemptOutcome outcome) {
        Workload w = store.workloads().submit(NewWorkload.builder("lab", "alice").gpus(8).command(List.of("x"))
                .submittedAtMillis(submittedMillis).build());
        store.attempts().endAttempt(store.attempts().beginAttempt(w.id(), List.of(new Launch.NodeGpus("gpu-01",
                List.of(0, 1, 2, 3, 4, 5, 6, 7))), submittedMillis), outcome, "test", null, null,
                submittedMillis + runMillis);
    }
}
