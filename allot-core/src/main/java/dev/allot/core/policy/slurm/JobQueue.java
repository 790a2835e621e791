package dev.allot.core.policy.slurm;

import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The waiting jobs of one association and QOS, in a fixed order, as a sorted array: new and requeued jobs come
 * last in that order, so inserting is mostly appending, and a scheduling cycle walks it by index.
 */
final class JobQueue {
    private final ArrayList<Job> jobs = new ArrayList<>();
    private final Comparator<Job> order;

    JobQueue(Comparator<Job> order) {
        this.order = order;
    }

    void add(Job j) {
        int i = jobs.size();
        if (i > 0 && order.compare(jobs.get(i - 1), j) > 0) {
            i = Collections.binarySearch(jobs, j, order);
            if (i >= 0) {
                throw new IllegalStateException("job " + j.id() + " is queued twice");
            }
            i = -i - 1;
        }
        jobs.add(i, j);
    }

    void remove(Job j) {
        int i = Collections.binarySearch(jobs, j, order);
        if (i < 0 || jobs.get(i) != j) {
            throw new IllegalStateException("job " + j.id() + " is not queued");
        }
        jobs.remove(i);
    }

    int size() {
        return jobs.size();
    }

    boolean isEmpty() {
        return jobs.isEmpty();
    }

    Job get(int i) {
        return jobs.get(i);
    }

    List<Job> view() {
        return Collections.unmodifiableList(jobs);
    }

    void clear() {
        jobs.clear();
    }
}
