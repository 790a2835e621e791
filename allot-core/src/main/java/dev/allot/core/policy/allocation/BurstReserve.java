package dev.allot.core.policy.allocation;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * The allocation policy's rule that protected work beyond an allocation's quota must not pin the GPUs other
 * allocations are owed ({@code burst-reserve}; {@code docs/policy.md} has the measurements behind it).
 *
 * <p>Why: a run inside its minimum runtime cannot be preempted. When an allocation bursts beyond its quota with
 * protected work on GPUs that another allocation is entitled to but does not use at the moment, and that allocation's
 * work then arrives, it is owed and not paid until the protection ends, for up to the longest minimum runtime (8 h by
 * default). On the generated lab this was the largest part of what teams were owed and not paid.
 *
 * <p>The rule: in the open pass (bursting), a start that takes its allocation beyond its quota must leave the GPUs
 * that could be handed over <i>at once</i> covering {@code reserve} x the <b>room</b> of the other allocations:
 * <pre>
 *   quick = idle GPUs + unallocated running GPUs
 *           + per allocation above its quota: min(its unprotected GPUs, GPUs held - quota)
 *   room  = sum over the other allocations of max(0, quota - GPUs held)
 *   a start of g GPUs beyond quota is held back while  quick - g  <  reserve x room
 * </pre>
 * Exempt: work protected for at most {@code shortProtectionSeconds} (it pins GPUs briefly; debug work stays fast),
 * and starving work (larger than its allocation's quota and waiting past the starvation limit, which could
 * otherwise never run). Held-back work does not leave GPUs idle for nothing: when the waiting unallocated work (free,
 * preemptible at any moment) asks for fewer GPUs than are idle, held-back work goes first on idle GPUs; otherwise
 * unallocated work has them, and what is still idle after it goes to held-back work, in serving order.
 *
 * <p>The counts follow the cycle's own decisions: starts and preemptions of allocated work through
 * {@link Entitlements}, idle GPUs from the cycle's free index, this cycle's victims through {@link #preempted}.
 */
public final class BurstReserve {
    /** A job the reserve held back in this cycle, its place in the serving order and why. */
    record Held(Job job, int rank, Hold hold) {
    }

    /**
     * The numbers behind a hold: {@code quickGpus} could be handed over at once before the start, the other
     * allocations' unused quotas add up to {@code roomGpus}, and the reserve keeps {@code reserve} x that.
     */
    public record Hold(long quickGpus, double roomGpus, double reserve) {
    }

    /**
     * How many held-back jobs of one queue (allocation and shape) a cycle looks past for an exempt one behind them,
     * before it leaves the queue for the cycle: a backlog of thousands would otherwise be walked at every event.
     */
    static final int PASS_OVER_LIMIT = 16;

    private final double reserve;
    private final long shortProtectionSeconds;
    private final List<Held> held = new ArrayList<>();
    private long unallocatedGpus;
    private long[] unprotectedGpus = new long[0];
    private Entitlements entitlements;
    // quick - idle and room depend only on the holdings and this cycle's victims: cached by their versions
    private long cachedVersion = -1;
    private long cachedQuickBeyondIdle;
    private double[] cachedRoomWithout = new double[0];
    private long victimsVersion;

    BurstReserve(double reserve, long shortProtectionSeconds) {
        this.reserve = reserve;
        this.shortProtectionSeconds = shortProtectionSeconds;
    }

    /** Starts a cycle on {@code state}, whose holdings {@code e} has just read. */
    void reset(ClusterState state, Entitlements e) {
        this.entitlements = e;
        held.clear();
        int leaves = state.tree().leafCount();
        if (unprotectedGpus.length != leaves) {
            unprotectedGpus = new long[leaves];
            cachedRoomWithout = new double[leaves];
        }
        for (int l = 0; l < leaves; l++) {
            unprotectedGpus[l] = state.protections().unprotectedGpus(l);
        }
        unallocatedGpus = state.running().unallocatedGpus();
        cachedVersion = -1;
    }

    /** A victim chosen in this cycle (never protected) no longer counts as quickly available. */
    void preempted(Job v) {
        if (!v.allocated()) {
            unallocatedGpus -= v.gpus();
        } else {
            unprotectedGpus[v.leaf()] -= v.gpus();
        }
        victimsVersion++;
    }

    /**
     * What holds {@code w} back in the open pass with {@code idleGpus} idle, when its start preempts
     * {@code ownVictimGpus} of its own allocation's work; null (it may start) unless its start grows its
     * allocation's holdings beyond its quota, it is protected longer than the short protection and it is not
     * starving.
     */
    Hold check(Job w, boolean starving, long idleGpus, Entitlements e, long ownVictimGpus) {
        long growth = w.gpus() - ownVictimGpus;
        if (reserve <= 0 || starving || w.protectionSecondsIfStarted() <= shortProtectionSeconds || growth <= 0
                || e.standingWith(w.leaf(), growth) <= 1) {
            return null;
        }
        return hold(w.leaf(), growth, idleGpus);
    }

    /**
     * The numbers that hold back a start growing allocation {@code leaf}'s holdings by {@code growthGpus} now, with
     * {@code idleGpus} idle (ignoring exemptions); null if none do.
     */
    private Hold hold(int leaf, long growthGpus, long idleGpus) {
        refresh();
        long quick = idleGpus + cachedQuickBeyondIdle;
        double room = cachedRoomWithout[leaf];
        return quick - growthGpus >= reserve * room - 1e-9 ? null : new Hold(quick, room, reserve);
    }

    void hold(Job w, int rank, Hold why) {
        held.add(new Held(w, rank, why));
    }

    /** Why {@code w} was held back in the last cycle; null if it was not. */
    Hold heldBack(Job w) {
        for (Held h : held) {
            if (h.job() == w) {
                return h.hold();
            }
        }
        return null;
    }

    /** The jobs held back in this cycle, in serving order. */
    List<Held> held() {
        return held;
    }

    private void refresh() {
        long version = entitlements.version() * 1_000_003L + victimsVersion;
        if (version == cachedVersion) {
            return;
        }
        cachedVersion = version;
        long quick = unallocatedGpus;
        double room = 0;
        int leaves = unprotectedGpus.length;
        for (int l = 0; l < leaves; l++) {
            double over = entitlements.heldGpus(l) - entitlements.quotaGpus(l);
            if (over > 0) {
                quick += Math.min(unprotectedGpus[l], (long) Math.floor(over + 1e-9));
            } else {
                room -= over;
            }
        }
        cachedQuickBeyondIdle = quick;
        for (int l = 0; l < leaves; l++) {
            double own = Math.max(0, entitlements.quotaGpus(l) - entitlements.heldGpus(l));
            cachedRoomWithout[l] = room - own;
        }
    }
}
