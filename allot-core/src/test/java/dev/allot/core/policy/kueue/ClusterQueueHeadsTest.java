package dev.allot.core.policy.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Priority;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterQueueHeads} without Admission Fair Sharing against a plain model of what it promises: a ClusterQueue's
 * head is the first workload in {@link Job#QUEUE_ORDER} among the first remaining workloads of its sub-queues (one per
 * allocation, class and shape); admitting a head moves its sub-queue on; setting a head aside empties every sub-queue
 * of its shape whose head has no higher priority; a pass in a new generation starts every sub-queue over. Random
 * queues and random admissions and set-asides, many passes each.
 */
class ClusterQueueHeadsTest {
    private static final int[] GPUS = {1, 2, 4, 8};

    @Test
    void headsFollowTheModelOnRandomQueues() {
        for (int seed = 1; seed <= 40; seed++) {
            check(new Random(seed));
        }
    }

    private static void check(Random r) {
        AllocationTree tree = AllocationTree.builder("lab").leaf("a", 1).leaf("b", 1).leaf("c", 2).build();
        KueueCluster k = KueueCluster.of(tree, 2, 8);
        String[] leaves = {"a", "b", "c"};
        int n = 5 + r.nextInt(60);
        for (int i = 0; i < n; i++) {
            String id = String.format("w%03d", r.nextInt(1000)) + "-" + i;
            String leaf = leaves[r.nextInt(leaves.length)];
            Priority p = Priority.values()[r.nextInt(Priority.values().length)];
            int gpus = GPUS[r.nextInt(GPUS.length)];
            if (r.nextInt(4) == 0) {
                k.waitingUnallocated(id, leaf, gpus, p);
            } else {
                k.waiting(id, leaf, gpus, p);
            }
        }
        ClusterState state = k.state();
        int leafCount = tree.leafCount();
        ClusterQueueHeads heads = new ClusterQueueHeads(leafCount, null, j -> j.allocated() ? j.leaf() : leafCount,
                j -> 0);
        Map<NavigableSet<Job>, Job> setAsideFrom = new IdentityHashMap<>();
        Map<NavigableSet<Job>, Integer> setAsideIn = new IdentityHashMap<>();
        int generation = 0;
        for (int pass = 0; pass < 6; pass++) {
            if (r.nextBoolean()) {
                generation++;
            }
            // the model: per ClusterQueue, each sub-queue's workloads this pass, without what stays set aside
            List<List<List<Job>>> model = new ArrayList<>();
            List<List<NavigableSet<Job>>> sets = new ArrayList<>();
            for (int cq = 0; cq <= leafCount; cq++) {
                model.add(new ArrayList<>());
                sets.add(new ArrayList<>());
            }
            for (int leaf = 0; leaf < leafCount; leaf++) {
                for (boolean allocated : new boolean[] {true, false}) {
                    for (NavigableSet<Job> shape : state.pending().shapeQueues(leaf, allocated)) {
                        List<Job> jobs = new ArrayList<>(shape);
                        Job from = setAsideFrom.get(shape);
                        if (from != null && setAsideIn.get(shape) == generation) {
                            jobs.removeIf(j -> Job.QUEUE_ORDER.compare(j, from) >= 0);
                        }
                        model.get(allocated ? leaf : leafCount).add(jobs);
                        sets.get(allocated ? leaf : leafCount).add(shape);
                    }
                }
            }
            ClusterQueueHeads.CqQueue[] queues = heads.build(state, generation);
            for (int cq = 0; cq <= leafCount; cq++) {
                ClusterQueueHeads.CqQueue q = queues[cq];
                List<List<Job>> subQueues = model.get(cq);
                while (true) {
                    Job expected = null;
                    for (List<Job> jobs : subQueues) {
                        if (!jobs.isEmpty() && (expected == null || Job.QUEUE_ORDER.compare(jobs.get(0), expected) < 0)) {
                            expected = jobs.get(0);
                        }
                    }
                    ClusterQueueHeads.Cursor c = q == null ? null : q.best();
                    assertThat(c == null ? null : c.head).isEqualTo(expected);
                    if (c == null) {
                        break;
                    }
                    Job w = c.head;
                    if (r.nextInt(3) == 0) {
                        for (List<Job> jobs : subQueues) {
                            if (!jobs.isEmpty() && jobs.get(0) == w) {
                                jobs.remove(0);
                            }
                        }
                        q.advance(c, generation);
                    } else {
                        for (int i = 0; i < subQueues.size(); i++) {
                            List<Job> jobs = subQueues.get(i);
                            if (!jobs.isEmpty() && jobs.get(0).shape() == w.shape()
                                    && jobs.get(0).spec().priority().ordinal() <= w.spec().priority().ordinal()) {
                                setAsideFrom.put(sets.get(cq).get(i), jobs.get(0));
                                setAsideIn.put(sets.get(cq).get(i), generation);
                                jobs.clear();
                            }
                        }
                        q.setAside(w, generation);
                    }
                }
            }
        }
    }
}
