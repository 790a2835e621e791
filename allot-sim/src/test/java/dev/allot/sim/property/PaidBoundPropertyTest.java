package dev.allot.sim.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.Simulator;
import dev.allot.sim.metrics.PaidBound;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whatever a policy does on a random scenario, what it paid at each instant is a schedule of whole jobs in the
 * healthy GPUs, so it never exceeds the bound, and the bound never exceeds what was owed.
 */
class PaidBoundPropertyTest {
    private static final PolicyRegistry REGISTRY = PolicyRegistry.standard();

    static Stream<Arguments> cases() {
        return LongStream.range(0, 20).boxed()
                .flatMap(seed -> REGISTRY.names().stream().map(policy -> Arguments.of(seed, policy)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("cases")
    void noPolicyPaysMoreThanTheBound(long seed, String policy) {
        Scenario scenario = RandomScenarios.generate(seed);
        PaidBound.Result r = new Simulator(scenario, REGISTRY, policy,
                Simulator.Options.defaults().withPaidBoundStepSeconds(600)).run().metrics().paidBound();
        assertThat(r.instants()).isPositive();
        assertThat(r.paidGpus()).as("paid <= bound").isLessThanOrEqualTo(r.boundGpus() + 1e-6);
        assertThat(r.boundGpus()).as("bound <= owed").isLessThanOrEqualTo(r.owedGpus() + 1e-6);
    }
}
