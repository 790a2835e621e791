package dev.allot.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Words;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.forecast.ForecastAccuracy;
import dev.allot.sim.forecast.ForecastSettings;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot forecast accuracy}: replays a scenario with Allot's forecasts made at submission and the Slurm user's
 * baseline, and prints how far each was from the actual start ({@link ForecastAccuracy}).
 */
@Command(name = "accuracy", mixinStandardHelpOptions = true,
        header = "Measure start forecasts against actual starts, and against the Slurm model's plan at submission.",
        description = {"Replays a scenario (a preset, a folder or a trace); at the submission of every Nth workload"
                        + " Allot forecasts its start (durations from the history of finished and running work, new"
                        + " work like the recent past up to the scenario's last submission, several runs for a p10-p90"
                        + " band), and a run of the slurm model gives the start its plan promises at submission with"
                        + " every job running to its time limit (the baseline a Slurm user has).",
                "Prints the median and p90 absolute error, by actual wait, and the share of starts inside the band.",
                "Example: allot forecast accuracy --preset lab",
                "         allot forecast accuracy --nodes 40x8 \\",
                "           --trace philly:examples/traces/philly-2017-09-10.csv.gz"})
final class ForecastAccuracyCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "a scenario folder (or --preset, --trace)")
    Path dir;

    @Option(names = "--preset", paramLabel = "PRESET", description = "generate the scenario from this preset (lab, big)")
    String preset;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42", description = "with --preset: the generator seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--days", paramLabel = "N", description = "with --preset: override the preset's number of days")
    Integer days;

    @picocli.CommandLine.Mixin
    TraceOptions traceOptions = new TraceOptions();

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "allocation", description = "the one policy forecast (default: ${DEFAULT-VALUE})")
    String policy;

    @Option(names = "--sample-every", paramLabel = "N", defaultValue = "25",
            description = "forecast at the submission of every Nth workload, by a hash of its id (default: ${DEFAULT-VALUE})")
    int sampleEvery;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "10", description = "futures per forecast (default: ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--horizon", paramLabel = "DURATION", defaultValue = "2d", description = "how far a forecast looks (default: ${DEFAULT-VALUE})")
    String horizon;

    @Option(names = "--open-ended", description = {"forecasts play new work over their whole horizon, also past the"
            + " scenario's last submission (as the live service does, which knows no end); by default a replay tells"
            + " its forecasts where its submissions end, since after that the replayed cluster only drains"})
    boolean openEnded;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the measures as JSON")
    Path json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PolicyRegistry registry = PolicyRegistry.standard();
        if (policy.contains(",")) { // simulate and compare take a list; the registry would call it one unknown name
            throw new IllegalArgumentException("--policy takes one policy, got '" + policy + "'; measure one at a"
                    + " time, with one of: " + String.join(", ", registry.names()));
        }
        registry.get(policy);
        Duration h = checkOptions();
        ForecastSettings settings = ForecastSettings.defaults().withRuns(runs).withHorizon(h);
        Scenario s = scenario(registry);
        if (!s.workloads().isEmpty() && ForecastAccuracy.sampledCount(s, sampleEvery) == 0) {
            // it printed a table of '-' and exited 0, having measured nothing
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--sample-every %d samples none of the"
                    + " %,d workloads of %s (about one in %d is sampled, by a hash of its id); give at most %d, the"
                    + " largest that samples any", sampleEvery, s.workloads().size(), s.name(), sampleEvery,
                    ForecastAccuracy.largestSampling(s, sampleEvery)));
        }
        out.printf(Locale.ROOT, "forecast accuracy on %s: %,d workloads, forecasts at the submission of every %s, %s"
                + " each, horizon %s (errors count a start after it as at it)%n", s.name(), s.workloads().size(), sampleEvery == 1 ? "workload" : Words.ordinal(sampleEvery)
                + " workload", Words.count(runs, "run"), Durations.format(h));
        out.println(openEnded ? "new work: like the recent past over the whole horizon, also after the scenario's last"
                + " submission (--open-ended)"
                : "new work: like the recent past, up to the scenario's last submission (the replay's end is known;"
                + " --open-ended to play past it)");
        out.flush();
        CompletableFuture<ForecastAccuracy.Measure> baseline = CompletableFuture.supplyAsync(
                () -> ForecastAccuracy.slurmBaseline(s, registry, settings, sampleEvery));
        ForecastAccuracy.Measure allot = ForecastAccuracy.allot(s, registry, policy, settings, sampleEvery, !openEnded);
        ForecastAccuracy.Comparison c = new ForecastAccuracy.Comparison(s.name(), allot, baseline.get());
        out.print(c.table());
        out.flush();
        if (json != null) {
            OutputFiles.writeText("--json", json, w -> write(c, w));
            out.println("wrote " + json);
        }
        return 0;
    }

    /**
     * The options' values, checked before a scenario is generated or read, each refused naming its option (the
     * measure's own checks, deeper down, said "sample every must be at least 1, not 0" after printing the header,
     * and a horizon of 0 "not PT0S"; a --json that could not be written failed after the whole run). Answers the
     * horizon.
     */
    /**
     * The most futures per forecast: the replay's time grows with it (a forecast of the lab takes about a second with
     * 10), and '--runs 99999999' was taken and ran without end.
     */
    static final int MAX_RUNS = 1_000;
    /** The longest horizon: a year, beyond any trace's waits; with --open-ended every future plays new work that long. */
    static final Duration MAX_HORIZON = Duration.ofDays(365);

    private Duration checkOptions() {
        OutputFiles.check("--json", json); // as every command that writes: refused before the work
        OutputFiles.checkDistinct(java.util.Collections.singletonMap("--json", json), traceOptions.inputs(dir));
        if (sampleEvery < 1) {
            throw new IllegalArgumentException("--sample-every expects a whole number >= 1 (1: every workload), got "
                    + sampleEvery);
        }
        if (runs < 1 || runs > MAX_RUNS) {
            throw new IllegalArgumentException("--runs expects a whole number from 1 to " + MAX_RUNS + ", got " + runs
                    + " (each forecast plays that many futures; 10 gives a p10-p90 band)");
        }
        PresetDays.spec(preset, days);
        PresetDays.checkSeed(preset != null, spec.commandLine().getParseResult().hasMatchedOption("--seed"));
        Duration h;
        try {
            h = Durations.parse(horizon);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--horizon: " + e.getMessage());
        }
        if (h.isZero() || h.isNegative() || h.compareTo(MAX_HORIZON) > 0) {
            throw new IllegalArgumentException("--horizon expects a duration > 0 and at most "
                    + Durations.format(MAX_HORIZON) + " such as 12h or 2d, got '" + horizon + "'");
        }
        return h;
    }

    private Scenario scenario(PolicyRegistry registry) {
        if (preset != null) {
            if (dir != null || traceOptions.given()) {
                throw new IllegalArgumentException("give one of DIR, --preset or --trace, not several");
            }
            traceOptions.checkNoTraceOnly("a preset makes its own cluster, allocations and workloads");
            GeneratorSpec g = PresetDays.spec(preset, days);
            return ScenarioGenerator.generate(g, seed).toScenario(preset + "-seed" + seed);
        }
        if (dir == null && !traceOptions.given()) {
            throw new IllegalArgumentException("expected a scenario: DIR, --preset NAME or --trace FORMAT:PATH --nodes"
                    + " COUNTxGPUS; e.g. allot forecast accuracy --preset lab");
        }
        return traceOptions.scenario(dir, false, registry);
    }

    private static void write(ForecastAccuracy.Comparison c, java.io.Writer w) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(w, c);
    }
}
