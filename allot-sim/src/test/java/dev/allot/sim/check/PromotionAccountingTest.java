package dev.allot.sim.check;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.state.Job;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import dev.allot.sim.SimulationAgent;
import dev.allot.sim.metrics.AllocationMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Promotions in place are charged from the promotion, and the metrics and the invariant checks learn of them on their
 * own: a promotion the metrics did not hear of breaks charged-equals-occupancy at once.
 */
class PromotionAccountingTest {
    private static final long H = 3600;

    /** A's unallocated job holds both GPUs from 0; B submits at 2h so that the metrics window spans 3 hours. */
    private static ScenarioBuilder scenario() {
        return given().nodes(1, 2)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("u1").in("A").gpus(2).runs("5h").unallocated().resumable().at("0s"))
                .workload(w("b1").in("B").gpus(1).runs("30m").minRuntime("30m").at("2h"));
    }

    /** Promotes u1 at 1h, through the simulator's actions or behind their back. */
    private static SimulationAgent promoter(boolean behindTheBack) {
        return new SimulationAgent() {
            private boolean done;

            @Override
            public long nextActionSeconds() {
                return done ? Long.MAX_VALUE : H;
            }

            @Override
            public boolean wantsToAct() {
                return false;
            }

            @Override
            public boolean act(long time, Actions actions) {
                if (time < H || done) {
                    return false;
                }
                done = true;
                Job u1 = actions.state().job("u1").orElseThrow();
                if (behindTheBack) {
                    actions.state().promote(u1, Duration.ofHours(2), time);
                } else {
                    actions.promote(u1, Duration.ofHours(2));
                }
                return true;
            }
        };
    }

    @Test
    void aPromotedJobIsChargedFromItsPromotionProtectedForItsMinimumRuntimeAndThenPreemptible() {
        Run run = scenario().run("allocation", promoter(false));
        // then u1 is A's allocated work from 1h: protected until 3h, when B, below its share, takes a GPU back
        assertThat(run.story()).containsExactly(
                "0s start u1 on n1:2",
                "1h promote u1 running",
                "3h preempt u1 by b1 fair_share requeued lost=0s",
                "3h start b1 on n1:1",
                "3h30m complete b1",
                "3h30m start u1 on n1:2",
                "5h30m complete u1");
        AllocationMetrics a = run.result().metrics().allocations().get(0);
        assertThat(a.receivedGpuHours()).isEqualTo(4.0); // 2 GPUs 1h..3h inside the 3-hour window, not before
        assertThat(a.unallocatedGpuHours()).isEqualTo(2.0);
    }

    @Test
    void aPromotionTheMetricsDidNotHearOfIsCaught() {
        assertThatThrownBy(() -> scenario().run("allocation", promoter(true)))
                .isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("allocation A was charged");
    }
}
