package dev.allot.report;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.detail.DetailRecorder;
import dev.allot.sim.detail.RunDetail;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.sim.report.JsonReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test fixture: simulates an example scenario through policies, recording the runs in detail, as the CLI does. */
final class Reports {
    static final Path EXAMPLES = Path.of("..", "examples");

    private Reports() {
    }

    static JsonReport.Document simulate(String example, List<String> policies) {
        PolicyRegistry registry = PolicyRegistry.standard();
        Scenario scenario = ScenarioReader.read(EXAMPLES.resolve(example), false, registry);
        List<SimulationResult> results = new ArrayList<>();
        List<RunDetail> details = new ArrayList<>();
        for (String p : policies) {
            DetailRecorder detail = new DetailRecorder();
            SimulationResult r = new Simulator(scenario, registry, p, Simulator.Options.defaults().withListener(detail)).run();
            results.add(r);
            details.add(detail.finish(r));
        }
        return JsonReport.document(scenario, results, details);
    }
}
