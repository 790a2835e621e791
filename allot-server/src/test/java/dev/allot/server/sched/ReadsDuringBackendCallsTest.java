package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.explain.WaitExplainer;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.server.testing.GatedBackend;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The loop's reads while a cycle waits for the backend (see {@link StateLock}): they answer at once, from the state
 * the cycle published before it called the backend, and the cycle then goes on as if nobody had read. The backend
 * is scripted ({@link ScriptedBackend}) behind a gate the test closes ({@link GatedBackend}).
 */
class ReadsDuringBackendCallsTest {
    /** What "at once" means here: the backend holds its call for {@link GatedBackend#HOLD_AT_MOST} (20 s). */
    static final Duration AT_ONCE = Duration.ofSeconds(2);

    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    @Test
    void whileTheStartsOfADecisionAreSentTheReadsAnswerWithTheDecisionTaken() throws Exception {
        Fixture fx = loops.open("loop", 4);
        GatedBackend gate = fx.gateTheBackend();
        // Given w1 runs on the whole node for 10 minutes, protected, and w2 waits behind it
        String w1 = runsThenEnds(fx);
        String w2 = waitsBehind(fx);
        assertThat(fx.loop.deferredLaunches()).isEmpty();

        // When w1 ends and the cycle that starts w2 finds the backend slow to take the start
        CompletableFuture<Void> cycle = cycleHeldAt(fx, gate, GatedBackend.Call.START_ALL);

        // Then every read answers at once, with the decision taken (recorded, being sent)
        assertThat(atOnce(() -> fx.loop.inspect((state, now) -> state.job(w2).map(Job::state))))
                .contains(Optional.of(JobState.RUNNING));
        assertThat(atOnce(() -> fx.loop.inspect((state, now) -> state.job(w1).map(Job::state))))
                .contains(Optional.of(JobState.COMPLETED));
        assertThat(atOnce(() -> fx.loop.inspectDecided((state, policy) ->
                new WaitExplainer().queue(state, state.now()).entries().size()))).contains(0);
        assertThat(atOnce(() -> fx.loop.view()).map(SchedulerLoop.View::standby)).contains(false);
        assertThat(atOnce(() -> fx.loop.counters()).completions()).isEqualTo(1);
        assertThat(atOnce(() -> fx.loop.refused())).isEmpty();
        assertThat(atOnce(() -> fx.loop.deferredLaunches())).isEmpty();
        atOnce(() -> fx.loop.nextWakeUpSeconds());
        atOnce(() -> {
            fx.loop.progressReported(w2);
            return null;
        });
        assertThat(cycle).as("the cycle still waits for the backend").isNotDone();

        // And once the backend answers, the cycle ends as it would have: w2 started once, its GPUs given once
        gate.open();
        cycle.get(10, TimeUnit.SECONDS);
        fx.cycle();
        assertThat(fx.backend.launches).extracting(l -> l.attempt().workloadId()).containsExactly(w1, w2);
        assertThat(fx.loop.counters().starts()).isEqualTo(2);
        assertThat(fx.loop.health().failing()).isEmpty();
    }

    @Test
    void whileTheBackendIsObservedTheReadsAnswerWithTheLastCyclesState() throws Exception {
        Fixture fx = loops.open("loop", 4);
        GatedBackend gate = fx.gateTheBackend();
        String w1 = runsThenEnds(fx);
        String w2 = waitsBehind(fx);

        CompletableFuture<Void> cycle = cycleHeldAt(fx, gate, GatedBackend.Call.OBSERVE);

        // the end of w1 is not known yet: w1 runs, w2 waits first in the queue
        assertThat(atOnce(() -> fx.loop.inspect((state, now) -> state.job(w1).map(Job::state))))
                .contains(Optional.of(JobState.RUNNING));
        assertThat(atOnce(() -> fx.loop.inspectDecided((state, policy) ->
                new WaitExplainer().queue(state, state.now()).entries().get(0).jobId()))).contains(w2);

        gate.open();
        cycle.get(10, TimeUnit.SECONDS);
        fx.cycle();
        assertThat(fx.backend.launches).extracting(l -> l.attempt().workloadId()).containsExactly(w1, w2);
    }

    /** {@code read}'s answer, which must come {@link #AT_ONCE}. */
    private static <T> T atOnce(Supplier<T> read) throws Exception {
        CompletableFuture<T> answer = CompletableFuture.supplyAsync(read);
        try {
            return answer.get(AT_ONCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("a read of the loop was not answered within " + AT_ONCE
                    + ": it waits for the cycle that waits for the backend", e);
        }
    }

    /** w1: the whole node for 10 minutes, protected, started by a cycle. */
    private static String runsThenEnds(Fixture fx) {
        String w1 = fx.submit("a", 4, 600, 600, true);
        fx.cycle();
        return w1;
    }

    /** w2: waits behind w1 for the node. */
    private static String waitsBehind(Fixture fx) {
        String w2 = fx.submit("a", 4, 3600, 600, true);
        fx.cycle();
        return w2;
    }

    /** Ten minutes on (w1 ends), a cycle on another thread, held by the backend at {@code call}. */
    private static CompletableFuture<Void> cycleHeldAt(Fixture fx, GatedBackend gate, GatedBackend.Call call)
            throws InterruptedException {
        gate.close(call);
        fx.advance(600);
        CompletableFuture<Void> cycle = CompletableFuture.runAsync(fx.loop::runOnce);
        assertThat(gate.awaitHeld(Duration.ofSeconds(10))).as("the cycle reached the backend").isTrue();
        return cycle;
    }

}
