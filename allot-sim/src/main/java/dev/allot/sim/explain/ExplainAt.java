package dev.allot.sim.explain;

import dev.allot.core.explain.WaitExplainer;
import dev.allot.core.explain.WaitExplanation;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.sim.SimulationAgent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Answers {@link ExplainRequest}s during a simulated run of the allocation policy, with the same explainer the
 * service's {@code allot explain} uses ({@link WaitExplainer}) and the run's own settings: why a workload waits at an
 * instant (its place, the fair share and standing behind it, what it waits for), or whether it is protected while it
 * runs.
 *
 * <p>It rides the run as a {@link SimulationAgent} that never acts: at each asked instant, after that instant's
 * events and submissions and before the policy's cycle of that instant, as a user asking the service at that moment
 * would be answered before its next cycle. It never changes the run (a test compares the runs with and without it).
 */
public final class ExplainAt implements SimulationAgent {
    /** One answer: the explanation, or empty when the workload was not submitted yet at that instant. */
    public record Answer(ExplainRequest request, Optional<WaitExplanation> explanation) {
    }

    private final List<ExplainRequest> pending;
    private final AllocationPolicy policy;
    private final List<Answer> answers = new ArrayList<>();
    private int next;

    /** @param policy the run's policy (its settings are what the explanations state; the instance is never asked) */
    public ExplainAt(List<ExplainRequest> requests, AllocationPolicy policy) {
        this.pending = requests.stream().sorted(Comparator.comparingLong(ExplainRequest::atSeconds)
                .thenComparing(ExplainRequest::workloadId)).toList();
        this.policy = policy;
    }

    @Override
    public long nextActionSeconds() {
        return next < pending.size() ? pending.get(next).atSeconds() : Long.MAX_VALUE;
    }

    /** It only reads: an instant asked after the run's last event is not reached, and the run is not lengthened. */
    @Override
    public boolean extendsRun() {
        return false;
    }

    @Override
    public boolean wantsToAct() {
        return false;
    }

    @Override
    public boolean act(long time, Actions actions) {
        WaitExplainer explainer = new WaitExplainer(policy::fresh);
        while (next < pending.size() && pending.get(next).atSeconds() <= time) {
            ExplainRequest r = pending.get(next++);
            answers.add(new Answer(r, explainer.explain(actions.state(), r.workloadId(), time)));
        }
        return false;
    }

    /** The answers so far, in the order of their instants (then ids); requests past the run's end have none. */
    public List<Answer> answers() {
        return List.copyOf(answers);
    }

    /** The requests the run ended before. */
    public List<ExplainRequest> unanswered() {
        return pending.subList(next, pending.size());
    }
}
