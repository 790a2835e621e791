package dev.allot.core.policy.slurm;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.LongUnaryOperator;

/**
 * The waiting jobs of the {@code slurm} policy and the order Slurm evaluates them in
 * (<a href="https://slurm.schedmd.com/priority_multifactor.html">priority_multifactor.html</a>, "Jobs are selected
 * to be evaluated ..."), {@link #evaluationOrder}: jobs that can preempt first (the protected QOS before the
 * preemptible one), then the higher priority, then the earlier (re)submission, then the id. Slurm has one queue;
 * the model keeps one per association and QOS (a <i>group</i>), each in a fixed order ({@link #inGroupOrder}), and
 * merges them with a heap of cursors, so a cycle walks only as far as it gets.
 *
 * <p>Inside a group every job has the same fair-share and QOS terms, so priority falls with eligibility time: the
 * order is fixed between recalculations and new and requeued jobs mostly append. A job's eligibility time is its
 * submission, or its last requeue: Slurm gives a requeued job a new submit time and restarts its age accrual, so a
 * preempted job goes back in line as if just submitted (and its new submit time is also the tie-break).
 *
 * <p>Per <i>kind</i> (shape and QOS) it also counts the waiting jobs and their time limits, for backfill's
 * shortcuts ({@link EasyBackfill}).
 */
final class WaitingJobs {
    private static final long NONE = Long.MIN_VALUE;

    private final MultifactorPriority priorities;
    private final LongUnaryOperator timeLimitSeconds;
    private final List<JobQueue> groups;
    private int queuedCount;
    private int scanned;
    private final List<Job> requeueWatch = new ArrayList<>();
    private final List<Job> startedThisCycle = new ArrayList<>();
    // per job index
    private long[] eligible = new long[0];
    private boolean[] queued = new boolean[0];
    private long[] limit = new long[0];
    // per kind (kind = shape * 2 + QOS): waiting jobs and the count of their time limits
    private int[] kindPending = new int[0];
    private final List<TreeMap<Long, Integer>> kindLimits = new ArrayList<>();
    private int liveKinds;

    /**
     * Inside a group (one association and QOS) priority falls with eligibility time, so this order is fixed: the
     * earlier eligibility time first, then the job id.
     */
    private final Comparator<Job> inGroupOrder = (a, b) -> {
        int c = Long.compare(eligible[a.index()], eligible[b.index()]);
        return c != 0 ? c : a.id().compareTo(b.id());
    };

    /**
     * Slurm's evaluation order, of the group heads: the protected QOS (jobs that can preempt) first, then the higher
     * priority, then the earlier eligibility ((re)submission) time, then the job id.
     */
    private final Comparator<Cursor> evaluationOrder = (a, b) -> {
        int cls = Integer.compare(a.group % 2, b.group % 2);
        if (cls != 0) {
            return cls;
        }
        if (a.priority != b.priority) {
            return Long.compare(b.priority, a.priority);
        }
        int c = Long.compare(eligible[a.job.index()], eligible[b.job.index()]);
        return c != 0 ? c : a.job.id().compareTo(b.job.id());
    };

    /**
     * @param timeLimitSeconds a job's time limit from its declared duration
     */
    WaitingJobs(ClusterState state, MultifactorPriority priorities, LongUnaryOperator timeLimitSeconds) {
        this.priorities = priorities;
        this.timeLimitSeconds = timeLimitSeconds;
        int leaves = state.tree().leafCount();
        this.groups = new ArrayList<>(leaves * 2);
        for (int g = 0; g < leaves * 2; g++) {
            groups.add(new JobQueue(inGroupOrder));
        }
    }

    /** The group of a job: its association and QOS. */
    static int group(Job j) {
        return j.leaf() * 2 + Qos.of(j);
    }

    /** The kind of a job: its shape and QOS. */
    static int kind(Job j) {
        return j.shape() * 2 + Qos.of(j);
    }

    private void ensureCapacity(int jobs) {
        if (eligible.length >= jobs) {
            return;
        }
        int n = Math.max(jobs, eligible.length * 2);
        int old = eligible.length;
        eligible = Arrays.copyOf(eligible, n);
        Arrays.fill(eligible, old, n, NONE);
        queued = Arrays.copyOf(queued, n);
        limit = Arrays.copyOf(limit, n);
    }

    /** Makes room for the kinds of this many shapes. */
    void ensureShapeCapacity(int shapes) {
        int n = shapes * 2;
        if (kindPending.length >= n) {
            return;
        }
        n = Math.max(n, kindPending.length * 2);
        kindPending = Arrays.copyOf(kindPending, n);
        while (kindLimits.size() < n) {
            kindLimits.add(new TreeMap<>());
        }
    }

