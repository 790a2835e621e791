package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The loop mirrors node health in the backend: at load every node is told once ({@code drain} for an unhealthy one,
 * {@code resume} for a healthy one), afterwards only changes; a call that fails is asked again at the next read of
 * the nodes, and recorded once it succeeds.
 */
class BackendHealthTest {
    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    private static void setHealth(Fixture f, String node, boolean healthy, String reason) {
        f.store.nodes().setHealth(node, healthy, reason, f.clock.millis());
        f.loop.topologyChanged(); // as the API and the health check do
    }

    @Test
    void atLoadEveryNodeIsToldOnceAndQuietCyclesTellNothingMore() {
        Fixture f = loops.open("load", 8, 8, 8);
        f.store.nodes().setHealth("n2", false, "ECC errors", f.clock.millis());
        f.cycle();
        assertThat(f.backend.health).containsExactly("resume n1", "drain n2 ECC errors", "resume n3");

        for (int i = 0; i < 3; i++) {
            f.advance(SchedulerLoop.TOPOLOGY_REFRESH_SECONDS); // the nodes are read again, unchanged
            f.cycle();
        }
        f.loop.topologyChanged();
        f.cycle();
        assertThat(f.backend.health).hasSize(3);
    }

    @Test
    void aNodeMarkedUnhealthyIsDrainedOnceAndResumedOnceWhenHealthyAgain() {
        Fixture f = loops.open("change", 8, 8);
        f.cycle();
        f.backend.health.clear();

        setHealth(f, "n1", false, "fan failure");
        f.advance(1);
        f.cycle();
        assertThat(f.backend.health).containsExactly("drain n1 fan failure");
        f.advance(SchedulerLoop.TOPOLOGY_REFRESH_SECONDS);
        f.cycle();
        setHealth(f, "n1", false, "fan failure, still"); // same health, new reason: nothing new to tell
        f.cycle();
        assertThat(f.backend.health).containsExactly("drain n1 fan failure");

        setHealth(f, "n1", true, null);
        f.advance(1);
        f.cycle();
        f.advance(SchedulerLoop.TOPOLOGY_REFRESH_SECONDS);
        f.cycle();
        assertThat(f.backend.health).containsExactly("drain n1 fan failure", "resume n1");
    }

    @Test
    void anUnhealthyNodeWithoutAReasonIsDrainedAsUnhealthy() {
        Fixture f = loops.open("noreason", 8);
        f.cycle();
        setHealth(f, "n1", false, null);
        f.cycle();
        assertThat(f.backend.health).containsExactly("resume n1", "drain n1 unhealthy");
    }

    @Test
    void aDrainThatFailsIsAskedAgainAtTheNextReadOfTheNodesAndRecordedOnce() {
        Fixture f = loops.open("retry", 8, 8);
        f.cycle();
        f.backend.health.clear();

        f.backend.failDrains = 2;
        setHealth(f, "n2", false, "thermal");
        f.cycle(); // fails
        assertThat(f.backend.health).isEmpty();
        f.cycle(); // asked again without waiting for the refresh: fails again
        assertThat(f.backend.health).isEmpty();
        f.cycle(); // done
        assertThat(f.backend.health).containsExactly("drain n2 thermal");
        for (int i = 0; i < 3; i++) {
            f.advance(SchedulerLoop.TOPOLOGY_REFRESH_SECONDS);
            f.cycle();
        }
        assertThat(f.backend.health).containsExactly("drain n2 thermal");
    }

    @Test
    void aRestartedLoopTellsEveryNodeOnceMore() {
        Fixture f = loops.open("restart", 8, 8);
        f.cycle();
        setHealth(f, "n1", false, "bad PSU");
        f.cycle();
        f.crash();
        f.advance(1);
        f.cycle();
        f.cycle();
        assertThat(f.backend.health).containsExactly("resume n1", "resume n2", "drain n1 bad PSU",
                "drain n1 bad PSU", "resume n2");
    }
}
