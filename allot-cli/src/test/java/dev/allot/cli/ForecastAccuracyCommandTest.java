package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code allot forecast accuracy}: the table, its JSON, and clear errors for a missing or doubled scenario.
 *
 * <p>It runs beside the module's other tests, one at a time with {@link ExamplesTest} ({@code @Execution(CONCURRENT)}
 * under one {@code @ResourceLock}, see {@code junit-platform.properties}).
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(ExamplesTest.LONG_SIMULATIONS)
class ForecastAccuracyCommandTest {
    @Test
    void aListOfPoliciesIsRefusedAsOnePolicyAtATimeNotAsAnUnknownName() {
        Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", "--days", "2", "--policy",
                "allocation,legacy");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: --policy takes one policy, got 'allocation,legacy'; measure one at a"
                + " time, with one of: ").contains("allocation").doesNotContain("unknown policy");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void measuresAllotAndTheBaselineOnAPresetAndWritesTheSameNumbersAsJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("accuracy.json");
        Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", "--days", "2", "--sample-every", "40",
                "--runs", "3", "--json", json.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("forecast accuracy on lab-seed42", "allot forecast", "slurm plan at submission",
                "by actual wait", "goal: median |err| <= 1/3 of the baseline's",
                "new work: like the recent past, up to the scenario's last submission");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        int samples = root.path("allot").path("samples").asInt();
        assertThat(samples).isPositive();
        assertThat(r.out()).containsPattern("allot forecast\\s+allocation\\s+" + samples + "\\s");
        assertThat(root.path("baseline").path("policy").asText()).isEqualTo("slurm");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenEverySecondWorkloadSampled_whenRun_thenTheHeaderAndTheBandLineReadAsEnglish() {
        // it said "forecasts at the submission of every 2th workload" and "the starts of the 1 workloads"
        Cli.Result r = Cli.run("forecast", "accuracy", Cli.example("tiny"), "--sample-every", "2", "--runs", "2");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("forecasts at the submission of every 2nd workload, 2 runs each",
                "of the starts of the 1 workload forecast to start at once");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenOneWorkloadSampled_whenRun_thenTheCostLineSaysOneForecast() {
        // it said "(allot, 1 forecasts)"
        Cli.Result r = Cli.run("forecast", "accuracy", Cli.example("tiny"), "--sample-every", "12", "--runs", "1");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("cost: [0-9.]+ ms per forecast \\(allot, 1 forecast\\), ");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenAShortHorizon_whenRun_thenTheHeaderSaysAStartAfterItCountsAsAtIt() {
        // errors are measured with both starts capped at the horizon, which the output did not say: with --horizon 1h
        // a workload that waited two days and was forecast to wait one hour counted as an error of 0
        Cli.Result r = Cli.run("forecast", "accuracy", Cli.example("tiny"), "--sample-every", "12", "--runs", "1",
                "--horizon", "1h");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines().findFirst().orElseThrow())
                .endsWith(", 1 run each, horizon 1h (errors count a start after it as at it)");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenASeedWithoutAPreset_whenRun_thenItIsRefusedBeforeAnyWork() {
        // 'forecast accuracy DIR --seed 7' measured the folder as if the seed had not been given
        Cli.Result r = Cli.run("forecast", "accuracy", Cli.example("tiny"), "--seed", "7", "--runs", "1");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --seed chooses a generated scenario's seed: give it with --preset\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void withoutAScenarioItSaysWhatToGive() {
        Cli.Result r = Cli.run("forecast", "accuracy");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("expected a scenario", "--preset");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenTraceOnlyOptionsWithAPreset_whenRun_thenTheyAreRefusedNamingThemBeforeAnyWork() {
        // '--preset lab --nodes 4x8' ignored --nodes and measured the preset's own cluster
        Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", "--days", "1", "--nodes", "4x8",
                "--sample-every", "100000", "--runs", "1", "--horizon", "1h");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --nodes only applies with --trace; a preset makes its own cluster,"
                + " allocations and workloads\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenASampleEveryThatSamplesNoWorkload_whenRun_thenItIsRefusedWithTheLargestThatSamplesAny() {
        // it printed a table of '-' and exited 0, having measured nothing
        Cli.Result r = Cli.run("forecast", "accuracy", Cli.example("tiny"), "--sample-every", "100000", "--runs", "1",
                "--horizon", "1h");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("allot: --sample-every 100000 samples none of the 12 workloads of tiny (about"
                + " one in 100000 is sampled, by a hash of its id); give at most 12, the largest that samples any\n");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aContractWithoutATraceIsRefusedInOneSentence() {
        // "--contract only apply with --trace"
        Cli.Result r = Cli.run("forecast", "accuracy", Cli.example("tiny"), "--contract", "min-runtime=2h");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --contract only applies with --trace; a scenario folder gives them in its"
                + " files (cluster.yaml, allocations.yaml, trace.yaml)\n");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aPresetAndATraceTogetherAreRefused() {
        Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", "--trace", "philly:x.csv", "--nodes", "2x8");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("not several");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenABadOption_whenRun_thenItIsRefusedNamingTheOptionBeforeAnyWork() {
        // it printed the header ("every 0th workload") and then "sample every must be at least 1, not 0"; a horizon
        // of 0 was "not PT0S", a malformed one named no option
        String[][] cases = {
            {"--sample-every", "0", "allot: --sample-every expects a whole number >= 1 (1: every workload), got 0\n"},
            {"--runs", "0", "allot: --runs expects a whole number from 1 to 1000, got 0 (each forecast plays that many"
                    + " futures; 10 gives a p10-p90 band)\n"},
            // taken, and it ran without end
            {"--runs", "99999999", "allot: --runs expects a whole number from 1 to 1000, got 99999999 (each forecast"
                    + " plays that many futures; 10 gives a p10-p90 band)\n"},
            {"--horizon", "99999999d", "allot: --horizon expects a duration > 0 and at most 365d such as 12h or 2d,"
                    + " got '99999999d'\n"},
            {"--days", "0", "allot: --days expects a whole number of days >= 1, got 0\n"},
            {"--horizon", "0", "allot: --horizon expects a duration > 0 and at most 365d such as 12h or 2d, got '0'\n"},
            {"--horizon", "3x", "allot: --horizon: malformed duration '3x'; expected e.g. 90s, 15m, 8h, 2d, 1h30m or plain"
                    + " seconds\n"},
        };
        for (String[] c : cases) {
            Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", c[0], c[1]);
            assertThat(r.exit()).as(c[0]).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.out()).as(c[0]).isEmpty();
            assertThat(r.err()).isEqualTo(c[2]);
        }
        Cli.Result days = Cli.run("forecast", "accuracy", Cli.example("tiny"), "--days", "3");
        assertThat(days.err()).as("--days is for a generated scenario; it was ignored")
                .isEqualTo("allot: --days applies to a generated scenario: give it with --preset\n");
        Cli.Result json = Cli.run("forecast", "accuracy", "--preset", "lab", "--json", "pom.xml/accuracy.json");
        assertThat(json.out()).isEmpty();
        assertThat(json.err()).startsWith("allot: cannot write --json pom.xml/accuracy.json: ");
        Cli.Result generate = Cli.run("generate", "/nonexistent/never-made", "--days", "-1");
        assertThat(generate.err()).isEqualTo("allot: --days expects a whole number of days >= 1, got -1\n");
    }

    @Test
    void aNumberOfDaysBeyondTenYearsIsRefusedBeforeAnyWork(@TempDir Path dir) throws Exception {
        // 'generate DIR --days 99999' ran for minutes, then out of memory; PresetDays is every --days' rule
        assertThatThrownBy(() -> PresetDays.spec("lab", 3651)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--days expects at most 3650 days (ten years; the lab preset makes about 1,600 workloads a"
                        + " day), got 3651");
        assertThat(PresetDays.spec("lab", 3650).days()).isEqualTo(3650);
        java.nio.file.Files.writeString(dir.resolve("keep.txt"), "not empty"); // refused here before the fix
        Cli.Result huge = Cli.run("generate", dir.toString(), "--days", "99999");
        assertThat(huge.exit()).isEqualTo(2);
        assertThat(huge.err()).isEqualTo("allot: --days expects at most 3650 days (ten years; the lab preset makes"
                + " about 1,600 workloads a day), got 99999\n");
    }
}
