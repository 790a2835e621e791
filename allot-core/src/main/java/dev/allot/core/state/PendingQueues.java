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
        count[job.leaf()][c]++;
        gpus[job.leaf()][c] += job.gpus();
        total++;
    }

    void remove(Job job) {
        int c = cls(job.allocated());
        if (!queues.get(job.leaf() * 2 + c).get(job.shape()).remove(job)) {
            throw new IllegalStateException("job " + job.id() + " is not pending");
        }
        count[job.leaf()][c]--;
        gpus[job.leaf()][c] -= job.gpus();
        total--;
    }

    /** The shape queues of one leaf and class; some may be empty. Read-only views. */
    public List<NavigableSet<Job>> shapeQueues(int leaf, boolean allocated) {
        return Collections.unmodifiableList(views.get(leaf * 2 + cls(allocated)));
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
