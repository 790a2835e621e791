package dev.allot.sim.generate;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.HealthEvent.Health;
import dev.allot.core.model.NodeSpec;
import dev.allot.sim.generate.GeneratorSpec.Failures;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The generated cluster's host failures ({@link GeneratorSpec#failures()}): {@code count} distinct nodes each go
 * unhealthy once and come back after a downtime uniform in {@code [downMin, downMax]}. The horizon is cut into
 * {@code count} equal slices and failure i falls uniformly in the middle half of slice i, so failures are spread out
 * (in {@code lab}: one between day 1.75 and day 5.25, one between day 8.75 and day 12.25); a return that would fall in
 * the last hour of the horizon is brought forward. A class of its own: the failures draw from their own stream
 * ({@code health}, {@link RandomStreams}) and depend on nothing but the cluster and the horizon.
 */
final class HostFailures {
    private static final long HOUR = 3_600;

    private HostFailures() {
    }

    /**
     * Each failure falls in its own equal slice of the horizon, at a uniform time in the middle half of the slice
     * (so failures are spread out, e.g. around day 3 and day 10 of 14), on a node not failed before, and is
     * paired with the node's return after a downtime uniform in {@code [downMin, downMax]}, shortened if needed
     * so that the node is back at least an hour before the horizon ends.
     */
    static List<HealthEvent> failures(GeneratorSpec spec, List<NodeSpec> nodes, SplittableRandom rng) {
        Failures f = spec.failures();
        long horizon = spec.horizonSeconds();
        List<HealthEvent> out = new ArrayList<>();
        List<String> candidates = new ArrayList<>(nodes.stream().map(NodeSpec::name).toList());
        long slice = horizon / Math.max(1, f.count());
        for (int i = 0; i < f.count(); i++) {
            String node = candidates.remove(rng.nextInt(candidates.size()));
            long down = f.downMin().getSeconds()
                    + rng.nextLong(f.downMax().getSeconds() - f.downMin().getSeconds() + 1);
            long at = i * slice + slice / 4 + rng.nextLong(Math.max(1, slice / 2));
            long back = Math.min(at + down, horizon - HOUR);
            if (back <= at) {
                at = Math.max(0, back - 1);
            }
            out.add(new HealthEvent(node, at, Health.UNHEALTHY));
            out.add(new HealthEvent(node, back, Health.HEALTHY));
        }
        out.sort(Comparator.comparingLong(HealthEvent::atSeconds).thenComparing(HealthEvent::node));
        return out;
    }
}
