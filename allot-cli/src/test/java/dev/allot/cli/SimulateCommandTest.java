package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code allot simulate} on the small example: the report, its files, golden outputs and determinism. */
class SimulateCommandTest {
    @TempDir
    Path tmp;

    @Test
    void simulatesBothPoliciesSideBySideAndWritesEveryOutput() throws IOException {
        Path json = tmp.resolve("r.json");
        Path csv = tmp.resolve("w.csv");
        Path events = tmp.resolve("e.txt");
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--check", "--json", json.toString(),
                "--workloads-out", csv.toString(), "--events-out", events.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("== allocation", "== legacy", "== side by side", "nlp-pretrain", "45.0%");
        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.get(0)).isEqualTo("policy,id,allocation,submit,first_start,end,wait_seconds,preemptions,final_state");
        assertThat(rows).hasSize(1 + 2 * 12);
        assertThat(Files.readString(events)).contains("# policy allocation", "# policy legacy",
                "4h preempt pre-1 drain node-02 host_drain requeued");
    }

    @Test
    void theJsonAndTheReportMatchTheirGoldenFiles() throws IOException {
        Path json = tmp.resolve("r.json");
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--json", json.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        Golden.check("tiny.json", Files.readString(json, StandardCharsets.UTF_8));
        String masked = r.out().replaceAll("(?m)^(== \\w+)  \\(.*\\)$", "$1  (timings masked)")
                .replaceAll("(?m)^(wall time|events/s) .*$", "$1 (masked)")
                .replaceAll("(?m)^wrote .*$", "wrote (masked)");
        Golden.check("tiny.txt", masked);
    }

    @Test
    void sameInputsGiveTheSameBytes() throws IOException {
        Path a = tmp.resolve("a.json");
        Path b = tmp.resolve("b.json");
        Path wa = tmp.resolve("a.csv");
        Path wb = tmp.resolve("b.csv");
        assertThat(Cli.run("simulate", Cli.example("tiny"), "--json", a.toString(), "--workloads-out", wa.toString()).exit()).isZero();
        assertThat(Cli.run("simulate", Cli.example("tiny"), "--json", b.toString(), "--workloads-out", wb.toString()).exit()).isZero();
        assertThat(Files.readAllBytes(a)).isEqualTo(Files.readAllBytes(b));
        assertThat(Files.readAllBytes(wa)).isEqualTo(Files.readAllBytes(wb));
    }

    @Test
    void paidBoundAddsTheBoundToTheSummaryAndTheJsonWithoutChangingADecision() throws IOException {
        Path json = tmp.resolve("bound.json");
        Path with = tmp.resolve("with.csv");
        Path without = tmp.resolve("without.csv");
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--paid-bound", "--json", json.toString(),
                "--workloads-out", with.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("paid at instants", "most any schedule could");
        com.fasterxml.jackson.databind.JsonNode bound = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(json.toFile()).get("policies").get(0).get("paidBound");
        assertThat(bound.get("stepSeconds").asLong()).isEqualTo(900);
        assertThat(bound.get("instants").asLong()).isPositive();
        assertThat(bound.get("paidGpus").asDouble()).isLessThanOrEqualTo(bound.get("boundGpus").asDouble());
        assertThat(bound.get("boundGpus").asDouble()).isLessThanOrEqualTo(bound.get("owedGpus").asDouble());
        Cli.Result plain = Cli.run("simulate", Cli.example("tiny"), "--workloads-out", without.toString());
        assertThat(plain.out()).doesNotContain("paid at instants");
        assertThat(Files.readAllLines(with)).isEqualTo(Files.readAllLines(without));
    }

    @Test
    void settingsCanBeOverriddenFromTheCommandLine() {
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--set", "lookback=3d",
                "--set", "allocation.fairshare-recheck=1m");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("lookback 3d", "fairshare-recheck=1m");
    }

    @Test
    void explainSaysWhyAWorkloadWaitsAtAnInstantWithTheRunsSettings() {
        // given tiny's pre-1 running protected for 4h from 0s and pre-2 of the same allocation waiting from 10m
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--explain", "pre-2@30m", "--explain", "pre-1@30m",
                "--explain", "pre-1@400d");

        assertThat(r.exit()).as(r.err()).isZero();
        String text = r.out().substring(r.out().indexOf("== explanations (allocation)"));
        // then in the order of the instants, the service's words; tiny's policy.yaml sets lookback 1d
        assertThat(text).contains("pre-1 at 30m\n  pre-1 runs in nlp-pretrain.\n  It is protected by its 4h minimum"
                + " runtime until 4h (in 3h30m)");
        assertThat(text).contains("pre-2 at 30m\n  pre-2 waits: 1st of 1 waiting; 1st of 1 in nlp-pretrain.");
        assertThat(text).contains("Over the last 1d: ");
        assertThat(text.indexOf("pre-1 at 30m")).isLessThan(text.indexOf("pre-2 at 30m"));
        assertThat(text).contains("pre-1 at 400d: not reached (the run's last event was at ");
    }

    @Test
    void explainNeedsTheAllocationPolicyAWorkloadOfTheScenarioAndAnInstant() {
        Cli.Result noAllocation = Cli.run("simulate", Cli.example("tiny"), "--policy", "legacy", "--explain", "pre-2@30m");
        assertThat(noAllocation.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(noAllocation.err()).contains("--explain explains the allocation policy's decisions")
                .contains("add allocation to --policy, e.g. --policy allocation,legacy");
        Cli.Result unknown = Cli.run("simulate", Cli.example("tiny"), "--explain", "pre-9@30m");
        assertThat(unknown.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(unknown.err()).contains("--explain: no workload 'pre-9' in the scenario");
        Cli.Result noTime = Cli.run("simulate", Cli.example("tiny"), "--explain", "pre-2");
        assertThat(noTime.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(noTime.err()).contains("--explain: expected ID@TIME").doesNotContain("Exception");
    }

    @Test
    void aStopDelayBeyondADayOrNotADurationIsRefusedBeforeTheRun() {
        // a delay near the run's overtime guard (a year) left work still stopping at the end: running, never started
        for (String bad : new String[] {"366d", "2d", "-1s", "soon"}) {
            Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--stop-delay", bad);
            assertThat(r.exit()).as(bad).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).isEqualTo("allot: --stop-delay: expected a duration from 0s to 1d such as 0s, 3s or 1m"
                    + " (how long a preempted process takes to stop), got '" + bad + "'\n");
            assertThat(r.out()).isEmpty();
        }
        Cli.Result day = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--stop-delay", "1d",
                "--check");
        assertThat(day.exit()).as(day.err()).isZero();
    }

    @Test
    void anUnknownPolicyFailsWithTheValidOnes() {
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation,fifo");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("unknown policy 'fifo'; valid policies: allocation, legacy, slurm, kueue");
    }

    @Test
    void anUnknownSettingFailsWithTheValidOnes() {
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--set", "allocation.recheck=1m");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("unknown setting 'recheck'; valid settings: burst-reserve, burst-short-protection, fairshare-recheck,");
    }

    @Test
    void aPolicyNamedTwiceIsRefused() {
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation,legacy,allocation");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --policy names 'allocation' twice; each policy runs once, e.g. --policy"
                + " allocation,legacy\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aPolicySettingThatDoesNotReadNamesTheSetNotPolicyYaml() {
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--set", "allocation.placement=worst");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --set allocation.placement: setting 'placement': cannot read 'worst' as"
                + " one of protection, best-fit\n");
    }

    @Test
    void settingsGivenWithSetAreReportedAsTheDefaultsAreWritten() throws IOException {
        // the header and the JSON echoed 'fairshare-recheck=300s, ranking=ENTITLEMENT' as typed, beside the shared
        // settings' normalized 'lookback 7d' and the defaults' '5m'
        Path json = tmp.resolve("run.json");
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--set", "lookback=168h",
                "--set", "allocation.fairshare-recheck=300s", "--set", "allocation.ranking=ENTITLEMENT", "--set",
                "allocation.reclaim-margin=0.10", "--json", json.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("settings     lookback 7d,", "fairshare-recheck=5m,", "ranking=entitlement,",
                "reclaim-margin=0.1,").doesNotContain("300s", "ENTITLEMENT", "0.10");
        assertThat(Files.readString(json)).contains("\"fairshare-recheck\" : \"5m\"", "\"ranking\" : \"entitlement\"")
                .doesNotContain("300s", "ENTITLEMENT");
    }

    @Test
    void aPolicySettingOutOfItsRangeNamesTheSet() {
        // it said only "allot: fairshare-recheck must be positive, got 0s", naming neither --set nor the policy
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--set",
                "allocation.fairshare-recheck=0");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --set allocation.fairshare-recheck=0: fairshare-recheck must be"
                + " positive, got 0s\n");
    }

    @Test
    void aSettingOfAPolicyThatIsNotRunIsRefused() {
        // it changed nothing and said nothing
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--set",
                "slurm.grace-time=5m");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --set slurm.grace-time: the policy 'slurm' is not run (--policy"
                + " allocation); add it to --policy, or drop this --set\n");
        Cli.Result sweep = Cli.run("sweep", Cli.example("tiny"), "--policy", "allocation,legacy", "--set",
                "kueue.x=1,2");
        assertThat(sweep.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(sweep.err()).startsWith("allot: --set kueue.x: the policy 'kueue' is not run (--policy"
                + " allocation,legacy)");
    }

    @Test
    void givenASettingGivenTwice_whenSimulated_thenItIsRefusedNotRunWithTheLastValue() {
        // it ran with lookback 2d and dropped the 1d without a word
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--set", "lookback=1d",
                "--set", "lookback=2d");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --set names 'lookback' twice (1d, then 2d); give each once\n");
        assertThat(r.out()).isEmpty();
        // so did a contract setting of a trace
        Cli.Result c = Cli.run("simulate", "--trace", "philly:" + Cli.example("trace-philly") + "/jobs.csv", "--nodes",
                "4x8", "--policy", "legacy", "--contract", "min-runtime=1h", "--contract", "min-runtime=3h");
        assertThat(c.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(c.err()).isEqualTo("allot: --contract names 'min-runtime' twice (1h, then 3h); give each once\n");
    }

    @Test
    void aSharedSettingThatDoesNotReadIsNamed() {
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--set", "lookback=soon");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: setting 'lookback': malformed duration 'soon'; expected e.g. 90s, 15m, 8h,"
                + " 2d, 1h30m or plain seconds\n");
    }

    @Test
    void aBadRowIsReportedWithItsLocationOrSkippedWhenLenient() throws IOException {
        Path dir = tmp.resolve("bad");
        Files.createDirectories(dir);
        for (String f : List.of("cluster.yaml", "allocations.yaml", "policy.yaml", "workloads.csv")) {
            Files.copy(Cli.ROOT.resolve("examples/tiny").resolve(f), dir.resolve(f));
        }
        Files.writeString(dir.resolve("workloads.csv"), "bad-1,1h,nlp-eval,cy,many,,5m,5m,false,normal,,debug\n",
                java.nio.file.StandardOpenOption.APPEND);
        Cli.Result strict = Cli.run("simulate", dir.toString());
        assertThat(strict.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(strict.err()).contains("workloads.csv:17:5: field 'gpus'").contains("'many'");
        Cli.Result lenient = Cli.run("simulate", dir.toString(), "--lenient", "--policy", "allocation");
        assertThat(lenient.exit()).as(lenient.err()).isZero();
        assertThat(lenient.out()).contains("skipped 1 workload row (--lenient):", "12 (debug 3", "1 rejected");
    }

    @Test
    void lenientQuotesTheFirstFiveSkippedRowsAndCountsTheRest() throws IOException {
        Path dir = SkippedRowsFixture.tinyWithBadRows(tmp, 7);
        Cli.Result r = Cli.run("simulate", dir.toString(), "--lenient", "--policy", "allocation");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("skipped 7 workload rows (--lenient); the first:\n"
                + "  workloads.csv:17:5: field 'gpus': expected a whole number >= 1, got 'many'\n",
                "  workloads.csv:21:5: field 'gpus'", "\n  and 2 more\n").doesNotContain("workloads.csv:22:");
    }

    @Test
    void lenientThatSkipsEveryRowIsRefusedRatherThanRunOnNoWorkloads() throws IOException {
        // it ran on 'workloads 0; 7 rejected' and exited 0
        Path dir = SkippedRowsFixture.tinyWithOnlyBadRows(tmp, 7);
        Cli.Result r = Cli.run("simulate", dir.toString(), "--lenient");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo(SkippedRowsFixture.ALL_SEVEN_REJECTED);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void instantsMixedWithRelativeTimesWithoutStartAreNotedBeforeTheResults() throws IOException {
        // a 2000-01-01 instant among rows submitted at 0 and 10m ran with no word of what time 0 became
        Path dir = Files.createDirectories(tmp.resolve("mixed"));
        for (String f : List.of("cluster.yaml", "allocations.yaml", "policy.yaml", "workloads.csv")) {
            Files.copy(Cli.ROOT.resolve("examples/tiny").resolve(f), dir.resolve(f));
        }
        Files.writeString(dir.resolve("workloads.csv"), Files.readString(dir.resolve("workloads.csv"))
                .replace("\npre-1,0,", "\npre-1,2000-01-01T00:00:00Z,"));
        Cli.Result r = Cli.run("simulate", dir.toString(), "--policy", "allocation");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("note: workloads.csv mixes ISO-8601 instants (first on line 5) and relative"
                + " times (first on line 6) and cluster.yaml gives no start: time 0 is 2000-01-01T00:00:00Z, the"
                + " earliest instant (workloads.csv line 5), and relative times count from it; add start: to"
                + " cluster.yaml to choose time 0\nAllot simulation: mixed\n");
    }

    @Test
    void aMissingFolderIsABadInput() {
        Cli.Result r = Cli.run("simulate", tmp.resolve("nowhere").toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("nowhere");
    }
}
