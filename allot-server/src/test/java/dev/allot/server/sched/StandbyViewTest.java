package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.Backend;
import dev.allot.core.explain.WaitExplainer;
import dev.allot.core.explain.WaitExplanation;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.JobState;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.PostgresSchema;
import dev.allot.server.store.Store;
import dev.allot.server.store.StoreException;
import dev.allot.server.store.WorkloadState;
import dev.allot.server.testing.MutableClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * A standby's view of the scheduler ({@link Follower}), on PostgreSQL: two loops on one store as two instances run
 * them (each with its {@link Leadership} on the lease, its store fenced, its backend made per term and refused when
 * it may not act), the first leading. The standby's loop follows what the leader records, so that it explains as the
 * leader does, and writes nothing: the whole database is the same before and after its cycles, and its backend is
 * never even made.
 */
@EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
class StandbyViewTest {
    private static final Duration LEASE = Duration.ofSeconds(60); // renewed by hand: never runs out in the test
    private final PostgresSchema schema = new PostgresSchema();
    private final MutableClock clock = new MutableClock(Instant.now());
    private Store store;
    private Leadership leaderLease;
    private Leadership standbyLease;
    private SchedulerLoop leader;
    private SchedulerLoop standby;
    private final AtomicInteger standbyBackendsMade = new AtomicInteger();

    @BeforeEach
    void open() throws Exception {
        schema.create();
        store = schema.open();
        long t = clock.millis();
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
        store.allocations().putAllocation(new Allocation("lab/a", 1, List.of(), List.of()), "root", t);
        store.allocations().putAllocation(new Allocation("lab/b", 1, List.of(), List.of()), "root", t);
        store.nodes().putNode(new Node("n1", 4, true, null, t), "root");
        leaderLease = Leadership.onLease(store.leases(), "a#", LEASE, Duration.ofSeconds(1));
        standbyLease = Leadership.onLease(store.leases(), "b#", LEASE, Duration.ofSeconds(1));
        leaderLease.renewOnce();
        standbyLease.renewOnce();
        assertThat(leaderLease.mayAct()).isTrue();
        assertThat(standbyLease.mayAct()).isFalse();
        leader = loop(leaderLease, () -> new SimulatedBackend(clock));
        standby = loop(standbyLease, () -> {
            standbyBackendsMade.incrementAndGet();
            return new SimulatedBackend(clock);
        });
        standby.follow(store.readOnly());
    }

    private SchedulerLoop loop(Leadership l, java.util.function.Supplier<Backend> maker) {
        PolicyFactory f = PolicyRegistry.standard().get("allocation");
        SchedulerLoop loop = new SchedulerLoop(store.fencedBy(l.instance(), l::actingEpoch, LEASE),
                new LeaderOnlyBackend("simulated", maker, l, false), f.create(Settings.defaults(f.settings())),
                SchedulerConfig.defaults(), clock);
        loop.lead(l);
        return loop;
    }

    @AfterEach
    void close() throws Exception {
        leader.close();
        standby.close();
        store.close();
        schema.drop();
    }

