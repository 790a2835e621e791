package dev.allot.core.state;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.function.ToLongFunction;

/**
 * Makes {@link ClusterState#fork forks}: an independent copy of a state, to play a possible future on without touching
 * the original (a forecast, a what-if): the same nodes, health, jobs, queues, protections and charged usage, with
 * every index in the same order, so that a policy asked about the fork decides exactly what it would decide on the
 * original. Three things may differ: attempts still stopping in the original have stopped in the fork, and the
 * starts that waited for them launch at its first instant; the tree, which must have the same leaves in the same
 * order (a what-if on shares); and the work each job needs, {@code durationSeconds} of running time in all ({@link Job#durationSeconds}),
 * made at least the progress it has made, counting its running attempt up to now: a job a live service runs past the
 * duration it declared is due to end at the fork's first instant. Jobs that have not ended are new
 * objects ({@link Job#copyOf}; look them up by id); ended ones are shared, as nothing changes them any more.
 *
 * <p>Apart from {@link ClusterState} because it is an idea of its own (what a state consists of); it must change
 * whenever a field is added there or to one of its books.
 */
final class StateFork {
    private StateFork() {
    }

    static ClusterState copy(ClusterState src, AllocationTree newTree, ToLongFunction<Job> durationSeconds) {
        if (!newTree.leafNames().equals(src.tree().leafNames())) {
            throw new IllegalArgumentException("a fork keeps the allocations: its tree has leaves " + newTree.leafNames()
                    + ", the state " + src.tree().leafNames());
        }
        ClusterState dst = new ClusterState(src.cluster(), newTree, src.config(), src.now);
        Job[] copies = new Job[src.registry.jobs.size()];
        for (Job s : src.registry.jobs) {
            if (s.state.isFinal()) {
                copies[s.index()] = s; // ended: nothing changes it any more, so both states may share it
                dst.registry.add(s);
                continue;
            }
            long done = s.progressSeconds + (s.state == JobState.RUNNING ? src.now - s.attemptStartSeconds : 0);
            long d = Math.max(durationSeconds.applyAsLong(s), done); // running past its duration: it ends now
            WorkloadSpec spec = d == s.durationSeconds() ? s.spec : new WorkloadSpec(s.spec.id(), s.spec.submitSeconds(),
                    s.spec.allocation(), s.spec.user(), s.spec.gpus(), s.spec.gpusPerNode(), Duration.ofSeconds(d),
                    s.spec.minRuntime(), s.spec.resumable(), s.spec.priority(), s.spec.checkpointEvery(), s.spec.kind());
            Job c = Job.copyOf(s, spec);
            copies[s.index()] = c;
            dst.registry.add(c);
            if (c.state == JobState.PENDING) {
                dst.pending.add(c);
            }
        }
        dst.registry.copyShapesFrom(src.registry);
        copyNodes(src.nodes, dst.nodes, copies);
        copyRunning(src.running, dst.running, copies);
        copyProtections(src.protections, dst.protections, copies);
        dst.ledger.copyFrom(src.ledger);
        // The fork plays a future in which stops are instant: the attempts still stopping have stopped, and the starts
        // that waited for them launch at its first instant (their protection, whole until now, counts from then).
        for (Job waiting : src.stopPhase.waiting) {
            Job c = copies[waiting.index()];
            dst.stopPhase.beginWaiting(c);
            dst.launch(c, dst.now);
        }
        return dst;
    }

    private static void copyNodes(NodeBooks src, NodeBooks dst, Job[] copies) {
        dst.free.copyFrom(src.free);
        System.arraycopy(src.healthy, 0, dst.healthy, 0, dst.count);
        dst.unhealthyBusy.or(src.unhealthyBusy);
        System.arraycopy(src.latestProtectionEnd, 0, dst.latestProtectionEnd, 0, dst.count);
        System.arraycopy(src.protectedJobsOn, 0, dst.protectedJobsOn, 0, dst.count);
        dst.byLatestProtectionEnd.clear();
        for (int n = 0; n < dst.count; n++) {
            dst.byLatestProtectionEnd.add(n);
            for (Job j : src.jobsOnNode.get(n)) {
                dst.jobsOnNode.get(n).add(copies[j.index()]);
            }
            dst.refileWholeNode(n);
        }
        dst.drainNotices.addAll(src.drainNotices);
    }

    private static void copyRunning(RunningLists src, RunningLists dst, Job[] copies) {
        for (int l = 0; l < dst.allocated.size(); l++) {
            for (Job j : src.allocated.get(l)) {
                dst.allocated.get(l).add(copies[j.index()]);
            }
        }
        for (Job j : src.unallocated) {
            dst.unallocated.add(copies[j.index()]);
        }
        dst.count = src.count;
        dst.unallocatedGpus = src.unallocatedGpus;
    }

    private static void copyProtections(ProtectionBooks src, ProtectionBooks dst, Job[] copies) {
        for (int l = 0; l < dst.unprotectedGpus.length; l++) {
            System.arraycopy(src.unprotectedGpus[l], 0, dst.unprotectedGpus[l], 0, ProtectionBooks.PRIORITIES);
        }
        System.arraycopy(src.unprotectedLeafGpus, 0, dst.unprotectedLeafGpus, 0, dst.unprotectedLeafGpus.length);
        System.arraycopy(src.protectedGpus, 0, dst.protectedGpus, 0, dst.protectedGpus.length);
        System.arraycopy(src.protectedUntilGpuSum, 0, dst.protectedUntilGpuSum, 0, dst.protectedUntilGpuSum.length);
        for (ProtectionBooks.Expiry e : src.expiries) {
            dst.expiries.add(new ProtectionBooks.Expiry(e.at(), copies[e.job().index()], e.attempt()));
        }
        dst.ended = src.ended;
    }
}
