package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot campaign simulate} on a scenario small enough to work out by hand: two 1-GPU nodes, B holding one for
 * 12 hours from 0, and a campaign of three restore shards (30h, 25h and 6h15m of 25-minute units) with one slot.
 */
class CampaignSimulateCommandTest {
    @TempDir
    Path tmp;
    private Path scenario;
    private Path campaign;

    @BeforeEach
    void files() throws IOException {
        scenario = Files.createDirectories(tmp.resolve("two-gpus"));
        Files.writeString(scenario.resolve("cluster.yaml"), "node-groups:\n  - {name-prefix: n, count: 2, gpus: 1}\n");
        Files.writeString(scenario.resolve("allocations.yaml"),
                "name: lab\nchildren:\n  - {name: A, share: 1}\n  - {name: B, share: 1}\n");
        Files.writeString(scenario.resolve("workloads.csv"),
                "id,submit,allocation,user,gpus,gpus_per_node,duration,min_runtime,resumable,priority,checkpoint_every,kind\n"
                        + "b1,0,B,bo,1,,12h,8h,false,normal,,train\n");
        campaign = tmp.resolve("c.yaml");
        Files.writeString(campaign, "name: c\nallocation: A\nmin-runtime: 8h\nprotected-shards: 1\n"
                + "families: {restore: 25m}\n"
                + "shards:\n  - {family: restore, units: 72}\n  - {family: restore, units: 60}\n"
                + "  - {family: restore, units: 15}\n");
    }

