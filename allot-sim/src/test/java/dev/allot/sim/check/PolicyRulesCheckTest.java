package dev.allot.sim.check;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.Priority;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.sim.Scenario;
import dev.allot.sim.ScenarioBuilder;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link PolicyRulesCheck} fails on a fabricated event stream that breaks it, and the same stream with
 * the rule kept passes. The streams are fed to the check directly (no policy, no simulator): the jobs come from a
 * state that never runs them, so {@code Job.isProtected} and the state's books say nothing, and whatever the check
 * finds it found in its own books. Two nodes of 8 GPUs; allocations A and B of 50% each (quota 8 GPUs); the
 * default lookback (7 days in hour buckets) and minimum-runtime cap (8 h).
 */
class PolicyRulesCheckTest {
    private static final long H = 3600;

    private static Scenario lab() {
        return given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("20h").minRuntime("2h").at("0s"))
                .workload(w("a2").in("A").gpus(8).runs("20h").minRuntime("1h").at("0s"))
                .workload(w("a3").in("A").gpus(8).runs("20h").minRuntime("1h").priority(Priority.HIGH).at("0s"))
                .workload(w("a4").in("A").gpus(8).runs("20h").minRuntime("12h").at("0s"))
                .workload(w("b0").in("B").gpus(8).runs("5h").minRuntime("1h").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("20h").minRuntime("1h").at("0s"))
                .workload(w("b2").in("B").gpus(8).runs("20h").minRuntime("1h").at("0s"))
                .workload(w("u1").in("B").gpus(8).runs("20h").unallocated().at("0s"))
                .scenario();
    }

    /** A fabricated run: events in the order given, at the times given. */
    private static final class Events {
        final PolicyRulesCheck check;
        final Map<String, Job> jobs = new HashMap<>();

        Events(Ranking ranking) {
            Scenario s = lab();
            ClusterState state = new ClusterState(s.cluster(), s.tree(), s.policyConfig().scheduler(), 0);
            check = ranking == null ? PolicyRulesCheck.forAnyPolicy(s.cluster(), s.tree(), s.policyConfig().scheduler())
                    : PolicyRulesCheck.forAllocationPolicy(s.cluster(), s.tree(), s.policyConfig().scheduler(), ranking);
            s.workloads().forEach(spec -> {
                Job j = state.register(spec);
                jobs.put(j.id(), j);
                check.onSubmit(0, j);
            });
        }

        Events start(long t, String id, int node) {
            check.onStart(t, jobs.get(id), new Placement(new int[] {node}, new int[] {8}), "test");
            return this;
        }

        Events complete(long t, String id) {
            check.onComplete(t, jobs.get(id), null);
            return this;
        }

        Events preempt(long t, String victim, String preemptor) {
            return preempt(t, victim, PreemptionCause.by(PreemptionCause.Kind.FAIR_SHARE, preemptor, "test"));
        }

        Events preempt(long t, String victim, PreemptionCause cause) {
            check.onPreempt(t, jobs.get(victim), null, cause, null);
            return this;
        }
    }

    @Test
    void preemptingWorkInsideItsMinimumRuntimeFailsAndAfterItPasses() {
        assertThatThrownBy(() -> new Events(Ranking.ENTITLEMENT).start(0, "a1", 0).preempt(H, "a1", "b2"))
                .isInstanceOf(InvariantViolation.class)
                .hasMessage("invariant broken at t=3600s: preempts protected workload a1: its attempt began at 0 with a minimum runtime"
                        + " of 7200 s, protected until 7200 (FAIR_SHARE for b2: test)");
        new Events(Ranking.ENTITLEMENT).start(0, "a1", 0).preempt(2 * H, "a1", "b2");
        // the declared 12 h minimum runtime is capped at 8 h
        assertThatThrownBy(() -> new Events(Ranking.ENTITLEMENT).start(0, "a4", 0).preempt(8 * H - 1, "a4", "b2"))
                .hasMessageContaining("protected until 28800");
        new Events(Ranking.ENTITLEMENT).start(0, "a4", 0).preempt(8 * H, "a4", "b2");
    }

    @Test
    void unallocatedWorkPreemptingFails() {
        assertThatThrownBy(() -> new Events(Ranking.ENTITLEMENT).start(0, "a1", 0).preempt(3 * H, "a1", "u1"))
                .hasMessageContaining("unallocated work u1 preempts a1: unallocated work (minimum runtime 0) never"
                        + " preempts");
        // allocated work takes unallocated work's GPUs at any time
        new Events(Ranking.ENTITLEMENT).start(0, "u1", 0).preempt(1, "u1",
                PreemptionCause.by(PreemptionCause.Kind.UNALLOCATED, "a1", "test"));
    }

    @Test
    void onlyStrictlyHigherPriorityPreemptsInsideAnAllocation() {
        assertThatThrownBy(() -> new Events(Ranking.ENTITLEMENT).start(0, "a1", 0).preempt(3 * H, "a1",
                PreemptionCause.by(PreemptionCause.Kind.PRIORITY, "a2", "test")))
                .hasMessageContaining("a2 (normal) preempts a1 (normal) of the same allocation A: only strictly"
                        + " higher-priority work may");
        new Events(Ranking.ENTITLEMENT).start(0, "a1", 0).preempt(3 * H, "a1",
                PreemptionCause.by(PreemptionCause.Kind.PRIORITY, "a3", "test"));
    }

    /**
     * B ran b0 (0-5 h) and runs b1 (from 0): 104 GPU-hours in the window by 8 h; A runs a1 from 5 h: 24. B holds 8
     * GPUs, its quota: not owed, and A is lower on the window, so B's work may not take A's; A's may take B's.
     */
    private static Events bUsedMoreAndHoldsItsQuota(Ranking ranking) {
        return new Events(ranking).start(0, "b0", 0).start(0, "b1", 1).complete(5 * H, "b0").start(5 * H, "a1", 0);
    }

    @Test
    void aPreemptionBetweenAllocationsByOneNeitherOwedNorAheadOnTheWindowFails() {
        assertThatThrownBy(() -> bUsedMoreAndHoldsItsQuota(Ranking.ENTITLEMENT).preempt(8 * H, "a1", "b2"))
                .hasMessageStartingWith("invariant broken at t=28800s: b2 of B preempts a1 of A although B is not owed"
                        + " (holds 8 allocated GPUs of its quota of 8.0) and does not rank above: where their paths"
                        + " part, 'lab/B' has used 0.0773809") // 104 of the 1344 GPU-hours it is entitled to
                .hasMessageContaining("and 'lab/A' 0.017857"); // 24 of 1344
    }

    @Test
    void aPreemptionBetweenAllocationsByOneAheadOnTheWindowPasses() {
        // A is lower on the window: its waiting a2 may take b1 (past its 1 h protection)
        bUsedMoreAndHoldsItsQuota(Ranking.ENTITLEMENT).preempt(8 * H, "b1", "a2");
        bUsedMoreAndHoldsItsQuota(Ranking.LOOKBACK).preempt(8 * H, "b1", "a2");
    }

    /**
     * B ran b0 (0-5 h) and b1 (0-6 h): 88 GPU-hours; A runs a1 from 5 h and a2 from 6 h: 40 GPU-hours by 8 h. B now
     * holds nothing (owed) but is higher on the window; A holds 16 GPUs, twice its quota.
     */
    private static Events bOwedButHigherOnTheWindow(Ranking ranking) {
        return new Events(ranking).start(0, "b0", 0).start(0, "b1", 1).complete(5 * H, "b0").start(5 * H, "a1", 0)
                .complete(6 * H, "b1").start(6 * H, "a2", 1);
    }

    @Test
    void anOwedAllocationReclaimsDownToTheQuotaAndNoFurther() {
        Events e = bOwedButHigherOnTheWindow(Ranking.ENTITLEMENT).preempt(8 * H, "a1", "b2"); // A keeps its quota
        assertThatThrownBy(() -> e.preempt(8 * H, "a2", "b2"))
                .hasMessageContaining("b2 of B preempts a2 of A, leaving A 0 allocated GPUs, below its quota of 8.0: B"
                        + " is owed but does not rank above it, so it may reclaim down to the quota and no further");
    }

    @Test
    void underTheLookbackRankingBeingOwedGivesNoRight() {
        assertThatThrownBy(() -> bOwedButHigherOnTheWindow(Ranking.LOOKBACK).preempt(8 * H, "a1", "b2"))
                .hasMessageContaining("b2 of B preempts a1 of A without ranking above it on the lookback window");
    }

    @Test
    void aGpuGivenTwiceFailsForAnyPolicy() {
        assertThatThrownBy(() -> new Events(null).start(0, "a1", 0).start(10, "b1", 0))
                .hasMessage("invariant broken at t=10s: a GPU given twice: b1 starts with 8 GPUs on n1, where running work holds 8 of its"
                        + " 8 (a1 8)");
        assertThatThrownBy(() -> new Events(null).start(0, "a1", 0).start(10, "a1", 1))
                .hasMessageContaining("starts a1 which runs already (since 0)");
        // once a1 has ended, its GPUs may be given again
        new Events(null).start(0, "a1", 0).complete(10, "a1").start(10, "b1", 0);
    }

    @Test
    void aDrainOfWorkOnHealthyNodesFails() {
        PreemptionCause drain = PreemptionCause.drain("n1", "test");
        assertThatThrownBy(() -> new Events(Ranking.ENTITLEMENT).start(0, "a1", 0).preempt(3 * H, "a1", drain))
                .hasMessageContaining("drain of a1 whose nodes are all healthy");
        Events e = new Events(Ranking.ENTITLEMENT).start(0, "a1", 0);
        e.check.onHealth(H, "n1", false);
        assertThatThrownBy(() -> e.preempt(H, "a1", drain)).hasMessageContaining("preempts protected workload a1");
        e.preempt(2 * H, "a1", drain);
    }

    @Test
    void aRealRunWhereAnOwedAllocationReclaimsPassesTheChecks() {
        ScenarioBuilder.Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(4).runs("10h").minRuntime("1h").at("0s"))
                .workload(w("a2").in("A").gpus(4).runs("10h").minRuntime("1h").at("0s"))
                .workload(w("b1").in("B").gpus(4).runs("2h").minRuntime("1h").at("30m"))
                .workload(w("u1").in("B").gpus(4).runs("2h").unallocated().at("20h"))
                .run("allocation");
        assertThat(run.result().metrics().preemptions()).as("B took GPUs from A: the rule was checked").isEqualTo(1);
        assertThat(run.story()).anyMatch(line -> line.contains("preempt") && line.contains("b1"));
    }
}
