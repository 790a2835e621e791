package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code allot forecast accuracy}: the table, its JSON, and clear errors for a missing or doubled scenario. */
class ForecastAccuracyCommandTest {
    @Test
    void measuresAllotAndTheBaselineOnAPresetAndWritesTheSameNumbersAsJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("accuracy.json");
        Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", "--days", "2", "--sample-every", "40",
                "--runs", "3", "--json", json.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("forecast accuracy on lab-seed42", "allot forecast", "slurm plan at submission",
                "by actual wait", "goal: median |err| <= 1/3 of the baseline's");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        int samples = root.path("allot").path("samples").asInt();
        assertThat(samples).isPositive();
        assertThat(r.out()).containsPattern("allot forecast\\s+allocation\\s+" + samples + "\\s");
        assertThat(root.path("baseline").path("policy").asText()).isEqualTo("slurm");
    }

    @Test
    void withoutAScenarioItSaysWhatToGive() {
        Cli.Result r = Cli.run("forecast", "accuracy");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("expected a scenario", "--preset");
    }

    @Test
    void aPresetAndATraceTogetherAreRefused() {
        Cli.Result r = Cli.run("forecast", "accuracy", "--preset", "lab", "--trace", "philly:x.csv", "--nodes", "2x8");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("not several");
    }
}
