package dev.allot.core.policy.kueue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Admitted workloads for the golden tests: a cohort tree, what runs in each ClusterQueue, and Kueue's candidate
 * order (lower priority first, then admitted more recently, then id).
 */
final class Admitted {
    record W(String id, int cq, long gpus, int priority, long admittedAt) {
    }

    static final FairPreemption.Sizes<W> SIZES = new FairPreemption.Sizes<>() {
        @Override
        public int cq(W w) {
            return w.cq();
        }

        @Override
        public long gpus(W w) {
            return w.gpus();
        }
    };

    static final Comparator<W> CANDIDATE_ORDER = Comparator.comparingInt(W::priority)
            .thenComparing(Comparator.comparingLong(W::admittedAt).reversed()).thenComparing(W::id);

    final Cohorts cohorts;
    final List<W> running = new ArrayList<>();
    private long clock;

    Admitted(Cohorts cohorts) {
        this.cohorts = cohorts;
    }

    /** Admits a workload (usage and a later admission time than all before it). */
    W admit(String id, int cq, long gpus, int priority) {
        W w = new W(id, cq, gpus, priority, ++clock);
        running.add(w);
        cohorts.addUsage(cq, gpus);
        return w;
    }

    void evict(W w) {
        running.remove(w);
        cohorts.addUsage(w.cq(), -w.gpus());
    }

    /** The victims Kueue would choose for a pending workload, or null. */
    List<FairPreemption.Target<W>> targetsFor(int cq, long gpus, int priority, List<FairPreemption.Strategy> strategies) {
        List<FairPreemption.Candidates<W>> byCq = new ArrayList<>();
        for (int q = 0; q < cohorts.cqCount(); q++) {
            List<W> l = new ArrayList<>();
            for (W w : running) {
                if (w.cq() == q && (q != cq || w.priority() < priority)) {
                    l.add(w);
                }
            }
            l.sort(CANDIDATE_ORDER);
            byCq.add(FairPreemption.Candidates.of(l, SIZES));
        }
        return FairPreemption.find(cohorts, cq, gpus, byCq, SIZES, FairPreemption.Room.unlimited(), w -> true, strategies);
    }

    List<FairPreemption.Target<W>> targetsFor(int cq, long gpus, int priority) {
        return targetsFor(cq, gpus, priority, FairPreemption.DEFAULT_STRATEGIES);
    }

    static List<String> ids(List<FairPreemption.Target<W>> targets) {
        return targets == null ? null : targets.stream().map(t -> t.workload().id()).toList();
    }

    long usage(int cq) {
        return cohorts.cqUsage(cq);
    }
}
