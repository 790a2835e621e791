package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.AttemptPhase;
import dev.allot.server.store.WorkloadState;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A start the backend could not confirm ({@link BackendUnavailableException}) is neither a refusal nor a launch: the
 * attempt stays launching and holds its GPUs, the loop asks the backend again each cycle with the same attempt key,
 * and only a real refusal fails it. A cancellation meanwhile is sent as a stop. The same holds for an attempt adopted
 * after a restart that the backend did not know.
 */
class UnconfirmedStartTest {
    private static final long HOUR = 3600;

    @RegisterExtension
    final LoopFixtures loops = new LoopFixtures();

    private static BackendUnavailableException unreachable() {
        return new BackendUnavailableException("slurmctld did not answer");
    }

    private static Attempt only(Fixture f, String id) {
        List<Attempt> as = f.attempts(id);
        assertThat(as).hasSize(1);
        return as.get(0);
    }

    @Test
    void aStartUnconfirmedTwiceIsAskedAgainWithTheSameKeyAndRunsOnceWhileItsGpusStayHeld() {
        Fixture f = loops.open("retry", 8);
        String w = f.submit("a", 8, HOUR, 0, false);
        f.backend.startThrows.add(unreachable());
        f.backend.startThrows.add(unreachable());

        f.cycle(); // first start: unavailable
        assertThat(f.backend.launches).isEmpty();
        assertThat(only(f, w).phase()).isEqualTo(AttemptPhase.LAUNCHING);
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
        String other = f.submit("a", 8, 60, 0, false); // needs the same GPUs

        f.advance(10);
        f.cycle(); // second start: unavailable again; the other one must not take the GPUs
        assertThat(f.backend.launches).isEmpty();
        assertThat(only(f, w).phase()).isEqualTo(AttemptPhase.LAUNCHING);
        assertThat(f.attempts(other)).isEmpty();

        f.advance(10);
        f.cycle(); // third start: taken
        AttemptKey key = only(f, w).key();
        assertThat(f.backend.startCalls).containsExactly(key, key, key);
        assertThat(f.story).containsExactly("3: start " + w + "#1 n1[0, 1, 2, 3, 4, 5, 6, 7]");
        assertThat(f.attempts(other)).isEmpty();

        f.advance(10);
        f.cycle();
        assertThat(only(f, w).phase()).isEqualTo(AttemptPhase.RUNNING);
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(only(f, w).outcome()).isEqualTo(AttemptOutcome.COMPLETED);
        assertThat(f.stateOf(other)).isEqualTo(WorkloadState.RUNNING); // only now
        assertThat(f.loop.counters().failures()).isZero();
    }

    @Test
    void aStartIsToldAsStartedOnlyOnceTheBackendConfirmsIt() {
        // the loop logged 'started workload=w-1' (and counted a start) for a start the backend never heard of: a
        // paused leader's log read as a launch after its resumption, though its every backend call was refused
        Fixture f = loops.open("told", 8);
        List<String> told = new java.util.ArrayList<>();
        f.loop.observe(new LoopObserver() {
            @Override
            public void started(String workloadId, String allocation, long waitSeconds) {
                told.add(workloadId + " " + allocation + " waited " + waitSeconds);
            }
        });
        String w = f.submit("a", 8, HOUR, 0, false);
        f.backend.startThrows.add(unreachable());
        f.advance(5);
        f.cycle(); // unavailable: not told
        assertThat(told).isEmpty();
        assertThat(f.loop.counters().starts()).isZero();

        f.advance(10);
        f.cycle(); // asked again and taken: told once, with the wait since submission
        assertThat(f.backend.launches).hasSize(1);
        assertThat(told).containsExactly(w + " a waited 5");
        assertThat(f.loop.counters().starts()).isEqualTo(1);

        f.advance(10);
        f.cycle();
        assertThat(told).hasSize(1);
    }