    /** Takes in new submissions and requeued jobs; rebuilds from the state if anything else changed the queue. */
    void ingest(ClusterState state) {
        List<Job> jobs = state.jobs();
        ensureCapacity(jobs.size());
        while (scanned < jobs.size()) {
            Job j = jobs.get(scanned);
            if (j.state() == JobState.NEW) {
                break;
            }
            if (j.state() == JobState.PENDING && !queued[j.index()]) {
                enqueue(j, j.spec().submitSeconds());
            }
            scanned++;
        }
        for (Job j : requeueWatch) {
            if (j.state() == JobState.PENDING && !queued[j.index()]) {
                enqueue(j, eligible[j.index()]);
            }
        }
        requeueWatch.clear();
        if (queuedCount != state.pending().total()) {
            rebuild(state);
        }
    }

    private void enqueue(Job j, long eligibleAt) {
        eligible[j.index()] = eligibleAt;
        limit[j.index()] = timeLimitSeconds.applyAsLong(j.durationSeconds());
        groups.get(group(j)).add(j);
        queued[j.index()] = true;
        queuedCount++;
        int k = kind(j);
        ensureShapeCapacity(j.shape() + 1);
        if (kindPending[k]++ == 0) {
            liveKinds++;
        }
        kindLimits.get(k).merge(limit[j.index()], 1, Integer::sum);
    }

    private void rebuild(ClusterState state) {
        for (JobQueue g : groups) {
            for (Job j : g.view()) {
                queued[j.index()] = false;
            }
            g.clear();
        }
        queuedCount = 0;
        Arrays.fill(kindPending, 0);
        kindLimits.forEach(TreeMap::clear);
        liveKinds = 0;
        for (int l = 0; l < state.tree().leafCount(); l++) {
            for (boolean allocated : new boolean[] {true, false}) {
                for (NavigableSet<Job> q : state.pending().shapeQueues(l, allocated)) {
                    for (Job j : q) {
                        long e = eligible[j.index()];
                        enqueue(j, e == NONE ? j.spec().submitSeconds() : e);
                    }
                }
            }
        }
    }

    /** A preempted job that will come back (resumable): eligible again from {@code nowSeconds}, a new submit time. */
    void requeued(Job j, long nowSeconds) {
        eligible[j.index()] = nowSeconds;
        requeueWatch.add(j);
    }

    /** Takes a started job off the books at once; off its group's queue after the cycle's walk. */
    void dequeue(Job j) {
        startedThisCycle.add(j);
        queued[j.index()] = false;
        queuedCount--;
        int k = kind(j);
        if (--kindPending[k] == 0) {
            liveKinds--;
        }
        kindLimits.get(k).merge(limit[j.index()], -1, (a, b) -> a + b == 0 ? null : a + b);
    }

    /** Takes the jobs started in this cycle off their groups' queues (after the walk: the cursors index them). */
    void removeStarted() {
        for (Job j : startedThisCycle) {
            groups.get(group(j)).remove(j);
        }
        startedThisCycle.clear();
    }

    boolean isEmpty() {
        return queuedCount == 0;
    }

    /** When the job became eligible: its submission, or its last requeue. */
    long eligibleSeconds(Job j) {
        return eligible[j.index()];
    }

    /** The job's time limit, as of its enqueueing. */
    long limitSeconds(Job j) {
        return limit[j.index()];
    }

    /** The number of kind slots (twice the shapes room is made for); kinds are below it. */
    int kindSlots() {
        return kindPending.length;
    }

    /** How many jobs of this kind wait. */
    int pending(int kind) {
        return kindPending[kind];
    }

    /** How many kinds have a job waiting. */
    int liveKinds() {
        return liveKinds;
    }

    /** How many waiting jobs of this kind have a time limit of at most {@code maxLimitSeconds}. */
    int countWithLimitAtMost(int kind, long maxLimitSeconds) {
        int n = 0;
        for (int c : kindLimits.get(kind).headMap(maxLimitSeconds, true).values()) {
            n += c;
        }
        return n;
    }

    /** Whether allocated work (the protected QOS) is still waiting. */
    boolean protectedWaiting() {
        for (int k = Qos.PROTECTED; k < kindPending.length; k += 2) {
            if (kindPending[k] > 0) {
                return true;
            }
        }
        return false;
    }

    /** The heads of the non-empty groups, in {@link #evaluationOrder}; polling and advancing walks every job. */
    PriorityQueue<Cursor> inEvaluationOrder() {
        PriorityQueue<Cursor> heap = new PriorityQueue<>(evaluationOrder);
        for (int g = 0; g < groups.size(); g++) {
            JobQueue q = groups.get(g);
            if (!q.isEmpty()) {
                heap.add(new Cursor(g, q));
            }
        }
        return heap;
    }

    /** One cursor per group in a heap: the global priority order is a merge of the groups' fixed orders. */
    final class Cursor {
        final int group;
        final JobQueue queue;
        int next;
        Job job;
        long priority;

        Cursor(int group, JobQueue queue) {
            this.group = group;
            this.queue = queue;
            advance();
        }

        /** Moves to the next job of the group, or to null. */
        void advance() {
            job = next < queue.size() ? queue.get(next++) : null;
            priority = job == null ? 0 : priorities.priority(job, group, eligible[job.index()]);
        }
    }
}
