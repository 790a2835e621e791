package dev.allot.sim.metrics;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationListener;
import java.util.Arrays;

/**
 * How much of what was owed the run paid, and the most any schedule could have paid, at regular instants of the
 * measurement window ({@code allot simulate --paid-bound}, {@code allot sweep --paid-bound}).
 *
 * <p>At each instant (every {@code stepSeconds}, in the middle of each step) every allocation is owed
 * min(quota, GPUs its allocated work asks for), as in the hourly paid fraction but at that instant; the run paid
 * min(owed, GPUs its allocated work ran on); and the bound is the {@link OwedKnapsack}: the most that whole jobs of
 * each allocation's demand at that instant could pay in the healthy GPUs, ignoring nodes, protection and the cost of
 * preempting. Both sum over the instants. The bound follows this run's demand (what had been submitted and not yet
 * finished), which a different schedule would change, so it is the bound along this run.
 *
 * <p>It keeps its own books from what it hears (submissions, starts, ends, promotions, health), not the state's, and
 * computes each distinct state once however many instants it lasts.
 */
public final class PaidBound implements SimulationListener {
    /** The default spacing of the instants: a quarter of an hour. */
    public static final long DEFAULT_STEP_SECONDS = 900;

    /**
     * The sums over {@code instants} instants, {@code stepSeconds} apart, in GPUs (each instant counts once): what was
     * owed, what the run paid of it, and the most any schedule could have paid; the run's worst allocation (what it
     * was paid over what it was owed, summed over the instants; null when nothing was owed), and the most any
     * schedule could have paid while paying every allocation at least {@code fairFloor} of that
     * ({@link FairPaidBound}; negative when none could; null when nothing was owed or the run was too large to solve).
     */
    public record Result(long stepSeconds, long instants, double owedGpus, double paidGpus, double boundGpus,
                         Double worstPaidFraction, double fairFloor, Double fairBoundGpus) {
        /** The run's paid fraction at the instants; null when nothing was owed. */
        public Double paidFraction() {
            return owedGpus <= 0 ? null : round(paidGpus / owedGpus);
        }

        /** The most any schedule could have paid, as a fraction of what was owed; null when nothing was owed. */
        public Double boundFraction() {
            return owedGpus <= 0 ? null : round(boundGpus / owedGpus);
        }

        /**
         * The most any schedule could have paid while paying every allocation at least {@link #fairFloor} of what it
         * was owed at the instants ({@link FairPaidBound}), as a fraction of what was owed; -1 when no schedule pays
         * every allocation that much; null when nothing was owed or it was not computed.
         */
        public Double fairBoundFraction() {
            if (owedGpus <= 0 || fairBoundGpus == null) {
                return null;
            }
            return fairBoundGpus < 0 ? -1.0 : round(Math.min(boundGpus, fairBoundGpus) / owedGpus);
        }

        private static double round(double v) {
            return Math.round(v * 10_000) / 10_000.0;
        }
    }

    private final long stepSeconds;
    private final long windowSeconds;
    private AllocationTree tree;
    private ClusterState state;
    private int leaves;
    private int maxGpus;
    /** Per allocation, how many allocated jobs of each GPU count are submitted and not finished. */
    private int[][] demandCounts;
    private long[] demandGpus;
    /** Per allocation, GPUs its allocated work runs on. */
    private long[] runningGpus;
    private long healthyGpus;
    /** GPUs in use per node, and which nodes are unhealthy: work keeps running on an unhealthy node until it drains. */
    private int[] busyOnNode;
    private boolean[] unhealthy;
    private long busyOnUnhealthyGpus;
    private long nextInstant;
    private long instants;
    private double owed;
    private double paid;
    private double bound;
    private double[] owedBy;
    private double[] paidBy;
    private final FairPaidBound fair = new FairPaidBound();
    /** The worst-allocation share the bound with a floor asks for: issue 15's goal for the worst allocation. */
    public static final double FAIR_FLOOR = 0.95;

    /**
     * @param stepSeconds   the spacing of the instants (positive)
     * @param windowSeconds instants lie in [0, windowSeconds): the measurement window of the hourly metrics
     */
    public PaidBound(long stepSeconds, long windowSeconds) {
        if (stepSeconds <= 0) {
            throw new IllegalArgumentException("paid bound: the step must be positive, got " + stepSeconds + " s");
        }
        this.stepSeconds = stepSeconds;
        this.windowSeconds = windowSeconds;
        this.nextInstant = stepSeconds / 2;
    }

    @Override
    public void onBegin(ClusterState s) {
        this.state = s;
        this.tree = s.tree();
        this.leaves = tree.leafCount();
        this.maxGpus = Math.max(1, s.cluster().totalGpus());
        this.demandCounts = new int[leaves][];
        this.demandGpus = new long[leaves];
        this.runningGpus = new long[leaves];
        this.owedBy = new double[leaves];
        this.paidBy = new double[leaves];
        this.healthyGpus = s.nodes().healthyGpus();
        int nodes = s.nodes().count();
        this.busyOnNode = new int[nodes];
        this.unhealthy = new boolean[nodes];
        for (int n = 0; n < nodes; n++) {
            unhealthy[n] = !s.nodes().isHealthy(n);
        }
    }

