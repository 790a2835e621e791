package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.BackendNode;
import dev.allot.server.service.BackendNodeSync;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Node;
import dev.allot.server.store.WorkloadState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's GPU count shrinks under running work (an operator's edit, or the backend's count of the node): the work
 * on GPUs that no longer exist ends as lost, requeued if resumable, with a reason naming the node and its new count;
 * the work on GPUs that remain keeps running; and scheduling goes on.
 */
class NodeShrinkTest {
    private static final long HOUR = 3600;
    private static final long MIN = 60;

    @TempDir
    Path dir;

    private Fixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void givenSixteenOneGpuWorkloadsOnANodeWhenItShrinksToOneGpuThenTheRestEndLostAndSchedulingGoesOn() {
        f = new Fixture(dir.resolve("shrink"), List.of("a"), 16);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            // even ones resumable, odd ones not
            ids.add(f.submit("a", 1, 10 * HOUR, 10 * MIN, i % 2 == 0));
        }
        f.cycle();
        assertThat(f.backend.launches).hasSize(16);

        f.advance(MIN);
        f.store.nodes().putNode(new Node("n1", 1, true, null, f.clock.millis()));
        f.loop.topologyChanged();
        f.cycle(); // must not throw
        f.cycle(); // the stopped attempts end

        String onGpu0 = onGpu(0);
        for (String id : ids) {
            List<Attempt> as = f.attempts(id);
            if (id.equals(onGpu0)) {
                assertThat(f.stateOf(id)).as("%s holds GPU 0, which remains", id).isEqualTo(WorkloadState.RUNNING);
                continue;
            }
            Attempt first = as.get(0);
            assertThat(first.outcome()).as("%s", id).isEqualTo(AttemptOutcome.LOST);
            assertThat(first.reason()).as("%s", id).contains("n1").contains("1 GPU");
            boolean resumable = ids.indexOf(id) % 2 == 0;
            assertThat(f.stateOf(id)).as("%s", id).isEqualTo(resumable ? WorkloadState.REQUEUED : WorkloadState.FAILED);
        }
        assertThat(f.backend.stops).hasSize(15);

        // Scheduling goes on: a new node takes the requeued work (7 resumable ones lost their GPUs).
        f.advance(MIN);
        f.store.nodes().putNode(new Node("n2", 8, true, null, f.clock.millis()));
        f.loop.topologyChanged();
        f.cycle();
        assertThat(f.backend.liveLaunches()).hasSize(1 + 7);
        for (int i = 0; i < ids.size(); i += 2) {
            assertThat(f.stateOf(ids.get(i))).as("%s", ids.get(i)).isEqualTo(WorkloadState.RUNNING);
        }
    }

    @Test
    void givenFourWorkloadsOnASlurmNodeWhenTheBackendCountsTwoGpusThenTheTwoOnTheGoneGpusEndLostAndTheRestRun() {
        f = new Fixture(dir.resolve("sync"), List.of("a"), 4);
        f.backend.nodes = List.of(new BackendNode("n1", 4, true, null));
        BackendNodeSync sync = new BackendNodeSync(f.store, f.backend, f.clock, f.loop::topologyChanged);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(f.submit("a", 1, 10 * HOUR, 10 * MIN, true));
        }
        f.cycle();
        assertThat(f.backend.launches).hasSize(4);

        f.advance(MIN);
        f.backend.nodes = List.of(new BackendNode("n1", 2, true, null));
        assertThat(sync.syncOnce()).isEqualTo(1);
        f.cycle();
        f.cycle();
        String waiting = f.submit("a", 1, HOUR, 10 * MIN, true);
        f.advance(1);
        f.cycle();

        List<String> lost = new ArrayList<>();
        for (String id : ids) {
            Attempt first = f.attempts(id).get(0);
            if (first.outcome() == null) {
                assertThat(f.stateOf(id)).isEqualTo(WorkloadState.RUNNING);
            } else {
                assertThat(first.outcome()).isEqualTo(AttemptOutcome.LOST);
                assertThat(first.reason()).contains("node n1, which now has 2 GPUs");
                assertThat(f.stateOf(id)).as("resumable: back in the queue").isEqualTo(WorkloadState.REQUEUED);
                lost.add(id);
            }
        }
        assertThat(lost).hasSize(2);
        assertThat(f.backend.liveLaunches()).hasSize(2)
                .allSatisfy(l -> assertThat(l.placement().get(0).gpus()).allMatch(g -> g < 2));
        assertThat(f.stateOf(waiting)).as("the cluster is full").isEqualTo(WorkloadState.PENDING);
        assertThat(f.loop.counters().cycles()).isEqualTo(4);
    }

    @Test
    void givenANodeThatShrankWhileTheSchedulerWasDownTheWorkOnItsGoneGpusEndsLostAtTheRestart() {
        f = new Fixture(dir.resolve("restart"), List.of("a"), 4);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(f.submit("a", 1, 10 * HOUR, 10 * MIN, i % 2 == 0));
        }
        f.cycle();
        assertThat(f.backend.launches).hasSize(4);

        f.crash();
        f.advance(MIN);
        f.store.nodes().putNode(new Node("n1", 2, true, null, f.clock.millis()));
        f.cycle(); // load, adopt, reconcile: the attempts on GPUs 2 and 3 are stopped
        f.cycle(); // and end
        String waiting = f.submit("a", 1, HOUR, 10 * MIN, true);
        f.advance(1);
        f.cycle();

        for (String id : ids) {
            Attempt first = f.attempts(id).get(0);
            boolean gone = f.backend.launches.stream().anyMatch(l -> l.attempt().equals(first.key())
                    && l.placement().get(0).gpus().get(0) >= 2);
            if (!gone) {
                assertThat(first.outcome()).as("%s keeps its GPU", id).isNull();
                assertThat(f.stateOf(id)).isEqualTo(WorkloadState.RUNNING);
                continue;
            }
            assertThat(first.outcome()).as("%s", id).isEqualTo(AttemptOutcome.LOST);
            assertThat(first.reason()).as("%s", id).contains("node n1, which now has 2 GPUs");
            boolean resumable = ids.indexOf(id) % 2 == 0;
            assertThat(f.stateOf(id)).as("%s", id).isEqualTo(resumable ? WorkloadState.REQUEUED : WorkloadState.FAILED);
        }
        assertThat(f.backend.stops).hasSize(2);
        assertThat(f.backend.liveLaunches()).hasSize(2);
        assertThat(f.stateOf(waiting)).as("the node is full").isEqualTo(WorkloadState.PENDING);
        assertThat(f.loop.health().failing()).isEmpty();
    }

    private String onGpu(int gpu) {
        return f.backend.launches.stream()
                .filter(l -> l.placement().get(0).gpus().contains(gpu))
                .findFirst().orElseThrow().attempt().workloadId();
    }
}