    @Test
    void aStartTheBackendTookButCouldNotConfirmIsNeverRunTwice() {
        Fixture f = loops.open("took", 8);
        String w = f.submit("a", 4, HOUR, 0, false);
        f.backend.unavailableAfterTaking = 1;

        f.cycle();
        f.advance(10);
        f.cycle(); // asked again: the backend already has it, so nothing new runs
        AttemptKey key = only(f, w).key();
        assertThat(f.backend.startCalls).containsExactly(key, key);
        assertThat(f.backend.launches).hasSize(1);
        f.advance(10);
        f.cycle();
        assertThat(f.backend.startCalls).hasSize(2); // confirmed: not asked a third time
        f.advance(HOUR);
        f.cycle();
        assertThat(only(f, w).outcome()).isEqualTo(AttemptOutcome.COMPLETED);
    }

    @Test
    void anUnconfirmedStartThenARealRefusalFailsTheAttemptWithTheBackendsMessage() {
        Fixture f = loops.open("refused", 8);
        String w = f.submit("a", 8, HOUR, 0, false);
        f.backend.startThrows.add(unreachable());
        f.backend.startThrows.add(new BackendException("partition gpu is down"));

        f.cycle();
        assertThat(only(f, w).phase()).isEqualTo(AttemptPhase.LAUNCHING);
        f.advance(10);
        f.cycle();
        Attempt a = only(f, w);
        assertThat(a.outcome()).isEqualTo(AttemptOutcome.FAILED);
        assertThat(a.reasonInFull()).isEqualTo("the scripted backend refused it (partition gpu is down)");
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.FAILED);
        assertThat(f.loop.counters().failures()).isEqualTo(1);