    @Test
    void lenientSaysWhichRowsItSkippedAsSimulateDoes() throws IOException {
        Files.writeString(scenario.resolve("workloads.csv"), "b2,0,B,bo,many,,1h,0s,false,normal,,train\n",
                java.nio.file.StandardOpenOption.APPEND);
        Cli.Result r = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--threads", "1", "--lenient");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("skipped 1 workload row (--lenient):\n"
                + "  workloads.csv:3:5: field 'gpus': expected a whole number >= 1, got 'many'\n");
    }

    @Test
    void lenientThatSkipsEveryRowIsRefusedAsSimulateRefusesIt() throws IOException {
        Files.writeString(scenario.resolve("workloads.csv"), "id,submit,allocation,gpus,duration,min_runtime\n"
                + "b2,0,B,many,1h,0s\n");
        Cli.Result r = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--threads", "1", "--lenient");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: workloads.csv: no row became a workload: its 1 row was rejected"
                + " (--lenient skips bad rows, but a run needs at least one workload); the reason: workloads.csv:2:4:"
                + " field 'gpus': expected a whole number >= 1, got 'many'\n");
    }

    @Test
    void printsEachStrategysMakespanChargeLossAndMovesAgainstTheBaseline() throws IOException {
        Path json = tmp.resolve("out/c.json");
        Cli.Result r = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--threads", "1", "--check", "--json", json.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        // allot: the 30h shard holds the slot; the 25h one runs on B's GPU from 12h and is promoted in place at 30h
        // (ends 37h, charged 30h + 7h); v4.1 and v4 restart it at 30h instead, losing 5 minutes (ends 37h05m);
        // all-protected charges all 61h15m of work; all-unallocated ends at 37h too, charged nothing. B's only job
        // runs 0-12h in every run: its paid fraction is the baseline's
        assertThat(r.out().lines().toList()).containsExactly(
                "campaign c: 3 shards (restore), 147 units, 61.3 GPU-hours of work; A, 1 shard protected, min runtime 8h,"
                        + " submitted at 0s",
                "two-gpus, policy allocation, 1 seed; others = every allocation but A, paid over the campaign's window",
                "STRATEGY         MAKESPAN h  CHARGED GPU-h  LOST GPU-h  REDONE  RESTARTS  PROMOTIONS  PREEMPTED"
                        + "  OTHERS PAID  vs BASE",
                "allot                  37.0           37.0         0.0       0       0.0         1.0        0.0"
                        + "       100.0%  +0.00pp",
                "v4                     37.1           37.1         0.1       0       1.0         0.0        0.0"
                        + "       100.0%  +0.00pp",
                "v4.1                   37.1           37.1         0.1       0       1.0         0.0        0.0"
                        + "       100.0%  +0.00pp",
                "all-protected          37.0           61.3         0.0       0       0.0         0.0        0.0"
                        + "       100.0%  +0.00pp",
                "all-unallocated        37.0            0.0         0.0       0       0.0         0.0        0.0"
                        + "       100.0%  +0.00pp",
                "baseline                  -              -           -       -         -           -          -"
                        + "       100.0%        -",
                "goal (makespan >= 20% shorter than v4.1 at no more charged GPU-hours, no unit done twice): NOT met;"
                        + " allot's mean makespan is 0.2% shorter (per seed 0.2% to 0.2%, shorter in 1 of 1), charged"
                        + " 37.0 vs 37.1 GPU-hours, 0 units done twice",
                "wrote " + json);
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertThat(doc.path("schema").asText()).isEqualTo("allot.campaign-simulate/1");
        assertThat(doc.path("campaign").path("unitsTotal").asLong()).isEqualTo(147);
        JsonNode v41 = doc.path("strategies").get(2);
        assertThat(v41.path("strategy").asText()).isEqualTo("v4.1");
        assertThat(v41.path("makespanHours").path("values").get(0).asDouble()).isEqualTo(37 + 5 / 60.0,
                org.assertj.core.data.Offset.offset(1e-6));
        assertThat(v41.path("lostGpuHours").path("mean").asDouble()).isEqualTo(5 / 60.0,
                org.assertj.core.data.Offset.offset(1e-6));
        assertThat(v41.path("unitsRedone").path("max").asDouble()).isZero();
        // same inputs, same bytes
        Path again = tmp.resolve("again.json");
        Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(), "--threads", "2",
                "--json", again.toString());
        assertThat(Files.readString(again)).isEqualTo(Files.readString(json));
    }

    @Test
    void writesTheCampaignReportWithTheSameTableAndTheRunsItDraws() throws IOException {
        Path report = tmp.resolve("out/c.html");
        Cli.Result r = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--threads", "1", "--report", report.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("wrote " + java.util.regex.Pattern.quote(report.toString())
                + " \\([0-9,]+ KiB\\)\n$");
        String html = Files.readString(report);
        // the terminal's allot row, cell for cell, and its goal line
        assertThat(html).contains("<tr data-strategy=\"allot\"><td><span class=\"chip\"></span>allot</td><td>37.0</td>"
                + "<td>37.0</td><td>0.0</td><td>0</td><td>0.0</td><td>1.0</td><td>0.0</td><td>100.0%</td>"
                + "<td>+0.00pp</td></tr>");
        assertThat(html).contains("allot's mean makespan is 0.2% shorter");
        JsonNode doc = dev.allot.report.CampaignReport.embeddedJson(html);
        assertThat(doc.path("schema").asText()).isEqualTo("allot.campaign-report/1");
        assertThat(doc.path("comparison").path("schema").asText()).isEqualTo("allot.campaign-simulate/1");
        JsonNode allot = doc.path("seeds").get(0).path("runs").get(0);
        assertThat(allot.path("makespanSeconds").asLong()).isEqualTo(37 * 3600);
        assertThat(allot.path("promotions").asInt()).isEqualTo(1);
        // a report path that cannot be written is refused before the runs
        Path folder = Files.createDirectories(tmp.resolve("a-folder.html"));
        Cli.Result bad = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--report", folder.toString());
        assertThat(bad.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(bad.err()).isEqualTo("allot: cannot write --report " + folder + ": it is a folder\n");
    }

    @Test
    void chosenStrategiesRunInTheOrderGiven() {
        Cli.Result r = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--strategy", "v4.1,allot", "--threads", "1");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> firstWords = r.out().lines().skip(3).map(l -> l.split(" ")[0]).toList();
        assertThat(firstWords).startsWith("v4.1", "allot", "baseline", "goal");
    }

    @Test
    void mistakesAreBadInputInOneLine() throws IOException {
        Cli.Result unknown = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--strategy", "v5");
        assertThat(unknown.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(unknown.err()).isEqualTo("allot: --strategy: unknown strategy 'v5'; valid: allot, v4, v4.1,"
                + " all-protected, all-unallocated\n");
        Files.writeString(campaign, Files.readString(campaign).replace("allocation: A", "allocation: C"));
        Cli.Result leaf = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString());
        assertThat(leaf.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(leaf.err()).isEqualTo("allot: " + campaign + ":2:13: field 'allocation': expected one of the leaf"
                + " allocations (A, B), got 'C'\n");
        assertThat(Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(), "--seeds",
                "1-3").err()).contains("--seeds repeats a generated background: use it with --preset");
        assertThat(Cli.run("campaign", "simulate", "--preset", "lab", "--seeds", "3-1", "--campaign",
                campaign.toString()).err()).contains("--seeds: expected N (seeds 1 to N), A-B (A <= B) or a comma-separated list");
        assertThat(Cli.run("campaign", "simulate", "--campaign", campaign.toString()).err())
                .contains("give either a scenario folder DIR or --preset NAME");
        // --threads 0 ran on one thread without a word
        Cli.Result threads = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--threads", "0");
        assertThat(threads.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(threads.err()).isEqualTo("allot: --threads expects a whole number >= 1, got 0\n");
        assertThat(threads.out()).isEmpty();
    }

    @Test
    void aCampaignSubmittedAfterTheBackgroundsLastSubmissionIsNoted() throws IOException {
        // submit-at 3d in a two-day preset gave a table like any other: seeds 0, 3 and 5 agreed to the decimal
        Files.writeString(campaign, "submit-at: 2h\n" + Files.readString(campaign));
        Cli.Result r = Cli.run("campaign", "simulate", scenario.toString(), "--campaign", campaign.toString(),
                "--threads", "1", "--strategy", "allot");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).endsWith("\nnote: the campaign is submitted at 2h, after the background's last submission at"
                + " 0s: it meets only the background work still running or waiting then; a later submit-at needs a"
                + " longer background (--days)\n");

        Cli.Result preset = Cli.run("campaign", "simulate", "--preset", "lab", "--days", "1", "--seeds", "2-2",
                "--campaign", Cli.example("campaign/oracle-eval.yaml"), "--strategy", "allot");
        assertThat(preset.exit()).as(preset.err()).isZero();
        assertThat(preset.out()).contains("\nnote: the campaign is submitted at 3d, after the background's last"
                + " submission at ").contains(" (seed 2): it meets only");
    }
}
