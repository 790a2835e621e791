package dev.allot.sim;

import dev.allot.sim.metrics.HourlyUsage;
import dev.allot.sim.metrics.PolicyMetrics;
import java.util.List;

/**
 * The outcome of one policy on one scenario: the metrics, one record per workload, the hourly usage series, and
 * how the run itself went (events, simulated span, wall time).
 */
public record SimulationResult(String policy, PolicyMetrics metrics, List<WorkloadRecord> workloads, HourlyUsage hourly,
                               RunStats run) {

    /**
     * @param events          events processed (submissions, ends, protection expiries, health changes, wake-ups);
     *                        stale events of preempted attempts are not counted
     * @param cycles          scheduling cycles run (one per distinct event time)
     * @param endSeconds      simulated time when the last event happened
     * @param wallNanos       wall time of the simulation loop
     */
    public record RunStats(long events, long cycles, long endSeconds, long wallNanos) {
        public double eventsPerSecond() {
            return wallNanos == 0 ? 0 : events / (wallNanos / 1e9);
        }
    }
}