        // Its GPUs are free again, and the refused attempt is not asked about again.
        String next = f.submit("a", 8, 60, 0, false);
        f.advance(10);
        f.cycle();
        assertThat(f.stateOf(next)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.backend.startCalls).filteredOn(k -> k.workloadId().equals(w)).hasSize(2);
    }

    @Test
    void aCancelWhileTheStartIsUnconfirmedIsSentAsAStopAndNeverAsAnotherStart() {
        Fixture f = loops.open("cancel", 8);
        String w = f.submit("a", 8, HOUR, 0, false);
        // The cycle after the cancellation asks the start again before it reads the cancellation: unconfirmed too.
        f.backend.startThrows.addAll(Collections.nCopies(2, unreachable()));
        f.cycle();
        AttemptKey key = only(f, w).key();

        f.cancel(w);
        f.advance(10);
        f.cycle();
        assertThat(f.backend.stops).containsExactly(key);
        assertThat(f.backend.startCalls).containsExactly(key, key); // both unconfirmed; none after the stop
        assertThat(f.backend.launches).isEmpty();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.CANCELLED);
        assertThat(only(f, w).outcome()).isEqualTo(AttemptOutcome.CANCELLED);

        f.advance(10);
        f.cycle();
        assertThat(f.backend.startCalls).containsExactly(key, key);
        assertThat(f.backend.stops).containsExactly(key);
        assertThat(f.loop.counters().cancellations()).isEqualTo(1);
        assertThat(f.backend.observe()).isEmpty(); // forgotten
    }

    @Test
    void aPreemptionWhileTheStartIsUnconfirmedRecordsThatTheAttemptNeverStarted() {
        Fixture f = loops.open("preempt", 8);
        String free = f.submit("a", 8, HOUR, 0, false); // unallocated: any allocated work may preempt it
        f.backend.startThrows.addAll(Collections.nCopies(2, unreachable()));
        f.cycle();
        AttemptKey key = only(f, free).key();

        String allocated = f.submit("a", 8, HOUR, 600, false);
        for (int i = 0; i < 3; i++) {
            f.advance(10);
            f.cycle();
        }
        assertThat(f.backend.stops).containsExactly(key);
        Attempt a = only(f, free);
        assertThat(a.outcome()).isEqualTo(AttemptOutcome.PREEMPTED);
        assertThat(a.reasonInFull()).contains(allocated).endsWith("(never started)");
        assertThat(a.lostGpuSeconds()).isZero(); // it did no work to lose
        assertThat(a.endedAtMillis()).isEqualTo(a.startedAtMillis()); // no GPU time it never had
        assertThat(f.stateOf(allocated)).isEqualTo(WorkloadState.RUNNING);
    }

    /**
     * The fault story's race (SlurmFaultsTest, {@code w-17#1}): the start never reached the backend, the scheduler
     * restarted, and the new loop preempted the adopted attempt before it could reconcile it (the first observation
     * failed), so the stop reached the backend before any repeated start. The backend reports it never started; the
     * attempt must be recorded so (reason, no work lost, nothing charged), as when the stop came while the loop itself
     * was still unsure of the start, and nothing may start after the stop.
     */
    @Test
    void anAdoptedAttemptPreemptedBeforeItsReconciliationIsRecordedAsNeverStarted() {
        Fixture f = loops.open("adopted-preempted", 8);
        String free = f.submit("a", 8, HOUR, 0, false); // unallocated: any allocated work may preempt it
        f.backend.dropNextStart = true; // the crash came between the store's begin and the backend's start
        f.cycle();
        AttemptKey key = only(f, free).key();

        f.crash();
        String allocated = f.submit("a", 8, HOUR, 600, false);
        f.backend.failObserves = 1; // the reconciliation's probe fails: the attempt stays adopted, not restarted
        f.advance(60);
        f.cycle();

        assertThat(f.backend.stops).containsExactly(key);
        // only the one lost to the crash; the allocated work starts in the GPUs the stop freed
        assertThat(f.backend.startCalls).filteredOn(k -> k.workloadId().equals(free)).containsExactly(key);
        Attempt a = only(f, free);
        assertThat(a.outcome()).isEqualTo(AttemptOutcome.PREEMPTED);
        assertThat(a.reasonInFull()).contains(allocated).contains("never started");
        assertThat(a.lostGpuSeconds()).isZero();
        assertThat(a.endedAtMillis()).isEqualTo(a.startedAtMillis());

        for (int i = 0; i < 2; i++) {
            f.advance(10);
            f.cycle();
        }
        assertThat(f.backend.startCalls).filteredOn(k -> k.workloadId().equals(free)).containsExactly(key);
        assertThat(f.backend.launches).singleElement()
                .satisfies(l -> assertThat(l.attempt().workloadId()).isEqualTo(allocated));
        assertThat(f.stateOf(allocated)).isEqualTo(WorkloadState.RUNNING);
    }

    @Test
    void anAdoptedLaunchingAttemptWhoseRestartIsUnconfirmedStaysAndStartsLaterWithTheSameKey() {
        Fixture f = loops.open("reconcile", 8);
        String w = f.submit("a", 8, HOUR, 0, false);
        f.backend.dropNextStart = true; // the crash came between the store's begin and the backend's start
        f.cycle();
        AttemptKey key = only(f, w).key();
        assertThat(f.backend.launches).isEmpty();

        f.crash();
        // Reconcile starts it again: unavailable; the retry in the same cycle's observe: unavailable too.
        f.backend.startThrows.addAll(Collections.nCopies(2, unreachable()));
        f.advance(60);
        f.cycle();
        Attempt a = only(f, w);
        assertThat(a.phase()).isEqualTo(AttemptPhase.LAUNCHING);
        assertThat(a.outcome()).isNull();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.RUNNING);
        assertThat(f.backend.launches).isEmpty();

        f.advance(10);
        f.cycle();
        assertThat(f.backend.launches).singleElement().satisfies(l -> assertThat(l.attempt()).isEqualTo(key));
        assertThat(f.backend.startCalls).allMatch(key::equals);
        f.advance(HOUR);
        f.cycle();
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.COMPLETED);
        assertThat(only(f, w).outcome()).isEqualTo(AttemptOutcome.COMPLETED);
    }

    @Test
    void anAdoptedLaunchingAttemptTheBackendRefusesOnRestartFails() {
        Fixture f = loops.open("reconcile-refused", 8);
        String w = f.submit("a", 8, HOUR, 0, false);
        f.backend.dropNextStart = true;
        f.cycle();

        f.crash();
        f.backend.startThrows.add(new BackendException("no such account"));
        f.advance(60);
        f.cycle();
        Attempt a = only(f, w);
        assertThat(a.outcome()).isEqualTo(AttemptOutcome.FAILED);
        assertThat(a.reasonInFull()).isEqualTo("the scripted backend refused it (no such account)");
        assertThat(f.stateOf(w)).isEqualTo(WorkloadState.FAILED);
    }
}
