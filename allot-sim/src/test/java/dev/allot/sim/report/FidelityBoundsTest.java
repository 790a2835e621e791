package dev.allot.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 19's bounds on a comparison, on runs small enough to work out by hand. */
class FidelityBoundsTest {
    private static WorkloadsCsv.Row row(String id, double start, int preemptions, String state) {
        return new WorkloadsCsv.Row("p", id, "a", 0, start, start + 10, start, preemptions, state);
    }

    /** Ten workloads started at i (waits i) in A; in B each {@code late} later, the first {@code firstLate}. */
    private static RunComparison.Result compare(double late, double firstLate, int preemptionsA, int preemptionsB,
                                                String lastStateB) {
        List<WorkloadsCsv.Row> a = new ArrayList<>();
        List<WorkloadsCsv.Row> b = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            a.add(row("w" + i, i * 10, i == 1 ? preemptionsA : 0, "completed"));
            b.add(row("w" + i, i * 10 + (i == 1 ? firstLate : late), i == 1 ? preemptionsB : 0,
                    i == 10 ? lastStateB : "completed"));
        }
        return RunComparison.compare(new RunComparison.Side("a", "p", a), new RunComparison.Side("b", "p", b));
    }

    @Test
    void aRunWithinEveryBoundHasNoViolation() {
        // errors 0.4 s each (median and p90 0.4); wait p90 90 vs 90.4: 0.4 s apart <= 5% of 90 + 0.2 s
        assertThat(FidelityBounds.issue19(0.2).violations(compare(0.4, 0.4, 3, 4, "completed"))).isEmpty();
    }

    @Test
    void eachBoundBrokenIsNamedWithItsNumbers() {
        // errors 0.6 s (median, p90) then one of 3 s; wait p90 90.6 vs 90 is within 4.7 s; 3 vs 1 preemptions
        List<String> v = FidelityBounds.issue19(0.2).violations(compare(0.6, 3, 3, 1, "preempted"));
        assertThat(v).containsExactly("median |start error| 0.60 s > 0.50 s",
                "final states differ for w10 (completed vs preempted)", "preemptions 1 vs 3: more than 1 apart");
        List<String> wide = FidelityBounds.issue19(0.2).violations(compare(5, 5, 0, 0, "completed"));
        assertThat(wide).containsExactly("median |start error| 5.00 s > 0.50 s", "p90 |start error| 5.00 s > 2.00 s",
                "wait p90 95.00 s vs 90.00 s: 5.00 s apart > 4.70 s (5% + a 0.20 s tick)");
    }

    @Test
    void preemptionCountsMayBeOneApartUntilFivePercentIsMore() {
        FidelityBounds b = FidelityBounds.issue19(1);
        assertThat(b.preemptionsAllowedApart(3, 4)).isEqualTo(1);
        assertThat(b.preemptionsAllowedApart(39, 30)).isEqualTo(1);
        assertThat(b.preemptionsAllowedApart(40, 38)).isEqualTo(2);
        assertThat(b.preemptionsAllowedApart(0, 0)).isEqualTo(1);
    }

    @Test
    void looserBoundsAllowSomeStateDifferencesAndMorePreemptionsApart() {
        FidelityBounds loose = new FidelityBounds(0.7, 2, 0.05, 0.2, 0.05, 2, 1);
        // 3 vs 1 preemptions and one workload in another state: within; the median 0.6 s too
        assertThat(loose.violations(compare(0.6, 3, 3, 1, "preempted"))).isEmpty();
        assertThat(new FidelityBounds(0.7, 2, 0.05, 0.2, 0.05, 2, 0).violations(compare(0.6, 3, 3, 1, "preempted")))
                .containsExactly("final states differ for w10 (completed vs preempted)");
    }
}
