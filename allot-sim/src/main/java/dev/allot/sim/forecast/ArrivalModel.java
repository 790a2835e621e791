package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import java.util.List;
import java.util.SplittableRandom;

/** The new work a forecast run expects, drawn once per run. */
public interface ArrivalModel {
    /**
     * One run's new work submitted after {@code now} and up to {@code untilSeconds}, sorted by submission then id,
     * with ids made unique by {@code prefix} and durations from {@code durations}.
     */
    List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations, SplittableRandom random);

    /** What the draws at {@code now} rest on, in words. */
    String basis(long now);

    /** No new work at all. */
    ArrivalModel NONE = new ArrivalModel() {
        @Override
        public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                       SplittableRandom random) {
            return List.of();
        }

        @Override
        public String basis(long now) {
            return "no new work";
        }
    };
}