    /** Accounts for every instant before {@code time} with the books as they stand (before anything at {@code time}). */
    public void advanceTo(long time) {
        if (nextInstant >= time || nextInstant >= windowSeconds) {
            return;
        }
        long until = Math.min(time, windowSeconds);
        long count = (until - nextInstant + stepSeconds - 1) / stepSeconds;
        nextInstant += count * stepSeconds;
        instants += count;
        double owedNow = 0;
        double paidNow = 0;
        OwedKnapsack.Demand[] demands = new OwedKnapsack.Demand[leaves];
        double[] owedOf = new double[leaves];
        for (int l = 0; l < leaves; l++) {
            double quota = tree.leafEntitlement(l) * healthyGpus;
            demands[l] = demand(l, quota);
            // the hourly rule at one instant: GPUs for GPU-seconds
            double o = MetricsCollector.owedGpuSeconds(tree.leafEntitlement(l), healthyGpus, demandGpus[l]);
            owedOf[l] = o;
            owedNow += o;
            paidNow += Math.min(o, runningGpus[l]);
            owedBy[l] += o * count;
            paidBy[l] += Math.min(o, runningGpus[l]) * count;
        }
        // any schedule has the healthy GPUs, and those on unhealthy nodes that work still holds (it may finish there)
        int capacity = (int) (healthyGpus + busyOnUnhealthyGpus);
        if (owedNow > 0) {
            fair.add(new FairPaidBound.Instant(count, capacity, demands, owedOf));
        }
        double boundNow = owedNow <= 0 ? 0 : Math.min(owedNow, OwedKnapsack.mostPaid(capacity, demands));
        owed += owedNow * count;
        paid += paidNow * count;
        bound += boundNow * count;
    }

    /** The sums so far (call {@link #advanceTo} with the run's end first). */
    public Result result() {
        Double worst = null;
        for (int l = 0; l < leaves; l++) {
            if (owedBy[l] > 0) {
                double f = paidBy[l] / owedBy[l];
                worst = worst == null ? f : Math.min(worst, f);
            }
        }
        double solved = owed > 0 ? fair.solve(FAIR_FLOOR).boundGpus() : Double.NaN;
        Double fairBound = Double.isNaN(solved) ? null : solved; // NaN: nothing owed, or too large to solve
        return new Result(stepSeconds, instants, owed, paid, bound, worst, FAIR_FLOOR, fairBound);
    }

    private OwedKnapsack.Demand demand(int l, double quota) {
        int[] counts = demandCounts[l];
        if (counts == null) {
            return new OwedKnapsack.Demand(quota, new int[0], new int[0]);
        }
        int n = 0;
        for (int c : counts) {
            if (c > 0) {
                n++;
            }
        }
        int[] sizes = new int[n];
        int[] cs = new int[n];
        int i = 0;
        for (int g = 1; g < counts.length; g++) {
            if (counts[g] > 0) {
                sizes[i] = g;
                cs[i++] = counts[g];
            }
        }
        return new OwedKnapsack.Demand(quota, sizes, cs);
    }

    private void asks(Job job, int sign) {
        int l = job.leaf();
        if (demandCounts[l] == null) {
            demandCounts[l] = new int[Math.min(maxGpus, 64) + 1];
        }
        int g = Math.min(job.gpus(), maxGpus);
        if (g >= demandCounts[l].length) {
            demandCounts[l] = Arrays.copyOf(demandCounts[l], Math.min(maxGpus, Math.max(g, 2 * demandCounts[l].length)) + 1);
        }
        demandCounts[l][g] += sign;
        demandGpus[l] += sign * (long) job.gpus();
    }

    @Override
    public void onSubmit(long time, Job job) {
        if (job.allocated()) {
            asks(job, 1);
        }
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        if (job.allocated()) {
            runningGpus[job.leaf()] += job.gpus();
        }
        occupies(placement, 1);
    }

    private void occupies(Placement placement, int sign) {
        for (int i = 0; i < placement.nodeCount(); i++) {
            int node = placement.node(i);
            busyOnNode[node] += sign * placement.gpusOn(i);
            if (unhealthy[node]) {
                busyOnUnhealthyGpus += sign * placement.gpusOn(i);
            }
        }
    }

    private void stopped(Job job, Placement placement, boolean ended) {
        occupies(placement, -1);
        if (job.allocated()) {
            runningGpus[job.leaf()] -= job.gpus();
            if (ended) {
                asks(job, -1);
            }
        }
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause, ClusterState.PreemptionResult result) {
        stopped(job, placement, !result.requeued());
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        stopped(job, placement, true);
    }

    @Override
    public void onPromote(long time, Job job) {
        asks(job, 1);
        if (job.state() == JobState.RUNNING) {
            runningGpus[job.leaf()] += job.gpus();
        }
    }

    @Override
    public void onDemote(long time, Job job) {
        asks(job, -1);
    }

    @Override
    public void onHealth(long time, String node, boolean healthy) {
        int index = state.cluster().indexOf(node).orElseThrow();
        if (unhealthy[index] == !healthy) {
            return;
        }
        int sign = healthy ? 1 : -1;
        healthyGpus += sign * (long) state.nodes().spec(index).gpus();
        busyOnUnhealthyGpus -= sign * (long) busyOnNode[index];
        unhealthy[index] = !healthy;
    }
}
