package dev.allot.sim.check;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.policy.Decision;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.sim.Scenario;
import dev.allot.sim.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** The checks catch broken policies: a rogue policy that breaks each rule must stop the run. */
class InvariantCheckerTest {

    private static PolicyRegistry withRogue(BiFunction<ClusterState, Long, Plan> decide) {
        Policy honest = AllocationPolicy.withDefaults();
        Policy rogue = new Policy() {
            @Override
            public String name() {
                return "rogue";
            }

            @Override
            public Plan schedule(ClusterState state, long now) {
                Plan own = decide.apply(state, now);
                return own != null ? own : honest.schedule(state, now);
            }

            @Override
            public boolean isProtected(Job job, long now) {
                return job.isProtected(now);
            }
        };
        return PolicyRegistry.standard().register(new PolicyFactory() {
            @Override
            public String name() {
                return "rogue";
            }

            @Override
            public String description() {
                return "breaks rules on purpose";
            }

            @Override
            public List<SettingSpec> settings() {
                return List.of();
            }

            @Override
            public Policy create(Settings settings) {
                return rogue;
            }
        });
    }

    private static Scenario twoJobs() {
        return given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("2h").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("30m"))
                .scenario();
    }

    @Test
    void preemptingAProtectedWorkloadStopsTheRun() {
        PolicyRegistry registry = withRogue((state, now) -> {
            if (now == 1800) {
                Job a1 = state.job("a1").orElseThrow();
                return new Plan(List.of(new Decision.Preempt(a1, PreemptionCause.by(PreemptionCause.Kind.FAIR_SHARE, "b1", "rogue"))),
                        Plan.NO_WAKE_UP);
            }
            return null;
        });
        assertThatThrownBy(() -> new Simulator(twoJobs(), registry, "rogue", Simulator.Options.defaults().withCheck(true)).run())
                .isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("preempts protected workload a1");
    }

    @Test
    void givingAGpuTwiceIsRefusedByTheState() {
        PolicyRegistry registry = withRogue((state, now) -> {
            if (now == 1800) {
                Job b1 = state.job("b1").orElseThrow();
                List<Decision> ds = new ArrayList<>();
                ds.add(new Decision.Start(b1, new Placement(new int[] {0}, new int[] {8}), "rogue"));
                return new Plan(ds, Plan.NO_WAKE_UP);
            }
            return null;
        });
        assertThatThrownBy(() -> new Simulator(twoJobs(), registry, "rogue", Simulator.Options.defaults().withCheck(true)).run())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only 0 free");
    }

    @Test
    void drainingAWorkloadOnHealthyNodesStopsTheRun() {
        PolicyRegistry registry = withRogue((state, now) -> {
            if (now == 7200) {
                Job a1 = state.job("a1").orElseThrow();
                return new Plan(List.of(new Decision.Preempt(a1, PreemptionCause.drain("n1", "rogue"))), Plan.NO_WAKE_UP);
            }
            return null;
        });
        assertThatThrownBy(() -> new Simulator(twoJobs(), registry, "rogue", Simulator.Options.defaults().withCheck(true)).run())
                .isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("drain of a1 whose nodes are all healthy");
    }
}
