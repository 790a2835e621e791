package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.core.model.Priority;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The leader lease ({@link Leases}) and the fence it gives the leader's scheduling loop ({@link Store#fencedBy}), on
 * PostgreSQL (where several instances share a store) when {@code ALLOT_TEST_POSTGRES_URL} names a database: one
 * holder at a time, by the database's clock; a rising epoch at every change of holder; and every write of a loop whose
 * instance lost the lease refused, changing nothing.
 */
@EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
class LeaderLeaseTest {
    private final PostgresSchema schema = new PostgresSchema();
    private Store store;

    @BeforeEach
    void open() throws SQLException {
        schema.create();
        store = schema.open();
    }

    @AfterEach
    void close() throws SQLException {
        store.close();
        schema.drop();
    }

    @Test
    void givenALeaseHeldWhenAnotherAsksThenItIsRefusedUntilTheLeaseExpiresAndThenTakenAtTheNextEpoch()
            throws Exception {
        Leases.Lease a = store.leases().acquire("a#1", "a#", 0, 400);
        assertThat(a.holder()).isEqualTo("a#1");
        assertThat(a.epoch()).isEqualTo(1);
        assertThat(store.leases().acquire("b#1", "b#", 0, 400).holder()).as("b while a's lease runs")
                .isEqualTo("a#1");
        Leases.Lease renewed = store.leases().acquire("a#1", "a#", 1, 400);
        assertThat(renewed.heldBy("a#1", 1)).as("a renews at the same epoch").isTrue();
        Thread.sleep(600);
        Leases.Lease b = store.leases().acquire("b#1", "b#", 0, 400);
        assertThat(b.heldBy("b#1", 2)).as("b once a's lease expired, at the next epoch: %s", b).isTrue();
        assertThat(store.leases().acquire("a#1", "a#", 1, 400).heldBy("b#1", 2))
                .as("a, back, does not renew what it lost").isTrue();
    }

    @Test
    void givenALeaseReleasedThenAnotherTakesItAtOnceAndALaterProcessOfTheHolderTakesANewTermAtOnce() {
        store.leases().acquire("a#1", "a#", 0, 60_000);
        store.leases().release("a#1", 1);
        assertThat(store.leases().acquire("b#1", "b#", 0, 60_000).heldBy("b#1", 2)).isTrue();
        assertThat(store.leases().acquire("c#1", "c#", 0, 60_000).heldBy("b#1", 2))
                .as("another instance while b's lease runs").isTrue();
        assertThat(store.leases().acquire("b#2", "b#", 0, 60_000).heldBy("b#2", 3))
                .as("b restarted (a new process of the same instance): a new term at once").isTrue();
    }

    @Test
    void givenALeaderThatLostItsLeaseThenEveryWriteOfItsLoopIsRefusedAndChangesNothing() throws Exception {
        seed();
        AtomicLong aEpoch = new AtomicLong(store.leases().acquire("a#1", "a#", 0, 300).epoch());
        Store a = store.fencedBy("a#1", aEpoch::get, java.time.Duration.ofSeconds(3));
        AttemptKey key = a.attempts().beginAttempt("w-1", List.of(new Launch.NodeGpus("n1", List.of(0))), 1_000);
        assertThat(a.attempts().markRunning(key)).as("a write of the leader").isTrue();

        Thread.sleep(500);
        Leases.Lease b = store.leases().acquire("b#1", "b#", 0, 60_000);
        assertThat(b.heldBy("b#1", 2)).isTrue();
        // a still believes it holds epoch 1: every write is refused, with the reason
        assertThatThrownBy(() -> a.attempts().markStopping(key, 2_000)).isInstanceOf(FencedException.class)
                .hasMessageContaining("b#1 holds epoch 2");
        assertThatThrownBy(() -> a.attempts().endAttempt(key, AttemptOutcome.COMPLETED, "done", null, null, 3_000))
                .isInstanceOf(FencedException.class);
        assertThatThrownBy(() -> a.attempts().beginAttempt("w-2", List.of(new Launch.NodeGpus("n1", List.of(1))),
                3_000)).isInstanceOf(FencedException.class);
        // ... and changed nothing
        assertThat(store.attempts().attempts("w-1")).singleElement()
                .satisfies(x -> assertThat(x.phase()).isEqualTo(AttemptPhase.RUNNING));
        assertThat(store.attempts().attempts("w-2")).isEmpty();
        // a loop that knows it stands by (epoch 0) is refused too; b, which holds the lease, writes
        aEpoch.set(0);
        assertThatThrownBy(() -> a.attempts().markStopping(key, 2_000)).isInstanceOf(FencedException.class)
                .hasMessageContaining("is not the leader");
        Store bStore = store.fencedBy("b#1", () -> 2, java.time.Duration.ofSeconds(3));
        assertThat(bStore.attempts().markStopping(key, 4_000)).isTrue();
    }

    private void seed() {
        long t = 1_000;
        store.access().putUser(new User("alice", User.Role.USER));
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of("alice")), "root", t);
        store.nodes().putNode(new Node("n1", 2, true, null, t), "root");
        for (int i = 0; i < 2; i++) {
            store.workloads().submit(new NewWorkload("lab", "alice", 1, 0, 60L, 0, true, Priority.NORMAL, "train",
                    List.of("true"), new java.util.TreeMap<>(), t, null));
        }
    }
}
