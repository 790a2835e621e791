package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import org.junit.jupiter.api.Test;

/** Node health mirrored into Slurm: Allot drains and resumes only its own drains. */
class SlurmBackendNodesTest {
    private final FakeSlurm slurm = new FakeSlurm("inst1");
    private final SlurmBackend backend = slurm.backend();

    @Test
    void drainSetsDrainWithAnAllotReasonOnOneLine() {
        slurm.node("n1", "IDLE", "");

        backend.drain("n1", "GPU 3 fell off\nthe bus");

        SlurmNode n = slurm.nodes.get("n1");
        assertThat(n.drained()).isTrue();
        assertThat(n.reason()).isEqualTo("allot: GPU 3 fell off the bus");
    }

    @Test
    void resumeUndrainsANodeAllotDrained() {
        slurm.node("n1", "IDLE", "");
        backend.drain("n1", "unhealthy");

        backend.resume("n1");

        assertThat(slurm.nodes.get("n1").drained()).isFalse();
        assertThat(slurm.log).endsWith("resume n1");
    }

    @Test
    void aNodeAnOperatorDrainedIsNeitherResumedNorDrainedAgain() {
        slurm.node("n2", "IDLE", "maintenance [root@2026-12-01T09:00:00]", "DRAIN");

        backend.resume("n2");
        backend.drain("n2", "unhealthy");

        assertThat(slurm.nodes.get("n2").drained()).isTrue();
        assertThat(slurm.nodes.get("n2").reason()).startsWith("maintenance");
        assertThat(slurm.log).noneMatch(s -> s.startsWith("resume") || s.startsWith("drain"));
    }

    @Test
    void resumingANodeThatIsNotDrainedDoesNothing() {
        slurm.node("n1", "MIXED", "");

        backend.resume("n1");

        assertThat(slurm.log).noneMatch(s -> s.startsWith("resume"));
    }

    @Test
    void nodesAreUsableUnlessBrokenOrDrainedBySomeoneElse() {
        slurm.node("n1", "DOWN", "Not responding");
        slurm.node("n2", "IDLE", "", "NOT_RESPONDING");
        slurm.node("n3", "IDLE", "maintenance", "DRAIN");
        slurm.node("n4", "MIXED", "allot: unhealthy", "DRAIN");
        slurm.node("n5", "IDLE", "");
        slurm.node("n6", "DOWN", "allot: unhealthy", "DRAIN");

        assertThat(backend.nodes()).hasValueSatisfying(nodes -> assertThat(nodes).containsExactly(
                new BackendNode("n1", 8, false, "DOWN: Not responding"),
                new BackendNode("n2", 8, false, "IDLE+NOT_RESPONDING"),
                new BackendNode("n3", 8, false, "IDLE+DRAIN: maintenance"),
                new BackendNode("n4", 8, true, null),
                new BackendNode("n5", 8, true, null),
                new BackendNode("n6", 8, false, "DOWN+DRAIN: allot: unhealthy")));
    }

    @Test
    void nodesSlurmctldHasNotHeardFromSinceItRestartedAreUnknownNotUnhealthy() {
        // every node unheard (slurmctld just restarted): the listing says nothing of any node
        slurm.node("n1", "UNKNOWN", "");
        slurm.node("n2", "UNKNOWN", "");
        assertThatThrownBy(backend::nodes).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("Slurm does not know the state of n1, n2 yet");

        // one node unheard: it is left out (the service keeps what it knew of it), the others are read; before, one
        // unheard node made the whole listing inconclusive, so a node that went down meanwhile was not seen
        slurm.node("n2", "DOWN", "Not responding");
        slurm.node("n3", "IDLE", "");
        assertThat(backend.nodes()).hasValueSatisfying(nodes -> assertThat(nodes).containsExactly(
                new BackendNode("n2", 8, false, "DOWN: Not responding"),
                new BackendNode("n3", 8, true, null)));

        slurm.node("n2", "IDLE", "");
        slurm.node("n1", "UNKNOWN", "", "NOT_RESPONDING");
        assertThat(backend.nodes()).hasValueSatisfying(nodes -> assertThat(nodes).containsExactly(
                new BackendNode("n1", 8, false, "UNKNOWN+NOT_RESPONDING"),
                new BackendNode("n2", 8, true, null),
                new BackendNode("n3", 8, true, null)));
    }

    @Test
    void aNodeAllotJustResumedIsNotDrainedAgainWhileSlurmWaitsForItsPing() {
        // given n1 drained by Allot and resumed: Slurm 22.05 then shows it IDLE+NOT_RESPONDING for about a second,
        // until its slurmd answers; read as broken, the service drained it again and resumed it 2 s later
        slurm.node("n1", "IDLE", "");
        slurm.node("n2", "IDLE", "");
        backend.drain("n1", "unhealthy");
        backend.resume("n1");
        slurm.node("n1", "IDLE", "", "NOT_RESPONDING");
        slurm.node("n2", "IDLE", "", "NOT_RESPONDING");

        // then n1 is left out (the service keeps it as it was), while n2, which Allot did not resume, is broken
        assertThat(backend.nodes()).hasValueSatisfying(nodes -> assertThat(nodes).containsExactly(
                new BackendNode("n2", 8, false, "IDLE+NOT_RESPONDING")));

        // down is down, however recent the resume
        slurm.node("n1", "DOWN", "Not responding", "NOT_RESPONDING");
        assertThat(backend.nodes()).hasValueSatisfying(nodes -> assertThat(nodes).first()
                .isEqualTo(new BackendNode("n1", 8, false, "DOWN+NOT_RESPONDING: Not responding")));

        // and a slurmd that still has not answered when the grace has passed is broken
        slurm.node("n1", "IDLE", "", "NOT_RESPONDING");
        slurm.clock.advance(SlurmNodeHealth.RESUME_GRACE.plusSeconds(1));
        assertThat(backend.nodes()).hasValueSatisfying(nodes -> assertThat(nodes).first()
                .isEqualTo(new BackendNode("n1", 8, false, "IDLE+NOT_RESPONDING")));
    }

    @Test
    void nodesWhenSlurmCannotBeReadIsUnavailableNotEmpty() {
        slurm.node("n1", "IDLE", "");
        slurm.failNextProbes(2);

        assertThatThrownBy(backend::nodes).isInstanceOf(BackendUnavailableException.class);
        assertThatThrownBy(() -> backend.drain("n1", "x")).isInstanceOf(BackendUnavailableException.class);
        assertThat(slurm.log).containsExactly("submitLock");
    }

    @Test
    void anUnknownNodeIsRefused() {
        slurm.node("n1", "IDLE", "");

        assertThatThrownBy(() -> backend.drain("n9", "x")).isExactlyInstanceOf(BackendException.class)
                .hasMessageContaining("no node named n9");
    }
}
