package dev.allot.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fork of a simulated state, played forward with the scenario's true future (the rest of its workloads, their true
 * durations, its health changes), must tell exactly the story the simulator goes on to tell: every job starts at the
 * same second. This is what makes a what-if with unchanged inputs the simulator's own prediction. (Not for the
 * {@code slurm} model: it remembers victims in grace and its recalculation ticks across cycles, outside the state.)
 */
class ForwardRunTest {
    private static final Scenario LAB = ScenarioGenerator.generate(GeneratorSpec.preset("lab").withDays(3), 7)
            .toScenario("lab-3d");

    @ParameterizedTest
    @ValueSource(strings = {"allocation", "kueue", "legacy"})
    void aForkPlayedWithTheTrueFutureStartsEveryJobWhenTheSimulatorDoes(String policy) {
        long forkAt = Duration.ofHours(36).getSeconds();
        Map<String, Long> simulated = new HashMap<>();
        ClusterState[] fork = new ClusterState[1];
        long[] forkedAt = new long[1];
        SimulationAgent forker = new SimulationAgent() {
            @Override
            public long nextActionSeconds() {
                return fork[0] == null ? forkAt : Long.MAX_VALUE;
            }

            @Override
            public boolean wantsToAct() {
                return false;
            }

            @Override
            public boolean act(long time, Actions actions) {
                if (fork[0] == null && time >= forkAt) {
                    fork[0] = actions.state().fork(actions.state().tree(), Job::durationSeconds);
                    forkedAt[0] = time;
                }
                return false;
            }

            @Override
            public void onStart(long time, Job job, Placement placement, String reason) {
                if (fork[0] != null) {
                    simulated.putIfAbsent(job.id(), time);
                }
            }
        };
        new Simulator(LAB, PolicyRegistry.standard(), policy, Simulator.Options.defaults().withAgent(forker)).run();
        assertThat(fork[0]).isNotNull();
        long t = forkedAt[0];

        List<WorkloadSpec> future = LAB.workloads().stream().filter(w -> w.submitSeconds() > t).toList();
        List<ForwardRun.HealthChange> health = new ArrayList<>();
        for (HealthEvent h : LAB.cluster().healthEvents()) {
            health.add(new ForwardRun.HealthChange(h.atSeconds(), LAB.cluster().indexOf(h.node()).orElseThrow(),
                    h.state() == HealthEvent.Health.HEALTHY));
        }
        health.removeIf(h -> h.atSeconds() <= t);
        ForwardRun.Result played = ForwardRun.play(fork[0], PolicyRegistry.standard().get(policy)
                .create(LAB.policyConfig().settingsFor(PolicyRegistry.standard().get(policy))), future, health, Set.of(),
                Long.MAX_VALUE - 1);

        assertThat(simulated).hasSizeGreaterThan(500);
        assertThat(played.firstStartsSeconds()).isEqualTo(simulated);
    }
}
