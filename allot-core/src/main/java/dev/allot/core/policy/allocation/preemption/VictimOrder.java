package dev.allot.core.policy.allocation.preemption;

import dev.allot.core.sched.VictimPool;
import dev.allot.core.state.Job;

/**
 * The order in which the allocation policy prefers victims, a comparator chain ending in the id:
 * <ol>
 *   <li><b>unallocated</b> work first (free, preemptible by contract), then <b>resumable</b> allocated work, then
 *   allocated work that cannot resume: a job that cannot resume is never chosen while resumable ones would do
 *   (the search's minimality pass drops the least preferred first);</li>
 *   <li>then the least work lost: GPU-seconds since the last checkpoint (all of the attempt when not resumable);
 *   measured on the lab, putting this before the allocation's standing pays more and loses less work;</li>
 *   <li>then the allocation standing highest above its share first: under {@link Ranking#ENTITLEMENT} held GPUs
 *   over quota, under {@link Ranking#LOOKBACK} usage over the window;</li>
 *   <li>then the fewest GPUs (when nothing else differs, take the least);</li>
 *   <li>then the workload id.</li>
 * </ol>
 * The order of one allocation's jobs does not depend on standings, so the prefix of an allocation's jobs a budget
 * admits ({@link PreemptionRules#candidates}) stays the same prefix all cycle.
 */
public final class VictimOrder implements VictimPool.Keys {
    private final PreemptionRules rules;
    private final long now;

    public VictimOrder(PreemptionRules rules, long now) {
        this.rules = rules;
        this.now = now;
    }

    /** 0 unallocated, 1 resumable allocated, 2 allocated that cannot resume. */
    @Override
    public int group(Job j) {
        if (!j.allocated()) {
            return 0;
        }
        return j.spec().resumable() ? 1 : 2;
    }

    @Override
    public double overServed(Job j) {
        if (!j.allocated()) {
            return 0;
        }
        return rules.ranking() == Ranking.LOOKBACK ? rules.fairShare().leafRatio(j.leaf())
                : rules.entitlements().standing(j.leaf());
    }

    /** Every allocated job stands where its allocation does (its leaf, from 1); unallocated work at 0. */
    @Override
    public int sharedStanding(Job j) {
        return j.allocated() ? j.leaf() + 1 : 0;
    }

    @Override
    public boolean workLostFirst() {
        return true;
    }

    @Override
    public long workLost(Job j) {
        return j.workLostIfPreemptedAtGpuSeconds(now);
    }
}
