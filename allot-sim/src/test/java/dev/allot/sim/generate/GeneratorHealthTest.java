package dev.allot.sim.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.HealthEvent.Health;
import dev.allot.core.model.NodeSpec;
import dev.allot.sim.input.NodeGroup;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Host failures: existing nodes, paired unhealthy then healthy, spread over the horizon. */
class GeneratorHealthTest {
    private static final GeneratorSpec LAB = GeneratorSpec.preset("lab");

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void labHasTwoFailuresOfDifferentNodesOnDifferentDaysEachBackWithinTwoDays(long seed) {
        GeneratedScenario g = ScenarioGenerator.generate(LAB, seed);
        List<HealthEvent> events = g.healthEvents();
        Set<String> nodeNames = names(g);

        assertThat(events).hasSize(4);
        assertThat(events).extracting(HealthEvent::node).allMatch(nodeNames::contains);
        assertPaired(events, 24 * 3600, 48 * 3600, LAB.horizonSeconds());

        List<HealthEvent> down = events.stream().filter(e -> e.state() == Health.UNHEALTHY).toList();
        assertThat(down.get(0).node()).isNotEqualTo(down.get(1).node());
        long firstDay = down.get(0).atSeconds() / 86_400;
        long secondDay = down.get(1).atSeconds() / 86_400;
        assertThat(firstDay).isBetween(1L, 5L);
        assertThat(secondDay).isBetween(8L, 12L);
        // the cluster accepts them
        assertThat(g.toScenario("lab").cluster().healthEvents()).hasSize(4);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 6, 32})
    void anyNumberOfFailuresUpToTheNodeCountIsPairedOnDistinctNodes(int count) {
        GeneratorSpec spec = LAB.withFailures(count).withWorkloadScale(0.05);
        GeneratedScenario g = ScenarioGenerator.generate(spec, 3);

        assertThat(g.healthEvents()).hasSize(2 * count);
        assertPaired(g.healthEvents(), 1, 48 * 3600, spec.horizonSeconds());
        Set<String> failed = new HashSet<>();
        g.healthEvents().forEach(e -> failed.add(e.node()));
        assertThat(failed).hasSize(count);
        assertThat(names(g)).containsAll(failed);
    }

    /** Each node goes unhealthy once, then healthy after a downtime in range, before the horizon ends. */
    private static void assertPaired(List<HealthEvent> events, long minDown, long maxDown, long horizon) {
        assertThat(events).isSortedAccordingTo((a, b) -> Long.compare(a.atSeconds(), b.atSeconds()));
        for (HealthEvent e : events) {
            List<HealthEvent> forNode = events.stream().filter(x -> x.node().equals(e.node())).toList();
            assertThat(forNode).extracting(HealthEvent::state).containsExactly(Health.UNHEALTHY, Health.HEALTHY);
            long down = forNode.get(1).atSeconds() - forNode.get(0).atSeconds();
            assertThat(down).isBetween(minDown, maxDown);
            assertThat(forNode.get(1).atSeconds()).isLessThan(horizon);
        }
    }

    private static Set<String> names(GeneratedScenario g) {
        Set<String> out = new HashSet<>();
        for (NodeSpec n : NodeGroup.expandAll(g.nodeGroups())) {
            out.add(n.name());
        }
        return out;
    }
}
