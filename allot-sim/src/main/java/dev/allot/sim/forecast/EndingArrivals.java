package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import java.util.List;
import java.util.SplittableRandom;

/**
 * New work that stops at a known instant: another model's draws, none submitted after {@code endSeconds}.
 *
 * <p>Why: a replayed trace or generated scenario ends where its recording (or generation) stopped, not where the lab
 * stopped submitting; after its last submission the replayed cluster only drains its backlog. A forecast that plays
 * new work past that instant is judged against a future no forecast of a live lab could see, and a replay's accuracy
 * measure ({@link ForecastAccuracy}) tells its forecasts where the replay's submissions end, as the Slurm user's
 * baseline already assumes no new work at all. The live service never knows an end and never uses this.
 */
public record EndingArrivals(ArrivalModel model, long endSeconds) implements ArrivalModel {
    @Override
    public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                   SplittableRandom random) {
        if (now >= endSeconds) {
            return List.of();
        }
        List<WorkloadSpec> drawn = model.draw(now, Math.min(untilSeconds, endSeconds + 1), prefix, durations, random);
        return drawn.stream().filter(w -> w.submitSeconds() <= endSeconds).toList();
    }

    @Override
    public String basis(long now) {
        return now >= endSeconds ? "no new work (the replay's submissions have ended)"
                : model.basis(now) + ", until the replay's last submission";
    }
}
