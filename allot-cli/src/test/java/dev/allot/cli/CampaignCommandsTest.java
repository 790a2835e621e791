package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Allocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot campaign submit|status|list|brakes|retry|cancel} against a real API server and a real scheduling loop
 * (simulated backend, a fixed clock, cycles run by hand: {@link LoopApi}). Alice submits a campaign of three shards
 * (one protected slot, a declared rate of 30 s a unit) from a YAML file; the loop queues and starts them; her progress
 * shows in the bars; she changes its brakes, retries a shard whose workload she cancelled, and cancels it. Bad files are refused naming the file and the field as
 * the file names it, whether the client or the server finds the fault. The tests run in order: they share the
 * campaign.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CampaignCommandsTest {
    static final String FILE = """
            name: eval
            allocation: lab/a
            command: [python, eval.py, --shard, "{shard}"]
            environment: {SEED: 7}
            gpus: 1
            min-runtime: 2h
            protected-shards: 1
            seconds-per-unit: 30
            shards:
              - {units: 64, family: restore}
              - {units: 32, family: restore}
              - units: 16
            brakes:
              shard-requeues: 5
            """;

    @TempDir
    static Path dir;

    static LoopApi api;

    @BeforeAll
    static void start() {
        api = LoopApi.start(dir.resolve("data"), List.of("alice", "bob"), store -> {
            long t = LoopApi.NOW.toEpochMilli();
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation("lab/a", 1, List.of(), List.of("alice")), "root", t);
            store.allocations().putAllocation(new Allocation("lab/b", 1, List.of(), List.of("bob")), "root", t);
        });
    }

    @AfterAll
    static void stop() {
        if (api != null) {
            api.close();
        }
    }

    static Path file(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    @Test
    @Order(1)
    void submitReadsTheYamlFileAndTheLoopQueuesTheShards() throws IOException {
        Cli.Result r = api.as("alice", "campaign", "submit", file("eval.yaml", FILE).toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("submitted campaign eval: 3 shards, 112 units, protected slots 1 shard; the"
                + " scheduler queues its shards now (allot campaign status eval)\n");
        api.loop.runOnce();
        assertThat(api.store.workloads().workload("w-1").orElseThrow().environment()).containsEntry("SEED", "7")
                .containsEntry("ALLOT_SHARD", "0");
        // and a shard's workload names its campaign where its owner looks at it
        assertThat(api.as("alice", "show", "w-1").out().lines())
                .anySatisfy(l -> assertThat(l).matches("  campaign +eval, shard 0 \\(allot campaign status eval\\)"));
    }

    @Test
    @Order(2)
    void statusShowsABarPerShardAndForTheCampaignWithRatesTiersPhasesAndEtas() {
        Cli.Result r = api.as("alice", "campaign", "status", "eval");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("""
                campaign eval (alice, lab/a): running; protected slots 1 shard, strategy allot, min runtime 2h
                progress [....................]   0%  0/112 units; GPU-hours 0.00 used, 0.00 charged; ETA 2026-03-01T09:32:00.000Z
                brakes: per shard 5 requeues
                SHARD  WORKLOAD  FAMILY   PROGRESS                     UNITS  PHASE    TIER         RATE         RATE FROM  LEFT  ETA                       NOTE
                0      w-1       restore  [....................]   0%  0/64   running  protected    30.0 s/unit  declared   32m   2026-03-01T09:32:00.000Z  -
                1      w-2       restore  [....................]   0%  0/32   running  unallocated  30.0 s/unit  declared   16m   2026-03-01T09:16:00.000Z  -
                2      w-3       -        [....................]   0%  0/16   running  unallocated  30.0 s/unit  declared   8m    2026-03-01T09:08:00.000Z  -
                """);
    }

    @Test
    @Order(3)
    void progressReportedByAShardsWorkloadFillsItsBarAndTheCampaigns() {
        Cli.Result p = api.as("alice", "progress", "w-1", "32", "64");
        assertThat(p.exit()).as(p.err()).isZero();
        Cli.Result wrong = api.as("alice", "progress", "w-2", "3", "100");
        assertThat(wrong.exit()).isEqualTo(2);
        assertThat(wrong.err()).startsWith("allot: TOTAL: expected 32, the units of shard 1 of campaign eval,"
                + " got 100");
        List<String> lines = api.as("alice", "campaign", "status", "eval").out().lines().toList();
        assertThat(lines.get(1)).startsWith("progress [#####...............]  28%  32/112 units;");
        // (the fixed clock measures no time: the declared rate stands, shard 0 has 32 units x 30 s left)
        assertThat(lines.get(4)).startsWith("0      w-1       restore  [##########..........]  50%  32/64  running")
                .contains("16m   2026-03-01T09:16:00.000Z");

        Cli.Result list = api.as("alice", "campaign", "list");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).isEqualTo("""
                NAME  OWNER  ALLOCATION  STATE    PROGRESS                     SHARDS     ETA
                eval  alice  lab/a       running  [#####...............]  28%  3 running  2026-03-01T09:16:00.000Z
                """);
        assertThat(api.as("bob", "campaign", "list").out()).isEqualTo("no campaigns\n");
    }

    @Test
    @Order(3)
    void aBrakeTheServerRefusesIsNamedByTheCommandsOptions() {
        // it said "field 'campaignCost': expected pricePerGpuHour beside it", names this command has no option for
        Cli.Result r = api.as("alice", "campaign", "brakes", "eval", "--campaign-cost", "10");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: --campaign-cost: expected --price-per-gpu-hour beside it (a cost"
                + " needs a price), got no price (hint: 'allot campaign brakes --help' describes the options)\n");
    }

    @Test
    @Order(4)
    void brakesAreShownAndChangedKeepingWhatIsNotGiven() {
        Cli.Result show = api.as("alice", "campaign", "brakes", "eval");
        assertThat(show.out()).isEqualTo("campaign eval brakes: per shard 5 requeues\n");
        Cli.Result set = api.as("alice", "campaign", "brakes", "eval", "--shard-gpu-hours", "40", "--campaign-cost",
                "100", "--price-per-gpu-hour", "2.5");
        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(set.out()).isEqualTo("campaign eval brakes: per shard 40 GPU-hours, 5 requeues; campaign cost 100"
                + " at 2.5 per GPU-hour\n");
        Cli.Result none = api.as("alice", "campaign", "brakes", "eval", "--shard-requeues", "none");
        assertThat(none.out()).isEqualTo("campaign eval brakes: per shard 40 GPU-hours; campaign cost 100 at 2.5 per"
                + " GPU-hour\n");
        Cli.Result bad = api.as("alice", "campaign", "brakes", "eval", "--shard-requeues", "lots");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("allot: --shard-requeues: expected a whole number or none, got 'lots'\n");
        Cli.Result negative = api.as("alice", "campaign", "brakes", "eval", "--shard-gpu-hours", "-1");
        assertThat(negative.exit()).isEqualTo(2);
        assertThat(negative.err()).isEqualTo("allot: --shard-gpu-hours: expected GPU-hours one shard may use, a"
                + " number >= 0 (at most 1000000000000), got -1 (hint: 'allot campaign brakes --help'"
                + " describes the options)\n");
        // 1e400 read as Infinity and was sent as the string "Infinity", which the server's error then named
        Cli.Result huge = api.as("alice", "campaign", "brakes", "eval", "--campaign-gpu-hours", "1e400");
        assertThat(huge.exit()).isEqualTo(2);
        assertThat(huge.err()).isEqualTo("allot: --campaign-gpu-hours: expected a finite number >= 0, or none, got"
                + " 1e400 (beyond the largest number, about 1.8e308)\n");
        Cli.Result noPrice = api.as("alice", "campaign", "brakes", "eval", "--price-per-gpu-hour", "none");
        assertThat(noPrice.exit()).isEqualTo(2);
        assertThat(noPrice.err()).contains("allot: --campaign-cost: expected --price-per-gpu-hour beside it");
        Cli.Result bob = api.as("bob", "campaign", "brakes", "eval", "--shard-gpu-hours", "1");
        assertThat(bob.exit()).isNotZero();
        assertThat(bob.err()).startsWith("allot: user 'bob' may not change the brakes of campaign 'eval'");
    }

    @Test
    @Order(5)
    void badFilesAreRefusedNamingTheFileAndTheFieldAsTheFileNamesThem() throws IOException {
        Path shape = file("shape.yaml", FILE.replace("protected-shards: 1", "protected-slots: 1")
                .replace("command: [python, eval.py, --shard, \"{shard}\"]", "command: python eval.py"));
        Cli.Result r = api.as("alice", "campaign", "submit", shape.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: " + shape + ":3:1: field 'command': expected a list, e.g. [python, eval.py,"
                + " --shard, \"{shard}\"], got 'python eval.py'; field 'protected-slots' (line 7): unknown; the fields are name,"
                + " allocation, command, environment, gpus, min-runtime, protected-shards, protected-gpus,"
                + " seconds-per-unit, priority, shards, brakes, failure-retries\n");

        Path oneWord = file("oneword.yaml", FILE.replace("name: eval", "name: oneword")
                .replace("command: [python, eval.py, --shard, \"{shard}\"]", "command: [\"python eval.py\", --shard, \"{shard}\"]"));
        r = api.as("alice", "campaign", "submit", oneWord.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: " + oneWord + ":3:1: field 'command': the program is one word with blanks,"
                + " 'python eval.py': give its words apart, as: command: [\"python\", \"eval.py\", \"--shard\","
                + " \"{shard}\"] (the command is run without a shell; a program path with blanks is taken when that file"
                + " exists here)\n");

        Path both = file("both.yaml", FILE.replace("name: eval", "name: both").replace("protected-shards: 1",
                "protected-shards: 1\nprotected-gpus: 2").replace("shard-requeues: 5", "campaign-cost: 5"));
        r = api.as("alice", "campaign", "submit", both.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: " + both + ":7:1: field 'protected-shards': expected exactly one of"
                + " protected-shards and protected-gpus, got both; field 'brakes.campaign-cost' (line 15): expected"
                + " price-per-gpu-hour beside it (a cost needs a price), got no price (hint: 'allot campaign submit"
                + " --help' lists the file's fields)\n");

        Path elsewhere = file("elsewhere.json", "{\"name\": \"x\", \"allocation\": \"lab/zzz\", \"command\": [\"a\"],"
                + " \"gpus\": 1, \"min-runtime\": \"1h\", \"protected-shards\": 0, \"shards\": [{\"units\": 1}]}");
        r = api.as("alice", "campaign", "submit", elsewhere.toString());
        assertThat(r.exit()).isEqualTo(2);
        // the server's hint was dropped: a typo in the allocation said nothing of where the allocations are listed
        assertThat(r.err()).isEqualTo("allot: " + elsewhere + ":1:15: field 'allocation': unknown allocation 'lab/zzz'"
                + " (hint: 'allot budget show' lists them; use the full path, e.g. \"lab/nlp/pretrain\")\n");

        r = api.as("alice", "campaign", "submit", dir.resolve("missing.yaml").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: " + dir.resolve("missing.yaml") + ": cannot read: no such file\n");
        r = api.as("alice", "campaign", "submit", file("list.yaml", "- 1\n- 2\n").toString());
        assertThat(r.err()).contains("list.yaml: expected a mapping of the campaign's fields");
        assertThat(api.as("alice", "campaign", "status", "nope").err()).startsWith("allot: no campaign 'nope'");
    }

    @Test
    @Order(5)
    void aMistakeIsLocatedAtItsLineWhereverItIsAndWhicheverSideFindsIt() throws IOException {
        // it said "typo.yaml: field 'gpu': unknown ...": in a long file, the user searched for the line
        Path typo = file("typo.yaml", FILE.replace("name: eval", "name: typo").replace("gpus: 1", "gpu: 1"));
        Cli.Result r = api.as("alice", "campaign", "submit", typo.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: " + typo + ":5:1: field 'gpu': unknown; the fields are name, allocation,"
                + " command, environment, gpus, min-runtime, protected-shards, protected-gpus, seconds-per-unit,"
                + " priority, shards, brakes, failure-retries\n");

        // the server finds a shard's units wrong: the line of that shard's field, as the file names it
        Path units = file("units.yaml", FILE.replace("name: eval", "name: units").replace("units: 32", "units: -32"));
        r = api.as("alice", "campaign", "submit", units.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: " + units + ":11:6: field 'shards[1].units': expected the shard's units"
                + " of work in all");

        // a field left out stands nowhere in the file: the file alone
        Path none = file("none.yaml", FILE.replace("name: eval", "name: none").replace("gpus: 1\n", ""));
        r = api.as("alice", "campaign", "submit", none.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: " + none + ": field 'gpus': expected a whole number of GPUs per shard");
        // ... even when a later one is: it said "none2.yaml:6:1: field 'gpus' ..." of a line holding another field
        Path none2 = file("none2.yaml", FILE.replace("name: eval", "name: none2").replace("gpus: 1\n", "")
                .replace("min-runtime: 2h", "min-runtime: soon"));
        r = api.as("alice", "campaign", "submit", none2.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: " + none2 + ": field 'gpus': expected a whole number of GPUs per shard")
                .contains("; field 'min-runtime' (line 5): expected a duration");
        assertThat(api.as("alice", "campaign", "list").out()).doesNotContain("typo", "units", "none");
    }

    @Test
    @Order(7) // after the other stories: its shards take workload ids they count on
    void failureRetriesAreTakenFromTheFileShownInTheStatusAndAWrongCountIsNamedAsTheFileNamesIt() throws IOException {
        Path retrying = file("retrying.yaml", FILE.replace("name: eval", "name: retrying") + "failure-retries: 2\n");
        Cli.Result r = api.as("alice", "campaign", "submit", retrying.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(api.as("alice", "campaign", "status", "retrying").out().lines()).contains(
                "failure retries: a failed shard is queued again by itself up to 2 times");
        assertThat(api.as("alice", "campaign", "status", "eval").out()).doesNotContain("failure retries");

        Path wrong = file("wrong-retries.yaml", FILE.replace("name: eval", "name: wrongretries")
                + "failure-retries: 1000\n");
        r = api.as("alice", "campaign", "submit", wrong.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: " + wrong + ":15:1: field 'failure-retries': expected how many times a shard"
                + " whose workload failed is queued again by itself (0 to 100), got 1000");
        assertThat(api.as("alice", "campaign", "cancel", "retrying").exit()).isZero();
    }

    @Test
    @Order(5)
    void aYamlSyntaxErrorSaysWhatTheParserFoundWrongNotOnlyWhereItWas() throws IOException {
        // "gpus 1" (no colon) said only "not YAML or JSON: while scanning a simple key"
        Path colon = file("colon.yaml", FILE.replace("name: eval", "name: colon").replace("gpus: 1", "gpus 1"));
        Cli.Result r = api.as("alice", "campaign", "submit", colon.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: " + colon + ":").endsWith(": not YAML or JSON: while scanning a simple"
                + " key; could not find expected ':'\n");

        Path brace = file("brace.yaml", FILE.replace("name: eval", "name: brace")
                .replace("- {units: 32, family: restore}", "- {units: 32, family: restore"));
        r = api.as("alice", "campaign", "submit", brace.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: " + brace + ":").contains(": not YAML or JSON: while parsing a flow"
                + " mapping; expected ',' or '}'").doesNotContain("in 'reader'").hasLineCount(1);
        assertThat(api.as("alice", "campaign", "list").out()).doesNotContain("colon", "brace");
    }

    @Test
    @Order(5)
    void aRetryOfAShardTheCampaignLacksNamesTheOptionOnceAndTheShardsItHas() {
        // it said "field 'shards': campaign 'eval' has no shard 7 (its shards are 0 to 2) (option --shard; ...)"
        Cli.Result r = api.as("alice", "campaign", "retry", "eval", "--shard", "7");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: --shard: expected shards of campaign 'eval', whole numbers from 0 to 2,"
                + " got 7 (hint: 'allot campaign status eval' shows it)\n");
    }

    @Test
    @Order(5)
    void aShardWhoseWorkloadWasCancelledIsRetriedFromItsUnitsDoneAndARunningOneIsNot() {
        // shard 2's workload is cancelled by hand: the shard is held and never resubmitted by itself
        assertThat(api.as("alice", "cancel", "w-3").exit()).isZero();
        api.loop.runOnce();
        api.loop.runOnce();
        assertThat(api.as("alice", "campaign", "status", "eval").out()).contains("shard 2: its workload w-3 was"
                + " cancelled; a shard whose workload someone cancelled is not resubmitted by itself; 'allot campaign"
                + " retry eval' (POST /v1/campaigns/eval/retry) queues it again from its units done");

        Cli.Result running = api.as("alice", "campaign", "retry", "eval", "--shard", "0");
        assertThat(running.exit()).isNotZero();
        assertThat(running.err()).isEqualTo("allot: shard 0 of campaign 'eval' is not held after a failure: it is"
                + " queued or runs; only such a shard is retried (option --shard; hint: 'allot campaign status eval'"
                + " shows it)\n");

        Cli.Result r = api.as("alice", "campaign", "retry", "eval");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("campaign eval: retrying shard 2 from unit 0 of 16; the scheduler queues it now"
                + " (allot campaign status eval)\n");
        api.loop.runOnce();
        assertThat(api.as("alice", "campaign", "status", "eval").out().lines().toList().get(6))
                .startsWith("2      w-4       -        [....................]   0%  0/16   running");
    }

    @Test
    @Order(6)
    void cancelEndsTheCampaignAndItsWorkloads() {
        Cli.Result bob = api.as("bob", "campaign", "cancel", "eval");
        assertThat(bob.exit()).isNotZero();
        Cli.Result r = api.as("alice", "campaign", "cancel", "eval");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("campaign eval is cancelled; 32 of 112 units were done\n");
        api.loop.runOnce();
        assertThat(api.store.workloads().workload("w-3").orElseThrow().state().label()).isEqualTo("cancelled");
    }

    @Test
    @Order(8) // last: its shards take workload ids
    void aMinimumRuntimeBeyondTheSchedulersCapIsSaidAtSubmissionAndInTheStatusAsAllotSubmitSaysIt() throws IOException {
        // it was taken silently: the status said "min runtime 9h" while every shard ran with 8h
        Path long9h = file("long.yaml", FILE.replace("name: eval", "name: long").replace("min-runtime: 2h",
                "min-runtime: 9h"));
        Cli.Result r = api.as("alice", "campaign", "submit", long9h.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).endsWith("(allot campaign status long)\nnote: the minimum runtime is capped at 8h (the"
                + " scheduler's maximum); 9h was asked\n");
        assertThat(api.as("alice", "campaign", "status", "long").out().lines().toList().subList(0, 4)).containsExactly(
                "campaign long (alice, lab/a): running; protected slots 1 shard, strategy allot, min runtime 9h",
                "progress [....................]   0%  0/112 units; GPU-hours 0.00 used, 0.00 charged; ETA"
                        + " 2026-03-01T09:56:00.000Z",
                "note: the minimum runtime is capped at 8h (the scheduler's maximum); 9h was asked",
                "brakes: per shard 5 requeues");
        assertThat(api.as("alice", "campaign", "status", "eval").out()).doesNotContain("note:");
        assertThat(api.as("alice", "campaign", "cancel", "long").exit()).isZero();
    }
}
