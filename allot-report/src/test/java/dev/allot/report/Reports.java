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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Test fixture: simulates an example scenario through policies, recording the runs in detail, as the CLI does. */
final class Reports {
    static final Path EXAMPLES = Path.of("..", "examples");

    private Reports() {
    }

    /**
     * The policies' runs on threads of their own (up to one per core: the lab's four take half as long on two cores),
     * each with its own recorder; results in the order of {@code policies}, as the CLI runs them one after another.
     */
    static JsonReport.Document simulate(String example, List<String> policies) {
        return simulate(example, policies, false);
    }

    /** The same, the scenario read leniently ({@code --lenient}: a bad row is skipped) when {@code lenient}. */
    static JsonReport.Document simulate(String example, List<String> policies, boolean lenient) {
        PolicyRegistry registry = PolicyRegistry.standard();
        Scenario scenario = ScenarioReader.read(EXAMPLES.resolve(example), lenient, registry);
        record Run(SimulationResult result, RunDetail detail) {
        }
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.max(1, Math.min(policies.size(), Runtime.getRuntime().availableProcessors())));
        try {
            List<Future<Run>> runs = new ArrayList<>();
            for (String p : policies) {
                runs.add(pool.submit(() -> {
                    DetailRecorder detail = new DetailRecorder();
                    SimulationResult r = new Simulator(scenario, registry, p,
                            Simulator.Options.defaults().withListener(detail)).run();
                    return new Run(r, detail.finish(r));
                }));
            }
            List<SimulationResult> results = new ArrayList<>();
            List<RunDetail> details = new ArrayList<>();
            for (Future<Run> f : runs) {
                Run run = f.get();
                results.add(run.result());
                details.add(run.detail());
            }
            return JsonReport.document(scenario, results, details);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("a simulation failed", e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
