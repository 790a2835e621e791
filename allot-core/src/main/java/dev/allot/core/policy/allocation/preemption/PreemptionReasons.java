package dev.allot.core.policy.allocation.preemption;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Decimals;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.Job;

/**
 * The words of the allocation policy's preemptions: which rule of {@link PreemptionRules} let a preemptor take a
 * victim, with the standings and window ranks it rests on, as the preemption event and the explanations print it.
 * The rules decide; this class only says what they decided, from the same numbers.
 */
final class PreemptionReasons {
    private final PreemptionRules rules;

    PreemptionReasons(PreemptionRules rules) {
        this.rules = rules;
    }

    /**
     * Why {@code w} preempts {@code v}, in words and numbers, for the preemption event and the explanations, with the
     * rights {@code r} the victim search used (computed before any of this cycle's victims left, so the standings in
     * the words are those the decision saw).
     */
    public PreemptionCause cause(AllocationTree tree, Job v, Job w, PreemptionRules.Rights r) {
        String wAlloc = tree.leafName(w.leaf());
        if (!v.allocated()) {
            return PreemptionCause.by(PreemptionCause.Kind.UNALLOCATED, w.id(),
                    v.id() + " ran unallocated (minimum runtime 0) and allocated work " + w.id() + " of " + wAlloc + " needed its GPUs");
        }
        String past = v.id() + " was past its " + Durations.formatSeconds(v.minRuntimeSeconds()) + " minimum runtime";
        if (v.leaf() == w.leaf()) {
            return PreemptionCause.by(PreemptionCause.Kind.PRIORITY, w.id(),
                    "higher-priority " + w.id() + " (" + w.spec().priority().label() + ") of the same allocation " + wAlloc
                            + " needed its GPUs; " + past);
        }
        return PreemptionCause.by(PreemptionCause.Kind.FAIR_SHARE, w.id(),
                explainReclaim(tree, w, v, r.budgets()[v.leaf()]) + "; " + past);
    }

    /**
     * The sentence that says why {@code w}'s allocation may take {@code v}'s allocation's GPUs: the rule that gave
     * {@code budget} (its rights on {@code v}'s allocation, {@link PreemptionRules#rightsOf}), with the standings and window ranks it
     * rests on.
     */
    String explainReclaim(AllocationTree tree, Job w, Job v, long budget) {
        String wAlloc = tree.leafName(w.leaf());
        String vAlloc = tree.leafName(v.leaf());
        if (rules.ranking() == Ranking.LOOKBACK) {
            return w.id() + " of " + wAlloc + " ranks above " + vAlloc + ": " + rules.fairShare().explainAbove(w.leaf(), v.leaf());
        }
        String window = "ranks above " + vAlloc + " on usage over the lookback window ("
                + rules.fairShare().explainAbove(w.leaf(), v.leaf()) + ")";
        String margin1 = Decimals.significant(1 + rules.margin(), 3);
        boolean owed = rules.entitlements().owed(w.leaf());
        String turn = owed || rules.minTurnSeconds() == 0 || v.preemptions() == 0 ? ""
                : "; " + v.id() + " was preempted before and has run "
                + Durations.formatSeconds(Math.max(0, rules.now() - v.attemptStartSeconds()))
                + ", at least the shortest turn (" + Durations.formatSeconds(rules.minTurnSeconds()) + ")";
        if (budget == PreemptionRules.ALL_WITHIN_QUOTA) {
            return w.id() + " of " + wAlloc + " is starving: it asks for " + w.gpus() + " GPUs, more than "
                    + wAlloc + "'s quota, and has waited at least " + Durations.formatSeconds(rules.starvationLimitSeconds())
                    + " (the starvation limit); " + wAlloc + " " + rules.entitlements().describe(w.leaf()) + ", " + vAlloc
                    + " " + rules.entitlements().describe(v.leaf()) + " and stands higher, " + wAlloc + " " + window + ", and "
                    + v.id() + "'s " + v.gpus() + " GPUs fit within " + vAlloc + "'s quota";
        }
        if (budget == PreemptionRules.ALL) {
            return w.id() + " of " + wAlloc + (owed ? " is owed" : " bursts beyond its quota") + " and may take "
                    + vAlloc + " below its quota (taking turns): " + wAlloc + " " + rules.entitlements().describe(w.leaf())
                    + " and would stand at " + Decimals.significant(
                            rules.entitlements().standingWith(w.leaf(), w.gpus()), 3) + " once " + w.id() + " runs, no higher"
                    + " than " + vAlloc + " stands now, " + vAlloc + " " + rules.entitlements().describe(v.leaf()) + " and holds at least " + margin1
                    + " x its quota (1 + the margin), and " + wAlloc + " " + window + turn;
        }
        String floor = vAlloc + " holds at least " + margin1
                + " x its quota (1 + the margin) and keeps at least its quota";
        if (!owed) {
            return w.id() + " of " + wAlloc + " bursts beyond its quota and " + window + "; " + vAlloc + " "
                    + rules.entitlements().describe(v.leaf()) + " and " + floor + turn;
        }
        return w.id() + " of " + wAlloc + " reclaims GPUs it is owed from " + vAlloc + ": " + wAlloc + " "
                + rules.entitlements().describe(w.leaf()) + ", " + vAlloc + " " + rules.entitlements().describe(v.leaf()) + ", and "
                + floor;
    }
}
