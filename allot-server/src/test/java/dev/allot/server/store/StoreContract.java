package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch.NodeGpus;
import dev.allot.core.model.Priority;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every store must do, whatever the database under it. A subclass says how to open a store; {@link #open()}
 * called twice in one test must reach the same database (that is how a restart is simulated), and each test starts
 * from an empty one.
 */
abstract class StoreContract {
    private final List<Store> opened = new ArrayList<>();

    /** Opens the store under test, on the same database every time within a test. */
    protected abstract Store openStore();

    /**
     * Creates the schema of an older version (e.g. "3") on the empty database under test, as a store of that version
     * would have, and runs {@code sql} on it: the starting point of an upgrade.
     */
    protected abstract void createSchemaAt(String version, String... sql);

    protected final Store open() {
        Store s = openStore();
        opened.add(s);
        return s;
    }

    @AfterEach
    void closeStores() {
        for (Store s : opened) {
            s.close();
        }
    }

    static NewWorkload.Builder work(String allocation, String user) {
        return NewWorkload.builder(allocation, user).submittedAtMillis(1_000);
    }

    @Test
    void severalAttemptsAreMarkedStoppingTogetherEachAsAlone() {
        // given three attempts: one launching, one running, one already stopping since 1,000
        Store store = open();
        List<AttemptKey> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Workload w = store.workloads().submit(work("lab", "ada").build());
            keys.add(store.attempts().beginAttempt(w.id(), on("n" + i, 0), 500));
        }
        store.attempts().markRunning(keys.get(1));
        store.attempts().markStopping(keys.get(2), 1_000);
        // when all three are marked stopping together, at their own times
        boolean[] moved = store.attempts().markStopping(List.of(new Attempts.StopMark(keys.get(0), 2_000),
                new Attempts.StopMark(keys.get(1), 3_000), new Attempts.StopMark(keys.get(2), 4_000)));
        // then the first two moved, each with its time; the third kept its first request's
        assertThat(moved).containsExactly(true, true, false);
        assertThat(keys.stream().map(k -> store.attempts().attempts(k.workloadId()).get(0))
                .map(a -> a.phase() + "@" + a.stopRequestedAtMillis()).toList())
                .containsExactly("STOPPING@2000", "STOPPING@3000", "STOPPING@1000");
        // and a list naming an attempt that does not exist is refused whole: nothing of it is marked
        Workload other = store.workloads().submit(work("lab", "ada").build());
        AttemptKey open = store.attempts().beginAttempt(other.id(), on("n9", 0), 500);
        assertThatThrownBy(() -> store.attempts().markStopping(List.of(new Attempts.StopMark(open, 5_000),
                new Attempts.StopMark(new AttemptKey("w-none", 1), 5_000)))).isInstanceOf(NotFoundException.class);
        assertThat(store.attempts().attempts(other.id()).get(0).phase()).isEqualTo(AttemptPhase.LAUNCHING);
        assertThat(store.attempts().markStopping(List.of())).isEmpty();
    }

    static List<NodeGpus> on(String node, Integer... gpus) {
        return List.of(new NodeGpus(node, List.of(gpus)));
    }

    // -------------------------------------------------------------------------------------------- workloads

    private static List<String> ids(WorkloadChanges c) {
        return c.workloads().stream().map(Workload::id).toList();
    }

    @Test
    void theChangeFeedGivesEachWorkloadChangedSinceTheCursorOnceAsItIsNowAndNothingElse() {
        // given two workloads submitted before the cursor, and a third after it
        Store store = open();
        Workload a = store.workloads().submit(work("lab", "ada").build());
        Workload b = store.workloads().submit(work("lab", "ada").build());
        long cursor = store.workloads().changeCursor();
        Workload c = store.workloads().submit(work("lab", "ada").build());
        // then only the third is a change
        WorkloadChanges first = store.workloads().changesSince(cursor);
        assertThat(ids(first)).containsExactly(c.id());
        // and nothing changed since
        WorkloadChanges quiet = store.workloads().changesSince(first.cursor());
        assertThat(ids(quiet)).isEmpty();
        // when one is started, one held and one cancelled (and the first reports progress, twice)
        store.attempts().beginAttempt(a.id(), on("n1", 0), 10_000);
        store.workloads().setHeld(b.id(), "held: test");
        store.workloads().requestCancel(c.id());
        store.workloads().reportProgress(a.id(), 1, 10);
        store.workloads().reportProgress(a.id(), 2, 10);
        // then each comes once, as it is now; progress alone is no change for the scheduler
        WorkloadChanges later = store.workloads().changesSince(quiet.cursor());
        assertThat(ids(later)).containsExactlyInAnyOrder(a.id(), b.id(), c.id());
        Map<String, Workload> now = new java.util.HashMap<>();
        later.workloads().forEach(w -> now.put(w.id(), w));
        assertThat(now.get(a.id()).state()).isEqualTo(WorkloadState.RUNNING);
        assertThat(now.get(b.id()).heldReason()).isEqualTo("held: test");
        assertThat(now.get(c.id()).state()).isEqualTo(WorkloadState.CANCELLED);
        store.workloads().reportProgress(a.id(), 3, 10);
        assertThat(ids(store.workloads().changesSince(later.cursor()))).isEmpty();
        // and a store opened again reads from the same cursor
        assertThat(ids(open().workloads().changesSince(later.cursor()))).isEmpty();
        assertThat(ids(open().workloads().changesSince(cursor))).containsExactlyInAnyOrder(a.id(), b.id(), c.id());
    }

    @Test
    void theBrakesHaveDefaultsAreSetDurablyAndAudited() {
        Store store = open();
        assertThat(store.settings().brakes()).isEqualTo(new BrakeLimits(20, null));
        assertThat(store.settings().putBrakes(new BrakeLimits(30, 100.5), "root", 100)).isEqualTo(BrakeLimits.DEFAULTS);
        Store again = open();
        assertThat(again.settings().brakes()).isEqualTo(new BrakeLimits(30, 100.5));
        again.settings().putBrakes(new BrakeLimits(0, null), "admin", 200);
        assertThat(open().settings().brakes()).isEqualTo(new BrakeLimits(0, null));
        AuditEntry last = again.allocations().audit(1).get(0);
        assertThat(last.action()).isEqualTo("brakes.put");
        assertThat(last.actor()).isEqualTo("admin");
        assertThat(last.beforeJson()).isEqualTo("{\"maxRequeues\":30,\"maxGpuHoursPerWorkload\":100.5}");
        assertThat(last.afterJson()).isEqualTo("{\"maxRequeues\":0,\"maxGpuHoursPerWorkload\":null}");
    }

    @Test
    void theRunTotalsOfManyWorkloadsAreEachOnesTotalsInOneCall() {
        Store store = open();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", 100);
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Workload w = store.workloads().submit(work("lab", "ada").gpus(1).resumable(true).build());
            ids.add(w.id());
            for (int k = 0; k < i; k++) { // workload i has i runs of (i + 1) seconds, the first lost
                AttemptKey a = store.attempts().beginAttempt(w.id(), on("n1", 0), 10_000L * (k + 1));
                store.attempts().endAttempt(a, k == 0 ? AttemptOutcome.LOST : AttemptOutcome.REQUEUED, null, null,
                        null, 10_000L * (k + 1) + 1_000L * (i + 1));
            }
        }
        ids.add("w-404");
        Map<String, Attempts.RunTotals> all = store.attempts().runTotals(ids, 99_000);
        // Five of six ids asked (padded to eight in the query): those without runs are absent, as in runTotalsOfWaiting.
        assertThat(all).doesNotContainKeys(ids.get(0), "w-404").hasSize(4);
        for (String id : ids.subList(1, 5)) {
            assertThat(all.get(id)).as(id).isEqualTo(store.attempts().runTotals(id, 99_000));
        }
        // the first run lost, two preempted
        assertThat(all.get(ids.get(3))).isEqualTo(new Attempts.RunTotals(1, 12, 2));
        assertThat(store.attempts().runTotals(List.of(), 99_000)).isEmpty();
    }

    @Test
    void aWaitingWorkloadIsHeldAndReleasedAndItsRunsAddUpForTheBrakes() {
        Store store = open();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", 100);
        Workload w = store.workloads().submit(work("lab", "ada").gpus(2).resumable(true).build());
        assertThat(store.attempts().runTotals(w.id(), 5_000)).isEqualTo(Attempts.RunTotals.NONE);
        AttemptKey a1 = store.attempts().beginAttempt(w.id(), on("n1", 0, 1), 10_000);
        assertThat(store.workloads().setHeld(w.id(), "held: no")).isFalse(); // running: not held
        assertThat(store.attempts().runTotals(w.id(), 13_000)).isEqualTo(new Attempts.RunTotals(0, 6, 0));
        store.attempts().endAttempt(a1, AttemptOutcome.LOST, "node died", null, null, 20_000);
        AttemptKey a2 = store.attempts().beginAttempt(w.id(), on("n1", 0, 1), 30_000);
        store.attempts().endAttempt(a2, AttemptOutcome.REQUEUED, "preempted", "w-9", 0.0, 31_000);
        // The lost run is the workload's failure; the scheduler's preemption is not, it is counted apart (both runs
        // use GPU time).
        assertThat(store.attempts().runTotals(w.id(), 99_000)).isEqualTo(new Attempts.RunTotals(1, 22, 1));
        assertThat(store.attempts().runTotalsOfWaiting(99_000)).containsExactly(
                Map.entry(w.id(), new Attempts.RunTotals(1, 22, 1)));

        assertThat(store.workloads().setHeld(w.id(), "held: requeued 2 times")).isTrue();
        assertThat(open().workloads().workload(w.id()).orElseThrow().heldReason()).isEqualTo("held: requeued 2 times");
        assertThat(store.workloads().setHeld(w.id(), null)).isTrue();
        assertThat(store.workloads().workload(w.id()).orElseThrow().held()).isFalse();

        // Beginning an attempt or cancelling clears it.
        store.workloads().setHeld(w.id(), "held: again");
        store.attempts().endAttempt(store.attempts().beginAttempt(w.id(), on("n1", 0, 1), 40_000), AttemptOutcome.LOST,
                null, null, null, 41_000);
        assertThat(store.workloads().workload(w.id()).orElseThrow().heldReason()).isNull();
        store.workloads().setHeld(w.id(), "held: again");
        assertThat(store.workloads().requestCancel(w.id()).heldReason()).isNull();
        assertThat(store.attempts().runTotalsOfWaiting(99_000)).isEmpty();
        assertThatThrownBy(() -> store.workloads().setHeld("w-404", "x")).isInstanceOf(NotFoundException.class);
    }


    @Test
    void tokensAreListedByIdRevokedAndAuditedWithoutTheirPlaintext() {
        Store store = open();
        store.access().putUser(new User("ada", User.Role.USER), "root", 100);
        String id = store.access().addToken("ada", "s3cret-token", "laptop", "root", 200);
        assertThat(store.access().userForToken("s3cret-token")).contains(new User("ada", User.Role.USER));
        assertThat(store.access().tokens("ada")).containsExactly(new Access.TokenInfo(id, "ada", "laptop", 200,
                200 + TokenPolicy.DEFAULT_DEFAULT_LIFETIME_SECONDS * 1000, null));
        store.access().revokeToken("ada", id, "ada", 300);
        assertThat(store.access().userForToken("s3cret-token")).isEmpty();
        assertThatThrownBy(() -> store.access().revokeToken("ada", id, "ada", 400)).isInstanceOf(NotFoundException.class);
        assertThat(store.allocations().audit(10)).extracting(AuditEntry::action)
                .containsExactly("token.revoke", "token.create", "user.put");
        assertThat(store.allocations().audit(10).toString()).doesNotContain("s3cret-token");
    }

    @Test
    void aLeafWithUnfinishedWorkCannotGetAChildButOneWhoseWorkEndedCan() {
        Store store = open();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", 100);
        Workload w = store.workloads().submit(work("lab", "ada").build());
        assertThatThrownBy(() -> store.allocations().putAllocation(new Allocation("lab/nlp", 1, List.of(), List.of()),
                "root", 200))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("allocation 'lab' has 1 workload not ended (" + w.id() + ")")
                .hasMessageContaining("cannot get the child 'nlp'");
        assertThat(store.allocations().audit(10)).hasSize(1);
        store.workloads().requestCancel(w.id());
        store.workloads().setState(w.id(), WorkloadState.PENDING, WorkloadState.CANCELLED);
        store.allocations().putAllocation(new Allocation("lab/nlp", 1, List.of(), List.of()), "root", 300);
        assertThat(store.allocations().allocations()).extracting(Allocation::path).containsExactly("lab", "lab/nlp");
    }

    @Test
    void submitStoresEverythingAndNamesItFromTheSeq() {
        Store store = open();
        NewWorkload in = work("lab/nlp", "ada").gpus(4).gpusPerNode(2).durationSeconds(3600L).minRuntimeSeconds(600)
                .resumable(true).priority(Priority.HIGH).kind("eval").command(List.of("python", "train.py", "--lr", "1e-3"))
                .environment(Map.of("B", "2", "A", "1")).submittedAtMillis(1_234_567).build();
        Workload w = store.workloads().submit(in);

        assertThat(w.id()).isEqualTo("w-" + w.seq());
        assertThat(w.state()).isEqualTo(WorkloadState.PENDING);
        assertThat(w.allocationPath()).isEqualTo("lab/nlp");
        assertThat(w.user()).isEqualTo("ada");
        assertThat(w.gpus()).isEqualTo(4);
        assertThat(w.gpusPerNode()).isEqualTo(2);
        assertThat(w.durationSeconds()).isEqualTo(3600L);
        assertThat(w.minRuntimeSeconds()).isEqualTo(600);
        assertThat(w.resumable()).isTrue();
        assertThat(w.priority()).isEqualTo(Priority.HIGH);
        assertThat(w.kind()).isEqualTo("eval");
        assertThat(w.command()).containsExactly("python", "train.py", "--lr", "1e-3");
        assertThat(w.environment()).containsExactly(Map.entry("A", "1"), Map.entry("B", "2"));
        assertThat(w.submittedAtMillis()).isEqualTo(1_234_567);
        assertThat(w.progressDone()).isNull();
        assertThat(w.progressTotal()).isNull();
        assertThat(w.cancelRequested()).isFalse();
        assertThat(w.idempotencyKey()).isNull();
        assertThat(store.workloads().workload(w.id())).contains(w);
        assertThat(store.workloads().workload("w-999999")).isEmpty();

        Workload unknownDuration = store.workloads().submit(work("lab/nlp", "ada").build());
        assertThat(unknownDuration.durationSeconds()).isNull();
        assertThat(unknownDuration.seq()).isGreaterThan(w.seq());
    }

    @Test
    void listsFilterByStateAllocationSubtreeAndUserInSubmissionOrder() {
        Store store = open();
        Workload a = store.workloads().submit(work("lab/nlp", "ada").build());
        Workload b = store.workloads().submit(work("lab/nlp/pretrain", "bob").build());
        Workload c = store.workloads().submit(work("lab/nlpx", "ada").build());
        Workload d = store.workloads().submit(work("lab/vision", "bob").build());
        Workload e = store.workloads().submit(work("LAB/nlp", "ada").build());
        assertThat(store.workloads().setState(c.id(), WorkloadState.PENDING, WorkloadState.CANCELLED)).isTrue();

        assertThat(ids(store.workloads().workloads(WorkloadFilter.all()))).containsExactly(a.id(), b.id(), c.id(), d.id(), e.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withAllocationPrefix("lab/nlp"))))
                .containsExactly(a.id(), b.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withAllocationPrefix("lab"))))
                .containsExactly(a.id(), b.id(), c.id(), d.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withUser("ada")))).containsExactly(a.id(), c.id(), e.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withStates(WorkloadState.CANCELLED)))).containsExactly(c.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withStates(WorkloadState.PENDING, WorkloadState.CANCELLED))))
                .containsExactly(a.id(), b.id(), c.id(), d.id(), e.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withStates(WorkloadState.PENDING).withUser("ada")
                .withAllocationPrefix("lab")))).containsExactly(a.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withLimit(2)))).containsExactly(a.id(), b.id());
        assertThat(ids(store.workloads().workloads(WorkloadFilter.all().withLimit(2).withAfterSeq(b.seq()))))
                .containsExactly(c.id(), d.id());
        assertThat(store.workloads().workloads(WorkloadFilter.all().withUser("nobody"))).isEmpty();
    }

    @Test
    void aWorkloadIsReadWithItsAttemptsInOneSnapshot() {
        // given a workload that ran once, was requeued, and runs again
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "ada").build());
        AttemptKey first = store.attempts().beginAttempt(w.id(), on("n1", 0), 10_000);
        store.attempts().endAttempt(first, AttemptOutcome.REQUEUED, "preempted", null, null, 20_000);
        store.attempts().beginAttempt(w.id(), on("n2", 1), 30_000);
        // when it is read with its attempts
        Attempts.WorkloadHistory read = store.attempts().workloadWithAttempts(w.id()).orElseThrow();
        // then it is the workload as stored, running, with both attempts in order, as the separate reads give them
        assertThat(read.workload()).isEqualTo(store.workloads().workload(w.id()).orElseThrow());
        assertThat(read.workload().state()).isEqualTo(WorkloadState.RUNNING);
        assertThat(read.attempts()).isEqualTo(store.attempts().attempts(w.id()));
        assertThat(read.attempts()).extracting(Attempt::key).containsExactly(first, new AttemptKey(w.id(), 2));
        // and an unknown workload is nothing
        assertThat(store.attempts().workloadWithAttempts("w-999")).isEmpty();
    }

    @Test
    void anIdempotencyKeyUsedBeforeReturnsTheFirstWorkload() {
        Store store = open();
        Workload first = store.workloads().submit(work("lab", "ada").idempotencyKey("ada:job-1").gpus(2).build());
        store.workloads().requestCancel(first.id());
        Workload again = store.workloads().submit(work("lab", "ada").idempotencyKey("ada:job-1").gpus(8).build());
        Workload other = store.workloads().submit(work("lab", "ada").idempotencyKey("ada:job-2").build());

        assertThat(again.id()).isEqualTo(first.id());
        assertThat(again.gpus()).isEqualTo(2);
        assertThat(again.state()).isEqualTo(WorkloadState.CANCELLED);
        assertThat(other.id()).isNotEqualTo(first.id());
        assertThat(store.workloads().workloads(WorkloadFilter.all())).hasSize(2);
    }

    @Test
    void setStateIsACompareAndSet() {
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "ada").build());

        assertThat(store.workloads().setState(w.id(), WorkloadState.REQUEUED, WorkloadState.CANCELLED)).isFalse();
        assertThat(store.workloads().workload(w.id()).orElseThrow().state()).isEqualTo(WorkloadState.PENDING);
        assertThat(store.workloads().setState(w.id(), WorkloadState.PENDING, WorkloadState.CANCELLED)).isTrue();
        assertThat(store.workloads().setState(w.id(), WorkloadState.PENDING, WorkloadState.CANCELLED)).isFalse();
        assertThat(store.workloads().workload(w.id()).orElseThrow().state()).isEqualTo(WorkloadState.CANCELLED);

        assertThatThrownBy(() -> store.workloads().setState("w-424242", WorkloadState.PENDING, WorkloadState.FAILED))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("w-424242");
        assertThatThrownBy(() -> store.workloads().setState(w.id(), WorkloadState.CANCELLED, WorkloadState.RUNNING))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("beginAttempt");
    }

    @Test
    void cancellingAWaitingWorkloadEndsItAndARunningOneIsMarked() {
        Store store = open();
        Workload waiting = store.workloads().submit(work("lab", "ada").build());
        Workload running = store.workloads().submit(work("lab", "ada").build());
        AttemptKey key = store.attempts().beginAttempt(running.id(), on("n1", 0), 2_000);

        Workload cancelled = store.workloads().requestCancel(waiting.id());
        assertThat(cancelled.state()).isEqualTo(WorkloadState.CANCELLED);
        assertThat(cancelled.cancelRequested()).isTrue();

        Workload marked = store.workloads().requestCancel(running.id());
        assertThat(marked.state()).isEqualTo(WorkloadState.RUNNING);
        assertThat(marked.cancelRequested()).isTrue();
        assertThat(store.workloads().requestCancel(running.id())).isEqualTo(marked);

        // The scheduler stops it; whichever way the attempt ends short of finishing, it does not go back to the queue.
        store.attempts().markStopping(key, 5_000);
        Workload after = store.attempts().endAttempt(key, AttemptOutcome.PREEMPTED, "stopped", null, null, 3_000);
        assertThat(after.state()).isEqualTo(WorkloadState.CANCELLED);
        assertThatThrownBy(() -> store.workloads().requestCancel("w-0")).isInstanceOf(NotFoundException.class);
    }

    @Test
    void progressIsRecorded() {
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "ada").build());
        store.workloads().reportProgress(w.id(), 30, 100);
        assertThat(store.workloads().workload(w.id()).orElseThrow().progressDone()).isEqualTo(30);
        assertThat(store.workloads().workload(w.id()).orElseThrow().progressTotal()).isEqualTo(100);
        assertThatThrownBy(() -> store.workloads().reportProgress(w.id(), 101, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.workloads().reportProgress("w-0", 1, 2)).isInstanceOf(NotFoundException.class);
    }

    // --------------------------------------------------------------------------------------------- attempts

    @Test
    void anAttemptGoesFromLaunchingToEndedAndTakesItsWorkloadAlong() {
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "ada").gpus(3).build());
        List<NodeGpus> placement = List.of(new NodeGpus("n2", List.of(0, 1)), new NodeGpus("n1", List.of(7)));

        AttemptKey first = store.attempts().beginAttempt(w.id(), placement, 10_000);
        assertThat(first).isEqualTo(new AttemptKey(w.id(), 1));
        assertThat(store.workloads().workload(w.id()).orElseThrow().state()).isEqualTo(WorkloadState.RUNNING);
        Attempt launching = store.attempts().attempts(w.id()).get(0);
        assertThat(launching.phase()).isEqualTo(AttemptPhase.LAUNCHING);
        assertThat(launching.placement()).isEqualTo(placement);
        assertThat(launching.startedAtMillis()).isEqualTo(10_000);
        assertThat(launching.open()).isTrue();
        assertThat(launching.gpus()).isEqualTo(3);
        assertThat(store.attempts().launchingWorkloads()).containsExactly(w.id());

        assertThat(store.attempts().markRunning(first)).isTrue();
        assertThat(store.attempts().markRunning(first)).isFalse();
        assertThat(store.attempts().launchingWorkloads()).isEmpty();
        assertThat(store.attempts().attempts(w.id()).get(0).phase()).isEqualTo(AttemptPhase.RUNNING);
        assertThat(store.attempts().markStopping(first, 5_000)).isTrue();
        assertThat(store.attempts().markStopping(first, 6_000)).isFalse();
        assertThat(store.attempts().markRunning(first)).isFalse();
        assertThat(store.attempts().attempts(w.id()).get(0).phase()).isEqualTo(AttemptPhase.STOPPING);
        assertThat(store.attempts().attempts(w.id()).get(0).stopRequestedAtMillis())
                .as("the first request's time stays").isEqualTo(5_000);

        Workload preempted = store.attempts().endAttempt(first, AttemptOutcome.REQUEUED, "making room", "w-77", 120.5, 20_000);
        assertThat(preempted.state()).isEqualTo(WorkloadState.REQUEUED);
        Attempt ended = store.attempts().attempts(w.id()).get(0);
        assertThat(ended.phase()).isEqualTo(AttemptPhase.ENDED);
        assertThat(ended.endedAtMillis()).isEqualTo(20_000);
        assertThat(ended.outcome()).isEqualTo(AttemptOutcome.REQUEUED);
        assertThat(ended.reason()).isEqualTo("making room");
        assertThat(ended.preemptor()).isEqualTo("w-77");
        assertThat(ended.lostGpuSeconds()).isEqualTo(120.5);

        // Ending again the same way changes nothing; another way is refused.
        assertThat(store.attempts().endAttempt(first, AttemptOutcome.REQUEUED, "again", null, null, 25_000).state())
                .isEqualTo(WorkloadState.REQUEUED);
        assertThat(store.attempts().attempts(w.id()).get(0).endedAtMillis()).isEqualTo(20_000);
        assertThatThrownBy(() -> store.attempts().endAttempt(first, AttemptOutcome.COMPLETED, null, null, null, 25_000))
                .isInstanceOf(ConflictException.class).hasMessageContaining("already ended as requeued");

        AttemptKey second = store.attempts().beginAttempt(w.id(), placement, 30_000);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(store.attempts().endAttempt(second, AttemptOutcome.COMPLETED, "exit 0", null, null, 40_000).state())
                .isEqualTo(WorkloadState.COMPLETED);
        assertThat(store.attempts().attempts(w.id())).extracting(Attempt::key).containsExactly(first, second);
        assertThat(store.attempts().attempts(w.id())).extracting(a -> a.key().attempt()).containsExactly(1, 2);
        assertThat(store.attempts().openAttempts()).isEmpty();
    }

    @Test
    void eachOutcomeSetsTheWorkloadStateAndLostDependsOnResumable() {
        Store store = open();
        record Case(AttemptOutcome outcome, boolean resumable, WorkloadState expected) {
        }
        List<Case> cases = List.of(
                new Case(AttemptOutcome.COMPLETED, false, WorkloadState.COMPLETED),
                new Case(AttemptOutcome.FAILED, true, WorkloadState.FAILED),
                new Case(AttemptOutcome.CANCELLED, true, WorkloadState.CANCELLED),
                new Case(AttemptOutcome.PREEMPTED, false, WorkloadState.PREEMPTED),
                new Case(AttemptOutcome.REQUEUED, false, WorkloadState.REQUEUED),
                new Case(AttemptOutcome.LOST, true, WorkloadState.REQUEUED),
                new Case(AttemptOutcome.LOST, false, WorkloadState.FAILED));
        for (Case c : cases) {
            Workload w = store.workloads().submit(work("lab", "ada").resumable(c.resumable()).build());
            AttemptKey key = store.attempts().beginAttempt(w.id(), on("n1", 0), 1_000);
            assertThat(store.attempts().endAttempt(key, c.outcome(), null, null, null, 2_000).state()).as(c.toString())
                    .isEqualTo(c.expected());
            assertThat(store.workloads().workload(w.id()).orElseThrow().state()).as(c.toString()).isEqualTo(c.expected());
        }
    }

    @Test
    void aWorkloadPreemptedForGoodIsFinalAsInTheCoreAndLeavesTheSetNotEnded() {
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "ada").resumable(false).build());
        AttemptKey key = store.attempts().beginAttempt(w.id(), on("n1", 0), 1_000);
        assertThat(store.attempts().endAttempt(key, AttemptOutcome.PREEMPTED, "making room", "w-77", 60.0, 2_000)
                .state()).isEqualTo(WorkloadState.PREEMPTED);
        assertThat(WorkloadState.PREEMPTED.ended()).isTrue();
        assertThat(WorkloadState.PREEMPTED.waiting()).isFalse();
        assertThatThrownBy(() -> store.attempts().beginAttempt(w.id(), on("n1", 0), 3_000))
                .isInstanceOf(ConflictException.class).hasMessageContaining("is preempted");
        assertThat(store.workloads().requestCancel(w.id()).state()).as("cancelling an ended workload changes nothing")
                .isEqualTo(WorkloadState.PREEMPTED);
        assertThat(store.workloads().setHeld(w.id(), "brake")).as("only waiting work is held").isFalse();
        assertThat(store.workloads().workloads(WorkloadFilter.all().withStates(WorkloadState.PENDING,
                WorkloadState.RUNNING, WorkloadState.REQUEUED))).extracting(Workload::id).doesNotContain(w.id());
    }

    @Test
    void anAttemptBeginsOnlyForAWaitingWorkloadWithAMatchingPlacement() {
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "ada").gpus(2).build());
        assertThatThrownBy(() -> store.attempts().beginAttempt(w.id(), on("n1", 0), 1_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("asks for 2 GPUs");
        assertThatThrownBy(() -> store.attempts().beginAttempt("w-0", on("n1", 0), 1_000)).isInstanceOf(NotFoundException.class);

        AttemptKey key = store.attempts().beginAttempt(w.id(), on("n1", 0, 1), 1_000);
        assertThatThrownBy(() -> store.attempts().beginAttempt(w.id(), on("n1", 0, 1), 1_000))
                .isInstanceOf(ConflictException.class).hasMessageContaining("is running");
        store.attempts().endAttempt(key, AttemptOutcome.REQUEUED, null, null, null, 2_000);
        AttemptKey again = store.attempts().beginAttempt(w.id(), on("n2", 2, 3), 3_000);
        assertThat(again.attempt()).isEqualTo(2);
        store.attempts().endAttempt(again, AttemptOutcome.FAILED, "exit 1", null, null, 4_000);
        assertThatThrownBy(() -> store.attempts().beginAttempt(w.id(), on("n1", 0, 1), 5_000))
                .isInstanceOf(ConflictException.class).hasMessageContaining("is failed");
        assertThatThrownBy(() -> store.attempts().markRunning(new AttemptKey(w.id(), 9))).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store.attempts().endAttempt(new AttemptKey(w.id(), 9), AttemptOutcome.FAILED, null, null, null, 1))
                .isInstanceOf(NotFoundException.class);
    }

    @Test
    void everythingAcknowledgedIsThereAfterARestartAndOpenAttemptsAreListed() {
        Store store = open();
        Workload launching = store.workloads().submit(work("lab", "ada").build());
        Workload running = store.workloads().submit(work("lab", "bob").gpus(2).build());
        Workload stopping = store.workloads().submit(work("lab", "ada").build());
        Workload done = store.workloads().submit(work("lab", "ada").build());
        Workload waiting = store.workloads().submit(work("lab", "ada").build());
        AttemptKey k1 = store.attempts().beginAttempt(launching.id(), on("n1", 0), 1_000);
        AttemptKey k2 = store.attempts().beginAttempt(running.id(), on("n2", 0, 1), 1_100);
        store.attempts().markRunning(k2);
        AttemptKey k3 = store.attempts().beginAttempt(stopping.id(), on("n1", 1), 1_200);
        store.attempts().markRunning(k3);
        store.attempts().markStopping(k3, 5_000);
        AttemptKey k4 = store.attempts().beginAttempt(done.id(), on("n3", 0), 1_300);
        store.attempts().endAttempt(k4, AttemptOutcome.COMPLETED, null, null, null, 1_400);
        store.workloads().reportProgress(running.id(), 5, 10);
        store.close();

        Store reopened = open();
        assertThat(reopened.migrationsApplied()).isZero();
        assertThat(reopened.attempts().openAttempts()).extracting(Attempt::key).containsExactly(k1, k2, k3);
        assertThat(reopened.attempts().openAttempts()).extracting(Attempt::phase)
                .containsExactly(AttemptPhase.LAUNCHING, AttemptPhase.RUNNING, AttemptPhase.STOPPING);
        assertThat(reopened.attempts().openAttempts().get(1).placement()).isEqualTo(on("n2", 0, 1));
        assertThat(reopened.workloads().workloads(WorkloadFilter.all())).extracting(Workload::id, Workload::state).containsExactly(
                org.assertj.core.groups.Tuple.tuple(launching.id(), WorkloadState.RUNNING),
                org.assertj.core.groups.Tuple.tuple(running.id(), WorkloadState.RUNNING),
                org.assertj.core.groups.Tuple.tuple(stopping.id(), WorkloadState.RUNNING),
                org.assertj.core.groups.Tuple.tuple(done.id(), WorkloadState.COMPLETED),
                org.assertj.core.groups.Tuple.tuple(waiting.id(), WorkloadState.PENDING));
        assertThat(reopened.workloads().workload(running.id()).orElseThrow().progressDone()).isEqualTo(5);

        // The restarted scheduler reconciles: the backend lost the launching one, the stopping one stopped.
        assertThat(reopened.attempts().endAttempt(k1, AttemptOutcome.LOST, "unknown to the backend", null, null, 5_000).state())
                .isEqualTo(WorkloadState.FAILED);
        reopened.attempts().endAttempt(k3, AttemptOutcome.PREEMPTED, null, null, null, 5_000);
        assertThat(reopened.attempts().openAttempts()).extracting(Attempt::key).containsExactly(k2);
        Workload next = reopened.workloads().submit(work("lab", "ada").build());
        assertThat(next.seq()).isGreaterThan(waiting.seq());
    }

    @Test
    void migrationsRunOnceAndReopeningChangesNothing() {
        Store first = open();
        assertThat(first.migrationsApplied()).isPositive();
        first.access().putUser(new User("ada", User.Role.ADMIN));
        first.close();
        Store second = open();
        assertThat(second.migrationsApplied()).isZero();
        second.close();
        Store third = open();
        assertThat(third.migrationsApplied()).isZero();
        assertThat(third.access().users()).containsExactly(new User("ada", User.Role.ADMIN));
    }

    // ----------------------------------------------------------------------------------- allocations, audit

    @Test
    void allocationsAreUpsertedInOrderWithAuditBeforeAndAfter() {
        Store store = open();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of("root"), List.of()), "root", 100);
        store.allocations().putAllocation(new Allocation("lab/vision", 1, List.of(), List.of("bob")), "root", 200);
        store.allocations().putAllocation(new Allocation("lab/nlp", 2, List.of("ada"), List.of("ada", "bob")), "root", 300);
        store.allocations().putAllocation(new Allocation("lab/nlp", 3, List.of("ada"), List.of("ada")), "ada", 400);

        assertThat(store.allocations().allocations()).containsExactly(
                new Allocation("lab", 1, List.of("root"), List.of()),
                new Allocation("lab/nlp", 3, List.of("ada"), List.of("ada")),
                new Allocation("lab/vision", 1, List.of(), List.of("bob")));

        List<AuditEntry> audit = store.allocations().audit(10);
        assertThat(audit).extracting(AuditEntry::atMillis).containsExactly(400L, 300L, 200L, 100L);
        assertThat(audit).extracting(AuditEntry::id).isSortedAccordingTo(Collections.reverseOrder());
        AuditEntry update = audit.get(0);
        assertThat(update.actor()).isEqualTo("ada");
        assertThat(update.action()).isEqualTo("allocation.put");
        assertThat(update.subject()).isEqualTo("lab/nlp");
        assertThat(update.beforeJson())
                .isEqualTo("{\"path\":\"lab/nlp\",\"share\":2.0,\"managers\":[\"ada\"],\"members\":[\"ada\",\"bob\"]}");
        assertThat(update.afterJson())
                .isEqualTo("{\"path\":\"lab/nlp\",\"share\":3.0,\"managers\":[\"ada\"],\"members\":[\"ada\"]}");
        assertThat(audit.get(1).beforeJson()).isNull();
        assertThat(store.allocations().audit(2)).containsExactly(audit.get(0), audit.get(1));
    }

    @Test
    void anAllocationNeedsItsParentAndAValidShareAndPath() {
        Store store = open();
        assertThatThrownBy(() -> store.allocations().putAllocation(new Allocation("lab/nlp", 1, List.of(), List.of()), "root", 1))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("parent 'lab'");
        assertThatThrownBy(() -> new Allocation("lab", -1, List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field 'share'");
        assertThatThrownBy(() -> new Allocation("lab", Double.NaN, List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field 'share'");
        for (String path : new String[] {"lab//nlp", "lab/..", "lab/./x", "..", " lab", "lab/"}) {
            assertThatThrownBy(() -> new Allocation(path, 1, List.of(), List.of())).as(path)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field 'path'");
        }
        assertThat(store.allocations().allocations()).isEmpty();
        assertThat(store.allocations().audit(10)).isEmpty();
    }

    @Test
    void aZeroShareIsKeptWhileASiblingIsPositive() {
        // given lab > nlp (share 1)
        Store store = open();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", 1);
        store.allocations().putAllocation(new Allocation("lab/nlp", 1, List.of(), List.of()), "root", 2);

        // when a sibling of share 0 comes, it is stored (entitled to nothing, its work runs on idle GPUs)
        store.allocations().putAllocation(new Allocation("lab/scratch", 0, List.of(), List.of()), "root", 3);
        assertThat(store.allocations().allocations()).extracting(Allocation::share).containsExactly(1.0, 1.0, 0.0);

        // but the last positive share among siblings may neither drop to 0 nor go away
        assertThatThrownBy(() -> store.allocations().putAllocation(new Allocation("lab/nlp", 0, List.of(), List.of()),
                "root", 4)).isInstanceOf(ConflictException.class).hasMessageContaining("expected at least one positive"
                + " share among the children of 'lab', got shares summing to 0");
        assertThatThrownBy(() -> store.allocations().removeAllocation("lab/nlp", "root", 5))
                .isInstanceOf(ConflictException.class).hasMessageContaining("children of 'lab'");
        // nor may a root of share 0 stand alone
        assertThatThrownBy(() -> store.allocations().putAllocation(new Allocation("lab", 0, List.of(), List.of()),
                "root", 6)).isInstanceOf(ConflictException.class).hasMessageContaining("top of the tree");
        assertThat(store.allocations().allocations()).extracting(Allocation::share).containsExactly(1.0, 1.0, 0.0);
        assertThat(store.allocations().audit(10)).hasSize(3);

        // and the zero sibling itself may go
        store.allocations().removeAllocation("lab/scratch", "root", 7);
        assertThat(store.allocations().allocations()).hasSize(2);
    }

    @Test
    void siblingsWhoseSharesWouldSumToInfinityAreToldToTakeASmallerShare() {
        Store store = open();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", 1);
        store.allocations().putAllocation(new Allocation("lab/big", 1e308, List.of(), List.of()), "root", 2);

        // a second share of 1e308 is valid alone, but the sum overflows: it said "give it or a sibling a positive share"
        assertThatThrownBy(() -> store.allocations().putAllocation(new Allocation("lab/bigger", 1e308, List.of(),
                List.of()), "root", 3)).isInstanceOf(ConflictException.class).hasMessage("allocation 'lab/bigger':"
                + " field 'share': expected shares among the children of 'lab' that sum to a finite number (at most"
                + " about 1.8e308), got shares summing to Infinity; give it a smaller share (only the ratios of"
                + " siblings' shares count)");
        assertThat(store.allocations().allocations()).hasSize(2);
    }

    @Test
    void removingAnAllocationIsRefusedWhileItHasChildrenOrLiveWorkloads() {
        Store store = open();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", 1);
        store.allocations().putAllocation(new Allocation("lab/nlp", 1, List.of(), List.of()), "root", 2);
        Workload live = store.workloads().submit(work("lab/nlp", "ada").build());
        Workload over = store.workloads().submit(work("lab/nlp", "ada").build());
        store.workloads().setState(over.id(), WorkloadState.PENDING, WorkloadState.CANCELLED);

        assertThatThrownBy(() -> store.allocations().removeAllocation("lab", "root", 3))
                .isInstanceOf(ConflictException.class).hasMessageContaining("child").hasMessageContaining("lab/nlp");
        assertThatThrownBy(() -> store.allocations().removeAllocation("lab/nlp", "root", 3))
                .isInstanceOf(ConflictException.class).hasMessageContaining("1 workload not ended")
                .hasMessageContaining(live.id()).hasMessageNotContaining(over.id());
        assertThatThrownBy(() -> store.allocations().removeAllocation("lab/cv", "root", 3)).isInstanceOf(NotFoundException.class);
        assertThat(store.allocations().audit(10)).hasSize(2);

        AttemptKey key = store.attempts().beginAttempt(live.id(), on("n1", 0), 4);
        assertThatThrownBy(() -> store.allocations().removeAllocation("lab/nlp", "root", 5)).isInstanceOf(ConflictException.class);
        store.attempts().endAttempt(key, AttemptOutcome.COMPLETED, null, null, null, 6);
        store.allocations().removeAllocation("lab/nlp", "ada", 7);
        store.allocations().removeAllocation("lab", "ada", 8);

        assertThat(store.allocations().allocations()).isEmpty();
        AuditEntry removal = store.allocations().audit(1).get(0);
        assertThat(removal.action()).isEqualTo("allocation.remove");
        assertThat(removal.subject()).isEqualTo("lab");
        assertThat(removal.atMillis()).isEqualTo(8);
        assertThat(removal.beforeJson()).contains("\"path\":\"lab\"");
        assertThat(removal.afterJson()).isNull();
        assertThat(store.workloads().workload(over.id())).isPresent();
    }

    // ------------------------------------------------------------------------------------ users, tokens, nodes

    @Test
    void tokensFindTheirUser() {
        Store store = open();
        store.access().putUser(new User("ada", User.Role.USER));
        store.access().putUser(new User("ada", User.Role.ADMIN));
        store.access().putUser(new User("bob", User.Role.USER));
        String hash = store.access().addToken("ada", "secret-token-ada", "laptop", 10);
        store.access().addToken("bob", "secret-token-bob", "ci", 10);

        assertThat(hash).isEqualTo(Access.sha256Hex("secret-token-ada")).hasSize(64);
        assertThat(store.access().userForToken("secret-token-ada")).contains(new User("ada", User.Role.ADMIN));
        assertThat(store.access().userForToken("secret-token-bob")).contains(new User("bob", User.Role.USER));
        assertThat(store.access().userForToken("secret-token-eve")).isEmpty();
        assertThat(store.access().userForToken("")).isEmpty();
        assertThat(store.access().users()).extracting(User::name).containsExactly("ada", "bob");
        assertThatThrownBy(() -> store.access().addToken("eve", "x", "l", 1)).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store.access().addToken("bob", "secret-token-ada", "l", 1)).isInstanceOf(ConflictException.class);
    }

    // ------------------------------------------------------------------------------------ access (issue 13)

    static final long DAY_MS = 86_400_000L;

    @Test
    void givenATokenPolicy_whenTokensAreMade_thenTheyExpireByItAndAMintedTokenNeverOutlivesItsMinter() {
        Store store = open();
        store.access().putUser(new User("ada", User.Role.USER), "root", 0);
        assertThat(store.settings().tokenPolicy()).isEqualTo(TokenPolicy.DEFAULTS);

        TokenPolicy before = store.settings().putTokenPolicy(new TokenPolicy(86_400, 30 * 86_400), "root", 10);
        assertThat(before).isEqualTo(TokenPolicy.DEFAULTS);
        assertThat(store.settings().tokenPolicy()).isEqualTo(new TokenPolicy(86_400, 30 * 86_400));
        assertThat(store.allocations().audit(1).get(0)).satisfies(e -> {
            assertThat(e.action()).isEqualTo("token-policy.put");
            assertThat(e.actor()).isEqualTo("root");
            assertThat(e.afterJson()).contains("\"maxLifetimeSeconds\":2592000");
        });

        Access.TokenInfo byDefault = store.access().addToken("ada", "tok-default", "", "ada", 1_000, null, null).token();
        assertThat(byDefault.expiresAtMillis()).as("the default lifetime").isEqualTo(1_000 + DAY_MS);
        Access.TokenInfo parent = store.access().addToken("ada", "tok-parent", "", "ada", 1_000, 10 * 86_400L, null).token();
        assertThat(parent.expiresAtMillis()).isEqualTo(1_000 + 10 * DAY_MS);
        Access.Minted minted = store.access().addToken("ada", "tok-child", "", "ada", 2 * DAY_MS, 30 * 86_400L,
                parent.id());
        Access.TokenInfo child = minted.token();
        assertThat(child.expiresAtMillis()).as("clamped to the minter's expiry").isEqualTo(parent.expiresAtMillis());
        // the clamp was silent: the answer said only the expiry, and the asker could not tell it from what was asked
        assertThat(minted.cappedFromMillis()).as("what the lifetime would have given").isEqualTo(32 * DAY_MS);
        assertThat(store.access().addToken("ada", "tok-short", "", "ada", 2 * DAY_MS, 86_400L, parent.id())
                .cappedFromMillis()).as("not capped: within the minter's life").isNull();
        assertThat(child.mintedBy()).isEqualTo(parent.id());
        assertThatThrownBy(() -> store.access().addToken("ada", "tok-long", "", "ada", 0, 31 * 86_400L, null).token())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2592000");

        Access.TokenHolder holder = store.access().tokenHolder("tok-parent").orElseThrow();
        assertThat(holder.refusal(parent.expiresAtMillis() - 1)).isEmpty();
        assertThat(holder.refusal(parent.expiresAtMillis())).get().asString()
                .contains("expired at 1970-01-11T00:00:01.000Z");
        assertThat(store.allocations().audit(10).toString()).doesNotContain("tok-parent", "tok-child");
    }

    @Test
    void givenTokensMintedFromTokens_whenOneIsRevoked_thenEveryTokenMintedFromItGoesTooTransitively() {
        Store store = open();
        store.access().putUser(new User("ada", User.Role.ADMIN), "root", 0);
        store.access().putUser(new User("bob", User.Role.USER), "root", 0);
        String a = store.access().addToken("ada", "tok-a", "", "ada", 1, null, null).token().id();
        String b = store.access().addToken("ada", "tok-b", "", "ada", 2, null, a).token().id();
        String c = store.access().addToken("bob", "tok-c", "", "ada", 3, null, b).token().id(); // minted for someone else
        String d = store.access().addToken("ada", "tok-d", "", "ada", 4, null, a).token().id();
        store.access().addToken("ada", "tok-e", "", "ada", 5, null, null).token();

        List<String> revoked = store.access().revokeToken("ada", b, "ada", 10);

        assertThat(revoked).containsExactly(b, c);
        assertThat(store.access().tokenHolder("tok-b")).isEmpty();
        assertThat(store.access().tokenHolder("tok-c")).as("minted from b, for bob").isEmpty();
        assertThat(store.access().tokenHolder("tok-a")).isPresent();
        assertThat(store.access().tokenHolder("tok-d")).isPresent();
        AuditEntry e = store.allocations().audit(1).get(0);
        assertThat(e.action()).isEqualTo("token.revoke");
        assertThat(e.beforeJson()).contains(b).contains("\"minted\":[\"" + c + "\"]");

        assertThat(store.access().revokeToken("ada", a, "ada", 11)).containsExactly(a, d);
        assertThat(store.access().tokenHolder("tok-e")).as("not minted from a").isPresent();
    }

    @Test
    void givenOneEnabledAdmin_whenItWouldBeDemotedOrDisabled_thenTheStoreRefusesAndDisabledUsersAreRefusedSignIn() {
        Store store = open();
        store.access().putUser(new User("bob", User.Role.USER)); // no admin yet: seeding is not refused
        store.access().putUser(new User("ada", User.Role.ADMIN), "root", 0);
        store.access().addToken("bob", "tok-bob", "", 0);

        assertThatThrownBy(() -> store.access().putUser(new User("ada", User.Role.USER), "ada", 1))
                .isInstanceOf(ConflictException.class).hasMessageContaining("last enabled administrator")
                .hasMessageContaining("demoted");
        assertThatThrownBy(() -> store.access().putUser(new User("ada", User.Role.ADMIN, true), "ada", 1))
                .isInstanceOf(ConflictException.class).hasMessageContaining("disabled");
        assertThatThrownBy(() -> store.access().putUser(new User("ada", User.Role.ADMIN, true)))
                .as("unaudited writes obey the rule too").isInstanceOf(ConflictException.class);
        assertThat(store.access().user("ada")).contains(new User("ada", User.Role.ADMIN, false));
        assertThat(store.allocations().audit(10)).extracting(AuditEntry::action).containsExactly("user.put");

        store.access().putUser(new User("bob", User.Role.USER, true), "ada", 2);
        assertThat(store.access().tokenHolder("tok-bob").orElseThrow().refusal(3)).get().asString()
                .contains("user 'bob' is disabled");
        assertThat(store.allocations().audit(1).get(0).afterJson()).contains("\"disabled\":true");

        store.access().putUser(new User("bob", User.Role.ADMIN, false), "ada", 4);
        store.access().putUser(new User("ada", User.Role.ADMIN, true), "bob", 5);
        assertThat(store.access().users()).containsExactly(new User("ada", User.Role.ADMIN, true),
                new User("bob", User.Role.ADMIN, false));
    }

    @Test
    void givenNodes_whenTheyAreRegisteredResizedOrMarked_thenEachChangeIsAuditedWithItsActorAndNoOpsAreNot() {
        Store store = open();
        store.nodes().putNode(new Node("n1", 8, true, null, 1), "system:startup");
        store.nodes().putNode(new Node("n1", 8, true, null, 2), "system:node-sync"); // nothing changed
        store.nodes().putNode(new Node("n1", 4, true, null, 3), "system:node-sync");
        store.nodes().setHealth("n1", false, "xid 79", 4, "system:health-check");
        store.nodes().setHealth("n1", false, "xid 79", 5, "system:health-check"); // nothing changed
        store.nodes().putNode(new Node("n1", 4, true, null, 6), "root");

        List<AuditEntry> audit = store.allocations().audit(10);
        assertThat(audit).extracting(AuditEntry::actor)
                .containsExactly("root", "system:health-check", "system:node-sync", "system:startup");
        assertThat(audit).extracting(AuditEntry::action)
                .containsExactly("node.health", "node.health", "node.put", "node.put");
        assertThat(audit).extracting(AuditEntry::subject).containsOnly("node:n1");
        assertThat(audit.get(2).beforeJson()).contains("\"gpus\":8");
        assertThat(audit.get(2).afterJson()).contains("\"gpus\":4");
        assertThat(audit.get(1).afterJson()).contains("\"healthy\":false", "xid 79");
        assertThat(audit.get(3).beforeJson()).isNull();
        assertThatThrownBy(() -> store.nodes().setHealth("n9", true, null, 1, "root"))
                .isInstanceOf(NotFoundException.class);
    }

    @Test
    void givenAStoreOfVersion3_whenItIsUpgraded_thenItsTokensExpireByTheDefaultButNotWithinAWeekOfTheUpgrade() {
        long now = System.currentTimeMillis();
        long recent = now - DAY_MS;
        createSchemaAt("3",
                "INSERT INTO users (name, role) VALUES ('ada', 'admin')",
                "INSERT INTO tokens (hash, user_name, label, created_at_ms) VALUES ('" + Access.sha256Hex("tok-old")
                        + "', 'ada', 'bootstrap', 1000)",
                "INSERT INTO tokens (hash, user_name, label, created_at_ms) VALUES ('" + Access.sha256Hex("tok-new")
                        + "', 'ada', 'laptop', " + recent + ")");
        Store store = open();
        long after = System.currentTimeMillis();

        assertThat(store.migrationsApplied()).isPositive();
        assertThat(store.access().users()).containsExactly(new User("ada", User.Role.ADMIN, false));
        Access.TokenInfo old = store.access().tokenHolder("tok-old").orElseThrow().token();
        assertThat(old.expiresAtMillis()).as("a week from the upgrade, not 1970")
                .isBetween(now + 7 * DAY_MS - 1000, after + 7 * DAY_MS + 1000);
        Access.TokenInfo fresh = store.access().tokenHolder("tok-new").orElseThrow().token();
        assertThat(fresh.expiresAtMillis()).as("the default lifetime from its creation")
                .isEqualTo(recent + TokenPolicy.DEFAULT_DEFAULT_LIFETIME_SECONDS * 1000);
        assertThat(fresh.mintedBy()).isNull();
    }

    @Test
    void anAttemptsReasonKeepsTheBackendsWordsApartFromTheSchedulersAndOnlyThoseWhoMaySeeDetailsReadThem() {
        // given a workload whose attempt failed to start, the backend naming its program and PATH
        Store store = open();
        Workload w = store.workloads().submit(work("lab", "alice").build());
        AttemptKey key = store.attempts().beginAttempt(w.id(), on("n1", 0), 1_000);
        String words = "train.sh: command not found (No such file or directory in PATH=/home/alice/secret/bin:/usr/bin)";

        // when it ends with the scheduler's words and the backend's apart
        store.attempts().endAttempt(key, AttemptOutcome.FAILED, "failed to start", words, null, null, 2_000);

        // then both are kept, each in its own place, and the backend's are read only with the details
        Attempt a = store.attempts().attempts(w.id()).get(0);
        assertThat(a.reason()).isEqualTo("failed to start");
        assertThat(a.reasonDetail()).isEqualTo(words);
        assertThat(a.reasonInFull()).isEqualTo("failed to start (" + words + ")");
        assertThat(a.reasonFor(false)).isEqualTo("failed to start (" + AttemptReasons.DETAIL_WITHHELD + ")")
                .doesNotContain("/home/alice").doesNotContain("train.sh");
    }

    @Test
    void givenAStoreOfVersion10_whenItIsUpgraded_thenAnAttemptsReasonOfOldIsKeptButShownOnlyWithTheDetails() {
        // given a version-10 store whose one attempt failed with the backend's words in its one reason column
        String old = "failed to start (/home/alice/project-x/run.sh: No such file or directory)";
        createSchemaAt("10",
                "INSERT INTO workloads (id, allocation_path, user_name, gpus, gpus_per_node, min_runtime_seconds,"
                        + " resumable, priority, kind, command, environment, state, submitted_at_ms) VALUES ('w-1',"
                        + " 'lab', 'alice', 1, 0, 0, TRUE, 'normal', 'train', '[\"/home/alice/project-x/run.sh\"]',"
                        + " '{}', 'failed', 1000)",
                "INSERT INTO attempts (workload_id, attempt, placement, phase, started_at_ms, ended_at_ms, outcome,"
                        + " reason) VALUES ('w-1', 1, '[{\"node\": \"n1\", \"gpus\": [0]}]', 'ended', 2000, 3000,"
                        + " 'failed', '" + old + "')");

        // when a store of this version opens it
        Store store = open();

        // then the old reason is kept whole as the backend's words (nothing tells the scheduler's part apart)
        Attempt a = store.attempts().attempts("w-1").get(0);
        assertThat(a.reason()).isNull();
        assertThat(a.reasonDetail()).isEqualTo(old);
        assertThat(a.reasonInFull()).isEqualTo(old);
        assertThat(a.reasonFor(false)).isEqualTo(AttemptReasons.REASON_WITHHELD);
    }

    @Test
    void nodesAreListedByNameWithTheirHealth() {
        Store store = open();
        store.nodes().putNode(new Node("n2", 8, true, null, 1));
        store.nodes().putNode(new Node("n10", 4, true, null, 1));
        store.nodes().putNode(new Node("n1", 8, true, null, 1));
        store.nodes().setHealth("n2", false, "xid 79", 50);
        store.nodes().putNode(new Node("n10", 2, true, "reconfigured", 60));

        assertThat(store.nodes().nodes()).containsExactly(
                new Node("n1", 8, true, null, 1),
                new Node("n10", 2, true, "reconfigured", 60),
                new Node("n2", 8, false, "xid 79", 50));
        assertThatThrownBy(() -> store.nodes().setHealth("n9", true, null, 1)).isInstanceOf(NotFoundException.class);
    }

    // ------------------------------------------------------------------------------------------------ usage

    @Test
    void usageClipsAttemptsToTheWindowAndChargesOnlyAllocatedWork() {
        Store store = open();
        // window [100 s, 200 s)
        long since = 100_000;
        long now = 200_000;
        Workload before = store.workloads().submit(work("a", "u").gpus(2).build());     // 50..150 s, 2 GPUs: 50 s in window
        Workload inside = store.workloads().submit(work("a", "u").build());             // 120..130 s, 1 GPU: 10 s
        Workload spanning = store.workloads().submit(work("b", "u").gpus(4).build());   // 0..300 s, 4 GPUs: 100 s
        Workload open = store.workloads().submit(work("b/c", "u").gpus(3).build());     // 180 s.. open, 3 GPUs: 20 s
        Workload free = store.workloads().submit(work("a", "u").minRuntimeSeconds(0).gpus(8).build());  // never charged
        Workload earlier = store.workloads().submit(work("d", "u").build());            // 10..100 s: touches, no overlap
        Workload later = store.workloads().submit(work("d", "u").build());              // 200 s..: starts at the end

        end(store, store.attempts().beginAttempt(before.id(), on("n1", 0, 1), 50_000), 150_000);
        end(store, store.attempts().beginAttempt(inside.id(), on("n1", 2), 120_000), 130_000);
        end(store, store.attempts().beginAttempt(spanning.id(), on("n2", 0, 1, 2, 3), 0), 300_000);
        store.attempts().beginAttempt(open.id(), List.of(new NodeGpus("n3", List.of(0)), new NodeGpus("n4", List.of(0, 1))), 180_000);
        end(store, store.attempts().beginAttempt(free.id(), on("n5", 0, 1, 2, 3, 4, 5, 6, 7), 100_000), 200_000);
        end(store, store.attempts().beginAttempt(earlier.id(), on("n6", 0), 10_000), 100_000);
        store.attempts().beginAttempt(later.id(), on("n6", 0), 200_000);

        assertThat(store.attempts().usageSince(since, now)).containsExactly(
                Map.entry("a", 2 * 50.0 + 10.0),
                Map.entry("b", 4 * 100.0),
                Map.entry("b/c", 3 * 20.0));
        assertThat(store.attempts().usageSince(now, now)).isEmpty();
        assertThat(store.attempts().usageSince(0, 1_000_000)).containsEntry("d", 90.0 + 800.0);
        assertThatThrownBy(() -> store.attempts().usageSince(2, 1)).isInstanceOf(IllegalArgumentException.class);
        // the unallocated work, apart: GPU time received beyond what is charged
        assertThat(store.attempts().unallocatedRuns(since, now)).containsExactly(
                new Attempts.ChargedRun("a", 8, 100_000, 200_000L));
        assertThat(store.attempts().unallocatedRuns(now, 1_000_000)).isEmpty();
        assertThatThrownBy(() -> store.attempts().unallocatedRuns(2, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    private static void end(Store store, AttemptKey key, long atMillis) {
        store.attempts().endAttempt(key, AttemptOutcome.COMPLETED, null, null, null, atMillis);
    }

    // ------------------------------------------------------------------------------------------ concurrency

    @Test
    void concurrentSubmissionsAreAllKeptWithDistinctIncreasingIds() throws Exception {
        Store store = open();
        int threads = 8;
        int each = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Workload>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                String user = "user" + t;
                Callable<List<Workload>> job = () -> {
                    start.await();
                    List<Workload> mine = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        mine.add(store.workloads().submit(work("lab", user).idempotencyKey(user + ":" + i).build()));
                        if (i % 50 == 0) {
                            store.workloads().workloads(WorkloadFilter.all().withUser(user).withLimit(10));
                        }
                    }
                    return mine;
                };
                futures.add(pool.submit(job));
            }
            start.countDown();
            List<Workload> acknowledged = new ArrayList<>();
            for (Future<List<Workload>> f : futures) {
                List<Workload> mine = f.get(5, TimeUnit.MINUTES);
                assertThat(mine).extracting(Workload::seq).isSorted().doesNotHaveDuplicates();
                acknowledged.addAll(mine);
            }
            assertThat(acknowledged).hasSize(threads * each);
            assertThat(acknowledged).extracting(Workload::id).doesNotHaveDuplicates();

            List<Workload> stored = store.workloads().workloads(WorkloadFilter.all());
            assertThat(stored).hasSize(threads * each);
            assertThat(stored).extracting(Workload::seq).isSorted().doesNotHaveDuplicates();
            assertThat(stored).allSatisfy(w -> assertThat(w.id()).isEqualTo("w-" + w.seq()));
            assertThat(stored).extracting(Workload::id)
                    .containsExactlyInAnyOrderElementsOf(acknowledged.stream().map(Workload::id).toList());
            for (Workload w : acknowledged) {
                Optional<Workload> found = store.workloads().workload(w.id());
                assertThat(found).contains(w);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void racingCallsOnOneWorkloadHaveOneWinner() throws Exception {
        Store store = open();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            // The same idempotency key from every thread at once: one workload.
            List<Workload> same = race(pool, threads, i -> store.workloads().submit(work("lab", "ada").idempotencyKey("k").build()));
            assertThat(same).extracting(Workload::id).containsOnly(same.get(0).id());
            assertThat(store.workloads().workloads(WorkloadFilter.all())).hasSize(1);

            // Every thread tries to start it: one attempt, the others are refused.
            String id = same.get(0).id();
            List<Boolean> began = race(pool, threads, i -> {
                try {
                    store.attempts().beginAttempt(id, on("n" + i, 0), 1_000);
                    return true;
                } catch (ConflictException e) {
                    return false;
                }
            });
            assertThat(began).containsOnlyOnce(true);
            assertThat(store.attempts().attempts(id)).hasSize(1);

            // Every thread tries the same compare-and-set: one succeeds.
            Workload other = store.workloads().submit(work("lab", "ada").build());
            List<Boolean> set = race(pool, threads,
                    i -> store.workloads().setState(other.id(), WorkloadState.PENDING, WorkloadState.CANCELLED));
            assertThat(set).containsOnlyOnce(true);
        } finally {
            pool.shutdownNow();
        }
    }

    private static <T> List<T> race(ExecutorService pool, int threads, java.util.function.IntFunction<T> call)
            throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int i = t;
            futures.add(pool.submit(() -> {
                start.await();
                return call.apply(i);
            }));
        }
        start.countDown();
        List<T> out = new ArrayList<>();
        for (Future<T> f : futures) {
            out.add(f.get(1, TimeUnit.MINUTES));
        }
        return out;
    }

    private static List<String> ids(List<Workload> ws) {
        return ws.stream().map(Workload::id).toList();
    }
}
