package dev.allot.core.state;

import dev.allot.core.model.WorkloadSpec;
import java.util.Comparator;

/**
 * The live state of one workload inside a {@link ClusterState}: its contract (with the minimum runtime capped),
 * its progress, its current attempt and its placement. Only {@link ClusterState} changes a job; policies read it.
 *
 * <p>Times are seconds on the state's clock. The protection of an attempt lasts its minimum runtime from its launch
 * (or until it ends, if sooner); an unallocated job (minimum runtime 0) is never protected. An attempt decided on GPUs
 * that a stopping attempt still holds waits to launch ({@link #awaitingLaunch()}): it holds its placement and is
 * protected, but its minimum runtime, its charging and its progress have not begun.
 */
public final class Job {
    /**
     * Order of work inside one allocation: higher declared priority first, then earlier submission, then the lower
     * {@link #queueRank()} (0 for all work but a campaign's shards, see {@link ClusterState#rerank}), then id.
     * A requeued job keeps its original submission time, so it goes back to its old place in line.
     */
    public static final Comparator<Job> QUEUE_ORDER = (a, b) -> {
        int c = Integer.compare(b.spec.priority().ordinal(), a.spec.priority().ordinal());
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.spec.submitSeconds(), b.spec.submitSeconds());
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.queueRank, b.queueRank);
        if (c != 0) {
            return c;
        }
        return a.spec.id().compareTo(b.spec.id());
    };

    /**
     * The contract; {@link ClusterState#promote} replaces it when unallocated work becomes allocated, and
     * {@link ClusterState#demote} when waiting allocated work becomes unallocated.
     */
    WorkloadSpec spec;
    private final int index;
    private final int leaf;
    private final int shape;
    private final long durationSeconds;
    long minRuntimeSeconds;
    boolean minRuntimeCapped;
    private final long checkpointSeconds;
    /** When the job became allocated by a promotion in place; -1 if it was not (or was demoted since). */
    long promotedAtSeconds = -1;

    /** Orders jobs of one priority submitted in the same second; 0 unless {@link ClusterState#rerank} set it. */
    long queueRank;

    JobState state = JobState.NEW;
    long progressSeconds;
    long attemptStartSeconds = -1;
    long protectedUntilSeconds = -1;
    boolean protectionActive;
    /** Started by the policy, but waiting for GPUs a stopping attempt still holds ({@link ClusterState#launch}). */
    boolean awaitingLaunch;
    Placement placement;
    int attempts;
    int preemptions;
    long firstStartSeconds = -1;
    long endSeconds = -1;
    long lostGpuSeconds;
    long runGpuSeconds;
    long progressReportedSeconds = -1;
    int runningSlot = -1;

    /** @param minRuntimeSeconds the minimum runtime as applied ({@link SchedulerConfig#minRuntimeSecondsOf}) */
    Job(WorkloadSpec spec, int index, int leaf, int shape, long minRuntimeSeconds) {
        this.spec = spec;
        this.index = index;
        this.leaf = leaf;
        this.shape = shape;
        this.durationSeconds = spec.duration().getSeconds();
        this.minRuntimeCapped = spec.minRuntime().getSeconds() > minRuntimeSeconds;
        this.minRuntimeSeconds = minRuntimeSeconds;
        this.checkpointSeconds = spec.checkpointEvery() == null ? 0 : spec.checkpointEvery().getSeconds();
    }

    /**
     * A copy of {@code src} for a {@link ClusterState#fork fork}: the same contract, progress, attempt and history,
     * with the work it needs taken from {@code spec} (the same workload, perhaps with another duration). The
     * placement is shared (it is immutable).
     */
    static Job copyOf(Job src, WorkloadSpec spec) {
        Job j = new Job(spec, src.index, src.leaf, src.shape, src.minRuntimeSeconds);
        j.minRuntimeCapped = src.minRuntimeCapped;
        j.promotedAtSeconds = src.promotedAtSeconds;
        j.queueRank = src.queueRank;
        j.state = src.state;
        j.progressSeconds = src.progressSeconds;
        j.attemptStartSeconds = src.attemptStartSeconds;
        j.protectedUntilSeconds = src.protectedUntilSeconds;
        j.protectionActive = src.protectionActive;
        j.awaitingLaunch = src.awaitingLaunch;
        j.placement = src.placement;
        j.attempts = src.attempts;
        j.preemptions = src.preemptions;
        j.firstStartSeconds = src.firstStartSeconds;
        j.endSeconds = src.endSeconds;
        j.lostGpuSeconds = src.lostGpuSeconds;
        j.runGpuSeconds = src.runGpuSeconds;
        j.progressReportedSeconds = src.progressReportedSeconds;
        j.runningSlot = src.runningSlot;
        return j;
    }

    public WorkloadSpec spec() {
        return spec;
    }

    public String id() {
        return spec.id();
    }

    /** Dense index of the job in its state, in registration order. */
    public int index() {
        return index;
    }

    /** The leaf number of the job's allocation in the allocation tree. */
    public int leaf() {
        return leaf;
    }

    /** The shape id (GPU count and packing) the state assigned; equal shapes share an id. */
    public int shape() {
        return shape;
    }

    public int gpus() {
        return spec.gpus();
    }

    public int gpusPerNode() {
        return spec.gpusPerNode();
    }

    /** True when the job declared a minimum runtime above zero: charged, and protected for that long. */
    public boolean allocated() {
        return minRuntimeSeconds > 0;
    }

    /** The minimum runtime after the cap. */
    public long minRuntimeSeconds() {
        return minRuntimeSeconds;
    }

    public boolean minRuntimeCapped() {
        return minRuntimeCapped;
    }

    public long durationSeconds() {
        return durationSeconds;
    }

    public JobState state() {
        return state;
    }

    public long progressSeconds() {
        return progressSeconds;
    }

    public long remainingSeconds() {
        return durationSeconds - progressSeconds;
    }

    public long attemptStartSeconds() {
        return attemptStartSeconds;
    }

    /** When the current attempt's protection ends (or ended); -1 before the first start. */
    public long protectedUntilSeconds() {
        return protectedUntilSeconds;
    }

    /**
     * Whether the running attempt is inside its minimum runtime at {@code now}; an allocated start that waits to
     * launch is protected the whole time it waits (its minimum runtime has not begun).
     */
    public boolean isProtected(long now) {
        return state == JobState.RUNNING && allocated() && (awaitingLaunch || now < protectedUntilSeconds);
    }

    /**
     * Whether the attempt was started by the policy but waits for GPUs that a stopping attempt still holds: it holds
     * its placement, but its work does not run, it is not charged and its protection has not begun
     * ({@link ClusterState#startWhenStopped}, {@link ClusterState#launch}). While it waits, its attempt start and
     * protection end move with the state's clock (now, and now plus the minimum runtime).
     */
    public boolean awaitingLaunch() {
        return awaitingLaunch;
    }

    /**
     * How long an attempt starting now is protected: the minimum runtime (zero when unallocated). The scheduler does
     * not assume it knows when the work will end; if it ends sooner, the protection simply ends with it.
     */
    public long protectionSecondsIfStarted() {
        return minRuntimeSeconds;
    }

    public Placement placement() {
        return placement;
    }

    public int attempts() {
        return attempts;
    }

    public int preemptions() {
        return preemptions;
    }

    public long firstStartSeconds() {
        return firstStartSeconds;
    }

    public long endSeconds() {
        return endSeconds;
    }

    /** GPU-seconds of work thrown away by preemptions so far. */
    public long lostGpuSeconds() {
        return lostGpuSeconds;
    }

    /** GPU-seconds of running time over all finished attempts. */
    public long runGpuSeconds() {
        return runGpuSeconds;
    }

    /**
     * Progress the job keeps if preempted at {@code now}: for resumable work, everything up to the later of the last
     * checkpoint of this attempt ({@code checkpointEvery} after its start, and every such interval after; everything
     * when {@code checkpointEvery} is null, none when it is {@link WorkloadSpec#NO_CHECKPOINT_KNOWN}) and the last
     * progress report of this attempt ({@link ClusterState#recordProgress}); nothing for non-resumable work. The one
     * rule for lost work, in the simulator and the live service alike.
     */
    public long progressKeptIfPreemptedAt(long now) {
        if (!spec.resumable()) {
            return 0;
        }
        long ran = awaitingLaunch ? 0 : now - attemptStartSeconds;
        if (checkpointSeconds == 0) {
            return progressSeconds + ran;
        }
        long saved = (ran / checkpointSeconds) * checkpointSeconds;
        if (progressReportedSeconds >= attemptStartSeconds) {
            saved = Math.max(saved, Math.min(ran, progressReportedSeconds - attemptStartSeconds));
        }
        return progressSeconds + saved;
    }

    /**
     * GPU-seconds of work that a preemption at {@code now} would throw away: what the attempt ran since the progress
     * it keeps ({@link #progressKeptIfPreemptedAt}), times its GPUs.
     */
    public long workLostIfPreemptedAtGpuSeconds(long now) {
        if (awaitingLaunch) {
            return 0; // it never ran
        }
        long ran = now - attemptStartSeconds;
        long kept = spec.resumable() ? progressKeptIfPreemptedAt(now) - progressSeconds : 0;
        return (ran - kept) * spec.gpus();
    }

    /**
     * When the job, declared unallocated, became allocated in place ({@link ClusterState#promote}): charged and
     * protected from then on, in the same attempt. -1 when it never was, or was demoted since
     * ({@link ClusterState#demote}).
     */
    public long promotedAtSeconds() {
        return promotedAtSeconds;
    }

    /**
     * Where the job stands among the jobs of its allocation with its priority and submission second: lower first
     * ({@link #QUEUE_ORDER}); 0 unless {@link ClusterState#rerank} changed it.
     */
    public long queueRank() {
        return queueRank;
    }

    /** When the running attempt last reported progress; -1 when it has not (or before this attempt). */
    public long progressReportedSeconds() {
        return progressReportedSeconds >= attemptStartSeconds ? progressReportedSeconds : -1;
    }

    @Override
    public String toString() {
        return spec.id() + "[" + state + "]";
    }
}