    @Test
    void givenALeaderSchedulingThenTheStandbysViewExplainsAWaitingWorkloadAsTheLeaderDoesAndTheStandbyWritesNothing()
            throws Exception {
        String running = submit("lab/a", 4, 3600);
        leader.runOnce();
        assertThat(store.workloads().workload(running).orElseThrow().state()).isEqualTo(WorkloadState.RUNNING);
        String waiting = submit("lab/b", 2, 600);
        leader.runOnce();

        // The standby's cycles: it loads its view, and changes nothing anywhere.
        assertThat(standby.view()).as("no view before its first cycle").isEmpty();
        standbyCyclesChangeNothing();
        assertThat(standby.view()).hasValueSatisfying(v -> assertThat(v.standby()).isTrue());
        assertThat(leader.view()).hasValueSatisfying(v -> assertThat(v.standby()).isFalse());
        WaitExplanation fromLeader = explain(leader, waiting).orElseThrow();
        WaitExplanation fromStandby = explain(standby, waiting).orElseThrow();
        assertThat(fromLeader.waitsFor().kind()).as("the leader's reason").isEqualTo("protected-until");
        assertThat(fromStandby.waitsFor()).as("the standby names the same reason, with the same numbers")
                .isEqualTo(fromLeader.waitsFor());
        assertThat(fromStandby.position()).isEqualTo(fromLeader.position());
        assertThat(fromStandby.summary()).isEqualTo(fromLeader.summary());

        // A submission and a cancellation of waiting work reach the view through the change feed.
        String later = submit("lab/a", 1, 600);
        store.workloads().requestCancel(waiting);
        leader.runOnce();
        standbyCyclesChangeNothing();
        assertThat(explain(standby, waiting).map(WaitExplanation::state)).as("cancelled in the view as in the leader's")
                .contains(JobState.CANCELLED).isEqualTo(explain(leader, waiting).map(WaitExplanation::state));
        assertThat(explain(standby, later).orElseThrow().state()).isEqualTo(
                explain(leader, later).orElseThrow().state());

        // The leader's acts (a stop, an end, a start) reach the view once their attempts change in the store.
        store.workloads().requestCancel(running);
        clock.advance(Duration.ofSeconds(2));
        leader.runOnce();
        leader.runOnce();
        assertThat(store.workloads().workload(later).orElseThrow().state()).isEqualTo(WorkloadState.RUNNING);
        clock.advance(Duration.ofSeconds(2)); // past the view's least time between loads
        standbyCyclesChangeNothing();
        assertThat(standby.inspect((s, now) -> s.job(later).map(j -> j.state()).orElse(null)))
                .as("the start the leader made shows in the view").contains(JobState.RUNNING);
        assertThat(standby.inspect((s, now) -> s.job(running).isPresent())).contains(false);

        assertThat(standbyBackendsMade.get()).as("backends the standby made").isZero();
        assertThat(standbyLease.status().leads()).isFalse();
        assertThat(standby.counters().starts()).isZero();
    }

    @Test
    void givenTheReadOnlyViewOfTheStoreThenPostgresRefusesAWriteAndNothingChanges() {
        String id = submit("lab/a", 1, 60);
        Store readOnly = store.readOnly();
        assertThat(readOnly.workloads().workload(id)).isPresent();
        assertThatThrownBy(() -> readOnly.workloads().requestCancel(id)).isInstanceOf(StoreException.class)
                .hasMessageContaining("read-only");
        assertThat(store.workloads().workload(id).orElseThrow().cancelRequested()).isFalse();
    }

    /** Three cycles of the standby's loop, with the whole database compared before and after. */
    private void standbyCyclesChangeNothing() throws Exception {
        List<String> before = everyRow();
        for (int i = 0; i < 3; i++) {
            standby.runOnce();
            assertThat(standby.health().failing()).as("the standby's cycle").isEmpty();
        }
        assertThat(everyRow()).as("every row of every table after the standby's cycles").isEqualTo(before);
    }

    private Optional<WaitExplanation> explain(SchedulerLoop loop, String id) {
        return loop.inspect((s, now) -> new WaitExplainer().explain(s, id, s.now())).flatMap(e -> e);
    }

    private String submit(String allocation, int gpus, long minRuntimeSeconds) {
        return store.workloads().submit(NewWorkload.builder(allocation, "u").gpus(gpus).durationSeconds(7200L)
                .minRuntimeSeconds(minRuntimeSeconds).resumable(true).command(List.of("train.py"))
                .environment(Map.of()).submittedAtMillis(clock.millis()).build()).id();
    }

    /** Every row of every table of the test's schema, as text, sorted. */
    private List<String> everyRow() throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(schema.jdbcUrl(), schema.user, schema.password);
             Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name")) {
                while (r.next()) {
                    tables.add(r.getString(1));
                }
            }
            assertThat(tables).contains("workloads", "attempts", "leader_lease");
            for (String t : tables) {
                try (ResultSet r = s.executeQuery("SELECT t::text FROM \"" + t + "\" t")) {
                    while (r.next()) {
                        rows.add(t + " " + r.getString(1));
                    }
                }
            }
        }
        rows.sort(null);
        return rows;
    }
}
