package dev.allot.sim.forecast;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationListener;
import dev.allot.sim.metrics.MetricsCollector;

/**
 * What each allocation received and was owed over a what-if's horizon, hour by hour from the fork's time, by the
 * simulator's definitions ({@link MetricsCollector}): per hour, the GPU-seconds its allocated work ran (charged), the
 * GPU-seconds its allocated work asked for (waiting or running) and the healthy GPU-seconds of the cluster; owed and
 * paid come from {@link MetricsCollector#owedGpuSeconds} and {@link MetricsCollector#paidGpuSeconds}. It differs from
 * the collector only in where hours start (the fork's time, not time 0) and in starting from a state that already
 * has work (read from the fork when made, not from time 0).
 *
 * <p>It listens to a {@link dev.allot.sim.ForwardRun}, integrating the current rates exactly between events.
 */
final class HorizonUsage implements SimulationListener {
    private static final long HOUR = 3600;

    private final ClusterState state;
    private final long fromSeconds;
    private final long untilSeconds;
    private final int leaves;
    private final long[][] received;
    private final long[][] demand;
    private final long[] healthy;
    private final long[] runningAllocated;
    private final long[] demandAllocated;
    private long healthyGpus;
    private long last;

    /** Starts measuring {@code fork} at its time, up to {@code untilSeconds}. */
    HorizonUsage(ClusterState fork, long untilSeconds) {
        this.state = fork;
        this.fromSeconds = fork.now();
        this.untilSeconds = untilSeconds;
        this.leaves = fork.tree().leafCount();
        int hours = (int) Math.max(1, (untilSeconds - fromSeconds + HOUR - 1) / HOUR);
        this.received = new long[leaves][hours];
        this.demand = new long[leaves][hours];
        this.healthy = new long[hours];
        this.runningAllocated = new long[leaves];
        this.demandAllocated = new long[leaves];
        for (Job j : fork.jobs()) {
            if (!j.allocated() || j.state().isFinal()) {
                continue;
            }
            demandAllocated[j.leaf()] += j.gpus();
            if (j.state() == JobState.RUNNING) {
                runningAllocated[j.leaf()] += j.gpus();
            }
        }
        this.healthyGpus = fork.nodes().healthyGpus();
        this.last = fromSeconds;
    }

    /** Integrates the current rates up to {@code time} (at most the horizon). */
    void advanceTo(long time) {
        long to = Math.min(time, untilSeconds);
        while (last < to) {
            int hour = (int) ((last - fromSeconds) / HOUR);
            long end = Math.min(to, fromSeconds + (hour + 1) * HOUR);
            long dt = end - last;
            for (int l = 0; l < leaves; l++) {
                received[l][hour] += runningAllocated[l] * dt;
                demand[l][hour] += demandAllocated[l] * dt;
            }
            healthy[hour] += healthyGpus * dt;
            last = end;
        }
    }

    @Override
    public void onSubmit(long time, Job job) {
        advanceTo(time);
        if (job.allocated()) {
            demandAllocated[job.leaf()] += job.gpus();
        }
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        advanceTo(time);
        if (job.allocated()) {
            runningAllocated[job.leaf()] += job.gpus();
        }
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause,
                          ClusterState.PreemptionResult result) {
        stopped(time, job, !result.requeued());
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        stopped(time, job, true);
    }

    private void stopped(long time, Job job, boolean ended) {
        advanceTo(time);
        if (job.allocated()) {
            runningAllocated[job.leaf()] -= job.gpus();
            if (ended) {
                demandAllocated[job.leaf()] -= job.gpus();
            }
        }
    }

    @Override
    public void onHealth(long time, String node, boolean isHealthy) {
        advanceTo(time);
        int n = state.cluster().indexOf(node).orElseThrow();
        healthyGpus += (isHealthy ? 1 : -1) * (long) state.nodes().spec(n).gpus();
    }

    /** Allocated GPU-seconds leaf {@code leaf} ran within the horizon (what it was charged). */
    long receivedGpuSeconds(int leaf) {
        long s = 0;
        for (long v : received[leaf]) {
            s += v;
        }
        return s;
    }

    /** Owed GPU-seconds of leaf {@code leaf} over the horizon at entitlement {@code entitlement}. */
    double owedGpuSeconds(int leaf, double entitlement) {
        double s = 0;
        for (int h = 0; h < healthy.length; h++) {
            s += MetricsCollector.owedGpuSeconds(entitlement, healthy[h], demand[leaf][h]);
        }
        return s;
    }

    /** Paid GPU-seconds of leaf {@code leaf} over the horizon: hour by hour, received up to owed. */
    double paidGpuSeconds(int leaf, double entitlement) {
        double s = 0;
        for (int h = 0; h < healthy.length; h++) {
            double owed = MetricsCollector.owedGpuSeconds(entitlement, healthy[h], demand[leaf][h]);
            s += MetricsCollector.paidGpuSeconds(owed, received[leaf][h]);
        }
        return s;
    }
}
