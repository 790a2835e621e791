package dev.allot.sim.check;

import dev.allot.core.model.Priority;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationListener;
import dev.allot.sim.metrics.MetricsCollector;
import java.util.List;

/**
 * The simulator's test mode ({@code --check}): after every event it recomputes from scratch what the state keeps
 * incrementally and fails loudly on the first difference.
 *
 * <ul>
 *   <li>No GPU is held by two workloads: per node, the GPUs of the jobs on it plus the free ones equal its
 *   capacity, and every running job is on exactly the nodes of its placement.</li>
 *   <li>No protected workload is preempted: before each preemption is applied, the policy's own promise
 *   ({@link Policy#isProtected}) must not cover the victim. Host loss would be the only excuse; the scenario
 *   format has none, so there is no exception.</li>
 *   <li>Charged GPU-seconds equal allocated occupancy: per allocation, the usage ledger's total equals the
 *   GPU-seconds its allocated attempts ran, counted independently by the metrics (an attempt promoted in place
 *   counts from its promotion, as the metrics heard of it).</li>
 *   <li>The running sums (protected, unprotected, unallocated GPUs, each node's latest protection end) match a
 *   recount.</li>
 *   <li>At the end every workload is accounted for: completed, preempted for good, or still waiting; none running.</li>
 *   <li>With a stop delay: a start that waits for a stopping attempt holds its GPUs in the state but has not run, so
 *   it is not charged and the books of starts (which hear it when it launches) do not count it yet; its protection,
 *   whole while it waits, counts as committed.</li>
 *   <li>The scheduling rules, from books of its own ({@link PolicyRulesCheck}, which hears the run's events through
 *   {@link #listener()}): no GPU given twice for every policy; for the {@code allocation} policy also protection from
 *   the start time and the spec (not the policy's {@code isProtected}), unallocated work never preempting, and
 *   preemptions between allocations only as its rights allow on usage and holdings recounted from the events. The
 *   books are held to the state's at every event (allocated GPUs per allocation) and at every preemption between
 *   allocations (lookback usage, charged plus committed, per allocation), so neither can drift unnoticed.</li>
 * </ul>
 * Costs O(nodes + running jobs) per event, plus O(allocations x runs in the window) per preemption between
 * allocations: for tests and debugging, not for benchmarks.
 */
public final class InvariantChecker {
    private final ClusterState state;
    private final Policy policy;
    private final MetricsCollector metrics;
    private final PolicyRulesCheck rules;

    /**
     * @param allocationRanking the {@code ranking} setting when the policy is {@code allocation} (its rules are then
     *                          checked too); null for any other policy
     */
    public InvariantChecker(ClusterState state, Policy policy, MetricsCollector metrics, Ranking allocationRanking) {
        this.state = state;
        this.policy = policy;
        this.metrics = metrics;
        this.rules = allocationRanking == null
                ? PolicyRulesCheck.forAnyPolicy(state.cluster(), state.tree(), state.config())
                : PolicyRulesCheck.forAllocationPolicy(state.cluster(), state.tree(), state.config(), allocationRanking);
    }

    /** What must hear every event of the run (submissions, starts, preemptions, ...) for the rules' books. */
    public SimulationListener listener() {
        return rules;
    }

    /** Called with each decision before the simulator applies it. */
    public void beforeDecision(long now, Decision d) {
        if (d instanceof Decision.Preempt p) {
            Job j = p.job();
            if (j.state() != JobState.RUNNING) {
                throw new InvariantViolation(now, "policy " + policy.name() + " preempts " + j.id() + " which is " + j.state());
            }
            if (policy.isProtected(j, now)) {
                throw new InvariantViolation(now, "policy " + policy.name() + " preempts protected workload " + j.id()
                        + " (started " + j.attemptStartSeconds() + ", protected until " + j.protectedUntilSeconds()
                        + ") for " + p.cause().kind() + ": " + p.cause().explanation());
            }
            if (p.cause().kind() == PreemptionCause.Kind.HOST_DRAIN && allHealthy(j.placement())) {
                throw new InvariantViolation(now, "drain of " + j.id() + " whose nodes are all healthy");
            }
            Job preemptor = p.cause().preemptorId() == null ? null : state.job(p.cause().preemptorId()).orElse(null);
            if (j.allocated() && preemptor != null && preemptor.leaf() != j.leaf()) {
                booksMatchUsage(now);
            }
        } else if (d instanceof Decision.Start s) {
            if (s.job().state() != JobState.PENDING) {
                throw new InvariantViolation(now, "policy " + policy.name() + " starts " + s.job().id() + " which is " + s.job().state());
            }
        }
    }

