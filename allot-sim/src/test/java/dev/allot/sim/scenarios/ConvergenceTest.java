package dev.allot.sim.scenarios;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.ScenarioBuilder.Run;
import dev.allot.sim.metrics.Hourly;
import dev.allot.sim.metrics.HourlyUsage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Over a week, saturating allocations get what they are entitled to. */
class ConvergenceTest {

    /** Each team submits an 8-GPU, 6-hour resumable run every 30 minutes: alone it could fill the cluster 1.5 times. */
    private static List<ScenarioBuilder.W> saturating(String team, int days) {
        List<ScenarioBuilder.W> out = new ArrayList<>();
        for (int i = 0; i < days * 48; i++) {
            out.add(w(String.format("%s%04d", team, i)).in(team).gpus(8).runs("6h").minRuntime("1h")
                    .checkpointEvery("30m").at(i * 30 + "m"));
        }
        return out;
    }

    @Test
    void threeSaturatingTeamsWithShares50_30_20EachReceiveTheirEntitlementWithin2PointsOverTheSecondWeek() {
        // given a 64-GPU cluster split 50/30/20 and three teams that each keep it overloaded for two weeks
        Run run = given().nodes(8, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 30).leaf("C", 20))
                .workloads(saturating("A", 14))
                .workloads(saturating("B", 14))
                .workloads(saturating("C", 14))
                .run("allocation");
        // then over the second week each team's share of the cluster is its entitlement, within 2 points
        HourlyUsage hourly = run.result().hourly();
        double capacity = hourly.healthy().sum(7 * 24, 14 * 24);
        double[] expected = {0.50, 0.30, 0.20};
        for (int leaf = 0; leaf < 3; leaf++) {
            Hourly received = hourly.receivedAllocated().get(leaf);
            double share = received.sum(7 * 24, 14 * 24) / capacity;
            assertThat(share).as("share of team %d in week 2", leaf).isCloseTo(expected[leaf], org.assertj.core.data.Offset.offset(0.02));
        }
        assertThat(run.result().metrics().paidFraction()).isGreaterThan(0.95);
    }
}
