package dev.allot.core.state;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The running jobs of a {@link ClusterState} ({@link ClusterState#running()}): the allocated ones per allocation
 * (leaf), the unallocated ones of all allocations, how many run, and the GPUs unallocated work holds. Starts that
 * wait to launch count as running here, as they hold their placement.
 *
 * <p>Apart from the state because the lists are one idea with one trick: each job knows its slot, so it leaves its
 * list in constant time (the last job takes its place), which is why the order is no particular one.
 */
public final class RunningLists {
    final List<List<Job>> allocated;
    final List<Job> unallocated = new ArrayList<>();
    int count;
    long unallocatedGpus;
    /** Counts every entry and exit ({@link #changes}). */
    private long changes;
    /** Counts every entry and exit per list: each allocation's, then the unallocated one's ({@link #listChanges}). */
    private final long[] listChanges;

    RunningLists(int leaves) {
        this.listChanges = new long[leaves + 1];
        this.allocated = new ArrayList<>(leaves);
        for (int i = 0; i < leaves; i++) {
            allocated.add(new ArrayList<>());
        }
    }

    /** Files a job in its list (allocated or unallocated, as it is now); an unallocated one adds its GPUs. */
    void enter(Job job) {
        changes++;
        listChanges[job.allocated() ? job.leaf() : listChanges.length - 1]++;
        List<Job> list = job.allocated() ? allocated.get(job.leaf()) : unallocated;
        job.runningSlot = list.size();
        list.add(job);
        if (!job.allocated()) {
            unallocatedGpus += job.gpus();
        }
    }

    /** Takes a job out of its list (allocated or unallocated, as it is now), in constant time. */
    void leave(Job job) {
        changes++;
        listChanges[job.allocated() ? job.leaf() : listChanges.length - 1]++;
        List<Job> list = job.allocated() ? allocated.get(job.leaf()) : unallocated;
        int slot = job.runningSlot;
        Job last = list.remove(list.size() - 1);
        if (last != job) {
            list.set(slot, last);
            last.runningSlot = slot;
        }
        job.runningSlot = -1;
        if (!job.allocated()) {
            unallocatedGpus -= job.gpus();
        }
    }

    /** Running allocated jobs of one allocation, in no particular order. */
    public List<Job> allocated(int leaf) {
        return Collections.unmodifiableList(allocated.get(leaf));
    }

    /** Running unallocated jobs of every allocation, in no particular order. */
    public List<Job> unallocated() {
        return Collections.unmodifiableList(unallocated);
    }

    /**
     * How many times a job entered or left the lists (a start, an end, a stop, a promotion or demotion in place): a
     * caller that knows which of these it caused can tell that nothing else changed who runs where.
     */
    public long changes() {
        return changes;
    }

    /**
     * {@link #changes} of one list: allocation {@code list}'s running jobs, or for {@code list} equal to the number
     * of allocations the unallocated ones. While it stays the same, that list holds the same jobs.
     */
    public long listChanges(int list) {
        return listChanges[list];
    }

    public int count() {
        return count;
    }

    /** GPUs of running unallocated jobs. */
    public long unallocatedGpus() {
        return unallocatedGpus;
    }
}