    /** The rules' recount of lookback usage (charged in the window plus committed) equals the state's ledger's. */
    private void booksMatchUsage(long now) {
        long[] recount = rules.usageGpuSeconds(now); // starts that wait for a stop included, from the rules' own books
        for (int l = 0; l < state.tree().leafCount(); l++) {
            long ledger = state.windowUsageGpuSeconds(l) + state.committedGpuSeconds(l);
            long books = recount[l];
            if (ledger != books) {
                throw new InvariantViolation(now, "allocation " + state.tree().leafName(l) + " has used " + ledger
                        + " GPU-seconds over the lookback window (charged plus committed) by the state's ledger, but "
                        + books + " by a recount of the runs' starts and ends");
            }
        }
    }

    private boolean allHealthy(Placement p) {
        for (int i = 0; i < p.nodeCount(); i++) {
            if (!state.nodes().isHealthy(p.node(i))) {
                return false;
            }
        }
        return true;
    }

    /** Called after all events and decisions at {@code now} were applied. */
    public void afterEvent(long now) {
        FreeIndex free = state.nodes().free();
        int running = 0;
        long totalFree = 0;
        int leaves = state.tree().leafCount();
        long[] protectedGpus = new long[leaves];
        long[][] unprotected = new long[leaves][Priority.values().length];
        long unallocated = 0;
        for (int n = 0; n < state.nodes().count(); n++) {
            int used = 0;
            int protectedJobs = 0;
            long latest = Long.MIN_VALUE;
            for (Job j : state.nodes().jobsOn(n)) {
                if (j.isProtected(now)) {
                    protectedJobs++;
                }
                if (j.allocated()) {
                    latest = Math.max(latest, j.protectedUntilSeconds());
                }
                if (j.state() != JobState.RUNNING) {
                    throw new InvariantViolation(now, "node " + state.nodes().name(n) + " lists " + j.id() + " which is " + j.state());
                }
                int g = j.placement().gpusOnNode(n);
                if (g == 0) {
                    throw new InvariantViolation(now, "node " + state.nodes().name(n) + " lists " + j.id() + " whose placement " + j.placement()
                            + " does not include it");
                }
                used += g;
            }
            if (protectedJobs != state.nodes().protectedJobsOn(n)) {
                throw new InvariantViolation(now, "node " + state.nodes().name(n) + " runs " + protectedJobs
                        + " protected jobs but the state counts " + state.nodes().protectedJobsOn(n));
            }
            boolean filed = state.nodes().isHealthy(n) && protectedJobs == 0 && free.capacity(n) == state.nodes().wholeNodes().wholeNodeGpus();
            if (filed != state.nodes().wholeNodes().contains(n)) {
                throw new InvariantViolation(now, "node " + state.nodes().name(n) + " should " + (filed ? "" : "not ")
                        + "be in the whole-node index");
            }
            if (latest != state.nodes().latestProtectionEnd(n)) {
                throw new InvariantViolation(now, "node " + state.nodes().name(n) + ": latest protection end is " + latest
                        + " but the state keeps " + state.nodes().latestProtectionEnd(n));
            }
            if (used + free.free(n) != free.capacity(n)) {
                throw new InvariantViolation(now, "node " + state.nodes().name(n) + ": jobs hold " + used + " GPUs and " + free.free(n)
                        + " are free, but it has " + free.capacity(n) + " (a GPU given twice, or lost)");
            }
            if (state.nodes().isHealthy(n)) {
                totalFree += free.free(n);
            }
            if (free.isSchedulable(n) != state.nodes().isHealthy(n)) {
                throw new InvariantViolation(now, "node " + state.nodes().name(n) + " schedulable=" + free.isSchedulable(n)
                        + " but healthy=" + state.nodes().isHealthy(n));
            }
        }
        if (totalFree != free.totalFree()) {
            throw new InvariantViolation(now, "free GPUs on healthy nodes are " + totalFree + " but the index says " + free.totalFree());
        }
        for (int l = 0; l < leaves; l++) {
            long charged = state.totalChargedGpuSeconds(l);
            long ran = metrics.allocatedRunGpuSecondsFinished(l);
            long waiting = 0;
            for (Job j : state.running().allocated(l)) {
                running++;
                checkOnNodes(now, j);
                if (j.awaitingLaunch()) {
                    waiting += j.gpus(); // holds its GPUs, has not run: not charged, not yet in the books of starts
                } else {
                    ran += (now - metrics.chargedSinceSeconds(j)) * j.gpus();
                }
                if (j.isProtected(now)) {
                    protectedGpus[l] += j.gpus();
                } else {
                    unprotected[l][j.spec().priority().ordinal()] += j.gpus();
                }
            }
            if (charged != ran) {
                throw new InvariantViolation(now, "allocation " + state.tree().leafName(l) + " was charged " + charged
                        + " GPU-seconds but its allocated work ran " + ran);
            }
            if (rules.heldAllocatedGpus(l) != state.protections().heldGpus(l) - waiting) {
                throw new InvariantViolation(now, "allocation " + state.tree().leafName(l) + " runs "
                        + rules.heldAllocatedGpus(l) + " allocated GPUs by the books of starts and ends, but the state"
                        + " counts " + (state.protections().heldGpus(l) - waiting) + " launched");
            }
            if (protectedGpus[l] != state.protections().protectedGpus(l)) {
                throw new InvariantViolation(now, "allocation " + state.tree().leafName(l) + " has " + protectedGpus[l]
                        + " protected GPUs running but the state counts " + state.protections().protectedGpus(l));
            }
            for (Priority p : Priority.values()) {
                if (unprotected[l][p.ordinal()] != state.protections().unprotectedGpus(l, p)) {
                    throw new InvariantViolation(now, "allocation " + state.tree().leafName(l) + " priority " + p.label() + " has "
                            + unprotected[l][p.ordinal()] + " unprotected GPUs running but the state counts " + state.protections().unprotectedGpus(l, p));
                }
            }
        }
        for (Job j : state.running().unallocated()) {
            running++;
            checkOnNodes(now, j);
            unallocated += j.gpus();
        }
        if (unallocated != state.running().unallocatedGpus()) {
            throw new InvariantViolation(now, unallocated + " unallocated GPUs running but the state counts " + state.running().unallocatedGpus());
        }
        if (running != state.running().count()) {
            throw new InvariantViolation(now, running + " jobs running but the state counts " + state.running().count());
        }
    }

    private void checkOnNodes(long now, Job j) {
        Placement p = j.placement();
        if (p == null || p.totalGpus() != j.gpus()) {
            throw new InvariantViolation(now, "running job " + j.id() + " has placement " + p + " for " + j.gpus() + " GPUs");
        }
        for (int i = 0; i < p.nodeCount(); i++) {
            if (!state.nodes().jobsOn(p.node(i)).contains(j)) {
                throw new InvariantViolation(now, "running job " + j.id() + " is placed on " + state.nodes().name(p.node(i))
                        + " but the node does not list it");
            }
        }
    }

    /** Called once at the end: every workload is accounted for. */
    public void atEnd(long now, int submitted) {
        List<Job> jobs = state.jobs();
        if (jobs.size() != submitted) {
            throw new InvariantViolation(now, submitted + " workloads submitted but the state knows " + jobs.size());
        }
        for (Job j : jobs) {
            if (j.state() == JobState.RUNNING || j.state() == JobState.NEW) {
                throw new InvariantViolation(now, "workload " + j.id() + " is " + j.state() + " at the end");
            }
        }
        afterEvent(now);
    }
}
