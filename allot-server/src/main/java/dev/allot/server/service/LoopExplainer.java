package dev.allot.server.service;

import dev.allot.core.explain.WaitExplainer;
import dev.allot.core.explain.WaitExplanation;
import dev.allot.server.api.WorkloadExplainer;
import dev.allot.server.sched.SchedulerLoop;
import java.util.Objects;
import java.util.Optional;

/**
 * Explains workloads from the scheduling loop's live core state, between cycles ({@link SchedulerLoop#inspect}):
 * empty before the loop's first load and for workloads the loop has not taken in (or that have ended).
 */
public final class LoopExplainer implements WorkloadExplainer {
    private final SchedulerLoop loop;
    private final WaitExplainer explainer;

    public LoopExplainer(SchedulerLoop loop, WaitExplainer explainer) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.explainer = Objects.requireNonNull(explainer, "explainer");
    }

    public LoopExplainer(SchedulerLoop loop) {
        this(loop, new WaitExplainer());
    }

    @Override
    public Optional<WaitExplanation> explain(String workloadId) {
        return loop.inspect((state, now) -> explainer.explain(state, workloadId, state.now())).flatMap(e -> e);
    }

    @Override
    public void progressReported(String workloadId) {
        loop.progressReported(workloadId);
    }
}
