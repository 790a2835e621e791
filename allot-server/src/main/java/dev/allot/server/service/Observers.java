package dev.allot.server.service;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.server.sched.LoopObserver;
import dev.allot.server.store.AttemptOutcome;
import java.util.List;

/** Several observers of the scheduling loop as one (the loop takes one), told in order. */
final class Observers implements LoopObserver {
    private final List<LoopObserver> all;

    Observers(LoopObserver... all) {
        this.all = List.of(all);
    }

    @Override
    public void cycle(long decisionNanos, int pending, int running) {
        all.forEach(o -> o.cycle(decisionNanos, pending, running));
    }

    @Override
    public void cycleEnded(long cycleNanos) {
        all.forEach(o -> o.cycleEnded(cycleNanos));
    }

    @Override
    public void started(String workloadId, String allocation, long waitSeconds) {
        all.forEach(o -> o.started(workloadId, allocation, waitSeconds));
    }

    @Override
    public void preempted(String workloadId, String allocation, PreemptionCause cause, long lostGpuSeconds) {
        all.forEach(o -> o.preempted(workloadId, allocation, cause, lostGpuSeconds));
    }

    @Override
    public void ended(String workloadId, String allocation, AttemptOutcome outcome) {
        all.forEach(o -> o.ended(workloadId, allocation, outcome));
    }
}
