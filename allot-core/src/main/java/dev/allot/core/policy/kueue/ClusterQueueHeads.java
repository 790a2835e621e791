package dev.allot.core.policy.kueue;

import dev.allot.core.sched.ShapeCursor;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * The waiting side of every ClusterQueue of the {@code kueue} policy: which workload is each ClusterQueue's head, and
 * what was set aside. Inside a ClusterQueue the order is Kueue's {@code BestEffortFIFO}: higher priority, then
 * earlier creation (submission) time, then id ({@link Job#QUEUE_ORDER}); with Admission Fair Sharing the workload of
 * the LocalQueue with the least decayed usage first, then that order ({@link #afsOrder}).
 *
 * <p>A ClusterQueue's queue is kept as sub-queues of one workload shape each (per allocation and class, or with
 * Admission Fair Sharing per LocalQueue), walked by cursors during a pass. A head that could be admitted neither by
 * fitting nor by preempting is set aside with everything behind it of the same shape and no higher priority, which
 * would fail the same test (Kueue's inadmissible list), until the policy starts a new generation (quota released).
 */
final class ClusterQueueHeads {
    private final int unallocatedCq;
    private final int cqCount;
    private final boolean admissionFairSharing;
    private final LocalQueueUsage lqUsage;
    private final ToIntFunction<Job> cqOf;
    private final ToIntFunction<Job> localQueue;
    /** Sub-queues of the pending queues (per allocation, class and shape), kept for what was set aside. */
    private final List<List<SubQueue>> subQueues = new ArrayList<>();
    private final AfsIndex afsIndex;

    /**
     * @param allocations the number of allocations (ClusterQueue {@code allocations} is the unallocated one)
     * @param lqUsage     with Admission Fair Sharing, the LocalQueues' usage; null without
     * @param localQueue  each workload's LocalQueue (used only with {@code lqUsage})
     */
    ClusterQueueHeads(int allocations, LocalQueueUsage lqUsage, ToIntFunction<Job> cqOf,
                      ToIntFunction<Job> localQueue) {
        this.unallocatedCq = allocations;
        this.cqCount = allocations + 1;
        this.admissionFairSharing = lqUsage != null;
        this.lqUsage = lqUsage;
        this.cqOf = cqOf;
        this.localQueue = localQueue;
        for (int i = 0; i < allocations * 2; i++) {
            subQueues.add(new ArrayList<>());
        }
        this.afsIndex = admissionFairSharing ? new AfsIndex(cqCount) : null;
    }

    /** With Admission Fair Sharing, takes in the workloads submitted or requeued since the last pass. */
    void sync(ClusterState state) {
        if (afsIndex != null) {
            afsIndex.sync(state);
        }
    }

    /** With Admission Fair Sharing, forgets what a pass started and takes back what it evicted. */
    void afterPass(List<Job> started, List<Job> evicted) {
        if (afsIndex != null) {
            afsIndex.afterPass(started, evicted);
        }
    }

    /**
     * The cursors of every ClusterQueue for a pass, over its pending sub-queues (null for a ClusterQueue with nothing
     * waiting); what was set aside in {@code generation} stays set aside.
     */
    CqQueue[] build(ClusterState state, int generation) {
        CqQueue[] queues = new CqQueue[cqCount];
        if (admissionFairSharing) {
            for (int cq = 0; cq < cqCount; cq++) {
                for (SubQueue sq : afsIndex.byCq.get(cq)) {
                    if (!sq.jobs.isEmpty()) {
                        queueFor(queues, cq).add(new Cursor(sq, generation));
                    }
                }
            }
        } else {
            for (int l = 0; l < unallocatedCq; l++) {
                for (boolean allocated : new boolean[] {true, false}) {
                    if (state.pending().count(l, allocated) == 0) {
                        continue;
                    }
                    int cq = allocated ? l : unallocatedCq;
                    List<NavigableSet<Job>> shapes = state.pending().shapeQueues(l, allocated);
                    List<SubQueue> known = subQueues.get(l * 2 + (allocated ? 0 : 1));
                    for (int s = 0; s < shapes.size(); s++) {
                        if (shapes.get(s).isEmpty()) {
                            continue;
                        }
                        while (known.size() <= s) {
                            known.add(null);
                        }
                        if (known.get(s) == null) {
                            known.set(s, new SubQueue(-1, s, shapes.get(s)));
                        }
                        queueFor(queues, cq).add(new Cursor(known.get(s), generation));
                    }
                }
            }
        }
        for (CqQueue q : queues) {
            if (q != null) {
                q.heapify();
            }
        }
        return queues;
    }

    private CqQueue queueFor(CqQueue[] queues, int cq) {
        if (queues[cq] == null) {
            queues[cq] = new CqQueue(admissionFairSharing ? afsOrder() : BY_HEAD, admissionFairSharing);
        }
        return queues[cq];
    }

    private static final Comparator<Cursor> BY_HEAD = (a, b) -> Job.QUEUE_ORDER.compare(a.head, b.head);

    private Comparator<Cursor> afsOrder() {
        return (a, b) -> {
            int c = Double.compare(lqUsage.usage(a.queue.localQueue), lqUsage.usage(b.queue.localQueue));
            return c != 0 ? c : Job.QUEUE_ORDER.compare(a.head, b.head);
        };
    }

    /**
     * One pending queue of one shape (per allocation and class, or with Admission Fair Sharing per LocalQueue), and
     * where it was set aside: from {@code setAsideFrom} on, in queue order, until quota is released.
     */
    static final class SubQueue {
        final int localQueue;
        final int shape;
        final NavigableSet<Job> jobs;
        Job setAsideFrom;
        int setAsideGeneration = -1;

        SubQueue(int localQueue, int shape, NavigableSet<Job> jobs) {
            this.localQueue = localQueue;
            this.shape = shape;
            this.jobs = jobs;
        }
    }

    private static int priority(Job j) {
        return j.spec().priority().ordinal();
    }

    /** A walk over one sub-queue during a pass: skips what is no longer waiting and stops where it was set aside. */
    static final class Cursor {
        final SubQueue queue;
        private final ShapeCursor walk;
        Job head;

        Cursor(SubQueue queue, int generation) {
            this.queue = queue;
            this.walk = new ShapeCursor(queue.jobs);
            refresh(generation);
        }

        private void refresh(int generation) {
            Job h = walk.head();
            while (h != null && h.state() != JobState.PENDING) {
                walk.advance();
                h = walk.head();
            }
            if (h != null && queue.setAsideGeneration == generation && queue.setAsideFrom != null
                    && Job.QUEUE_ORDER.compare(h, queue.setAsideFrom) >= 0) {
                walk.exhaust();
                h = null;
            }
            head = h;
        }

        void advance(int generation) {
            walk.advance();
            refresh(generation);
        }

        void setAside(int generation) {
            queue.setAsideFrom = head;
            queue.setAsideGeneration = generation;
            walk.exhaust();
            head = null;
        }
    }

    /** A ClusterQueue's cursors, the best head first. */
    static final class CqQueue {
        private final List<Cursor> cursors = new ArrayList<>();
        private final Comparator<Cursor> order;
        private PriorityQueue<Cursor> heap;

        private final boolean reorderOnAdmit;

        CqQueue(Comparator<Cursor> order, boolean reorderOnAdmit) {
            this.order = order;
            this.reorderOnAdmit = reorderOnAdmit;
        }

        void add(Cursor c) {
            cursors.add(c);
        }

        void heapify() {
            heap = new PriorityQueue<>(Math.max(1, cursors.size()), order);
            for (Cursor c : cursors) {
                if (c.head != null) {
                    heap.add(c);
                }
            }
        }

        Cursor best() {
            return heap.peek();
        }

        /** The best cursor's head was admitted: move on (and reorder: with Admission Fair Sharing its usage grew). */
        void advance(Cursor c, int generation) {
            heap.remove(c);
            c.advance(generation);
            if (reorderOnAdmit) {
                heapify();
            } else if (c.head != null) {
                heap.add(c);
            }
        }

        /**
         * The head could not be admitted: set it aside with everything behind it of the same shape and no higher
         * priority in this ClusterQueue, which would fail the same way.
         */
        void setAside(Job w, int generation) {
            for (Cursor c : cursors) {
                if (c.head != null && c.queue.shape == w.shape() && priority(c.head) <= priority(w)) {
                    c.setAside(generation);
                }
            }
            heapify();
        }
    }

    /** Admission Fair Sharing's pending sub-queues, per LocalQueue and shape, kept in step with the state. */
    private final class AfsIndex {
        private final Map<Long, SubQueue> byKey = new HashMap<>();
        final List<List<SubQueue>> byCq = new ArrayList<>();
        private int scanFrom;
        private final List<Job> recheck = new ArrayList<>();

        AfsIndex(int cqs) {
            for (int q = 0; q < cqs; q++) {
                byCq.add(new ArrayList<>());
            }
        }

        void sync(ClusterState state) {
            List<Job> jobs = state.jobs();
            List<Job> again = new ArrayList<>(recheck);
            recheck.clear();
            for (; scanFrom < jobs.size(); scanFrom++) {
                again.add(jobs.get(scanFrom));
            }
            for (Job j : again) {
                if (j.state() == JobState.PENDING) {
                    add(j);
                } else if (j.state() == JobState.NEW) {
                    recheck.add(j);
                }
            }
        }

        private void add(Job j) {
            int lq = localQueue.applyAsInt(j);
            long key = ((long) lq << 32) | j.shape();
            SubQueue sq = byKey.get(key);
            if (sq == null) {
                sq = new SubQueue(lq, j.shape(), new TreeSet<>(Job.QUEUE_ORDER));
                byKey.put(key, sq);
                byCq.get(cqOf.applyAsInt(j)).add(sq);
            }
            sq.jobs.add(j);
        }

        void afterPass(List<Job> startedJobs, List<Job> evictedJobs) {
            for (Job j : startedJobs) {
                byKey.get(((long) localQueue.applyAsInt(j) << 32) | j.shape()).jobs.remove(j);
            }
            recheck.addAll(evictedJobs); // resumable ones wait again once the plan is carried out
        }
    }
}
