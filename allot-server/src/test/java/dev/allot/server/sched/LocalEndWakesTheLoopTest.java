package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.backend.LocalBackend;
import dev.allot.server.backend.OwnProcesses;
import dev.allot.server.identity.AccountMap;
import dev.allot.server.identity.UnixAccounts;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop on the local backend with real processes, its tick an hour long, so that only a wake-up can run a cycle:
 * given unallocated work holding the only GPU, when allocated work arrives, the loop preempts the unallocated process;
 * its start waits for the GPU (a fence) until the stopped process has exited, and the backend's notice of that exit
 * wakes the loop, which starts the allocated work at once instead of an hour later. The margin is wide: the test
 * allows 20 seconds for what takes well under one, against a tick of an hour.
 */
class LocalEndWakesTheLoopTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final String MARKER = "LOCAL_END_WAKES_THE_LOOP_TEST";

    @TempDir
    Path dir;

    private Store store;
    private LocalBackend backend;
    private SchedulerLoop loop;

    @AfterEach
    void cleanUp() {
        if (loop != null) {
            loop.close();
        }
        if (backend != null) {
            backend.close();
        }
        if (store != null) {
            store.close();
        }
        // Whatever still runs of this test's processes, and no other test's.
        new OwnProcesses(dir, MARKER).kill();
    }

    /** Whether a {@code sleep} of this test runs (found by the marker in its environment). */
    private boolean sleepRuns() {
        String marker = MARKER + "=" + dir.toAbsolutePath();
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            return all.filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("/sleep")).orElse(false))
                    .anyMatch(p -> OwnProcesses.environmentOf(p).contains(marker));
        }
    }

    private String submit(long minRuntimeSeconds) {
        return store.workloads().submit(NewWorkload.builder("a", "u").gpus(1).minRuntimeSeconds(minRuntimeSeconds)
                .resumable(true).command(List.of("sleep", "600"))
                .environment(Map.of(MARKER, dir.toAbsolutePath().toString()))
                .submittedAtMillis(System.currentTimeMillis()).build()).id();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not happen within " + PATIENCE);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void givenAPreemptedProcess_whenItExits_thenTheWaitingStartRunsWithoutWaitingForTheTick() throws Exception {
        oneGpuLoop(Duration.ofSeconds(60)); // SIGTERM ends sleep at once; SIGKILL would come after 60 s
        loop.start(Duration.ofHours(1)); // the first cycle now, the next tick an hour later: only wake-ups run cycles

        String unallocated = submit(0);
        loop.nudge();
        await("the unallocated workload's start", () -> store.attempts().attempts(unallocated).size() == 1);
        await("the unallocated workload's sleep", this::sleepRuns);

        String allocated = submit(3600);
        loop.nudge();
        await("the allocated workload's start", () -> store.attempts().attempts(allocated).size() == 1);

        List<Attempt> preempted = store.attempts().attempts(unallocated);
        assertThat(preempted.get(0).outcome()).isEqualTo(AttemptOutcome.REQUEUED);
        assertThat(preempted.get(0).preemptor()).isEqualTo(allocated);
        // The allocated workload started once the preempted process had ended (its GPU is never given twice).
        assertThat(store.attempts().attempts(allocated).get(0).startedAtMillis())
                .isGreaterThanOrEqualTo(preempted.get(0).endedAtMillis());
    }

    /**
     * Given unallocated work that has only just been launched (its wrapper may not have forked its command yet), when
     * allocated debug work arrives, then the victim's stop still reaches its command as SIGTERM and the debug work
     * starts as soon as the victim has exited, not after the grace period (an hour here). Before the local backend's
     * stop followed up on the wrapper's children, such a stop could miss the command, which then held the GPU until
     * the SIGKILL at the end of the grace.
     */
    @Test
    void givenAVictimStoppedWhileStillLaunching_whenItsCommandGetsTheTerm_thenTheDebugStartDoesNotWaitForTheGrace()
            throws Exception {
        oneGpuLoop(Duration.ofHours(1)); // a missed SIGTERM would hold the GPU for an hour
        loop.start(Duration.ofHours(1));

        for (int round = 0; round < 8; round++) {
            String unallocated = submit(0);
            loop.nudge();
            await("the unallocated workload's start", () -> store.attempts().attempts(unallocated).size() == 1);
            // no wait for its command: the debug work comes while the wrapper may still be launching it
            String debug = submitDebug();
            loop.nudge();
            await("the debug workload's start", () -> store.attempts().attempts(debug).size() == 1);
            Attempt victim = store.attempts().attempts(unallocated).get(0);
            assertThat(victim.outcome()).isEqualTo(AttemptOutcome.REQUEUED);
            assertThat(victim.preemptor()).isEqualTo(debug);
            assertThat(store.attempts().attempts(debug).get(0).startedAtMillis())
                    .isGreaterThanOrEqualTo(victim.endedAtMillis());
            await("the debug workload's end", () -> store.workloads().workload(debug).orElseThrow().state().ended());
            // the victim, requeued, takes the GPU back; cancelled so that the next round starts from an idle node
            await("the victim's restart", () -> store.attempts().attempts(unallocated).size() == 2);
            store.workloads().requestCancel(unallocated);
            loop.nudge();
            await("the victim's cancellation", () -> store.workloads().workload(unallocated).orElseThrow().state()
                    .ended());
        }
    }

    /**
     * A loop over a fresh store with allocation a and one local node n1 of 1 GPU, stopping work with {@code grace}
     * before its SIGKILL; run as nobody when the tests run as root (the local backend never runs a workload as root).
     */
    private void oneGpuLoop(Duration grace) {
        store = Store.sqlite(dir.resolve("store"));
        long t = System.currentTimeMillis();
        store.allocations().putAllocation(new Allocation("a", 1, List.of(), List.of()), "root", t);
        store.nodes().putNode(new Node("n1", 1, true, null, t));
        backend = new LocalBackend(dir.resolve("backend"), "n1");
        PolicyFactory f = PolicyRegistry.standard().get("allocation");
        loop = new SchedulerLoop(store, backend, f.create(Settings.defaults(f.settings())), SchedulerConfig.defaults(),
                Clock.systemUTC(), grace);
        if (UnixAccounts.serviceUid() == 0) {
            loop.runAs(AccountMap.everyoneAs("nobody"));
        }
    }

    /** Allocated debug work: one GPU, protected ten minutes, ends at once. */
    private String submitDebug() {
        return store.workloads().submit(NewWorkload.builder("a", "u").gpus(1).minRuntimeSeconds(600)
                .resumable(true).command(List.of("true")).kind("debug")
                .environment(Map.of(MARKER, dir.toAbsolutePath().toString()))
                .submittedAtMillis(System.currentTimeMillis()).build()).id();
    }
}
