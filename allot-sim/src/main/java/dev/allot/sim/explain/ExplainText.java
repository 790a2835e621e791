package dev.allot.sim.explain;

import dev.allot.core.model.Durations;
import dev.allot.core.model.WorkloadSpec;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The answers of {@link ExplainAt} as text, after a run's table: each request, then its explanation's sentences
 * (times as instants since the scenario's start, as the story writes them), or why there is none.
 */
public final class ExplainText {
    private ExplainText() {
    }

    /**
     * @param policy     the run's policy name
     * @param workloads  the scenario's workloads (for when a workload not yet submitted will be)
     * @param endSeconds the instant of the run's last event
     */
    public static String render(String policy, ExplainAt asked, List<WorkloadSpec> workloads, long endSeconds) {
        Map<String, WorkloadSpec> byId = workloads.stream().collect(Collectors.toMap(WorkloadSpec::id,
                Function.identity(), (a, b) -> a));
        StringBuilder sb = new StringBuilder("== explanations (" + policy + "): what 'allot explain' would have"
                + " answered at each instant, before that instant's cycle\n");
        for (ExplainAt.Answer a : asked.answers()) {
            String head = a.request().workloadId() + " at " + Durations.formatSeconds(a.request().atSeconds());
            if (a.explanation().isEmpty()) {
                WorkloadSpec s = byId.get(a.request().workloadId());
                sb.append(head).append(": not submitted yet")
                        .append(s == null ? "" : " (submitted at " + Durations.formatSeconds(s.submitSeconds()) + ")")
                        .append('\n');
                continue;
            }
            sb.append(head).append('\n');
            for (String line : a.explanation().get().summary(Durations::formatSeconds)) {
                sb.append("  ").append(line).append('\n');
            }
        }
        for (ExplainRequest r : asked.unanswered()) {
            sb.append(r.workloadId()).append(" at ").append(Durations.formatSeconds(r.atSeconds()))
                    .append(": not reached (the run's last event was at ").append(Durations.formatSeconds(endSeconds))
                    .append(")\n");
        }
        return sb.toString();
    }
}
