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
 * healthy GPUs, so it never exceeds the bound, and the bound never exceeds what was owed; and a run that paid every
 * allocation the floor is one of the schedules the bound with that floor ranges over, so it never exceeds that one.
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
        if (r.owedGpus() > 0 && r.worstPaidFraction() >= r.fairFloor()) {
            // the run itself paid every allocation the floor: it is one of the schedules the bound with a floor covers
            assertThat(r.fairBoundGpus()).as("the run is a witness: paid <= bound with the floor")
                    .isGreaterThanOrEqualTo(r.paidGpus() - 1e-6);
            witnesses.incrementAndGet();
        }
    }

    /** How many runs paid every allocation the floor (so that the witness check above is not vacuous). */
    private static final java.util.concurrent.atomic.AtomicInteger witnesses = new java.util.concurrent.atomic.AtomicInteger();

    @org.junit.jupiter.api.AfterAll
    static void someRunsWereWitnesses() {
        assertThat(witnesses.get()).as("runs that paid every allocation 95%").isPositive();
    }
}
