package dev.allot.sim.forecast;

import java.util.Map;
import java.util.Optional;

/**
 * A forecast of every watched waiting workload at one moment, with what it assumed.
 *
 * @param madeAtSeconds       the state's time
 * @param horizonEndSeconds   how far the runs looked
 * @param runs                futures played
 * @param byWorkload          forecasts by workload id, in the state's job order
 * @param arrivalsBasis       what new work the runs expected, in words
 * @param decisions           decision rounds the runs asked of the policy (a cost measure)
 * @param arrivalsPerRun      new workloads each run played, on average
 */
public record Forecasts(long madeAtSeconds, long horizonEndSeconds, int runs, Map<String, Forecast> byWorkload,
                        String arrivalsBasis, long decisions, long arrivalsPerRun) {
    public Forecasts {
        byWorkload = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(byWorkload));
    }

    public Optional<Forecast> of(String workloadId) {
        return Optional.ofNullable(byWorkload.get(workloadId));
    }
}
