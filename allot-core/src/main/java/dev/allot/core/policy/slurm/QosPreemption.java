package dev.allot.core.policy.slurm;

import dev.allot.core.model.Durations;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.sched.Placer;
import dev.allot.core.sched.VictimPool;
import dev.allot.core.sched.VictimSearch;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * Preemption in the {@code slurm} policy: Slurm's {@code PreemptType=preempt/qos} with {@code PreemptMode=REQUEUE}
 * (<a href="https://slurm.schedmd.com/preempt.html">preempt.html</a>), where only the protected QOS ({@link Qos})
 * preempts, and only the preemptible one. It chooses the victims, and keeps the victims in grace time across cycles.
 *
 * <ul>
 *   <li><b>Who may be preempted.</b> Protected-QOS work never; a preemptible job not within
 *   {@code preempt-exempt-time} ({@code PreemptExemptTime}) of its start, and not already chosen.</li>
 *   <li><b>Which.</b> A minimal set ({@link VictimSearch}) taken in Slurm's preemptee order, {@link #victimKeys}:
 *   lowest job priority (as of its start) first; then, a tie-break of ours, the youngest; then the id.</li>
 *   <li><b>Grace time.</b> A chosen victim keeps its GPUs for {@code grace-time} ({@code GraceTime}): it is
 *   remembered (with its attempt) across cycles, the policy asks to be woken at the deadline and stops it then, even
 *   if its preemptor started elsewhere in the meantime, as Slurm has already set its end time. Its preemptor waits
 *   meanwhile and chooses no further victims while any of its victims is in grace; the nodes it will use (its
 *   victims' and the idle GPUs it counted on) are held for it against every job evaluated after it
 *   ({@link #graceHold}), as Slurm's backfill would reserve them for it (otherwise a requeued victim could take them
 *   back at each deadline).</li>
 *   <li><b>Wake-ups.</b> While allocated work waits, the policy asks to be woken when the next exemption ends.</li>
 * </ul>
 *
 * <p>A victim search's answer holds for every protected job of one shape until the idle GPUs change
 * ({@link IdleGpus#stamp}): every protected job may preempt the same jobs, and signals in between only remove
 * candidates. Not modelled: a requeued job may start again at once (Slurm may keep a requeued batch job ineligible
 * for a short while).
 */
final class QosPreemption {
    private static final long NONE = Long.MIN_VALUE;

    private final long exemptSeconds;
    private final long graceSeconds;
    private final CycleWork work;
    private final IdleGpus idle;
    private final VictimPool victimPool;
    private long now;

    // per job index
    private long[] startPriority = new long[0];
    private long[] graceDeadline = new long[0];
    private int[] graceAttempt = new int[0];
    private Job[] gracePreemptor = new Job[0];
    /** The victims in grace, the earliest deadline first, then by job index (unique in the state). */
    private final TreeSet<Job> graceOrder = new TreeSet<>(Comparator
            .<Job>comparingLong(j -> graceDeadline[j.index()])
            .thenComparingInt(Job::index));
    private final Map<Job, List<Job>> victimsOf = new HashMap<>();
    private final Map<Job, BitSet> graceHold = new HashMap<>();

    // per key (IdleGpus#key): the stamp at which a victim search failed or found a set, and the set
    private long[] victimsFailedAt = new long[0];
    private long[] victimsFoundAt = new long[0];
    private final List<List<Job>> victimsFoundList = new ArrayList<>();
    private final List<Job> candidates = new ArrayList<>();
    private long candidatesAt;
    private long candidateGpus;

    /** Slurm's preemptee order: lowest job priority first; then (a tie-break of ours) the youngest, then id. */
    private final VictimPool.Keys victimKeys = new VictimPool.Keys() {
        @Override
        public int group(Job j) {
            return 0;
        }

        @Override
        public double overServed(Job j) {
            return -startPriority[j.index()];
        }

        @Override
        public long workLost(Job j) {
            return -j.attemptStartSeconds();
        }
    };

    QosPreemption(ClusterState state, SlurmPolicy.Config config, CycleWork work, IdleGpus idle) {
        this.exemptSeconds = config.preemptExemptTime().getSeconds();
        this.graceSeconds = config.graceTime().getSeconds();
        this.work = work;
        this.idle = idle;
        this.victimPool = new VictimPool(state.nodes().count());
    }

    void ensureCapacity(int jobs) {
        if (startPriority.length >= jobs) {
            return;
        }
        int n = Math.max(jobs, startPriority.length * 2);
        int old = startPriority.length;
        startPriority = Arrays.copyOf(startPriority, n);
        graceDeadline = Arrays.copyOf(graceDeadline, n);
        Arrays.fill(graceDeadline, old, n, NONE);
        graceAttempt = Arrays.copyOf(graceAttempt, n);
        gracePreemptor = Arrays.copyOf(gracePreemptor, n);
    }

    /** Makes room for this many memo keys (twice the shapes). */
    void ensureKeyCapacity(int n) {
        if (victimsFailedAt.length >= n) {
            return;
        }
        victimsFailedAt = Arrays.copyOf(victimsFailedAt, n);
        victimsFoundAt = Arrays.copyOf(victimsFoundAt, n);
        while (victimsFoundList.size() < n) {
            victimsFoundList.add(null);
        }
    }

    /** A new cycle at {@code nowSeconds}: the candidates are gathered afresh. */
    void beginCycle(long nowSeconds) {
        now = nowSeconds;
        victimPool.reset();
    }

    /** Whether a victim waits out its grace time. */
    boolean anyInGrace() {
        return !graceOrder.isEmpty();
    }

    /** Notes a start's priority: a victim's rank in the preemptee order. */
    void started(Job j, long priority) {
        startPriority[j.index()] = priority;
    }

    long exemptSeconds() {
        return exemptSeconds;
    }

    /** Whether a chosen victim keeps its GPUs a while (and its preemptor waits) rather than being stopped at once. */
    boolean hasGraceTime() {
        return graceSeconds > 0;
    }

    /**
     * Allocated work (the protected QOS) always; unallocated work inside its {@code preempt-exempt-time}, and a
     * chosen victim until its grace deadline.
     */
    boolean isProtected(Job job, long at) {
        if (exempt(job, at, exemptSeconds)) {
            return true;
        }
        return inGrace(job) && at < graceDeadline[job.index()];
    }

    /** Whether a job is not preemptible for its QOS or its exempt time, whatever was chosen as a victim. */
    static boolean exempt(Job job, long at, long exemptSeconds) {
        return job.allocated() || at < job.attemptStartSeconds() + exemptSeconds;
    }

    /** Whether a victim search for this shape would succeed; remembered per shape until the free GPUs change. */
    boolean victimsExist(ClusterState state, int shape, boolean withReserved) {
        return findVictims(state, shape, withReserved) != null;
    }

    /**
     * A minimal set of preemptible victims whose GPUs let a job of this shape start outside the exclusion
     * ({@link IdleGpus#exclusion}), or null. Every protected job may preempt the same jobs, so a failure holds for the
     * shape until the free GPUs change (signals in between only remove candidates).
     */
    List<Job> findVictims(ClusterState state, int shape, boolean withReserved) {
        int key = IdleGpus.key(shape, withReserved);
        BitSet excluded = idle.exclusion(withReserved);
        int gpusNeeded = state.shapeGpus(shape);
        int perNode = state.shapeGpusPerNode(shape);
        if (victimsFailedAt[key] == idle.stamp()) {
            return null;
        }
        if (victimsFoundAt[key] == idle.stamp()) {
            return victimsFoundList.get(key);
        }
        if (state.running().unallocatedGpus() == 0) {
            victimsFailedAt[key] = idle.stamp(); // nothing runs in the preemptible QOS
            return null;
        }
        if (candidatesAt != idle.stamp()) {
            List<Job> pool = victimPool.sorted(all -> state.running().unallocated().forEach(all),
                    v -> now >= v.attemptStartSeconds() + exemptSeconds && !inGrace(v), victimKeys, 0);
            candidates.clear();
            candidateGpus = 0;
            for (int i = 0; i < pool.size(); i++) {
                Job v = pool.get(i);
                if (!work.isPreempted(v) && !inGrace(v)) {
                    candidates.add(v);
                    candidateGpus += v.gpus();
                }
            }
            candidatesAt = idle.stamp();
        }
        long gpus = Placer.usableFree(work.free(), excluded) + candidateGpus;
        List<Job> found = null;
        if (gpus >= gpusNeeded && !candidates.isEmpty() && (perNode == 0
                || victimPool.nodesThatCouldHost(work.free(), perNode, excluded) >= gpusNeeded / perNode)) {
            found = VictimSearch.find(work, gpusNeeded, perNode, excluded, candidates);
        }
        if (found == null) {
            victimsFailedAt[key] = idle.stamp();
        } else {
            victimsFoundAt[key] = idle.stamp();
            victimsFoundList.set(key, found);
        }
        return found;
    }

    /** Why a victim is requeued at once for a protected job (no grace time). */
    static PreemptionCause requeuedFor(Job v, Job preemptor, String preemptorAllocation) {
        return PreemptionCause.by(PreemptionCause.Kind.UNALLOCATED, preemptor.id(),
                v.id() + " ran in the preemptible QOS (unallocated) and " + preemptor.id() + " of "
                        + preemptorAllocation + " in the protected QOS needed its GPUs (PreemptMode=REQUEUE)");
    }

    /**
     * Signals the victims: each keeps its GPUs until the grace deadline (the caller tells backfill's release
     * timeline), and the nodes the preemptor will use once they are gone are held for it while it waits.
     */
    void signal(Job preemptor, List<Job> victims, BitSet excluded) {
        idle.changed();
        long deadline = now + graceSeconds;
        // the nodes it will use once the victims are gone: held for it while it waits
        FreeIndex after = work.scratch();
        after.copyFrom(work.free());
        BitSet planned = new BitSet();
        for (Job v : victims) {
            after.give(v.placement());
            for (int i = 0; i < v.placement().nodeCount(); i++) {
                planned.set(v.placement().node(i));
            }
        }
        Placement p = Placer.find(after, preemptor.gpus(), preemptor.gpusPerNode(), excluded);
        if (p != null) {
            for (int i = 0; i < p.nodeCount(); i++) {
                planned.set(p.node(i));
            }
        }
        graceHold.put(preemptor, planned);
        List<Job> mine = victimsOf.computeIfAbsent(preemptor, k -> new ArrayList<>());
        for (Job v : victims) {
            int i = v.index();
            graceOrder.remove(v); // a stale entry from an earlier attempt, keyed by its old deadline
            graceDeadline[i] = deadline;
            graceAttempt[i] = v.attempts();
            gracePreemptor[i] = preemptor;
            graceOrder.add(v);
            mine.add(v);
        }
    }

    /** Whether a running job was chosen as a victim in its current attempt and is waiting out its grace time. */
    boolean inGrace(Job v) {
        int i = v.index();
        return i < graceDeadline.length && graceDeadline[i] != NONE && v.state() == JobState.RUNNING
                && v.attempts() == graceAttempt[i];
    }

    /** The grace deadline of a victim {@link #inGrace in grace}. */
    long graceDeadline(Job v) {
        return graceDeadline[v.index()];
    }

    /** Whether a preemptor still has a victim in grace (it then waits, and chooses no more). */
    boolean awaitingGrace(Job preemptor) {
        if (victimsOf.isEmpty()) {
            return false;
        }
        List<Job> mine = victimsOf.get(preemptor);
        if (mine == null) {
            return false;
        }
        mine.removeIf(v -> !inGrace(v) || gracePreemptor[v.index()] != preemptor); // stopped, or re-signalled by another
        if (mine.isEmpty()) {
            victimsOf.remove(preemptor);
            graceHold.remove(preemptor);
            return false;
        }
        return true;
    }

    /** The nodes held for a grace-waiting preemptor, or null. */
    BitSet graceHold(Job preemptor) {
        return graceHold.get(preemptor);
    }

    /** Stops, through {@code preempt}, the victims whose grace deadline has come, the earliest first. */
    void stopVictimsAtDeadline(ClusterState state, BiConsumer<Job, PreemptionCause> preempt) {
        while (!graceOrder.isEmpty() && graceDeadline[graceOrder.first().index()] <= now) {
            Job v = graceOrder.pollFirst();
            int i = v.index();
            boolean stop = inGrace(v);
            long signalledAt = graceDeadline[i] - graceSeconds;
            Job w = gracePreemptor[i];
            graceDeadline[i] = NONE;
            gracePreemptor[i] = null;
            if (stop) {
                preempt.accept(v, PreemptionCause.by(PreemptionCause.Kind.UNALLOCATED, w.id(),
                        v.id() + " ran in the preemptible QOS (unallocated) and " + w.id() + " of "
                                + state.tree().leafName(w.leaf()) + " in the protected QOS needed its GPUs; its "
                                + Durations.formatSeconds(graceSeconds) + " grace time from "
                                + Durations.formatSeconds(signalledAt) + " is over (PreemptMode=REQUEUE)"));
            }
        }
    }

    /**
     * When the policy should be woken: at the next grace deadline, and, while allocated work waits, when the next
     * preemptible job's exempt time ends.
     */
    long wakeAt(ClusterState state, boolean protectedWaiting) {
        long wake = Plan.NO_WAKE_UP;
        for (Job v : graceOrder) {
            long d = graceDeadline[v.index()];
            if (d > now) {
                wake = d;
                break;
            }
        }
        if (exemptSeconds > 0 && protectedWaiting) {
            List<Job> unallocated = state.running().unallocated();
            for (int i = 0; i < unallocated.size(); i++) {
                Job j = unallocated.get(i);
                long t = j.attemptStartSeconds() + exemptSeconds;
                if (t > now && !work.isPreempted(j) && !inGrace(j)) {
                    wake = Math.min(wake, t);
                }
            }
            for (Decision d : work.decisions()) {
                if (d instanceof Decision.Start st && !st.job().allocated()) {
                    wake = Math.min(wake, now + exemptSeconds); // started now: preemptible once its exempt time is over
                }
            }
        }
        return wake;
    }
}
