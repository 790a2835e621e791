package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The committed examples are what the README says they are.
 *
 * <p>It runs beside the module's other tests, one at a time with {@link ForecastAccuracyCommandTest}
 * ({@code @Execution(CONCURRENT)} under one {@code @ResourceLock}, see {@code junit-platform.properties}): whole
 * simulations, sharing nothing with the other classes.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(ExamplesTest.LONG_SIMULATIONS)
class ExamplesTest {
    /** The lock of the module's long simulation classes, which run beside the others one at a time. */
    static final String LONG_SIMULATIONS = "allot-cli: long simulations";

    @TempDir
    Path tmp;

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void examplesLabIsExactlyWhatTheGeneratorWrites() throws IOException {
        Path out = tmp.resolve("lab");
        Cli.Result r = Cli.run("generate", out.toString(), "--preset", "lab", "--seed", "42");
        assertThat(r.exit()).as(r.err()).isZero();
        Path committed = Cli.ROOT.resolve("examples/lab");
        for (String f : List.of("cluster.yaml", "allocations.yaml", "workloads.csv")) {
            assertThat(Files.readAllBytes(out.resolve(f))).as(f).isEqualTo(Files.readAllBytes(committed.resolve(f)));
        }
        assertThat(out.resolve("policy.yaml")).doesNotExist();
        assertThat(committed.resolve("policy.yaml")).doesNotExist();
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void theReadmesFirstCommandRunsTheLabWithEveryInvariantChecked() {
        Cli.Result r = Cli.run("simulate", Cli.example("lab"), "--check");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("22,879", "== allocation", "== legacy", "== side by side");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void onTheLabTheAllocationPolicysShortcutsDecideExactlyAsTheFullSearch() throws IOException {
        Path fast = tmp.resolve("fast.csv");
        Path full = tmp.resolve("full.csv");
        assertThat(Cli.run("simulate", Cli.example("lab"), "--policy", "allocation", "--workloads-out", fast.toString()).exit()).isZero();
        assertThat(Cli.run("simulate", Cli.example("lab"), "--policy", "allocation", "--set", "allocation.shortcuts=false",
                "--workloads-out", full.toString()).exit()).isZero();
        assertThat(Files.readAllBytes(fast)).isEqualTo(Files.readAllBytes(full));
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void generateRefusesToOverwriteWithoutForce() throws IOException {
        // a folder is refused for its scenario files, not for any file (notes.txt is no scenario: GenerateCommandTest)
        Path dir = Files.createDirectories(tmp.resolve("refused"));
        Files.writeString(dir.resolve("keep.txt"), "x");
        Files.writeString(dir.resolve("workloads.jsonl"), "");
        Cli.Result r = Cli.run("generate", dir.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains(dir + " already holds scenario files (workloads.jsonl); pass --force to"
                + " overwrite them");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void policiesListsEverySettingWithItsDefault() {
        Cli.Result r = Cli.run("policies");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("allocation.fairshare-recheck  (default 5m)", "legacy.non-preemptible-min-runtime  (default 8h)",
                "slurm.decay-half-life", "slurm.grace-time", "kueue.hierarchical-cohorts  (default false)",
                "kueue.usage-half-life-time  (default 7d)", "lookback         (default 7d)");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void benchPrintsWallTimeEventsPerSecondAndHeap() {
        Cli.Result r = Cli.run("bench", "--scenario", Cli.example("tiny"), "--warmup", "0", "--rounds", "1");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("events/s", "peak MB", "tiny", "allocation", "legacy");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void theLocalCampaignExampleReadsAsTheCampaignTheReadmeWalksThrough() throws IOException {
        Path file = Cli.ROOT.resolve("examples/campaign/local-eval.yaml");
        var body = CampaignFile.read(file, Files.readString(file));
        assertThat(body.path("name").asText()).isEqualTo("eval-2026-03");
        assertThat(body.path("allocation").asText()).isEqualTo("lab/nlp/eval");
        assertThat(body.path("protectedShards").asInt()).isEqualTo(1);
        assertThat(body.path("shards")).hasSize(4);
        assertThat(body.path("shards").get(2).path("family").asText()).isEqualTo("retrieve");
        assertThat(body.path("environment").path("ALLOT_HOME").asText()).isEqualTo("@ALLOT_HOME@");
        // the shards report to the server the file names (a workload has no other environment): any port works
        assertThat(body.path("environment").path("ALLOT_SERVER").asText()).isEqualTo("@SERVER@");
        assertThat(Files.readString(Cli.ROOT.resolve("README.md")))
                .contains("-e \"s|@SERVER@|http://127.0.0.1:8080|\"");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void theExampleShardResumesFromItsReportedUnitsAndReportsEachOneUpToItsTotal() throws Exception {
        // a stand-in for ./allot that records what the shard reports
        Path reports = tmp.resolve("reports");
        Shard shard = runShard("allot-home", "w-7", "#!/bin/sh\necho \"$*\" >> " + reports + "\n");
        assertThat(shard.exit()).as(shard.out()).isZero();
        assertThat(Files.readAllLines(reports)).containsExactly("progress w-7 2 3", "progress w-7 3 3");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenTheServerUnreachableForOneReport_theExampleShardGoesOnAndItsNextReportCarriesTheCount() throws Exception {
        // a stand-in for ./allot whose first report fails as the real one does while the service restarts (exit 1)
        Path reports = tmp.resolve("reports-down");
        Path failed = tmp.resolve("failed-once");
        Shard shard = runShard("allot-home-down", "w-8", "#!/bin/sh\nif [ ! -e " + failed + " ]; then touch " + failed
                + "; echo 'allot: cannot reach the Allot server' >&2; exit 1; fi\necho \"$*\" >> " + reports + "\n");
        // the shard does not die for the server's hiccup (a shard that exits non-zero is held, never resubmitted)
        assertThat(shard.exit()).as(shard.out()).isZero();
        assertThat(shard.out()).contains("shard.sh: could not report unit 2 of 3; the next report carries it");
        assertThat(Files.readAllLines(reports)).containsExactly("progress w-8 3 3");
    }

    /** How the example shard ended: its exit code and what it printed. */
    private record Shard(int exit, String out) {
    }

    /**
     * Runs examples/campaign/shard.sh as workload {@code workload}'s shard of 3 units resumed from 1, with a stand-in
     * for ./allot (the script {@code allot}) in the folder {@code home} of the test's temporary folder.
     */
    private Shard runShard(String home, String workload, String allot) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(home));
        Files.writeString(dir.resolve("allot"), allot);
        dir.resolve("allot").toFile().setExecutable(true);
        ProcessBuilder pb = new ProcessBuilder("sh", Cli.ROOT.resolve("examples/campaign/shard.sh").toString());
        pb.environment().put("ALLOT_HOME", dir.toString());
        pb.environment().put("ALLOT_WORKLOAD_ID", workload);
        pb.environment().put("ALLOT_UNITS", "3");
        pb.environment().put("ALLOT_RESUME_FROM", "1");
        pb.environment().put("ALLOT_FAMILY", "restore");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        return new Shard(p.waitFor(), out);
    }
}
