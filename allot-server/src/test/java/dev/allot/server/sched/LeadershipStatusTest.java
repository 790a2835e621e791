package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Store;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who leads, as {@code /v1/health} tells it ({@link Leadership#status}), once an instance has lost its lease: its
 * role says standby, so the leader it names must not be itself. A walk-through on PostgreSQL found a service that had
 * lost its lease answering {@code "role": "standby"} with itself as {@code "leader"}. The lease is the same on SQLite
 * (one file shared by two leaderships here), so no PostgreSQL is needed.
 */
class LeadershipStatusTest {
    @TempDir
    Path dir;

    @Test
    void givenTwoInstances_whenTheFirstLeads_thenEachNamesTheFirstAsLeader() {
        try (Store store = Store.sqlite(dir)) {
            Leadership a = Leadership.onLease(store.leases(), "a#", Duration.ofSeconds(60), Duration.ofSeconds(1));
            Leadership b = Leadership.onLease(store.leases(), "b#", Duration.ofSeconds(60), Duration.ofSeconds(1));
            a.renewOnce();
            b.renewOnce();

            assertThat(a.status().role()).isEqualTo(Leadership.Status.LEADER);
            assertThat(a.status().leader()).isEqualTo(a.instance());
            assertThat(b.status().role()).isEqualTo(Leadership.Status.STANDBY);
            assertThat(b.status().leader()).isEqualTo(a.instance());
        }
    }

    @Test
    void givenALeader_whenItStepsDownBecauseAWriteWasRefused_thenItStandsByAndNamesNoLeaderRatherThanItself() {
        try (Store store = Store.sqlite(dir)) {
            Leadership a = Leadership.onLease(store.leases(), "a#", Duration.ofSeconds(60), Duration.ofSeconds(1));
            a.renewOnce();
            assertThat(a.mayAct()).isTrue();

            // when its loop's write is refused (another took over, as far as it can tell)
            a.stepDown("the test: another instance holds the lease");

            // then its role and its leader agree: it does not know who leads until it reads the lease again
            Leadership.Status s = a.status();
            assertThat(s.role()).isEqualTo(Leadership.Status.STANDBY);
            assertThat(s.leader()).as("the leader a standby names").isNotEqualTo(a.instance()).isNull();
            assertThat(s.epoch()).isZero();
        }
    }

    @Test
    void givenALeaderCutOffFromTheDatabase_whenItsLeaseLapses_thenItStandsByAndNamesNoLeader() throws Exception {
        Store store = Store.sqlite(dir);
        Leadership a = Leadership.onLease(store.leases(), "a#", Duration.ofMillis(300), Duration.ofMillis(100));
        a.renewOnce();
        assertThat(a.mayAct()).isTrue();

        // when the database cannot be reached any more and the lease runs out by the instance's own clock
        store.close();
        a.renewOnce();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (a.mayAct() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }

        // then it stands by, naming no leader (nobody it knows of holds the lease), never itself
        Leadership.Status s = a.status();
        assertThat(s.role()).isEqualTo(Leadership.Status.STANDBY);
        assertThat(s.leader()).as("the leader a standby names").isNull();
    }

    @Test
    void givenAStandbyThatNamedTheLeader_whenTheDatabaseCannotBeRead_thenItNoLongerClaimsToKnowTheLeader() {
        Store store = Store.sqlite(dir);
        Leadership a = Leadership.onLease(store.leases(), "a#", Duration.ofSeconds(60), Duration.ofSeconds(1));
        Leadership b = Leadership.onLease(store.leases(), "b#", Duration.ofSeconds(60), Duration.ofSeconds(1));
        a.renewOnce();
        b.renewOnce();
        assertThat(b.status().leader()).isEqualTo(a.instance());

        store.close();
        b.renewOnce();

        assertThat(b.status().role()).isEqualTo(Leadership.Status.STANDBY);
        assertThat(b.status().leader()).as("unknown while the lease cannot be read").isNull();
    }
}
