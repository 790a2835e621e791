package dev.allot.core.policy.slurm;

import dev.allot.core.model.Durations;
import dev.allot.core.sched.CycleWork;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The planning side of EASY backfill in the {@code slurm} policy ({@code SchedulerType=sched/backfill},
 * <a href="https://slurm.schedmd.com/sched_config.html">sched_config.html</a>): the one {@link Shadow reservation}
 * of a cycle, for the first job of the walk that could not start (its <i>owner</i>), at the earliest time its GPUs
 * free up, counting running jobs as ending at their time limits (and preemptible ones as free once their exempt
 * time is over, for a protected owner that may preempt; victims in grace at their deadline). Each node's release
 * timeline is kept from cycle to cycle ({@link Shadow.Timeline}); the policy says which nodes its decisions changed
 * ({@link #invalidate}). The reservation is planned lazily, the first time backfill needs it.
 *
 * <p>It also keeps backfill's shortcuts ({@code shortcuts=true}): a kind (shape and QOS) is <i>hopeless</i> when no
 * waiting job of it that the walk has not passed could start before the idle GPUs change (none fits on idle GPUs or
 * by preemption, or only on reserved nodes while none of them would end before the reservation), and the walk stops
 * once every waiting kind is. The shortcuts are the model's, not Slurm's; the property tests check that they never
 * change a decision.
 *
 * <p><b>Where it differs from Slurm.</b> One reservation (EASY), plus the holds of grace-waiting preemptors
 * ({@link QosPreemption}), where Slurm's backfill plans one per job it tests (closer to conservative backfill): EASY
 * is the classic model, and one is what keeps a cycle cheap. Measured against real Slurm (allot-it's
 * {@code SlurmModelAgreementTest}), this is the largest source of difference in a deep queue of mixed sizes: the
 * model lets small jobs ahead that Slurm starts later. Reservations are node-level, as in Slurm's backfill map.
 */
final class EasyBackfill {
    private final CycleWork work;
    private final IdleGpus idle;
    private final WaitingJobs queue;
    private final QosPreemption preemption;
    private final Shadow.Timeline timeline;

    // per cycle
    private long now;
    private long cycleNo;
    private Job owner;
    private Shadow shadow;
    private boolean shadowPlanned;
    private final List<Job> visitedEarly = new ArrayList<>();
    private int hopelessCount;
    private long hopelessVersion;
    // per kind (kind = shape * 2 + QOS): whether it is hopeless at this stamp, and its short jobs (waiting, passed)
    private long[] hopelessAt = new long[0];
    private int[] shortCount = new int[0];
    private long[] shortCountCycle = new long[0];
    private int[] passedShort = new int[0];
    private long[] passedShortCycle = new long[0];

    EasyBackfill(ClusterState state, CycleWork work, IdleGpus idle, WaitingJobs queue, QosPreemption preemption) {
        this.work = work;
        this.idle = idle;
        this.queue = queue;
        this.preemption = preemption;
        this.timeline = new Shadow.Timeline(state, this::releaseAt);
    }

    /** Makes room for this many kinds. */
    void ensureKindCapacity(int n) {
        if (hopelessAt.length >= n) {
            return;
        }
        hopelessAt = Arrays.copyOf(hopelessAt, n);
        shortCount = Arrays.copyOf(shortCount, n);
        shortCountCycle = Arrays.copyOf(shortCountCycle, n);
        passedShort = Arrays.copyOf(passedShort, n);
        passedShortCycle = Arrays.copyOf(passedShortCycle, n);
    }

    /** A new cycle at {@code nowSeconds}: no owner, no reservation, nothing passed. */
    void beginCycle(long nowSeconds) {
        now = nowSeconds;
        cycleNo++;
        visitedEarly.clear();
        hopelessCount = 0;
        hopelessVersion = -1;
        owner = null;
        shadow = null;
        shadowPlanned = false;
    }

    /** The GPUs on these nodes change (a start, a preemption, a signalled victim): their release times are stale. */
    void invalidate(Placement p) {
        timeline.invalidate(p);
    }

    /** The first job of the walk that could not start: the reservation is for it. */
    void blockedBy(Job w) {
        owner = w;
    }

    /** The cycle's reservation, planned the first time it is asked for; null if the owner could get none. */
    Shadow reservation() {
        if (!shadowPlanned) {
            shadowPlanned = true;
            boolean ownerMayPreempt = owner != null && owner.allocated() && !preemption.awaitingGrace(owner);
            shadow = owner == null ? null : Shadow.plan(work, owner, ownerMayPreempt, timeline);
            if (shadow != null) {
                idle.reserve(shadow.nodes());
            }
            for (Job j : visitedEarly) {
                countIfShort(j);
            }
            visitedEarly.clear();
        }
        return shadow;
    }

    /** Notes a job the walk passed without starting it: a short one no longer counts towards {@link #shortLeft}. */
    void visited(Job j) {
        if (shadowPlanned) {
            countIfShort(j);
        } else {
            visitedEarly.add(j);
        }
    }

    private void countIfShort(Job j) {
        if (shadow != null && now + queue.limitSeconds(j) <= shadow.startSeconds()) {
            int k = WaitingJobs.kind(j);
            if (passedShortCycle[k] != cycleNo) {
                passedShortCycle[k] = cycleNo;
                passedShort[k] = 0;
            }
            passedShort[k]++;
        }
    }

    /** Notes a job started in this cycle: a short one no longer waits. */
    void started(Job j) {
        int k = WaitingJobs.kind(j);
        if (shortCountCycle[k] == cycleNo && shadow != null && now + queue.limitSeconds(j) <= shadow.startSeconds()) {
            shortCount[k]--;
        }
    }

    /**
     * How many waiting jobs of a kind end by their time limit before the reservation is due (and so may use its
     * nodes), among those the walk has not passed yet.
     */
    private int shortLeft(int kind, Shadow s) {
        if (shortCountCycle[kind] != cycleNo) {
            shortCount[kind] = queue.countWithLimitAtMost(kind, s.startSeconds() - now);
            shortCountCycle[kind] = cycleNo;
        }
        int passed = passedShortCycle[kind] == cycleNo ? passedShort[kind] : 0;
        return shortCount[kind] - passed;
    }

    /** Whether this kind is known to be hopeless until the idle GPUs change. */
    boolean knownHopeless(int kind) {
        return hopelessAt[kind] == idle.stamp();
    }

    /** After a job of this kind could not start: remembers the kind as hopeless if it is. */
    void failed(ClusterState state, int kind) {
        if (hopeless(state, kind)) {
            markHopeless(kind);
        }
    }

    private void markHopeless(int k) {
        if (hopelessVersion != idle.stamp()) {
            hopelessVersion = idle.stamp();
            hopelessCount = 0;
        }
        if (hopelessAt[k] != idle.stamp()) {
            hopelessAt[k] = idle.stamp();
            hopelessCount++;
        }
    }

    /** Whether no waiting job of any shape and QOS could start before the free GPUs change. */
    boolean allHopeless(ClusterState state) {
        if (hopelessVersion == idle.stamp() && hopelessCount >= queue.liveKinds()) {
            return true;
        }
        for (int k = 0; k < queue.kindSlots(); k++) {
            if (queue.pending(k) > 0 && hopelessAt[k] != idle.stamp()) {
                if (!hopeless(state, k)) {
                    return false;
                }
                markHopeless(k);
            }
        }
        return true;
    }

    /**
     * Whether no waiting job of this kind (shape and QOS) that the walk has not passed yet could start before the
     * free GPUs change: none fits on idle GPUs or by preemption, or only on reserved nodes while each of them would
     * delay the reservation. Conservative: "false" only costs examining them one by one.
     */
    private boolean hopeless(ClusterState state, int kind) {
        int shape = kind / 2;
        boolean canPreempt = kind % 2 == Qos.PROTECTED;
        if (!idle.fits(shape, false) && (!canPreempt || !preemption.victimsExist(state, shape, false))) {
            return true;
        }
        Shadow s = reservation();
        if (s == null) {
            return false;
        }
        if (shortLeft(kind, s) > 0) {
            return false;
        }
        return !idle.fits(shape, true) && (!canPreempt || !preemption.victimsExist(state, shape, true));
    }

    /**
     * When a running job (or one started in this cycle) frees its GPUs for the reservation's owner: at its time
     * limit, at its grace deadline if it was chosen as a victim, and, if the owner may preempt it, as soon as its
     * exempt time is over (possibly already: it is then free now). An owner waiting out its victims' grace time
     * chooses no more victims, so for it the other preemptible jobs end at their time limits.
     */
    private long releaseAt(Job j, boolean ownerMayPreempt, boolean startedNow) {
        long start = startedNow ? now : j.attemptStartSeconds();
        long end = start + queue.limitSeconds(j);
        if (!startedNow && preemption.inGrace(j)) {
            return Math.min(end, preemption.graceDeadline(j));
        }
        if (ownerMayPreempt && !j.allocated()) {
            return Math.min(end, start + preemption.exemptSeconds());
        }
        return end;
    }

    /**
     * How a start got past the reservation, for its reason: {@code end} is 0 in the main pass, else the end of the
     * job's time limit.
     */
    String how(Shadow s, long end, int victims) {
        String pass;
        if (end == 0) {
            pass = "main pass: highest priority that fits";
        } else if (s == null) {
            pass = "backfill: the blocked " + (owner == null ? "job" : owner.id()) + " has no reservation";
        } else if (end <= s.startSeconds()) {
            pass = "backfill: its time limit ends at " + Durations.formatSeconds(end) + ", before the reservation of "
                    + s.owner().id() + " at " + Durations.formatSeconds(s.startSeconds());
        } else {
            pass = "backfill: keeps off the nodes reserved for " + s.owner().id() + " from "
                    + Durations.formatSeconds(s.startSeconds());
        }
        return victims == 0 ? pass : pass + ", after preempting " + victims + " preemptible job(s)";
    }
}
