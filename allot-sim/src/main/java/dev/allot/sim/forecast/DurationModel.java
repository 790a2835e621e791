package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import java.util.SplittableRandom;

/**
 * How long a workload runs in all, as a forecast assumes it: one draw per forecast run, so that the spread of the
 * runs' outcomes shows what the uncertainty of durations does to start times.
 */
public interface DurationModel {
    /**
     * The running time {@code spec} needs in all, drawn for one run: more than {@code doneSeconds}, the running time
     * it has had so far (a job that has run an hour needs more than an hour).
     */
    long drawSeconds(WorkloadSpec spec, long doneSeconds, SplittableRandom random);

    /** What the draws for {@code spec} rest on, in words ("declared", "history of 12 runs like it", ...). */
    String basis(WorkloadSpec spec);
}
