package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.state.ClusterState;
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

    /**
     * This model as a forecast from {@code state} uses it: one that learns from what the state shows at its instant
     * (work still running, say) returns a view that does; the default ignores the state.
     */
    default DurationModel given(ClusterState state) {
        return this;
    }
}
