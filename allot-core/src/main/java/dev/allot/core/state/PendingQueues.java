package dev.allot.core.state;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Waiting jobs, split by allocation (leaf), by class (allocated or unallocated) and by shape, each queue in
 * {@link Job#QUEUE_ORDER}. Splitting by shape lets a scheduling cycle give up on a whole shape at once ("no
 * 16-GPU gang fits now") without walking the jobs behind it; the next job of any class is the best of the
 * few shape heads.
 */
public final class PendingQueues {
    private final List<List<TreeSet<Job>>> queues;
    private final List<List<NavigableSet<Job>>> views;
    private final int[][] count;
    private final long[][] gpus;
    /** Per leaf and class: the best shape head and the fewest GPUs any head asks, kept until that queue set changes. */
    private final Job[] bestHead;
    private final int[] smallestHeadGpus;
    private final boolean[] headsKnown;
    /** Per leaf and class: how many additions and removals its queues have seen. */
    private final long[] changes;
    /** Per leaf and class, per shape: how many additions and removals that shape's queue has seen. */
    private final long[][] shapeChanges;
    private int total;

    PendingQueues(int leaves) {
        queues = new ArrayList<>(leaves * 2);
        views = new ArrayList<>(leaves * 2);
        for (int i = 0; i < leaves * 2; i++) {
            queues.add(new ArrayList<>());
            views.add(new ArrayList<>());
        }
        count = new int[leaves][2];
        gpus = new long[leaves][2];
        bestHead = new Job[leaves * 2];
        smallestHeadGpus = new int[leaves * 2];
        headsKnown = new boolean[leaves * 2];
        changes = new long[leaves * 2];
        shapeChanges = new long[leaves * 2][0];
    }

    private void changed(int k, int shape) {
        changes[k]++;
        if (shape >= shapeChanges[k].length) {
            shapeChanges[k] = java.util.Arrays.copyOf(shapeChanges[k], Math.max(shape + 1, shapeChanges[k].length * 2));
        }
        shapeChanges[k][shape]++;
    }

    private static int cls(boolean allocated) {
        return allocated ? 0 : 1;
    }

    void add(Job job) {
        int c = cls(job.allocated());
        List<TreeSet<Job>> qs = queues.get(job.leaf() * 2 + c);
        List<NavigableSet<Job>> vs = views.get(job.leaf() * 2 + c);
        while (qs.size() <= job.shape()) {
            TreeSet<Job> q = new TreeSet<>(Job.QUEUE_ORDER);
            qs.add(q);
            vs.add(Collections.unmodifiableNavigableSet(q));
        }
        if (!qs.get(job.shape()).add(job)) {
            throw new IllegalStateException("job " + job.id() + " is already pending");
        }
        headsKnown[job.leaf() * 2 + c] = false;
        changed(job.leaf() * 2 + c, job.shape());
        count[job.leaf()][c]++;
        gpus[job.leaf()][c] += job.gpus();
        total++;
    }

    void remove(Job job) {
        int c = cls(job.allocated());
        if (!queues.get(job.leaf() * 2 + c).get(job.shape()).remove(job)) {
            throw new IllegalStateException("job " + job.id() + " is not pending");
        }
        headsKnown[job.leaf() * 2 + c] = false;
        changed(job.leaf() * 2 + c, job.shape());
        count[job.leaf()][c]--;
        gpus[job.leaf()][c] -= job.gpus();
        total--;
    }

    /** The shape queues of one leaf and class; some may be empty. Read-only views. */
    public List<NavigableSet<Job>> shapeQueues(int leaf, boolean allocated) {
        return Collections.unmodifiableList(views.get(leaf * 2 + cls(allocated)));
    }

    /** The first job in {@link Job#QUEUE_ORDER} among the heads of one leaf's shape queues; null if none waits. */
    public Job bestHead(int leaf, boolean allocated) {
        return heads(leaf * 2 + cls(allocated)) ? bestHead[leaf * 2 + cls(allocated)] : null;
    }

    /** The fewest GPUs any shape head of one leaf and class asks for; {@code Integer.MAX_VALUE} if none waits. */
    public int smallestHeadGpus(int leaf, boolean allocated) {
        heads(leaf * 2 + cls(allocated));
        return smallestHeadGpus[leaf * 2 + cls(allocated)];
    }

    private boolean heads(int k) {
        if (!headsKnown[k]) {
            Job best = null;
            int smallest = Integer.MAX_VALUE;
            for (TreeSet<Job> q : queues.get(k)) {
                if (!q.isEmpty()) {
                    Job h = q.first();
                    smallest = Math.min(smallest, h.gpus());
                    if (best == null || Job.QUEUE_ORDER.compare(h, best) < 0) {
                        best = h;
                    }
                }
            }
            bestHead[k] = best;
            smallestHeadGpus[k] = smallest;
            headsKnown[k] = true;
        }
        return bestHead[k] != null;
    }

    /**
     * How many times a job joined or left the queues of one leaf and class: while it stays the same, so do those
     * queues, so a reader may keep what it derived from them (their first jobs).
     */
    public long changes(int leaf, boolean allocated) {
        return changes[leaf * 2 + cls(allocated)];
    }

    /**
     * How many times a job joined or left one shape queue of one leaf and class ({@link #changes} for a single
     * queue): while it stays the same, so does that queue.
     */
    public long changes(int leaf, boolean allocated, int shape) {
        long[] c = shapeChanges[leaf * 2 + cls(allocated)];
        return shape < c.length ? c[shape] : 0;
    }

    public int count(int leaf, boolean allocated) {
        return count[leaf][cls(allocated)];
    }

    public long gpus(int leaf, boolean allocated) {
        return gpus[leaf][cls(allocated)];
    }

    public int total() {
        return total;
    }
}
