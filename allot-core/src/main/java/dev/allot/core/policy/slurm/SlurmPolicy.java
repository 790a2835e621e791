package dev.allot.core.policy.slurm;

import dev.allot.core.model.Decimals;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A model of Slurm as GPU labs configure it (multifactor priority with Fair Tree, EASY backfill, preemption by
 * QOS), so that Allot's policy can be measured against it on the same traces. Sources: Slurm's
 * <a href="https://slurm.schedmd.com/priority_multifactor.html">multifactor priority</a>,
 * <a href="https://slurm.schedmd.com/fair_tree.html">Fair Tree</a>,
 * <a href="https://slurm.schedmd.com/preempt.html">preemption</a>,
 * <a href="https://slurm.schedmd.com/sched_config.html">scheduling configuration</a> and backfill
 * ({@code SchedulerType=sched/backfill} in <a href="https://slurm.schedmd.com/slurm.conf.html">slurm.conf</a>).
 *
 * <p><b>Mapping.</b> The allocation tree is the association tree: inner nodes are accounts, leaves the associations
 * jobs run under, shares are Slurm shares (a workload's free-text user is not an association of its own). Allocated
 * work (minimum runtime &gt; 0) runs in a protected QOS; unallocated work (minimum runtime 0) in a preemptible QOS
 * that only the protected QOS may preempt, with {@code PreemptType=preempt/qos} and {@code PreemptMode=REQUEUE}.
 * Minimum runtimes mean nothing else to Slurm; a workload's declared priority is ignored (Slurm has no per-job
 * priority a user may raise). Each workload's time limit is its declared duration times {@code time-limit-factor},
 * rounded up to a whole minute as Slurm's are.
 *
 * <p><b>Its parts</b>, one idea each, composed by this class:
 * <ul>
 *   <li>{@link MultifactorPriority}: a job's priority, {@code floor(weight-fairshare x F + weight-age x A +
 *   weight-qos x Q)} with Fair Tree ({@link FairTree}) over decayed usage ({@link DecayedUsage}), recalculated every
 *   {@code calc-period};</li>
 *   <li>{@link WaitingJobs}: the waiting jobs in Slurm's evaluation order (jobs that can preempt first, then
 *   priority, then (re)submission time, then id), with requeued jobs given a new submit time as in Slurm;</li>
 *   <li>{@link QosPreemption}: preemption by QOS, the victims and their grace time across cycles;</li>
 *   <li>{@link EasyBackfill}: the reservation of EASY backfill and backfill's shortcuts;</li>
 *   <li>{@link IdleGpus}: the idle GPUs as the walk sees them, the nodes held and reserved, and the memos of what
 *   fits.</li>
 * </ul>
 *
 * <p><b>One cycle</b> (at every event):
 * <ol>
 *   <li>Victims whose grace time has run out are stopped and requeued: resumable work keeps its checkpointed
 *   progress, other work starts over.</li>
 *   <li><i>Main pass</i>: in evaluation order, each job starts on idle GPUs if it fits; a protected job that does not
 *   fit preempts a minimal set of preemptible jobs, if that makes room (with a grace time, it signals them and
 *   waits). The first job that cannot start ends the pass, as it blocks its (only) partition in Slurm.</li>
 *   <li><i>EASY backfill</i>: that job gets a {@link Shadow reservation} at the earliest time its GPUs free up; the
 *   following jobs in evaluation order, at most {@code backfill-max-jobs} of them ({@code bf_max_job_test}), start
 *   now (on idle GPUs, or by preemption if protected) only if they do not delay it: they keep off its nodes or end by
 *   their time limit before it is due. A grace-waiting preemptor the walk passes holds the nodes it will use against
 *   every later job; if it is the first blocked job, its reservation falls due at its victims' deadline.</li>
 * </ol>
 * {@link #isProtected} promises what {@link QosPreemption} keeps: protected-QOS work always, preemptible work inside
 * its exempt time, and victims until their grace deadline.
 *
 * <p><b>Unhealthy hosts</b> are drained as Slurm's {@code DRAIN} state does: no new work, and running jobs, of
 * either QOS, finish undisturbed.
 *
 * <p><b>Simplified, and why.</b> One reservation (EASY) where Slurm's backfill plans one per job it tests: the
 * largest source of difference from real Slurm ({@link EasyBackfill}). Backfill and the main pass run at every event
 * rather than every {@code bf_interval} (30 s) and {@code sched_interval} (60 s), and the main pass has no
 * {@code default_queue_depth} cap (it stops at the first blocked job anyway). No wake-up is asked for at
 * recalculation ticks: the next event sees the new priorities, and a busy cluster has events every few minutes.
 * Time limits are never reached, as the factor is at least 1. Each part's comment says what it leaves out:
 * {@link MultifactorPriority} (no job-size, partition, association or nice factors), {@link QosPreemption} (no hold
 * on a requeued job) and {@link EasyBackfill}.
 *
 * <p><b>Per-cycle work.</b> A cycle walks only as far as it gets: the main pass stops at the first blocked job;
 * backfill examines at most {@code backfill-max-jobs}, remembers per shape that a placement or victim search failed
 * until the free GPUs change, and stops once no waiting shape could start ({@code shortcuts}; the property tests
 * check that this never changes a decision). Decayed usage advances lazily; each node's release timeline for
 * reservations is kept from cycle to cycle ({@link Shadow.Timeline}).
 */
public final class SlurmPolicy implements Policy {
    public static final String NAME = "slurm";

    /** The ranges of the numbers, as words to follow "a number" (SettingSpec#range) and in Config's messages. */
    private static final String AT_LEAST_0 = ">= 0";
    private static final String AT_LEAST_1 = ">= 1 (jobs are never killed at their limit)";
    private static final String BACKFILL_RANGE = AT_LEAST_0 + " (0: no backfill)";

    static final List<SettingSpec> SETTINGS = List.of(
            SettingSpec.integer("weight-fairshare", 10_000,
                    "PriorityWeightFairshare: weight of the Fair Tree factor (rank of the association / number of"
                            + " associations); 10000 as in Slurm's configuration example").withRange(AT_LEAST_0),
            SettingSpec.integer("weight-age", 1_000,
                    "PriorityWeightAge: weight of the age factor, min(time waiting since (re)submission / max-age, 1);"
                            + " 1000 as in Slurm's configuration example").withRange(AT_LEAST_0),
            SettingSpec.integer("weight-qos", 10_000,
                    "PriorityWeightQOS: weight of the QOS factor, 1 for allocated work (protected QOS) and 0 for"
                            + " unallocated work (preemptible QOS). Slurm evaluates jobs that can preempt before the others"
                            + " whatever their priority, so with these two QOS it changes the priority numbers, not the order")
                    .withRange(AT_LEAST_0),
            SettingSpec.duration("max-age", Duration.ofDays(7),
                    "PriorityMaxAge: the wait at which the age factor reaches 1 (Slurm's default 7-0)"),
            SettingSpec.duration("decay-half-life", Duration.ofDays(7),
                    "PriorityDecayHalfLife: past usage counts half as much after this long (Slurm's default 7-0);"
                            + " 0 means no decay. Replaces the shared lookback window for this policy"),
            SettingSpec.duration("calc-period", Duration.ofMinutes(5),
                    "PriorityCalcPeriod: how often decayed usage, Fair Tree and waiting jobs' priorities are"
                            + " recalculated (Slurm's default 5 minutes)"),
            SettingSpec.number("preemptible-usage-factor", 1.0,
                    "UsageFactor of the preemptible QOS: how much unallocated GPU time counts as usage for fair share"
                            + " (Slurm's default 1.0; 0 makes it free, as under Allot)").withRange(AT_LEAST_0),
            SettingSpec.number("time-limit-factor", 1.0,
                    "each workload's time limit is its declared duration times this (>= 1: the model does not kill"
                            + " jobs at their limit), rounded up to whole minutes as in Slurm; backfill plans with time limits")
                    .withRange(AT_LEAST_1),
            SettingSpec.integer("backfill-max-jobs", 500,
                    "bf_max_job_test: how many jobs after the blocked one backfill considers per cycle (Slurm's"
                            + " default 500); 0 disables backfill").withRange(BACKFILL_RANGE),
            SettingSpec.duration("preempt-exempt-time", Duration.ZERO,
                    "PreemptExemptTime: a preemptible job is not preempted until it has run this long (Slurm's"
                            + " default 0)"),
            SettingSpec.duration("grace-time", Duration.ZERO,
                    "GraceTime of the preemptible QOS: a chosen victim keeps its GPUs this long before it is stopped,"
                            + " and its preemptor waits (Slurm's default 0)"),
            SettingSpec.bool("shortcuts", true,
                    "let backfill skip jobs of a shape and QOS that provably cannot start, and stop when none can;"
                            + " false decides exactly the same, slower: for verification"));

    public static final PolicyFactory FACTORY = PolicyFactory.of(NAME,
            "a model of Slurm: multifactor priority with Fair Tree and decayed usage, EASY backfill on time"
            + " limits, preemption of a scavenger QOS by QOS, drains that wait for running jobs",
            SETTINGS,
            s -> new SlurmPolicy(new Config(s.integer("weight-fairshare"), s.integer("weight-age"),
                s.integer("weight-qos"), s.duration("max-age"), s.duration("decay-half-life"),
                s.duration("calc-period"), s.number("preemptible-usage-factor"), s.number("time-limit-factor"),
                s.integer("backfill-max-jobs"), s.duration("preempt-exempt-time"), s.duration("grace-time"),
                s.bool("shortcuts"))));

    /** The policy's settings, validated. */
    public record Config(long weightFairshare, long weightAge, long weightQos, Duration maxAge, Duration decayHalfLife,
                         Duration calcPeriod, double preemptibleUsageFactor, double timeLimitFactor,
                         long backfillMaxJobs, Duration preemptExemptTime, Duration graceTime, boolean shortcuts) {
        public Config {
            require(weightFairshare >= 0, "weight-fairshare must be a whole number " + AT_LEAST_0 + ", got "
                    + weightFairshare);
            require(weightAge >= 0, "weight-age must be a whole number " + AT_LEAST_0 + ", got " + weightAge);
            require(weightQos >= 0, "weight-qos must be a whole number " + AT_LEAST_0 + ", got " + weightQos);
            require(!maxAge.isNegative() && !maxAge.isZero(), "max-age must be positive, got " + Durations.format(maxAge));
            require(!decayHalfLife.isNegative(), "decay-half-life must not be negative");
            require(!calcPeriod.isNegative() && !calcPeriod.isZero(), "calc-period must be positive, got " + Durations.format(calcPeriod));
            // the numbers as typed (-0.5), not as Java spells a double (-0.5 but 2.0 for 2)
            require(preemptibleUsageFactor >= 0 && Double.isFinite(preemptibleUsageFactor),
                    "preemptible-usage-factor must be a number " + AT_LEAST_0 + ", got "
                            + Decimals.plain(preemptibleUsageFactor));
            require(timeLimitFactor >= 1 && Double.isFinite(timeLimitFactor), "time-limit-factor must be a number "
                    + AT_LEAST_1 + ", got " + Decimals.plain(timeLimitFactor));
            require(backfillMaxJobs >= 0, "backfill-max-jobs must be a whole number " + BACKFILL_RANGE + ", got "
                    + backfillMaxJobs);
            require(!preemptExemptTime.isNegative(), "preempt-exempt-time must not be negative");
            require(!graceTime.isNegative(), "grace-time must not be negative");
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }


    private final Config config;
    private final long exemptSeconds;
    private final int backfillMax;

    // bound to one state
    private ClusterState boundTo;
    private CycleWork work;
    private MultifactorPriority priorities;
    private IdleGpus idle;
    private QosPreemption preemption;
    private WaitingJobs queue;
    private EasyBackfill backfill;

    // per cycle
    private long now;

    public SlurmPolicy(Config config) {
        this.config = config;
        this.exemptSeconds = config.preemptExemptTime().getSeconds();
        this.backfillMax = (int) Math.min(Integer.MAX_VALUE, config.backfillMaxJobs());
    }

    public static SlurmPolicy withDefaults() {
        return (SlurmPolicy) FACTORY.create(Settings.defaults(SETTINGS));
    }

    public Config config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** {@code PreemptMode=REQUEUE}: a preempted job goes back to the queue; one that cannot resume starts over. */
    @Override
    public boolean restartsWorkThatCannotResume() {
        return true;
    }

    /**
     * Allocated work (the protected QOS) always; unallocated work inside its {@code preempt-exempt-time}, and a
     * chosen victim until its grace deadline ({@link QosPreemption#isProtected}).
     */
    @Override
    public boolean isProtected(Job job, long at) {
        return preemption == null ? QosPreemption.exempt(job, at, exemptSeconds) : preemption.isProtected(job, at);
    }

    /** The time limit of a job: {@link #timeLimitSeconds(long)} of its declared duration. */
    public long timeLimitSeconds(Job j) {
        return timeLimitSeconds(j.durationSeconds());
    }

    /**
     * The time limit of a job of this declared duration: the duration times the factor, rounded up to a whole minute,
     * as Slurm keeps time limits in minutes ({@code sbatch --time=0:30} is one minute). Backfill plans with it.
     */
    public long timeLimitSeconds(long durationSeconds) {
        long seconds = (long) Math.ceil(durationSeconds * config.timeLimitFactor());
        return Math.max(1, (seconds + 59) / 60) * 60;
    }

    // ------------------------------------------------------------------ binding

    private void bind(ClusterState state) {
        if (boundTo == state) {
            return;
        }
        boundTo = state;
        work = new CycleWork(state);
        idle = new IdleGpus(work);
        priorities = new MultifactorPriority(state, config);
        preemption = new QosPreemption(state, config, work, idle);
        queue = new WaitingJobs(state, priorities, this::timeLimitSeconds);
        backfill = new EasyBackfill(state, work, idle, queue, preemption);
    }

    // ------------------------------------------------------------------ the cycle

    @Override
    public Plan schedule(ClusterState state, long at) {
        if (state.now() != at) {
            throw new IllegalArgumentException("the state is at " + state.now() + ", not at " + at + "; advance it first");
        }
        bind(state);
        now = at;
        priorities.recalculate(at);
        priorities.refreshRates(state);
        priorities.ensureCapacity(state.jobs().size());
        preemption.ensureCapacity(state.jobs().size());
        queue.ingest(state);
        if (queue.isEmpty() && !preemption.anyInGrace()) {
            priorities.expectRunning(state.running().count());
            return Plan.empty();
        }
        work.begin(at);
        idle.beginCycle();
        preemption.beginCycle(at);
        backfill.beginCycle(at);
        queue.ensureShapeCapacity(state.shapeCount());
        int kinds = queue.kindSlots();
        idle.ensureCapacity(kinds);
        preemption.ensureKeyCapacity(kinds);
        backfill.ensureKindCapacity(kinds);
        preemption.stopVictimsAtDeadline(state, this::preempt);
        if (!queue.isEmpty()) {
            try {
                walk(state, queue.inEvaluationOrder());
            } finally {
                queue.removeStarted();
            }
        }
        applyDecisions(state);
        return new Plan(work.decisions(), preemption.wakeAt(state, queue.protectedWaiting()));
    }

    /** The cycle's starts and preemptions change the nodes' release times and the usage rates. */
    private void applyDecisions(ClusterState state) {
        List<Decision> ds = work.decisions();
        for (int i = 0; i < ds.size(); i++) {
            Decision d = ds.get(i);
            backfill.invalidate(d instanceof Decision.Start st ? st.placement() : d.job().placement());
        }
        priorities.applyDecisions(ds, state.running().count());
    }

    /**
     * Walks the waiting jobs in Slurm's evaluation order: the main pass starts each job that fits (or preempts for
     * it) until the first that cannot start; it owns the reservation, and backfill examines the following jobs, at
     * most {@code backfill-max-jobs} of them, stopping early when nothing more could start.
     */
    private void walk(ClusterState state, PriorityQueue<WaitingJobs.Cursor> heap) {
        boolean main = true;
        int examined = 0;
        int failures = 0;
        while (!heap.isEmpty()) {
            WaitingJobs.Cursor c = heap.poll();
            Job w = c.job;
            long prio = c.priority;
            c.advance();
            if (c.job != null) {
                heap.add(c);
            }
            if (main) {
                if (!startInMainPass(state, w, prio)) {
                    backfill.blockedBy(w);
                    main = false;
                    backfill.visited(w);
                    if (w.allocated() && preemption.awaitingGrace(w)) {
                        holdFor(w);
                    }
                }
                continue;
            }
            if (++examined > backfillMax) {
                break;
            }
            if (work.free().totalFree() == 0 && state.running().unallocatedGpus() == 0) {
                break; // nothing can start: no idle GPUs and nothing to preempt
            }
            int k = WaitingJobs.kind(w);
            if (config.shortcuts() && backfill.knownHopeless(k)) {
                failures++;
            } else if (backfillOne(state, w, prio)) {
                failures = 0;
                continue;
            } else {
                failures++;
                if (config.shortcuts()) {
                    backfill.failed(state, k);
                }
            }
            backfill.visited(w);
            if (w.allocated() && preemption.awaitingGrace(w)) {
                holdFor(w);
            }
            // at the first failure and every so often after, see whether any waiting job at all could still start
            if (config.shortcuts() && (failures == 1 || failures % 32 == 0) && backfill.allHopeless(state)) {
                break; // the rest would all be examined and skipped
            }
        }
    }

    private boolean startInMainPass(ClusterState state, Job w, long prio) {
        Placement p = place(w, false);
        if (p != null) {
            start(w, p, prio, null, 0);
            return true;
        }
        if (!w.allocated() || preemption.awaitingGrace(w)) {
            return false;
        }
        return preemptFor(state, w, prio, false, null, 0);
    }

    /** Starts {@code w} now if that does not delay the reservation; false if it cannot. */
    private boolean backfillOne(ClusterState state, Job w, long prio) {
        long end = now + queue.limitSeconds(w);
        Placement p = place(w, false);
        if (p != null) {
            Shadow s = backfill.reservation();
            if (s == null || !s.delayedBy(p, end)) {
                start(w, p, prio, s, end);
                return true;
            }
            p = place(w, true);
            if (p != null) {
                start(w, p, prio, s, end);
                return true;
            }
        }
        if (!w.allocated() || preemption.awaitingGrace(w)) {
            return false;
        }
        Shadow s = backfill.reservation();
        return preemptFor(state, w, prio, s != null && end > s.startSeconds(), s, end);
    }

    /**
     * Holds the nodes a grace-waiting preemptor will use against every job the walk meets after it (as Slurm's
     * backfill reserves them for it), so that lower-priority work cannot take the idle GPUs it counted on.
     */
    private void holdFor(Job preemptor) {
        BitSet h = preemption.graceHold(preemptor);
        if (h != null) {
            idle.hold(h);
        }
    }

    private Placement place(Job w, boolean withShadow) {
        return idle.place(w.shape(), withShadow);
    }

    /**
     * Preempts (or, with a grace time, signals) a minimal set of preemptible jobs for {@code w} and starts it;
     * false if there is no such set, or if {@code w} must now wait for its victims' grace time.
     */
    private boolean preemptFor(ClusterState state, Job w, long prio, boolean withShadow, Shadow s, long end) {
        List<Job> victims = preemption.findVictims(state, w.shape(), withShadow);
        BitSet excluded = idle.exclusion(withShadow);
        if (victims == null || victims.isEmpty()) {
            return false;
        }
        if (preemption.hasGraceTime()) {
            preemption.signal(w, victims, excluded);
            for (Job v : victims) {
                backfill.invalidate(v.placement()); // it now frees its GPUs at the deadline
            }
            return false;
        }
        String alloc = state.tree().leafName(w.leaf());
        for (Job v : victims) {
            preempt(v, QosPreemption.requeuedFor(v, w, alloc));
        }
        Placement p = Placer.find(work.free(), w.gpus(), w.gpusPerNode(), excluded);
        if (p == null) {
            throw new IllegalStateException("victim search promised room for " + w.id() + " but none was found");
        }
        start(w, p, prio, s, end, victims.size());
        return true;
    }

    private void preempt(Job v, PreemptionCause cause) {
        work.preempt(v, cause);
        idle.changed();
        if (v.spec().resumable()) {
            queue.requeued(v, now); // a new submit time, and age accrues from now
        }
    }

    private void start(Job w, Placement p, long prio, Shadow s, long end) {
        start(w, p, prio, s, end, 0);
    }

    /** Starts {@code w}; {@code end} is 0 in the main pass, else its time limit's end (backfill). */
    private void start(Job w, Placement p, long prio, Shadow s, long end, int victims) {
        String reason = backfill.how(s, end, victims) + "; " + priorities.explain(w, prio, queue.eligibleSeconds(w));
        work.start(w, p, reason);
        idle.changed();
        preemption.started(w, prio);
        queue.dequeue(w);
        backfill.started(w);
    }

    @Override
    public String toString() {
        return NAME + "(" + config + ")";
    }
}
