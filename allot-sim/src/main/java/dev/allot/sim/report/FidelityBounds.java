package dev.allot.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How close a live run must come to the simulator's for the simulator to be trusted on that cluster (issue 19's
 * bounds), checked on a {@link RunComparison.Result} of A (the simulator) against B (the live service): the median
 * absolute start-time error, its 90th percentile, the 90th percentile of the waits (within a fraction of the
 * simulator's, plus one scheduling tick: the live service decides once per tick, the simulator at the instant), the
 * final states (issue 19: identical), the preemption counts (within a fraction of the larger count, and never held
 * to less than {@code preemptionsAlwaysAllowedApart}: with the few preemptions of a short run, 5% of 3 is not a
 * whole preemption; issue 19: one) and the workloads started (all of A's). {@code allot-it}'s
 * {@code SlurmReplayTest} checks a live run on the real Slurm against them.
 *
 * @param medianStartErrorSeconds  the largest median |start error| allowed
 * @param p90StartErrorSeconds     the largest 90th percentile of |start error| allowed
 * @param waitP90Fraction          how far B's wait p90 may be from A's, as a fraction of A's (before the tick)
 * @param tickSeconds              the live service's scheduling tick, added to the wait p90's allowance
 * @param preemptionFraction       how far the preemption counts may be apart, as a fraction of the larger
 * @param preemptionsAlwaysAllowedApart how far apart the preemption counts may always be, however few
 * @param stateDifferencesAllowed  how many workloads may end in another final state
 */
public record FidelityBounds(double medianStartErrorSeconds, double p90StartErrorSeconds, double waitP90Fraction,
                             double tickSeconds, double preemptionFraction, int preemptionsAlwaysAllowedApart,
                             int stateDifferencesAllowed) {

    /** Issue 19's bounds for a service that ticks every {@code tickSeconds}. */
    public static FidelityBounds issue19(double tickSeconds) {
        return new FidelityBounds(0.5, 2.0, 0.05, tickSeconds, 0.05, 1, 0);
    }

    /** The largest difference of preemption counts allowed between {@code a} and {@code b}. */
    public long preemptionsAllowedApart(int a, int b) {
        return Math.max(preemptionsAlwaysAllowedApart, (long) Math.floor(preemptionFraction * Math.max(a, b)));
    }

    /** What of B is out of bounds, one sentence each with the numbers; empty when every bound holds. */
    public List<String> violations(RunComparison.Result r) {
        List<String> out = new ArrayList<>();
        RunComparison.Spread e = r.absoluteStartError();
        if (e.p50Seconds() > medianStartErrorSeconds) {
            out.add(String.format(Locale.ROOT, "median |start error| %.2f s > %.2f s", e.p50Seconds(),
                    medianStartErrorSeconds));
        }
        if (e.p90Seconds() > p90StartErrorSeconds) {
            out.add(String.format(Locale.ROOT, "p90 |start error| %.2f s > %.2f s", e.p90Seconds(),
                    p90StartErrorSeconds));
        }
        double allowed = waitP90Fraction * r.waitsA().p90Seconds() + tickSeconds;
        double apart = Math.abs(r.waitsB().p90Seconds() - r.waitsA().p90Seconds());
        if (apart > allowed + 1e-9) {
            out.add(String.format(Locale.ROOT, "wait p90 %.2f s vs %.2f s: %.2f s apart > %.2f s (%.0f%% + a %.2f s"
                    + " tick)", r.waitsB().p90Seconds(), r.waitsA().p90Seconds(), apart, allowed,
                    waitP90Fraction * 100, tickSeconds));
        }
        if (r.waitsB().count() != r.waitsA().count()) {
            out.add("started " + r.waitsB().count() + " workloads, the simulator " + r.waitsA().count());
        }
        if (r.stateDifferences().size() > stateDifferencesAllowed) {
            out.add("final states differ for " + String.join(", ", r.stateDifferences().stream()
                    .map(d -> d.id() + " (" + d.stateA() + " vs " + d.stateB() + ")").toList())
                    + (stateDifferencesAllowed > 0 ? " (at most " + stateDifferencesAllowed + " allowed)" : ""));
        }
        long limit = preemptionsAllowedApart(r.preemptionsA(), r.preemptionsB());
        if (Math.abs(r.preemptionsA() - r.preemptionsB()) > limit) {
            out.add("preemptions " + r.preemptionsB() + " vs " + r.preemptionsA() + ": more than " + limit + " apart");
        }
        return out;
    }
}
