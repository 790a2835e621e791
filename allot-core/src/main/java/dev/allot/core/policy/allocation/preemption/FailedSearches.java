package dev.allot.core.policy.allocation.preemption;

import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The victim searches of one cycle that found nothing, so that a search sure to fail the same way is skipped.
 * Feasibility only grows with the candidate set, so on the same free GPUs and victims (the cycle's version) any
 * search for the same shape whose candidates are a subset of a failed one's fails too. Candidates are compared
 * allocation by allocation on the {@link PreemptionRules.Rights budgets} without walking the victims: none, the same
 * budget (the same victims) or all of them; in serving order later allocations usually may take less, so one search
 * per shape and cycle settles most blocked gangs.
 */
public final class FailedSearches {
    private record Failed(int shape, PreemptionRules.Rights rights, long workVersion, BitSet excluded) {
    }

    private final List<Failed> failed = new ArrayList<>();

    public void clear() {
        failed.clear();
    }

    public void add(Job w, PreemptionRules.Rights rights, long workVersion, BitSet excluded) {
        failed.add(new Failed(w.shape(), rights, workVersion, excluded));
    }

    /** Whether a recorded failure proves that a search for {@code w} with these rights fails too. */
    public boolean covers(Job w, PreemptionRules.Rights r, long workVersion, BitSet excluded) {
        for (Failed f : failed) {
            if (f.shape == w.shape() && f.workVersion == workVersion && f.excluded == excluded && subset(r, f.rights)) {
                return true;
            }
        }
        return false;
    }

    /** Whether every candidate of rights {@code r} is a candidate of the failed search's rights {@code f}. */
    private static boolean subset(PreemptionRules.Rights r, PreemptionRules.Rights f) {
        if (r.maxLostGpuSeconds() > f.maxLostGpuSeconds() || r.now() != f.now()
                || r.minTurnSeconds() < f.minTurnSeconds()) {
            return false; // r may throw away more work, or take younger runs: more candidates
        }
        long[] rb = r.budgets();
        long[] fb = f.budgets();
        for (int b = 0; b < rb.length; b++) {
            if (b == r.leaf()) {
                // r takes its own lower priorities: covered if f took all of b, or f is b with at least r's priority
                // (f's ALL under a shortest turn passed over young runs, which r takes of its own lower priorities)
                boolean own = r.priority() == 0 || (b == f.leaf() ? r.priority() <= f.priority()
                        : fb[b] == PreemptionRules.ALL && f.minTurnSeconds() == 0);
                if (!own) {
                    return false;
                }
            } else if (rb[b] > 0) {
                // f's own leaf: f took only lower priorities of it, not comparable with a budget; otherwise the same
                // budget gives the same victims and ALL gives every victim (budgets pass over jobs too large, so a
                // smaller budget is not always a subset of a larger one)
                if (b == f.leaf() || (rb[b] != fb[b] && fb[b] != PreemptionRules.ALL)) {
                    return false;
                }
            }
        }
        return true;
    }
}
