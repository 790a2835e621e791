package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder.Run;
import org.junit.jupiter.api.Test;

/**
 * A preemption between allocations says the rule that allowed it ({@code PreemptionRules}): a reclaim (the victim
 * keeps its quota), taking turns (the preemptor ranks above the victim on the window and would stand no higher: the
 * victim may go below its quota), or starving work larger than its allocation's quota (any allocation standing
 * higher). Before, every one
 * of them was told as a reclaim "down to the quota", which a turn or a starving gang does not keep: on lab seed 5 a
 * 3% team's 128-GPU gang took work of allocations at 0.6 and 0.75 of their quotas, and the reason said they held at
 * least 1.1 times it.
 */
class PreemptionReasonTest {

    private static String reasonOfPreempting(Run run, String victim) {
        return run.about(victim).stream().filter(l -> l.contains(" preempt " + victim + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no preemption of " + victim + " in " + run.story()));
    }

    @Test
    void anOwedTeamBehindOnTheWindowReclaimsDownToTheVictimsQuota() {
        // given two 8-GPU nodes shared 50/50 (quota 8 each); B runs b0 on both nodes for the first 2 hours, then A
        // runs a1 and a2 (8 GPUs each, protected 1h) from 2h;
        // when B, owed its quota but charged more than A over the window, submits b1 (8 GPUs) at 2h30m
        Run run = given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("b0").in("B").gang(16, 8).runs("2h").minRuntime("2h").at("0s"))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("1h").checkpointEvery("30m").at("2h"))
                .workload(w("a2").in("A").gpus(8).runs("10h").minRuntime("1h").checkpointEvery("30m").at("2h"))
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("1h").at("2h30m"))
                .runWithReasons("allocation");
        // then at 3h b1 reclaims one of A's jobs: the reclaim, which leaves A its quota, not a turn (B is behind)
        assertThat(reasonOfPreempting(run, "a1")).startsWith("3h preempt a1 by b1 fair_share")
                .contains("b1 of B reclaims GPUs it is owed from A: B holds 0 GPUs of its quota of 8.00 (standing 0)")
                .contains("A holds 16 GPUs of its quota of 8.00 (standing 2.00)")
                .contains("A holds at least 1.10 x its quota (1 + the margin) and keeps at least its quota")
                .contains("a1 was past its 1h minimum runtime");
        assertThat(run.story()).anyMatch(l -> l.startsWith("3h start b1 on n1:8 "))
                .noneMatch(l -> l.contains(" preempt a2 "));
    }

    @Test
    void anOwedTeamAheadOnTheWindowMayTakeTheVictimBelowItsQuota() {
        // given one 8-GPU node shared 50/50 (quota 4 each), A runs one 8-GPU job for 10 hours;
        // when B submits an 8-GPU job at 30m (larger than its quota, not yet starving at 1h)
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("1h").checkpointEvery("30m").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("2h").minRuntime("1h").checkpointEvery("30m").at("30m"))
                .runWithReasons("allocation");
        // then b1 takes a1 at 1h by taking turns: A is left with nothing, below its quota, which a reclaim never does;
        // the reason gives B's standing once b1 runs and says it is compared with A's now: "would stand no higher than
        // A once b1 runs" read as if A's standing after the preemption (0) were meant
        assertThat(reasonOfPreempting(run, "a1")).startsWith("1h preempt a1 by b1 fair_share")
                .contains("b1 of B is owed and may take A below its quota (taking turns): B holds 0 GPUs of its quota"
                        + " of 4.00 (standing 0) and would stand at 2.00 once b1 runs, no higher than A stands now, A"
                        + " holds 8 GPUs")
                .contains("A holds 8 GPUs of its quota of 4.00 (standing 2.00)")
                .contains("B ranks above A on usage over the lookback window")
                .doesNotContain("keeps at least its quota");
    }

    @Test
    void starvingWorkSaysItIsStarvingAndTakesFromATeamAtItsQuota() {
        // given one 8-GPU node shared 50/50; A runs a1 allocated (4 GPUs) and u1 unallocated (4 GPUs);
        // when B submits b1, 8 GPUs (twice its quota), at 30m
        Run run = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("u1").in("A").gpus(4).runs("4h").minRuntime("0s").checkpointEvery("2h").at("0s"))
                .workload(w("a1").in("A").gpus(4).runs("4h").minRuntime("1h").checkpointEvery("3h").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("30m"))
                .runWithReasons("allocation");
        // then A stands at its quota, within the margin, so no reclaim or turn may take a1; b1 starves for the
        // starvation limit (1h) and at 1h30m takes a1, and the reason says so
        assertThat(reasonOfPreempting(run, "a1")).startsWith("1h30m preempt a1 by b1 fair_share")
                .contains("b1 of B is starving: it asks for 8 GPUs, more than B's quota, and has waited at least 1h"
                        + " (the starvation limit)")
                .contains("A holds 4 GPUs of its quota of 4.00 (standing 1.00) and stands higher")
                .contains("a1's 4 GPUs fit within A's quota")
                .doesNotContain("keeps at least its quota");
    }
}
