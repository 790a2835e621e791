package dev.allot.core.policy.kueue;

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
 *
 * <p>The sub-queues, their cursors and each ClusterQueue's heap live from pass to pass: a pass restarts every cursor
 * at its sub-queue's first workload and refills the heaps, instead of building them anew (the policy runs a pass at
 * every event, and building them was a sixth of its time on a long trace). A sub-queue that empties keeps its
 * cursor, which then has no head.
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
    /** Every ClusterQueue's cursors, one per sub-queue ever seen; null for a ClusterQueue that never had one. */
    private final CqQueue[] queues;
    /** Per leaf and class, the pending queues' change count and the number of sub-queues at the last sync. */
    private final long[] syncedChanges;
    private final int[] syncedShapes;
    /** The set-asides of a trial ({@link #beginTrial}), to undo if it is given up. */
    private final Journal journal = new Journal();

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
        this.afsIndex = admissionFairSharing ? new AfsIndex() : null;
        this.queues = new CqQueue[cqCount];
        this.syncedChanges = new long[allocations * 2];
        java.util.Arrays.fill(syncedChanges, -1);
        this.syncedShapes = new int[allocations * 2];
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
     * The cursors of every ClusterQueue for a pass, over its pending sub-queues (null for a ClusterQueue that never had
     * anything waiting); what was set aside in {@code generation} stays set aside. The array is the same from pass to
     * pass.
     */
    CqQueue[] build(ClusterState state, int generation) {
        if (!admissionFairSharing) {
            // take in the shapes that appeared and the changes since the last pass (Admission Fair Sharing's index
            // does both as it syncs)
            for (int l = 0; l < unallocatedCq; l++) {
                syncShapes(state, l, true);
                syncShapes(state, l, false);
            }
        }
        for (CqQueue q : queues) {
            if (q != null) {
                q.restart(generation);
            }
        }
        return queues;
    }

    /**
     * Starts a trial: the policy sets heads aside (and moves past others) as a pass would, to see whether a pass could
     * admit anything at all; {@link #endTrial} keeps what it did or puts every cursor back as {@link #build} left it.
     */
    void beginTrial() {
        journal.clear();
        journal.on = true;
    }

    /** Ends a trial: keeps its set-asides, or undoes them and restarts every cursor in {@code generation}. */
    void endTrial(boolean keep, int generation) {
        journal.on = false;
        if (keep) {
            return;
        }
        for (int i = journal.size - 1; i >= 0; i--) {
            journal.queue[i].setAsideFrom = journal.from[i];
            journal.queue[i].setAsideGeneration = journal.generation[i];
        }
        journal.clear();
        for (CqQueue q : queues) {
            if (q != null) {
                q.restart(generation);
            }
        }
    }

    /**
     * The set-asides made while a trial runs: what each replaced in its sub-queue, in parallel arrays reused from
     * trial to trial (a record per set-aside was a sixth of the policy's allocation on the Philly trace).
     */
    private static final class Journal {
        boolean on;
        int size;
        SubQueue[] queue = new SubQueue[64];
        Job[] from = new Job[64];
        int[] generation = new int[64];

        void add(SubQueue q, Job f, int g) {
            if (size == queue.length) {
                queue = java.util.Arrays.copyOf(queue, size * 2);
                from = java.util.Arrays.copyOf(from, size * 2);
                generation = java.util.Arrays.copyOf(generation, size * 2);
            }
            queue[size] = q;
            from[size] = f;
            generation[size] = g;
            size++;
        }

        void clear() {
            java.util.Arrays.fill(queue, 0, size, null);
            java.util.Arrays.fill(from, 0, size, null);
            size = 0;
        }
    }

    private void syncShapes(ClusterState state, int leaf, boolean allocated) {
        List<SubQueue> known = subQueues.get(leaf * 2 + (allocated ? 0 : 1));
        if (state.pending().count(leaf, allocated) > 0) {
            List<NavigableSet<Job>> shapes = state.pending().shapeQueues(leaf, allocated);
            int cq = allocated ? leaf : unallocatedCq;
            for (int s = known.size(); s < shapes.size(); s++) {
                SubQueue sq = new SubQueue(-1, s, shapes.get(s));
                known.add(sq);
                queueFor(cq).add(new Cursor(sq));
            }
        }
        // the sub-queues' counts are taken only when the leaf's queues changed since the last pass, and each from
        // its own shape's count, so that a sub-queue keeps its first workload while its own queue stays the same
        int k = leaf * 2 + (allocated ? 0 : 1);
        long changes = state.pending().changes(leaf, allocated);
        if (syncedChanges[k] == changes && syncedShapes[k] == known.size()) {
            return;
        }
        for (int s = 0; s < known.size(); s++) {
            known.get(s).changes = state.pending().changes(leaf, allocated, s);
        }
        syncedChanges[k] = changes;
        syncedShapes[k] = known.size();
    }

    private CqQueue queueFor(int cq) {
        if (queues[cq] == null) {
            queues[cq] = new CqQueue(admissionFairSharing ? afsOrder() : BY_HEAD, admissionFairSharing, journal);
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
     * where it was set aside: from {@code setAsideFrom} on, in queue order, until quota is released. Its first
     * workload is kept while the queue does not change (reading it from the set every pass was the main cost of
     * starting a pass).
     */
    static final class SubQueue {
        final int localQueue;
        final int shape;
        final NavigableSet<Job> jobs;
        Job setAsideFrom;
        int setAsideGeneration = -1;
        /** Counts the changes of {@code jobs} (or of the queues it belongs to): equal counts, same jobs. */
        long changes;
        private long firstAtChanges = -1;
        private Job first;

        SubQueue(int localQueue, int shape, NavigableSet<Job> jobs) {
            this.localQueue = localQueue;
            this.shape = shape;
            this.jobs = jobs;
        }

        /** The first workload of the queue in queue order, or null if it is empty. */
        Job first() {
            if (firstAtChanges != changes) {
                first = jobs.isEmpty() ? null : jobs.first();
                firstAtChanges = changes;
            }
            return first;
        }
    }

    private static int priority(Job j) {
        return j.spec().priority().ordinal();
    }

    /**
     * A walk over one sub-queue during a pass: skips what is no longer waiting and stops where it was set aside. It
     * has no head until a pass {@linkplain #restart restarts} it.
     */
    static final class Cursor {
        final SubQueue queue;
        /** Where the walk is in the sub-queue (null when done); {@link #head} is the first still waiting from here. */
        private Job walk;
        Job head;

        Cursor(SubQueue queue) {
            this.queue = queue;
        }

        /** Starts the walk of a pass at the sub-queue's first workload. */
        void restart(int generation) {
            walk = queue.first();
            refresh(generation);
        }

        private void refresh(int generation) {
            while (walk != null && walk.state() != JobState.PENDING) {
                walk = queue.jobs.higher(walk);
            }
            // most often the walk starts at the very workload the queue was set aside from: no need to compare
            if (walk != null && queue.setAsideGeneration == generation && queue.setAsideFrom != null
                    && (walk == queue.setAsideFrom || Job.QUEUE_ORDER.compare(walk, queue.setAsideFrom) >= 0)) {
                walk = null;
            }
            head = walk;
        }

        void advance(int generation) {
            if (walk != null) {
                walk = queue.jobs.higher(walk);
            }
            refresh(generation);
        }

        void setAside(int generation) {
            queue.setAsideFrom = head;
            queue.setAsideGeneration = generation;
            walk = null;
            head = null;
        }
    }

    /**
     * A ClusterQueue's cursors, the best head first. The order is total (no two cursors share a head), so which cursor
     * is best does not depend on the order they were added in.
     *
     * <p>Without Admission Fair Sharing the order of heads is fixed ({@link Job#QUEUE_ORDER}), and the cursors are
     * kept in an array sorted by head, those without a head anywhere: the best is the first with a head. A pass's
     * restart sorts it by insertion (the heads are mostly the last pass's, so it is nearly sorted already); a head
     * set aside stays in place without one (no cursor gets its head back before the next restart); an admitted head's
     * cursor moves right past the heads now before its next one. With Admission Fair Sharing the order moves with the
     * LocalQueues' usage, and a heap rebuilt at every reorder keeps it.
     *
     * <p>Setting aside looks only at the cursors of the head's shape, indexed by shape.
     */
    static final class CqQueue {
        private final List<Cursor> cursors = new ArrayList<>();
        /** Per shape, the cursors of sub-queues of that shape. */
        private final List<List<Cursor>> byShape = new ArrayList<>();
        /** With Admission Fair Sharing: the cursors that have a head; null without. */
        private final PriorityQueue<Cursor> heap;
        /** Without Admission Fair Sharing: every cursor, those with a head in head order; null with it. */
        private Cursor[] sorted;
        /** Where to look for the best cursor in {@link #sorted}: every cursor before it has no head. */
        private int bestAt;

        private final boolean reorderOnAdmit;
        private final Journal journal;

        CqQueue(Comparator<Cursor> order, boolean reorderOnAdmit, Journal journal) {
            this.reorderOnAdmit = reorderOnAdmit;
            this.heap = reorderOnAdmit ? new PriorityQueue<>(order) : null;
            this.sorted = reorderOnAdmit ? null : new Cursor[4];
            this.journal = journal;
        }

        void add(Cursor c) {
            cursors.add(c);
            int shape = c.queue.shape;
            while (byShape.size() <= shape) {
                byShape.add(null);
            }
            if (byShape.get(shape) == null) {
                byShape.set(shape, new ArrayList<>(2));
            }
            byShape.get(shape).add(c);
            if (sorted != null) {
                if (cursors.size() > sorted.length) {
                    sorted = java.util.Arrays.copyOf(sorted, sorted.length * 2);
                }
                sorted[cursors.size() - 1] = c;
            }
        }

        /** A new pass: every cursor starts over at its sub-queue's first workload. */
        void restart(int generation) {
            for (Cursor c : cursors) {
                c.restart(generation);
            }
            if (heap != null) {
                heapify();
                return;
            }
            Cursor[] a = sorted;
            for (int i = 1; i < cursors.size(); i++) {
                Cursor c = a[i];
                if (c.head == null) {
                    continue; // those without a head may stay anywhere
                }
                int j = i;
                while (j > 0 && (a[j - 1].head == null || Job.QUEUE_ORDER.compare(a[j - 1].head, c.head) > 0)) {
                    a[j] = a[j - 1];
                    j--;
                }
                a[j] = c;
            }
            bestAt = 0;
        }

        private void heapify() {
            heap.clear();
            for (Cursor c : cursors) {
                if (c.head != null) {
                    heap.add(c);
                }
            }
        }

        Cursor best() {
            if (heap != null) {
                return heap.peek();
            }
            int n = cursors.size();
            while (bestAt < n && sorted[bestAt].head == null) {
                bestAt++;
            }
            return bestAt < n ? sorted[bestAt] : null;
        }

        /** Takes a cursor out of the heap; the best one, the usual case, without searching for it. */
        private void remove(Cursor c) {
            if (heap.peek() == c) {
                heap.poll();
            } else {
                heap.remove(c);
            }
        }

        /** The best cursor's head was admitted: move on (and reorder: with Admission Fair Sharing its usage grew). */
        void advance(Cursor c, int generation) {
            if (heap != null) {
                remove(c);
                c.advance(generation);
                heapify();
                return;
            }
            c.advance(generation);
            if (c.head == null) {
                return;
            }
            Cursor[] a = sorted;
            int n = cursors.size();
            int i = bestAt;
            while (a[i] != c) {
                i++;
            }
            // every head before c's old one is set aside or admitted; move c past the heads before its new one
            while (i + 1 < n && (a[i + 1].head == null || Job.QUEUE_ORDER.compare(a[i + 1].head, c.head) < 0)) {
                a[i] = a[i + 1];
                i++;
            }
            a[i] = c;
        }

        /**
         * The head could not be admitted: set it aside with everything behind it of the same shape and no higher
         * priority in this ClusterQueue, which would fail the same way.
         */
        void setAside(Job w, int generation) {
            List<Cursor> same = w.shape() < byShape.size() ? byShape.get(w.shape()) : null;
            if (same != null) {
                for (int i = 0; i < same.size(); i++) {
                    Cursor c = same.get(i);
                    if (c.head != null && priority(c.head) <= priority(w)) {
                        if (journal.on) {
                            journal.add(c.queue, c.queue.setAsideFrom, c.queue.setAsideGeneration);
                        }
                        c.setAside(generation);
                    }
                }
            }
            if (heap != null) {
                // with Admission Fair Sharing an eviction may have changed the LocalQueues' order since the last
                // reorder
                heapify();
            }
        }
    }

    /** Admission Fair Sharing's pending sub-queues, per LocalQueue and shape, kept in step with the state. */
    private final class AfsIndex {
        private final Map<Long, SubQueue> byKey = new HashMap<>();
        private int scanFrom;
        private final List<Job> recheck = new ArrayList<>();

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
                queueFor(cqOf.applyAsInt(j)).add(new Cursor(sq));
            }
            sq.jobs.add(j);
            sq.changes++;
        }

        void afterPass(List<Job> startedJobs, List<Job> evictedJobs) {
            for (Job j : startedJobs) {
                SubQueue sq = byKey.get(((long) localQueue.applyAsInt(j) << 32) | j.shape());
                sq.jobs.remove(j);
                sq.changes++;
            }
            recheck.addAll(evictedJobs); // resumable ones wait again once the plan is carried out
        }
    }
}
