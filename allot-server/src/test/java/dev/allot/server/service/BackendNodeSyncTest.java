package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's nodes kept in step with a backend that owns the list of nodes: new nodes are added with their GPUs, GPU
 * counts follow, a node the backend cannot use is unhealthy with the backend's reason and healthy again only if the
 * backend made it so; a node only the store has, and every node when the backend cannot be asked, are left alone.
 */
class BackendNodeSyncTest {
    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
    private final NodesBackend backend = new NodesBackend();
    private Store store;
    private BackendNodeSync sync;
    private int changed;

    /** A backend that only answers {@link #nodes()}: what {@link #answer} holds, or what {@link #failure} throws. */
    private static class NodesBackend implements Backend {
        List<BackendNode> answer = List.of();
        BackendException failure;
        /** How many of the next listings fail with {@link #failure} (then it answers); negative: every one fails. */
        int failures = -1;
        int listings;

        @Override
        public String name() {
            return "slurm";
        }

        @Override
        public Optional<List<BackendNode>> nodes() {
            listings++;
            if (failure != null && failures != 0) {
                failures--;
                throw failure;
            }
            return Optional.of(answer);
        }

        @Override
        public void start(Launch launch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void stop(AttemptKey attempt, Duration grace) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<AttemptStatus> observe() {
            return List.of();
        }

        @Override
        public void forget(AttemptKey attempt) {
        }
    }

    @BeforeEach
    void open() {
        store = Store.sqlite(dir);
        sync = new BackendNodeSync(store, backend, clock, () -> changed++);
    }

    @AfterEach
    void close() {
        sync.close();
        store.close();
    }

