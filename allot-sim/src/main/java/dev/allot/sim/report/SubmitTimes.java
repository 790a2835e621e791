package dev.allot.sim.report;

import dev.allot.core.model.Words;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import dev.allot.sim.input.InputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A scenario with each workload's submission time taken from a run's {@link WorkloadsCsv} ({@code allot simulate
 * --submit-times FILE}), usually the one {@code allot replay} wrote: a live submission lands a little after its
 * scenario time (the client's timer, the HTTP round trip, a pause), and a simulator started at the scenario's times
 * would count that lateness as the live run's error. The time is rounded down to the second, as the live service
 * counts it (its scheduler's clock is whole seconds), so the simulator sees each workload when the service did.
 */
public final class SubmitTimes {
    private SubmitTimes() {
    }

    /**
     * The scenario with the file's submission times; the file must hold every workload of the scenario, no other, and
     * one policy's rows.
     *
     * @throws InputException naming the file and what does not match
     */
    public static Scenario apply(Scenario scenario, Path file) {
        return apply(scenario, WorkloadsCsv.read(file), file.toString());
    }

    static Scenario apply(Scenario scenario, List<WorkloadsCsv.Row> rows, String file) {
        Map<String, Double> submitted = new HashMap<>();
        TreeSet<String> policies = new TreeSet<>();
        for (WorkloadsCsv.Row r : rows) {
            policies.add(r.policy());
            submitted.put(r.id(), r.submitSeconds());
        }
        if (policies.size() > 1) {
            throw new InputException(file, 0, 0, "policy", "holds the rows of policies " + String.join(", ", policies)
                    + "; expected one run's (allot replay --workloads-out)");
        }
        List<WorkloadSpec> out = new ArrayList<>(scenario.workloads().size());
        TreeSet<String> missing = new TreeSet<>();
        for (WorkloadSpec w : scenario.workloads()) {
            Double at = submitted.remove(w.id());
            if (at == null) {
                missing.add(w.id());
                continue;
            }
            out.add(new WorkloadSpec(w.id(), (long) Math.floor(at), w.allocation(), w.user(), w.gpus(),
                    w.gpusPerNode(), w.duration(), w.minRuntime(), w.resumable(), w.priority(), w.checkpointEvery(),
                    w.kind()));
        }
        if (!missing.isEmpty()) {
            throw new InputException(file, 0, 0, "id", "lacks " + Words.count(missing.size(), "workload") + " of the scenario: "
                    + first(missing) + "; expected a run of this scenario");
        }
        if (!submitted.isEmpty()) {
            throw new InputException(file, 0, 0, "id", "holds " + Words.count(submitted.size(), "workload")
                    + " the scenario does not: " + first(new TreeSet<>(submitted.keySet())) + "; expected a run of this scenario");
        }
        return new Scenario(scenario.name(), scenario.cluster(), scenario.tree(), Scenario.sorted(out),
                scenario.policyConfig(), scenario.rejected(), scenario.notes());
    }

    private static String first(TreeSet<String> ids) {
        List<String> shown = ids.stream().limit(5).toList();
        return String.join(", ", shown) + (ids.size() > shown.size() ? ", ..." : "");
    }
}
