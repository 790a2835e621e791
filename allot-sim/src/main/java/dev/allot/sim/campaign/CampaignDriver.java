package dev.allot.sim.campaign;

import dev.allot.core.campaign.CampaignMove;
import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.campaign.ShardPhase;
import dev.allot.core.campaign.ShardTier;
import dev.allot.core.campaign.ShardView;
import dev.allot.core.campaign.SlotPlanner;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationAgent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Carries a campaign through a simulation under one {@link CampaignStrategy}, as a user's tool would on a live
 * scheduler: at its submission time it queues one workload per shard, and at every instant where anything happened
 * it shows the shards as they are now ({@link ShardView}s: units reported, measured time, phase, tier) to
 * {@link SlotPlanner} and carries out the moves it returns, before the policy decides. Under a strategy that orders
 * waiting shards by the parking order ({@link CampaignStrategy.WaitOrder#PARKING}, Allot's) it also ranks its shards
 * in its allocation's queue by that order, re-chosen at every plan.
 *
 * <p>Each shard is one resumable workload for its whole life, checkpointing after every unit (its
 * {@code checkpointEvery} is its true time per unit), so a preemption keeps exactly the units done. A shard runs
 * its true time per unit, which the rules never see: they learn it from the units it reports (units done so far
 * times its true time per unit is the running time that produced them). Moves:
 * <ul>
 *   <li>{@code Queue}: submit the shard's workload, protected (the campaign's minimum runtime) or unallocated (0);</li>
 *   <li>{@code Retier}: a waiting shard changes contract ({@code ClusterState.promote} or {@code demote}): free;</li>
 *   <li>{@code Promote}: a running unallocated shard becomes protected where it runs, same attempt
 *       ({@code ClusterState.promote}): charged and protected from now;</li>
 *   <li>{@code Restart}: how the seed's babysitter had to move a shard on Slurm, where a running job's QOS cannot
 *       change. The running unallocated shard is stopped (it keeps its whole units and loses the partial one, as a
 *       Slurm job cancelled and resubmitted resumes from its last reported unit), requeued, and waits as protected
 *       for the policy to start it again, like a job resubmitted to the {@code own} QOS. It restarts without any
 *       start-up cost and, its allocation being under its share, usually at the same instant on the GPU it left:
 *       the model gives v4 and v4.1 every benefit of the doubt. The seed's babysitter literally never touched a
 *       running job (it parked waiting ones only); that variant measured within 1% of this one on the lab preset
 *       (v4.1 68.9 hours parking only against 69.5 restarting, seeds 1-6; docs/campaigns.md), within noise.</li>
 * </ul>
 *
 * <p>Its bookkeeping is its own: it counts the units each run reported from the run's times and the true rate, the
 * GPU-seconds charged from each protected start or promotion, the work lost, and any unit a run did again after a
 * run had reported it ({@link CampaignOutcome#unitsRedone}, which must stay 0). It also keeps every run of every
 * shard ({@link CampaignOutcome.Attempt}: start, end, from when protected, units from and to, how it ended), a few
 * thousand records at most, from which the report draws the campaign's progress and each shard's span.
 */
public final class CampaignDriver implements SimulationAgent {
    private final CampaignSpec spec;
    private final CampaignStrategy strategy;
    private final int n;
    private final long[] perUnit;
    private final Job[] jobs;
    private final Map<Job, Integer> shardOf = new HashMap<>();
    private final long[] reported;
    /** Whether shard i runs now, as this driver heard (started and not yet stopped). */
    private final boolean[] running;
    private final long[] attemptStart;
    private final long[] attemptStartUnits;
    private final long[] chargedSince;
    private final long[] unallocatedSince;
    private final long[] endSeconds;
    /** The runs that stopped, in the order they stopped. */
    private final List<CampaignOutcome.Attempt> attempts = new ArrayList<>();
    private long chargedGpuSeconds;
    private long lostGpuSeconds;
    private long unallocatedGpuSeconds;
    private long unitsRedone;
    private int restarts;
    private int promotions;
    private int retiers;
    private int preemptions;
    private int done;
    private long campaignEnd = -1;
    private boolean submitted;
    private boolean dirty;
    private long lastActed = Long.MIN_VALUE;
    private boolean restarting;
    private SlotPlanner.Plan lastPlan;

    public CampaignDriver(CampaignSpec spec, CampaignStrategy strategy) {
        this.spec = spec;
        this.strategy = strategy;
        this.n = spec.shards().size();
        this.perUnit = new long[n];
        for (int i = 0; i < n; i++) {
            perUnit[i] = spec.trueSecondsPerUnit(spec.shards().get(i));
        }
        this.jobs = new Job[n];
        this.reported = new long[n];
        this.running = new boolean[n];
        this.attemptStart = new long[n];
        this.attemptStartUnits = new long[n];
        this.chargedSince = new long[n];
        this.unallocatedSince = new long[n];
        this.endSeconds = new long[n];
        Arrays.fill(chargedSince, -1);
        Arrays.fill(unallocatedSince, -1);
        Arrays.fill(endSeconds, -1);
    }

    public CampaignSpec spec() {
        return spec;
    }

    public CampaignStrategy strategy() {
        return strategy;
    }

    /** The plan made at the last instant the campaign acted (null before its submission), for tests and reports. */
    public SlotPlanner.Plan lastPlan() {
        return lastPlan;
    }

    // ------------------------------------------------------------------ acting

    @Override
    public long nextActionSeconds() {
        if (!submitted) {
            return spec.submitAtSeconds();
        }
        // a shard's first unit done gives it a measured rate: the estimates change, so look again then
        long next = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (running[i] && reported[i] == 0) {
                long first = attemptStart[i] + perUnit[i];
                if (first > lastActed) {
                    next = Math.min(next, first);
                }
            }
        }
        return next;
    }

    @Override
    public boolean wantsToAct() {
        return dirty;
    }

    @Override
    public boolean act(long time, Actions actions) {
        dirty = false;
        lastActed = time;
        if (time < spec.submitAtSeconds() || done == n) {
            return false;
        }
        submitted = true;
        List<ShardView> views = views(time);
        SlotPlanner.Plan plan = SlotPlanner.plan(views, spec.slots(), strategy, spec.declaredSecondsPerUnit());
        lastPlan = plan;
        for (CampaignMove m : plan.moves()) {
            carryOut(m, time, actions);
        }
        boolean reordered = rank(SlotPlanner.queueOrder(views, plan, strategy), actions);
        dirty = false; // what the moves themselves caused was planned for
        return !plan.moves().isEmpty() || reordered;
    }

    /**
     * Ranks the queued shards in the order the core's {@link SlotPlanner#queueOrder} gives (the service applies the
     * same), so that the waiting ones stand in their allocation's queue longest remaining work first under Allot's
     * strategy; returns whether a waiting shard moved.
     */
    private boolean rank(List<Integer> order, Actions actions) {
        boolean moved = false;
        long rank = 0;
        for (int shard : order) {
            Job j = jobs[shard];
            if (j == null || j.state() == JobState.COMPLETED) {
                continue;
            }
            if (j.queueRank() != rank) {
                moved |= j.state() == JobState.PENDING;
                actions.rerank(j, rank);
            }
            rank++;
        }
        return moved;
    }

    private void carryOut(CampaignMove m, long time, Actions actions) {
        int i = m.shard();
        Duration protectedRuntime = spec.minRuntime();
        if (m instanceof CampaignMove.Queue q) {
            CampaignSpec.Shard s = spec.shards().get(i);
            WorkloadSpec w = new WorkloadSpec(spec.shardId(i), time, spec.allocation(), spec.name(),
                    spec.gpusPerShard(), 0, Duration.ofSeconds(spec.trueSeconds(s)),
                    q.tier() == ShardTier.PROTECTED ? protectedRuntime : Duration.ZERO, true, Priority.NORMAL,
                    Duration.ofSeconds(perUnit[i]), "campaign");
            jobs[i] = actions.submit(w);
            shardOf.put(jobs[i], i);
        } else if (m instanceof CampaignMove.Retier r) {
            retiers++;
            if (r.tier() == ShardTier.PROTECTED) {
                actions.promote(jobs[i], protectedRuntime);
            } else {
                actions.demote(jobs[i]);
            }
        } else if (m instanceof CampaignMove.Promote) {
            actions.promote(jobs[i], protectedRuntime);
        } else if (m instanceof CampaignMove.Restart) {
            restarts++;
            restarting = true;
            try {
                actions.restart(jobs[i], PreemptionCause.by(PreemptionCause.Kind.UNALLOCATED, jobs[i].id(),
                        "campaign " + spec.name() + " (" + strategy.name() + ") moves shard " + i + " into a"
                                + " protected slot by restarting it, as on a scheduler that cannot change a"
                                + " running job's contract"));
            } finally {
                restarting = false;
            }
            actions.promote(jobs[i], protectedRuntime);
        }
    }

    /** The shards as the rules see them at {@code time}. */
    public List<ShardView> views(long time) {
        List<ShardView> views = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            CampaignSpec.Shard s = spec.shards().get(i);
            Job j = jobs[i];
            ShardPhase phase;
            if (j == null) {
                phase = ShardPhase.UNQUEUED;
            } else {
                phase = switch (j.state()) {
                    case PENDING -> ShardPhase.WAITING;
                    case RUNNING -> ShardPhase.RUNNING;
                    case COMPLETED -> ShardPhase.DONE;
                    default -> throw new IllegalStateException("shard " + j.id() + " is " + j.state());
                };
            }
            long units = unitsDone(i, time);
            ShardTier tier = j != null && j.allocated() ? ShardTier.PROTECTED : ShardTier.UNALLOCATED;
            views.add(new ShardView(i, s.family(), spec.gpusPerShard(), s.units(), units, units * perUnit[i], phase,
                    tier));
        }
        return views;
    }

    /** Units shard {@code i} has reported by {@code time}: those of its past runs, and its running one's so far. */
    private long unitsDone(int i, long time) {
        if (running[i]) {
            long running = attemptStartUnits[i] + (time - attemptStart[i]) / perUnit[i];
            reported[i] = Math.max(reported[i], Math.min(running, spec.shards().get(i).units()));
        }
        return reported[i];
    }

    // ------------------------------------------------------------------ listening

    private Integer shard(Job job) {
        return shardOf.get(job);
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        Integer i = shard(job);
        if (i == null) {
            return;
        }
        if (job.progressSeconds() % perUnit[i] != 0) {
            throw new IllegalStateException("shard " + job.id() + " resumes from " + job.progressSeconds()
                    + "s of work, not a whole number of units of " + perUnit[i] + "s");
        }
        long from = job.progressSeconds() / perUnit[i];
        if (from < reported[i]) {
            unitsRedone += reported[i] - from;
        }
        running[i] = true;
        attemptStart[i] = time;
        attemptStartUnits[i] = from;
        if (job.allocated()) {
            chargedSince[i] = time;
        } else {
            unallocatedSince[i] = time;
        }
        dirty = true;
    }

    @Override
    public void onPromote(long time, Job job) {
        Integer i = shard(job);
        if (i == null || job.state() != JobState.RUNNING) {
            return;
        }
        promotions++;
        unallocatedGpuSeconds += (time - unallocatedSince[i]) * job.gpus();
        unallocatedSince[i] = -1;
        chargedSince[i] = time;
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause,
                          ClusterState.PreemptionResult result) {
        Integer i = shard(job);
        if (i == null) {
            return;
        }
        long units = stopped(i, job, time,
                restarting ? CampaignOutcome.End.RESTARTED : CampaignOutcome.End.PREEMPTED);
        long ranSeconds = time - attemptStart[i];
        lostGpuSeconds += (ranSeconds - (units - attemptStartUnits[i]) * perUnit[i]) * job.gpus();
        if (!restarting) {
            preemptions++;
        }
        dirty = true;
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        Integer i = shard(job);
        if (i == null) {
            return;
        }
        long units = stopped(i, job, time, CampaignOutcome.End.COMPLETED);
        if (units != spec.shards().get(i).units()) {
            throw new IllegalStateException("shard " + job.id() + " completed with " + units + " of "
                    + spec.shards().get(i).units() + " units reported");
        }
        endSeconds[i] = time;
        done++;
        if (done == n) {
            campaignEnd = time;
        }
        dirty = true;
    }

    /** Closes the books of a run that stopped at {@code time}; returns the units reported by then. */
    private long stopped(int i, Job job, long time, CampaignOutcome.End end) {
        long units = unitsDone(i, time);
        running[i] = false;
        attempts.add(new CampaignOutcome.Attempt(i, attemptStart[i], time, chargedSince[i], attemptStartUnits[i],
                units, end));
        if (chargedSince[i] >= 0) {
            chargedGpuSeconds += (time - chargedSince[i]) * job.gpus();
            chargedSince[i] = -1;
        }
        if (unallocatedSince[i] >= 0) {
            unallocatedGpuSeconds += (time - unallocatedSince[i]) * job.gpus();
            unallocatedSince[i] = -1;
        }
        return units;
    }

    // ------------------------------------------------------------------ outcome

    /**
     * The outcome at the end of a run that ended at {@code endTime}: runs still going are counted up to then (their
     * charge included), without changing the books.
     */
    public CampaignOutcome outcome(long endTime) {
        long charged = chargedGpuSeconds;
        long unallocated = unallocatedGpuSeconds;
        long units = 0;
        for (int i = 0; i < n; i++) {
            units += unitsDone(i, endTime);
            if (chargedSince[i] >= 0) {
                charged += (endTime - chargedSince[i]) * spec.gpusPerShard();
            }
            if (unallocatedSince[i] >= 0) {
                unallocated += (endTime - unallocatedSince[i]) * spec.gpusPerShard();
            }
        }
        List<Long> ends = new ArrayList<>(n);
        for (long e : endSeconds) {
            ends.add(e);
        }
        List<CampaignOutcome.Attempt> all = new ArrayList<>(attempts);
        for (int i = 0; i < n; i++) {
            if (running[i]) {
                all.add(new CampaignOutcome.Attempt(i, attemptStart[i], endTime, chargedSince[i],
                        attemptStartUnits[i], unitsDone(i, endTime), CampaignOutcome.End.RUNNING));
            }
        }
        all.sort(java.util.Comparator.comparingLong(CampaignOutcome.Attempt::startSeconds)
                .thenComparingInt(CampaignOutcome.Attempt::shard));
        return new CampaignOutcome(strategy.name(), spec.submitAtSeconds(), campaignEnd, spec.unitsTotal(), units,
                charged, lostGpuSeconds, unallocated, unitsRedone, restarts, promotions, retiers, preemptions, ends,
                all);
    }
}
