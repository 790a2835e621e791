package dev.allot.server.sched;

import dev.allot.core.model.Decimals;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.BrakeLimits;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.util.ArrayList;
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
 * <p>The loop asks when a workload would be given to the core's queue ({@link #check} at admission: at load, and for
 * a workload released), when one went back to the queue after its attempt ended ({@link #checkAfterRequeue}), and on
 * every full sync for the waiting ones ({@link #refresh} then {@link #check}): that is when a changed limit takes
 * effect, both ways. A running workload is never stopped by a brake (they are about resubmission). Only the loop's
 * thread calls it.
 */
final class Brakes {
    private static final Logger LOG = LoggerFactory.getLogger(Brakes.class);

    private final Store store;
    private BrakeLimits limits = BrakeLimits.DEFAULTS;
    /** The totals of the waiting workloads with attempts, read by the last {@link #refresh}; null outside a refresh. */
    private Map<String, Attempts.RunTotals> totals;
    private long held;

    Brakes(Store store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /** Reads the limits, and the totals of every waiting workload with attempts (one query), for the checks to come. */
    void refresh(long nowMillis) {
        limits = store.settings().brakes();
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
     * Whether a waiting workload is held, after bringing its stored reason up to date (held, released, or the numbers
     * changed). A workload never started and never held is not looked up.
     */
    boolean check(Workload w, long nowMillis) {
        if (!w.state().waiting() || (w.state() == WorkloadState.PENDING && w.heldReason() == null)) {
            return false;
        }
        Attempts.RunTotals t = totals != null ? totals.getOrDefault(w.id(), Attempts.RunTotals.NONE)
                : store.attempts().runTotals(w.id(), nowMillis);
        return apply(w, reason(t, limits));
    }

    /** Whether a workload whose attempt just ended and that went back to the queue is held (its totals read fresh). */
    boolean checkAfterRequeue(Workload w, long nowMillis) {
        if (!w.state().waiting()) {
            return false;
        }
        return apply(w, reason(store.attempts().runTotals(w.id(), nowMillis), limits));
    }

    private boolean apply(Workload w, String reason) {
        if (!Objects.equals(reason, w.heldReason())) {
            store.workloads().setHeld(w.id(), reason);
            if (reason != null) {
                held++;
                LOG.warn("workload {} is {}", w.id(), reason);
            } else {
                LOG.info("workload {} is released by the brakes and waits again", w.id());
            }
        }
        return reason != null;
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