    private Node node(String name) {
        return store.nodes().nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    private static BackendNode usable(String name, int gpus) {
        return new BackendNode(name, gpus, true, null);
    }

    private static BackendNode unusable(String name, int gpus, String reason) {
        return new BackendNode(name, gpus, false, reason);
    }

    @Test
    void newNodesAreAddedWithTheirGpusAndThoseTheBackendCannotUseAreUnhealthyWithItsReason() {
        backend.answer = List.of(usable("gpu01", 8), unusable("gpu02", 4, "DOWN: Not responding"),
                unusable("gpu03", 2, null));
        assertThat(sync.syncOnce()).isEqualTo(3);
        assertThat(changed).isEqualTo(1);
        long t = clock.millis();
        assertThat(store.nodes().nodes()).containsExactly(
                new Node("gpu01", 8, true, null, t),
                new Node("gpu02", 4, false, "slurm: DOWN: Not responding", t),
                new Node("gpu03", 2, false, "slurm: not usable", t));

        // The same answer again changes nothing and tells no one.
        clock.advance(Duration.ofMinutes(1));
        assertThat(sync.syncOnce()).isZero();
        assertThat(changed).isEqualTo(1);
        assertThat(node("gpu01").updatedAtMillis()).isEqualTo(t);
    }

    @Test
    void aGpuCountThatChangedIsAppliedAndTheHealthKept() {
        store.nodes().putNode(new Node("gpu01", 8, false, "fan failure", clock.millis()));
        backend.answer = List.of(usable("gpu01", 6));
        clock.advance(Duration.ofMinutes(1));
        assertThat(sync.syncOnce()).isEqualTo(1);
        assertThat(changed).isEqualTo(1);
        assertThat(store.nodes().nodes()).containsExactly(new Node("gpu01", 6, false, "fan failure", clock.millis()));
    }

    @Test
    void aNodeTheBackendCannotUseIsUnhealthyUntilItCanAgain() {
        store.nodes().putNode(new Node("gpu01", 8, true, null, clock.millis()));
        backend.answer = List.of(unusable("gpu01", 8, "DRAIN: maintenance"));
        assertThat(sync.syncOnce()).isEqualTo(1);
        assertThat(node("gpu01").healthy()).isFalse();
        assertThat(node("gpu01").reason()).isEqualTo("slurm: DRAIN: maintenance");

        // Still unusable, for another reason: already unhealthy, nothing to do.
        backend.answer = List.of(unusable("gpu01", 8, "DOWN"));
        assertThat(sync.syncOnce()).isZero();
        assertThat(node("gpu01").reason()).isEqualTo("slurm: DRAIN: maintenance");

        backend.answer = List.of(usable("gpu01", 8));
        assertThat(sync.syncOnce()).isEqualTo(1);
        assertThat(node("gpu01").healthy()).isTrue();
        assertThat(node("gpu01").reason()).isNull();
        assertThat(changed).isEqualTo(2);
    }

    @Test
    void aNodeAPersonMarkedUnhealthyStaysSoWhateverTheBackendSays() {
        store.nodes().putNode(new Node("gpu01", 8, true, null, clock.millis()));
        store.nodes().setHealth("gpu01", false, "fan failure", clock.millis());
        backend.answer = List.of(usable("gpu01", 8));
        assertThat(sync.syncOnce()).isZero();
        assertThat(node("gpu01").healthy()).isFalse();
        assertThat(node("gpu01").reason()).isEqualTo("fan failure");

        backend.answer = List.of(unusable("gpu01", 8, "DOWN"));
        assertThat(sync.syncOnce()).isZero();
        assertThat(node("gpu01").reason()).isEqualTo("fan failure");

        // A reason that only mentions the backend's name without its prefix is not the backend's either.
        store.nodes().setHealth("gpu01", false, "slurm was flaky here", clock.millis());
        backend.answer = List.of(usable("gpu01", 8));
        assertThat(sync.syncOnce()).isZero();
        assertThat(node("gpu01").healthy()).isFalse();
        assertThat(changed).isZero();
    }

    @Test
    void aNodeTheBackendDoesNotHaveIsLeftAlone() {
        store.nodes().putNode(new Node("old", 4, true, null, clock.millis()));
        store.nodes().putNode(new Node("gone", 4, false, "slurm: DOWN", clock.millis()));
        backend.answer = List.of(usable("gpu01", 8));
        assertThat(sync.syncOnce()).isEqualTo(1);
        assertThat(sync.syncOnce()).isZero();
        assertThat(node("old")).isEqualTo(new Node("old", 4, true, null, clock.millis()));
        assertThat(node("gone")).isEqualTo(new Node("gone", 4, false, "slurm: DOWN", clock.millis()));
    }

    @Test
    void aBackendThatCannotBeAskedChangesNothing() {
        store.nodes().putNode(new Node("gpu01", 8, false, "slurm: DOWN", clock.millis()));
        List<Node> before = store.nodes().nodes();
        backend.failure = new BackendUnavailableException("slurmctld did not answer");
        assertThat(sync.syncOnce()).isEqualTo(-1);
        assertThat(store.nodes().nodes()).isEqualTo(before);
        assertThat(changed).isZero();
        assertThat(BackendNodeSync.applies(backend)).isTrue(); // it has nodes, it just cannot say now

        backend.failure = null;
        backend.answer = List.of(usable("gpu01", 8));
        assertThat(sync.syncOnce()).isEqualTo(1);
        assertThat(node("gpu01").healthy()).isTrue();
    }

    @Test
    void givenAnEmptyStore_whenTheFirstTwoListingsFailAtStart_thenItWaitsOneThenTwoSecondsAndTheThirdAddsTheNodes()
            throws InterruptedException {
        backend.failure = new BackendUnavailableException("sinfo: Connection reset by peer");
        backend.failures = 2;
        backend.answer = List.of(usable("gpu01", 8));
        List<Duration> waits = new java.util.ArrayList<>();
        assertThat(sync.syncAtStart(waits::add)).isEqualTo(1);
        assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
        assertThat(backend.listings).isEqualTo(3);
        assertThat(node("gpu01").gpus()).isEqualTo(8);
    }

    @Test
    void givenAnEmptyStore_whenEveryListingFailsAtStart_thenItGivesUpAfterFiveTriesOverFifteenSeconds()
            throws InterruptedException {
        backend.failure = new BackendUnavailableException("slurmctld did not answer");
        List<Duration> waits = new java.util.ArrayList<>();
        assertThat(sync.syncAtStart(waits::add)).isEqualTo(-1);
        assertThat(backend.listings).isEqualTo(BackendNodeSync.FIRST_LISTING_TRIES).isEqualTo(5);
        assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
                Duration.ofSeconds(8));
        assertThat(store.nodes().nodes()).isEmpty();
    }

