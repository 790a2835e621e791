package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
    void withoutAScenarioItSaysWhatToGive() {
        Cli.Result r = Cli.run("forecast", "accuracy");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("expected a scenario", "--preset");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aPresetAndATraceTogetherAreRefused() {
        Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", "--trace", "philly:x.csv", "--nodes", "2x8");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("not several");
    }
}
