package dev.allot.server.sched;

import dev.allot.core.model.Decimals;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.BrakeLimits;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety brakes, for the {@link SchedulerLoop}: a workload that went back to the queue after a failure of its own
 * (its run lost) more than {@link BrakeLimits#maxRequeues()} times, or whose runs used {@link BrakeLimits#maxGpuHoursPerWorkload()}
 * GPU-hours or more (every run counts, charged or not: it is a runaway brake, not a budget), is <em>held</em>: it
 * stays waiting in the store, with the reason ({@link Workload#heldReason()}), and is not given to the core's queue,
 * so it is never started again. Raising a limit (or clearing the cap) releases it.
 *
 * <p>The loop asks when a workload would be given to the core's queue ({@link #verdict} at admission: at load, and
 * for a workload released), when one went back to the queue after its attempt ended ({@link #checkAfterRequeue}), and,
 * when the limits changed, for every waiting workload it holds ({@link #refresh} then {@link #recheck}, from the ids
 * and reasons the loop keeps in memory): that is when a changed limit takes effect, both ways. A running workload is
 * never stopped by a brake (they are about resubmission). Only the loop's thread calls it.
 */
final class Brakes {
    private static final Logger LOG = LoggerFactory.getLogger(Brakes.class);

    private final Store store;
    /** Whether a hold or a release is recorded in the store (false for a standby's view, which only reads). */
    private final boolean records;
    private BrakeLimits limits = BrakeLimits.DEFAULTS;
    /** The totals of the waiting workloads with attempts, read by the last {@link #refresh}; null outside a refresh. */
    private Map<String, Attempts.RunTotals> totals;
    private long held;

    Brakes(Store store) {
        this(store, true);
    }

    /** With {@code records} false the verdicts are the same, but nothing is written (a standby's view). */
    Brakes(Store store, boolean records) {
        this.store = Objects.requireNonNull(store, "store");
        this.records = records;
    }

    /** Reads the limits in force (one small query), and returns them. */
    BrakeLimits readLimits() {
        limits = store.settings().brakes();
        return limits;
    }

    /** Reads the limits, and the totals of every waiting workload with attempts (one query), for the checks to come. */
    void refresh(long nowMillis) {
        readLimits();
        totals = store.attempts().runTotalsOfWaiting(nowMillis);
    }

    /** Forgets the totals read by {@link #refresh} (they grow stale as attempts end). */
    void done() {
        totals = null;
    }

    BrakeLimits limits() {
        return limits;
    }

    /**
     * Why a waiting workload is held, or null when it is not, after bringing its stored reason up to date (held,
     * released, or the numbers changed). A workload never started and never held is not looked up.
     */
    String verdict(Workload w, long nowMillis) {
        return verdict(w, totalsOf(w, nowMillis));
    }

    /** {@link #verdict(Workload, long)} with the workload's totals as {@link #totalsOf} read them. */
    String verdict(Workload w, Attempts.RunTotals t) {
        return looksUp(w) ? apply(w.id(), w.heldReason(), reason(t, limits)) : null;
    }

    /**
     * What the attempts of a waiting workload add up to: from the last {@link #refresh} while it runs, else one
     * query; {@link Attempts.RunTotals#NONE} for a workload never started and never held, which is not looked up.
     */
    Attempts.RunTotals totalsOf(Workload w, long nowMillis) {
        if (!looksUp(w)) {
            return Attempts.RunTotals.NONE;
        }
        return totals != null ? totals.getOrDefault(w.id(), Attempts.RunTotals.NONE)
                : store.attempts().runTotals(w.id(), nowMillis);
    }

    private static boolean looksUp(Workload w) {
        return w.state().waiting() && !(w.state() == WorkloadState.PENDING && w.heldReason() == null);
    }

    /**
     * Why a waiting workload the loop holds in memory is held, or null, from the totals read by {@link #refresh}
     * (which must be running), given the reason the store has for it now ({@code current}, null when not held). One
     * without attempts that is not held stays so, as in {@link #verdict}.
     */
    String recheck(String id, String current, long nowMillis) {
        if (totals == null) {
            throw new IllegalStateException("recheck outside a refresh of the brakes");
        }
        Attempts.RunTotals t = totals.get(id);
        if (t == null && current == null) {
            return null;
        }
        return apply(id, current, reason(t == null ? Attempts.RunTotals.NONE : t, limits));
    }

    /** Why a workload whose attempt just ended and that went back to the queue is held (its totals read fresh), or null. */
    String checkAfterRequeue(Workload w, long nowMillis) {
        return checkAfterRequeue(List.of(w), nowMillis).get(w.id());
    }

    /**
     * {@link #checkAfterRequeue(Workload, long)} for the workloads of a round of ends at once, their totals read in
     * one query: why each held one is held, by id (those not held are absent). For a workload given twice, the last.
     */
    Map<String, String> checkAfterRequeue(List<Workload> ws, long nowMillis) {
        Map<String, Workload> waiting = new LinkedHashMap<>();
        for (Workload w : ws) {
            waiting.remove(w.id());
            if (w.state().waiting()) {
                waiting.put(w.id(), w);
            }
        }
        if (waiting.isEmpty()) {
            return Map.of();
        }
        Map<String, Attempts.RunTotals> read = store.attempts().runTotals(waiting.keySet(), nowMillis);
        Map<String, String> out = new HashMap<>();
        for (Workload w : waiting.values()) {
            String reason = apply(w.id(), w.heldReason(),
                    reason(read.getOrDefault(w.id(), Attempts.RunTotals.NONE), limits));
            if (reason != null) {
                out.put(w.id(), reason);
            }
        }
        return out;
    }

    private String apply(String id, String current, String reason) {
        if (records && !Objects.equals(reason, current)) {
            store.workloads().setHeld(id, reason);
            if (reason != null) {
                held++;
                LOG.warn("workload {} is {}", id, reason);
            } else {
                LOG.info("workload {} is released by the brakes and waits again", id);
            }
        }
        return reason;
    }

    /** How many times the loop held a workload (a change of reason counts again). */
    long holds() {
        return held;
    }

    /** Why a workload with these totals is held under these limits, or null when it is not. */
    static String reason(Attempts.RunTotals t, BrakeLimits limits) {
        List<String> why = new ArrayList<>();
        // Only the workload's own failures count (Attempts.RunTotals): never the scheduler's preemptions.
        if (t.failures() > limits.maxRequeues()) {
            why.add("requeued " + t.failures() + (t.failures() == 1 ? " time after a failure" : " times after failures")
                    + ", more than the limit of " + limits.maxRequeues() + " (brakes.maxRequeues)");
        }
        Double cap = limits.maxGpuHoursPerWorkload();
        if (cap != null && t.gpuHours() >= cap) {
            why.add("used " + Decimals.fixed(t.gpuHours(), 2) + " GPU-hours, at or above the cap of "
                    + Decimals.fixed(cap, 2) + " (brakes.maxGpuHoursPerWorkload)");
        }
        if (why.isEmpty()) {
            return null;
        }
        return "held: " + String.join(", and ", why) + "; raise " + (why.size() == 1 ? "it" : "them")
                + " to release";
    }
}
