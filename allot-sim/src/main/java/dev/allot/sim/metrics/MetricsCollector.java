package dev.allot.sim.metrics;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Integrates what happens in a simulation into hourly series and counters, and turns them into
 * {@link PolicyMetrics} at the end. It keeps current rates (GPUs running allocated and unallocated per
 * allocation, GPUs asked for, healthy and busy GPUs) and integrates them exactly between events, split at hour
 * boundaries; the simulator calls {@link #advanceTo} before applying anything that happens at a new time.
 * Per-event cost is O(allocations), independent of how many workloads have finished.
 */
public final class MetricsCollector implements SimulationListener {
    /** Workloads that count as debug even without kind {@code debug}: at most this many GPUs ... */
    public static final int DEBUG_MAX_GPUS = 8;
    /** ... and at most this declared minimum runtime. */
    public static final long DEBUG_MAX_MIN_RUNTIME_SECONDS = 15 * 60;
    /** Workloads with at least this many GPUs are {@code large}. */
    public static final int LARGE_MIN_GPUS = 64;

    private final ClusterState state;
    private final AllocationTree tree;
    private final int leaves;
    private final long windowSeconds;
    /** Hours in one period of the window-level paid metric: the ledger's lookback window, in whole hours rounded up. */
    private final int lookbackHours;
    private long last;

    private final long[] allocRunning;
    private final long[] unallocRunning;
    private final long[] demandAlloc;
    private long demandAll;
    private long healthyGpus;
    private long busyHealthy;
    private long busyHealthyUnalloc;
    /** GPUs running work on any node, healthy or not: the rate whose integral is the delivered GPU-time. */
    private long runningGpus;
    private long deliveredGpuSeconds;

    private final Hourly[] receivedAlloc;
    private final Hourly[] receivedUnalloc;
    private final Hourly[] demand;
    private final Hourly healthy = new Hourly();
    private final Hourly busy = new Hourly();
    private final Hourly busyUnalloc = new Hourly();
    private final Hourly demandTotal = new Hourly();
    /** Healthy and busy GPU-time while some submitted work waited (asked for more GPUs than ran). */
    private final Hourly healthyWaiting = new Hourly();
    private final Hourly busyWaiting = new Hourly();

    private long preemptions;
    private long unallocatedPreemptions;
    private long allocatedLostGpuSeconds;
    private long drainEvictions;
    private long requeues;
    private long lostGpuSeconds;
    private final long[] preemptionsByLeaf;
    private final long[] allocatedRunGpuSecondsFinished;

    /**
     * When each running attempt that was promoted in place became charged (its promotion), by job: charges run from
     * there, not from the attempt's start. Kept here, not read from the job, so the charged-equals-occupancy check
     * stays independent of the state.
     */
    private final Map<Job, Long> promotedRunningSince = new HashMap<>();

    private final long[] unhealthySince;
    private final long[] contractEnd;
    private long drainBlockedSeconds;
    private int drains;
    private int drainsWithoutWaiting;

    /**
     * @param lastSubmitSeconds the last submission time; the window is the whole hours through that hour
     */
    public MetricsCollector(ClusterState state, long lastSubmitSeconds) {
        this.state = state;
        this.tree = state.tree();
        this.leaves = tree.leafCount();
        this.windowSeconds = (Math.max(0, lastSubmitSeconds) / 3600 + 1) * 3600;
        this.lookbackHours = (int) Math.max(1, (state.ledger().windowSeconds() + 3599) / 3600);
        this.allocRunning = new long[leaves];
        this.unallocRunning = new long[leaves];
        this.demandAlloc = new long[leaves];
        this.receivedAlloc = new Hourly[leaves];
        this.receivedUnalloc = new Hourly[leaves];
        this.demand = new Hourly[leaves];
        for (int l = 0; l < leaves; l++) {
            receivedAlloc[l] = new Hourly();
            receivedUnalloc[l] = new Hourly();
            demand[l] = new Hourly();
        }
        this.preemptionsByLeaf = new long[leaves];
        this.allocatedRunGpuSecondsFinished = new long[leaves];
        this.healthyGpus = state.nodes().healthyGpus();
        int nodes = state.nodes().count();
        this.unhealthySince = new long[nodes];
        this.contractEnd = new long[nodes];
        java.util.Arrays.fill(unhealthySince, -1);
        this.last = state.now();
    }

    /** Integrates the current rates up to {@code time}. */
    public void advanceTo(long time) {
        while (last < time) {
            int hour = (int) (last / 3600);
            long until = Math.min(time, (hour + 1) * 3600L);
            long dt = until - last;
            for (int l = 0; l < leaves; l++) {
                if (allocRunning[l] != 0) {
                    receivedAlloc[l].add(hour, allocRunning[l] * dt);
                }
                if (unallocRunning[l] != 0) {
                    receivedUnalloc[l].add(hour, unallocRunning[l] * dt);
                }
                if (demandAlloc[l] != 0) {
                    demand[l].add(hour, demandAlloc[l] * dt);
                }
            }
            healthy.add(hour, healthyGpus * dt);
            busy.add(hour, busyHealthy * dt);
            busyUnalloc.add(hour, busyHealthyUnalloc * dt);
            demandTotal.add(hour, demandAll * dt);
            if (demandAll > runningGpus) {
                healthyWaiting.add(hour, healthyGpus * dt);
                busyWaiting.add(hour, busyHealthy * dt);
            }
            deliveredGpuSeconds += runningGpus * dt;
            last = until;
        }
    }

    @Override
    public void onSubmit(long time, Job job) {
        demandAll += job.gpus();
        if (job.allocated()) {
            demandAlloc[job.leaf()] += job.gpus();
        }
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        if (job.allocated()) {
            allocRunning[job.leaf()] += job.gpus();
        } else {
            unallocRunning[job.leaf()] += job.gpus();
            busyHealthyUnalloc += job.gpus();
        }
        busyHealthy += job.gpus();
        runningGpus += job.gpus();
    }

    private void stopped(long time, Job job, Placement placement, boolean ended) {
        int onHealthy = 0;
        for (int i = 0; i < placement.nodeCount(); i++) {
            if (state.nodes().isHealthy(placement.node(i))) {
                onHealthy += placement.gpusOn(i);
            }
        }
        busyHealthy -= onHealthy;
        runningGpus -= job.gpus();
        if (job.allocated()) {
            allocRunning[job.leaf()] -= job.gpus();
            allocatedRunGpuSecondsFinished[job.leaf()] += (time - chargedSinceSeconds(job)) * job.gpus();
            promotedRunningSince.remove(job);
        } else {
            unallocRunning[job.leaf()] -= job.gpus();
            busyHealthyUnalloc -= onHealthy;
        }
        if (ended) {
            demandAll -= job.gpus();
            if (job.allocated()) {
                demandAlloc[job.leaf()] -= job.gpus();
            }
        }
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause, ClusterState.PreemptionResult result) {
        stopped(time, job, placement, !result.requeued());
        lostGpuSeconds += result.lostGpuSeconds();
        if (job.allocated()) {
            allocatedLostGpuSeconds += result.lostGpuSeconds();
        }
        if (result.requeued()) {
            requeues++;
        }
        if (cause.kind() == PreemptionCause.Kind.HOST_DRAIN) {
            drainEvictions++;
        } else {
            preemptions++;
            if (!job.allocated()) {
                unallocatedPreemptions++;
            }
            preemptionsByLeaf[job.leaf()]++;
        }
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        stopped(time, job, placement, true);
    }

    /**
     * Unallocated work became allocated in place: its GPUs count as asked for by allocated work from now, and a
     * running attempt's as received allocated (charged from now, not from its start).
     */
    @Override
    public void onPromote(long time, Job job) {
        demandAlloc[job.leaf()] += job.gpus();
        if (job.state() == JobState.RUNNING) {
            Placement placement = job.placement();
            int onHealthy = 0;
            for (int i = 0; i < placement.nodeCount(); i++) {
                if (state.nodes().isHealthy(placement.node(i))) {
                    onHealthy += placement.gpusOn(i);
                }
            }
            unallocRunning[job.leaf()] -= job.gpus();
            busyHealthyUnalloc -= onHealthy;
            allocRunning[job.leaf()] += job.gpus();
            promotedRunningSince.put(job, time);
        }
    }

    /** Waiting allocated work became unallocated: it no longer counts as asked for by allocated work. */
    @Override
    public void onDemote(long time, Job job) {
        demandAlloc[job.leaf()] -= job.gpus();
    }

    /**
     * When the running allocated attempt of {@code job} became charged, as these metrics saw it: its promotion in
     * place, else its start. For the charged-equals-occupancy invariant.
     */
    public long chargedSinceSeconds(Job job) {
        Long promoted = promotedRunningSince.get(job);
        return promoted != null ? promoted : job.attemptStartSeconds();
    }

    /** Called after the state changed the node's health. */
    @Override
    public void onHealth(long time, String nodeName, boolean isHealthy) {
        int node = state.cluster().indexOf(nodeName).orElseThrow();
        int capacity = state.nodes().spec(node).gpus();
        int used = capacity - state.nodes().free().free(node);
        int usedUnalloc = 0;
        for (Job j : state.nodes().jobsOn(node)) {
            if (!j.allocated()) {
                usedUnalloc += j.placement().gpusOnNode(node);
            }
        }
        int sign = isHealthy ? 1 : -1;
        healthyGpus += sign * capacity;
        busyHealthy += sign * used;
        busyHealthyUnalloc += sign * usedUnalloc;
        if (!isHealthy) {
            unhealthySince[node] = time;
            long end = time;
            for (Job j : state.nodes().jobsOn(node)) {
                end = Math.max(end, j.attemptStartSeconds() + j.minRuntimeSeconds());
            }
            contractEnd[node] = end;
        } else if (unhealthySince[node] >= 0) {
            closeEpisode(node, time);
        }
    }

    @Override
    public void onDrained(long time, String nodeName) {
        int node = state.cluster().indexOf(nodeName).orElseThrow();
        if (unhealthySince[node] >= 0) {
            closeEpisode(node, time);
        }
    }

    private void closeEpisode(int node, long time) {
        long blocked = Math.max(0, time - Math.max(unhealthySince[node], contractEnd[node]));
        drainBlockedSeconds += blocked;
        drains++;
        if (blocked == 0) {
            drainsWithoutWaiting++;
        }
        unhealthySince[node] = -1;
    }

    /** Allocated GPU-seconds run by a leaf's finished attempts (for the charged-equals-occupancy invariant). */
    public long allocatedRunGpuSecondsFinished(int leaf) {
        return allocatedRunGpuSecondsFinished[leaf];
    }

    /** The measurement window: whole hours from time 0 through the hour of the last submission. */
    public long windowSeconds() {
        return windowSeconds;
    }

    /** Hours in one period of {@link PolicyMetrics#paidFractionWindow()}: the lookback window, rounded up to hours. */
    public int lookbackHours() {
        return lookbackHours;
    }

    /** Hourly series for reports: received allocated/unallocated and demand per leaf, healthy and busy GPUs. */
    public HourlyUsage hourly() {
        return new HourlyUsage(List.of(receivedAlloc), List.of(receivedUnalloc), List.of(demand), healthy, busy, busyUnalloc, demandTotal);
    }

    /**
     * Whether a workload counts as {@code debug}: kind debug, or allocated, small and short-protected (at most 8 GPUs,
     * minimum runtime above 0 and at most 15 minutes). Unallocated work (minimum runtime 0) is not debug work: it
     * waits for idle GPUs by design, and counting it would drown the waits debug users see.
     */
    public static boolean isDebug(Job j) {
        long min = j.spec().minRuntime().getSeconds();
        return "debug".equals(j.spec().kind())
                || (j.gpus() <= DEBUG_MAX_GPUS && min > 0 && min <= DEBUG_MAX_MIN_RUNTIME_SECONDS);
    }

    public static boolean isLarge(Job j) {
        return j.gpus() >= LARGE_MIN_GPUS;
    }

    /** Closes open drain episodes and computes the metrics. */
    public PolicyMetrics finish(long endTime, String policy, SortedMap<String, String> settings) {
        advanceTo(endTime);
        for (int n = 0; n < unhealthySince.length; n++) {
            if (unhealthySince[n] >= 0) {
                closeEpisode(n, endTime);
            }
        }
        int windowHours = (int) (windowSeconds / 3600);
        WaitStats.Recorder all = new WaitStats.Recorder();
        WaitStats.Recorder debug = new WaitStats.Recorder();
        WaitStats.Recorder large = new WaitStats.Recorder();
        WaitStats.Recorder[] byLeaf = new WaitStats.Recorder[leaves];
        int[] workloadsByLeaf = new int[leaves];
        for (int l = 0; l < leaves; l++) {
            byLeaf[l] = new WaitStats.Recorder();
        }
        int completed = 0;
        int preemptedFinal = 0;
        int unfinished = 0;
        int capped = 0;
        List<Job> jobs = state.jobs();
        for (Job j : jobs) {
            workloadsByLeaf[j.leaf()]++;
            if (j.minRuntimeCapped()) {
                capped++;
            }
            switch (j.state()) {
                case COMPLETED -> completed++;
                case PREEMPTED -> preemptedFinal++;
                default -> unfinished++;
            }
            boolean d = isDebug(j);
            boolean lg = isLarge(j);
            if (j.firstStartSeconds() >= 0) {
                long w = j.firstStartSeconds() - j.spec().submitSeconds();
                all.record(w);
                byLeaf[j.leaf()].record(w);
                if (d) {
                    debug.record(w);
                }
                if (lg) {
                    large.record(w);
                }
            } else {
                all.neverStarted();
                byLeaf[j.leaf()].neverStarted();
                if (d) {
                    debug.neverStarted();
                }
                if (lg) {
                    large.neverStarted();
                }
            }
        }
        double owedTotal = 0;
        double paidTotal = 0;
        double paidDailyTotal = 0;
        double paidWindowTotal = 0;
        double[] owedByHour = new double[windowHours];
        List<AllocationMetrics> allocations = new ArrayList<>(leaves);
        for (int l = 0; l < leaves; l++) {
            double ent = tree.leafEntitlement(l);
            double owed = 0;
            double paid = 0;
            for (int h = 0; h < windowHours; h++) {
                double o = owedGpuSeconds(ent, healthy.get(h), demand[l].get(h));
                owedByHour[h] = o;
                owed += o;
                paid += paidGpuSeconds(o, receivedAlloc[l].get(h));
            }
            double paidDaily = paidOverPeriods(owedByHour, receivedAlloc[l], 24);
            double paidWindow = paidOverPeriods(owedByHour, receivedAlloc[l], lookbackHours);
            owedTotal += owed;
            paidTotal += paid;
            paidDailyTotal += paidDaily;
            paidWindowTotal += paidWindow;
            allocations.add(new AllocationMetrics(tree.leafName(l), tree.path(tree.leafNode(l)), round(ent, 6),
                    round(owed / 3600, 2), round(receivedAlloc[l].sum(0, windowHours) / 3600.0, 2),
                    fraction(paid, owed), fraction(paidDaily, owed), fraction(paidWindow, owed),
                    round(receivedUnalloc[l].sum(0, windowHours) / 3600.0, 2),
                    workloadsByLeaf[l], preemptionsByLeaf[l], byLeaf[l].stats()));
        }
        double healthySum = healthy.sum(0, windowHours);
        double busySum = busy.sum(0, windowHours);
        double healthyWaitingSum = healthyWaiting.sum(0, windowHours);
        SortedMap<String, WaitStats> waits = new TreeMap<>();
        waits.put("all", all.stats());
        waits.put("debug", debug.stats());
        waits.put("large", large.stats());
        return new PolicyMetrics(policy, new TreeMap<>(settings), jobs.size(), completed, preemptedFinal, unfinished, capped,
                healthySum > 0 ? round(busySum / healthySum, 4) : 0,
                healthyWaitingSum > 0 ? round(busyWaiting.sum(0, windowHours) / healthyWaitingSum, 4) : null,
                busySum > 0 ? round(busyUnalloc.sum(0, windowHours) / busySum, 4) : 0,
                fraction(paidTotal, owedTotal), fraction(paidDailyTotal, owedTotal), fraction(paidWindowTotal, owedTotal),
                healthySum > 0 ? round(demandTotal.sum(0, windowHours) / healthySum, 3) : 0,
                waits, preemptions, unallocatedPreemptions, drainEvictions, requeues,
                round(lostGpuSeconds / 3600.0, 2), round(deliveredGpuSeconds / 3600.0, 2),
                deliveredGpuSeconds > 0 ? round((double) lostGpuSeconds / deliveredGpuSeconds, 4) : 0,
                deliveredGpuSeconds > 0 ? round((double) allocatedLostGpuSeconds / deliveredGpuSeconds, 4) : 0,
                round(drainBlockedSeconds / 3600.0, 2), drains, drainsWithoutWaiting,
                windowSeconds, allocations, null);
    }

    /**
     * What fair share owes an allocation for one hour: its entitlement of the healthy GPU-time, but no more than its
     * allocated work asked for. The paid fraction and the report's owed line both come from here.
     */
    public static double owedGpuSeconds(double entitlement, long healthyGpuSeconds, long demandGpuSeconds) {
        return Math.min(entitlement * healthyGpuSeconds, demandGpuSeconds);
    }

    /**
     * Owed GPU-time paid when shortfalls and surpluses within a period even out: the window's hours are cut into
     * periods of {@code periodHours} from time 0 (the last one may be shorter), and each period pays the smaller of
     * what the allocation received allocated in it and what it was owed in it (the sum of its hours' owed).
     *
     * @param owedByHour owed GPU-seconds of each hour of the window (its length is the window in hours)
     */
    static double paidOverPeriods(double[] owedByHour, Hourly received, int periodHours) {
        double paid = 0;
        for (int from = 0; from < owedByHour.length; from += periodHours) {
            int to = Math.min(owedByHour.length, from + periodHours);
            double owed = 0;
            for (int h = from; h < to; h++) {
                owed += owedByHour[h];
            }
            paid += paidGpuSeconds(owed, received.sum(from, to));
        }
        return paid;
    }

    /**
     * What of an hour's (or a period's) owed GPU-time was paid: what the allocation's allocated work received in it,
     * up to what it was owed; received beyond that pays nothing. Paid fractions sum this over hours or periods.
     */
    public static double paidGpuSeconds(double owedGpuSeconds, long receivedGpuSeconds) {
        return Math.min(receivedGpuSeconds, owedGpuSeconds);
    }

    /** A paid fraction: paid / owed rounded to 4 decimals; null when nothing was owed. */
    public static Double paidFraction(double paid, double owed) {
        return fraction(paid, owed);
    }

    private static Double fraction(double paid, double owed) {
        return owed > 0 ? round(paid / owed, 4) : null;
    }

    static double round(double v, int decimals) {
        return java.math.BigDecimal.valueOf(v).setScale(decimals, java.math.RoundingMode.HALF_EVEN).doubleValue();
    }
}