    @Test
    void givenAStoreWithNodes_whenTheListingFailsAtStart_thenOneTryIsEnoughAndTheNodesAreLeftAsTheyAre()
            throws InterruptedException {
        store.nodes().putNode(new Node("gpu01", 8, true, null, clock.millis()));
        backend.failure = new BackendUnavailableException("slurmctld did not answer");
        List<Duration> waits = new java.util.ArrayList<>();
        assertThat(sync.syncAtStart(waits::add)).isEqualTo(-1);
        assertThat(waits).isEmpty();
        assertThat(backend.listings).isEqualTo(1);
        assertThat(node("gpu01").healthy()).isTrue();
    }

    @Test
    void aBackendWithoutItsOwnNodesIsNotSynced() {
        Backend plain = new NodesBackend() {
            @Override
            public Optional<List<BackendNode>> nodes() {
                return Optional.empty();
            }
        };
        assertThat(BackendNodeSync.applies(plain)).isFalse();
        store.nodes().putNode(new Node("gpu01", 8, true, null, clock.millis()));
        assertThat(new BackendNodeSync(store, plain, clock, () -> changed++).syncOnce()).isZero();
        assertThat(changed).isZero();
    }

    @Test
    void aNodeWithoutGpusDoesNotKeepTheOthersOutOfStep() {
        // A CPU-only node of the same cluster: the store holds only nodes with GPUs.
        store.nodes().putNode(new Node("gpu02", 8, true, null, clock.millis()));
        backend.answer = List.of(usable("cpu01", 0), usable("gpu01", 8), unusable("gpu02", 8, "DOWN"));
        assertThat(sync.syncOnce()).isEqualTo(2);
        assertThat(store.nodes().nodes()).extracting(Node::name).containsExactly("gpu01", "gpu02");
        assertThat(node("gpu02").reason()).isEqualTo("slurm: DOWN");
        assertThat(changed).isEqualTo(1);
    }

    @Test
    void aStoredNodeWhoseGpusTheBackendNoLongerCountsTakesNoNewWorkUntilTheyAreBack() {
        store.nodes().putNode(new Node("gpu01", 8, true, null, clock.millis()));
        backend.answer = List.of(usable("gpu01", 0));
        assertThat(sync.syncOnce()).isEqualTo(1);
        assertThat(node("gpu01").healthy()).isFalse();
        assertThat(node("gpu01").reason()).isEqualTo("slurm: reports no GPUs on this node");
        assertThat(node("gpu01").gpus()).isEqualTo(8);

        backend.answer = List.of(usable("gpu01", 8));
        assertThat(sync.syncOnce()).isEqualTo(1);
        assertThat(node("gpu01").healthy()).isTrue();
    }

    @Test
    void givenTheBackend_whenItsNodesAreAddedResizedAndMarked_thenEachChangeIsAuditedAsTheNodeSync() {
        backend.answer = List.of(usable("gpu01", 8));
        sync.syncOnce();
        backend.answer = List.of(usable("gpu01", 4));
        sync.syncOnce();
        backend.answer = List.of(unusable("gpu01", 4, "DOWN"));
        sync.syncOnce();
        sync.syncOnce(); // nothing new: nothing recorded

        List<dev.allot.server.store.AuditEntry> audit = store.allocations().audit(10);
        assertThat(audit).extracting(e -> e.action() + " " + e.subject() + " by " + e.actor()).containsExactly(
                "node.health node:gpu01 by system:node-sync",
                "node.put node:gpu01 by system:node-sync",
                "node.put node:gpu01 by system:node-sync");
        assertThat(audit.get(1).beforeJson()).contains("\"gpus\":8");
        assertThat(audit.get(1).afterJson()).contains("\"gpus\":4");
        assertThat(audit.get(0).afterJson()).contains("slurm: DOWN");
        assertThat(BackendNodeSync.ACTOR).isEqualTo("system:node-sync");
    }
}
