package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.Launch;
import dev.allot.core.campaign.ShardPhase;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.server.campaign.ShardCarrier;
import dev.allot.server.store.Workload;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link SchedulerLoop}'s side of its campaigns ({@link ShardCarrier}): where its core holds a shard's workload,
 * and the contract changes the store already recorded, applied to the core, the loop's books and the backend. Apart
 * from the loop so that the loop only calls the campaigns' step; it works on the loop's state on the loop's thread.
 */
final class LoopCampaigns implements ShardCarrier {
    private final LoopCore loop;

    LoopCampaigns(LoopCore loop) {
        this.loop = Objects.requireNonNull(loop, "loop");
    }

    @Override
    public Optional<ShardPhase> phase(String workloadId) {
        Job job = loop.active.get(workloadId);
        if (job == null) {
            return Optional.empty();
        }
        return job.state() == JobState.PENDING ? Optional.of(ShardPhase.WAITING)
                : job.state() == JobState.RUNNING ? Optional.of(ShardPhase.RUNNING) : Optional.empty();
    }

    @Override
    public void retiered(String workloadId, Duration minRuntime, long nowSeconds) {
        refresh(workloadId);
        Job job = loop.active.get(workloadId);
        if (job != null && job.state() == JobState.PENDING && !job.allocated()) {
            loop.state.promote(job, minRuntime, nowSeconds);
            loop.dirty = true;
        }
    }

    @Override
    public Promotion promoted(String workloadId, Duration minRuntime, long nowSeconds) {
        Workload w = refresh(workloadId);
        Job job = loop.active.get(workloadId);
        if (job == null || job.state() != JobState.RUNNING) {
            return new Promotion(null, new Backend.Mirror(false, "the scheduler does not run it now; it runs under"
                    + " the new contract from its next start"));
        }
        if (!job.allocated()) {
            loop.state.promote(job, minRuntime, nowSeconds);
        }
        loop.dirty = true;
        AttemptKey key = loop.books.runningAttempt.get(workloadId);
        LiveAttempt live = key == null ? null : loop.books.live.get(key);
        if (live == null) {
            return new Promotion(null, new Backend.Mirror(false, "its start waits for its GPUs to be freed; it starts"
                    + " under the new contract"));
        }
        live.startedAtSeconds = nowSeconds;
        try {
            return new Promotion(key, loop.backend.promote(key, Launch.Terms.of(minRuntime.getSeconds(),
                    w == null || w.resumable())));
        } catch (RuntimeException e) { // a BackendException, or a backend that broke its promise
            return new Promotion(key, new Backend.Mirror(false, "the " + loop.backend.name() + " backend could not be"
                    + " told (" + e.getMessage() + "); Allot protects it all the same"));
        }
    }

    @Override
    public void ranked(String workloadId, long rank) {
        Job job = loop.active.get(workloadId);
        if (job != null && !job.state().isFinal() && job.queueRank() != rank) {
            loop.state.rerank(job, rank);
            loop.dirty |= job.state() == JobState.PENDING;
        }
    }

    @Override
    public void withdrawn(String workloadId) {
        Job job = loop.active.get(workloadId);
        if (job != null && !job.state().isFinal()) {
            loop.intake.cancel(job, loop.state.now());
        }
        loop.stored.remove(workloadId);
    }

    /** Takes the workload's contract as the store has it now, for its next launch. */
    private Workload refresh(String workloadId) {
        Workload w = loop.store.workloads().workload(workloadId).orElse(null);
        if (w != null && loop.stored.containsKey(workloadId)) {
            loop.stored.put(workloadId, w);
        }
        return w;
    }
}
