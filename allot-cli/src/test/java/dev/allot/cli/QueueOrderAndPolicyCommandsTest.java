package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.store.Allocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot queue} and {@code allot policy show|set} against a real API server whose queue comes from a real
 * scheduling loop (simulated backend, fixed clock, cycles run by hand) and whose policy is read by serve's reader of
 * policy.yaml, as {@code allot serve} wires them. One 8-GPU node held by lab/vision's protected workload; alice and
 * bob wait behind it in both allocations, at several priorities, so that the serving order is not the ids' order.
 * The queue tests run first: the policy tests change the policy (no cycle runs after, so the queue stays as it is).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QueueOrderAndPolicyCommandsTest {
    static final String X = "lab/nlp/pretrain";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    static LoopApi api;
    static String running;

    @BeforeAll
    static void start() {
        api = LoopApi.start(dir.resolve("data"), List.of("alice", "bob"), store -> {
            long t = LoopApi.NOW.toEpochMilli();
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation("lab/nlp", 3, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation(X, 1, List.of(), List.of("alice", "bob")), "root", t);
            store.allocations().putAllocation(new Allocation("lab/vision", 1, List.of(), List.of("bob")), "root", t);
        });
        running = submit("root", "lab/vision", "normal");
        api.loop.runOnce();
        submit("bob", "lab/vision", "normal");
        submit("alice", X, "low");
        submit("bob", X, "normal");
        submit("alice", X, "urgent");
        api.loop.runOnce();
        submit("bob", X, "high"); // not seen by the scheduler yet: listed after the queued ones, without a place
    }

    @AfterAll
    static void stop() {
        if (api != null) {
            api.close();
        }
    }

    static Cli.Result as(String user, String... args) {
        return api.as(user, args);
    }

    static String submit(String user, String allocation, String priority) {
        return api.submit(user, "--allocation", allocation, "--gpus", "8", "--min-runtime", "1h", "--duration", "1d",
                "--resumable", "--priority", priority, "--", "train.py");
    }

    /** The rows of {@code allot queue}'s table, split into cells, without the header. */
    static List<String[]> rows(Cli.Result r) {
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0).split(" {2,}")).containsExactly("ID", "POS", "ALLOC POS", "ALLOCATION", "USER", "GPUS",
                "MIN RUNTIME", "STATE", "SUBMITTED", "EXPECTED START");
        return lines.stream().skip(1).map(l -> l.split(" {2,}")).toList();
    }

    /** /v1/queue's entries as "id position positionInAllocation", in its order. */
    static List<String> apiQueue(String query) throws IOException {
        JsonNode q = JSON.readTree(as("alice", "queue", "--json").out()).path("queue");
        assertThat(q.path("seenByScheduler").asBoolean()).isTrue();
        ApiClient client = new ApiClient(java.net.URI.create(api.url), "tok-alice");
        List<String> out = new ArrayList<>();
        Map<String, String> filters = new java.util.LinkedHashMap<>();
        if (!query.isEmpty()) {
            filters.put(query.substring(0, query.indexOf('=')), query.substring(query.indexOf('=') + 1));
        }
        for (JsonNode e : client.get("/v1/queue", filters).path("entries")) {
            out.add(e.path("id").asText() + " " + (e.get("position").isNull() ? "-" : e.get("position").asText()) + " "
                    + (e.get("positionInAllocation").isNull() ? "-" : e.get("positionInAllocation").asText()));
        }
        return out;
    }

    @Test
    @Order(1)
    void queueListsWaitingWorkInTheServingOrderWithItsPlacesThenTheRunningWork() throws IOException {
        List<String[]> rows = rows(as("alice", "queue"));

        List<String> waiting = rows.stream().filter(r -> !r[7].equals("running")).map(r -> r[0] + " " + r[1] + " " + r[2])
                .toList();
        assertThat(waiting).isEqualTo(apiQueue(""));
        // the policy reorders: the serving order is not the submission order, and the unseen one has no place
        List<String> ids = waiting.stream().map(w -> w.split(" ")[0]).toList();
        assertThat(ids).isNotEqualTo(ids.stream().sorted().toList()).hasSize(5);
        assertThat(waiting.get(4)).isEqualTo("w-6 - -");
        assertThat(waiting.get(0)).endsWith(" 1 1");
        // running work keeps its row, after the waiting work, without a place
        assertThat(rows.get(rows.size() - 1)).containsExactly(running, "-", "-", "lab/vision", "root", "8", "1h",
                "running", "2026-03-01T09:00:00.000Z", "-");
    }

    @Test
    @Order(2)
    void theFiltersSelectAsBeforeAndThePlacesStayThoseOfTheWholeQueue() throws IOException {
        List<String> inX = rows(as("alice", "queue", "--allocation", X)).stream().map(r -> r[0] + " " + r[1] + " " + r[2])
                .toList();
        assertThat(inX).isEqualTo(apiQueue("allocation=" + X)).hasSize(4);

        List<String[]> bobs = rows(as("alice", "queue", "--user", "bob", "--state", "pending"));
        assertThat(bobs.stream().map(r -> r[0] + " " + r[1] + " " + r[2]).toList()).isEqualTo(apiQueue("user=bob"));
        assertThat(bobs).allSatisfy(r -> assertThat(r[4]).isEqualTo("bob"));

        assertThat(rows(as("alice", "queue", "--state", "running"))).singleElement()
                .satisfies(r -> assertThat(r[0]).isEqualTo(running));
    }

    @Test
    @Order(2)
    void aLimitShowsTheHeadOfTheQueueNotTheOldestSubmissionsAndSaysHowManyMoreWait() throws IOException {
        // given 5 waiting (the head is not the oldest: alice's urgent w-5) and 1 running
        List<String> queue = apiQueue("");
        Cli.Result r = as("alice", "queue", "--limit", "2");

        List<String[]> rows = rows(r).stream().filter(c -> c.length == 10).toList();
        // then the first 2 in serving order, then the running one; and a note for the 3 left out
        assertThat(rows.stream().map(c -> c[0] + " " + c[1] + " " + c[2]).toList())
                .containsExactly(queue.get(0), queue.get(1), running + " - -");
        assertThat(r.out()).endsWith("(3 more waiting workloads not shown, after the first 2 in serving order;"
                + " --limit shows more)\n");
        Cli.Result zero = as("alice", "queue", "--limit", "0");
        assertThat(zero.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(zero.err()).contains("--limit: expected a positive number of workloads, got 0");
    }

    @Test
    @Order(3)
    void policyShowPrintsThePolicyItsSourceAndEverySettingTheApiGives() throws IOException {
        JsonNode api = JSON.readTree(as("alice", "policy", "show", "--json").out());
        Cli.Result r = as("alice", "policy", "show");

        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.subList(0, 3)).containsExactly("policy:  allocation", "source:  defaults", "settings:");
        List<String> settings = new ArrayList<>();
        api.path("settings").properties().forEach(s -> {
            if (s.getValue().isObject()) {
                s.getValue().properties().forEach(o -> settings.add(s.getKey() + "." + o.getKey() + " " + o.getValue().asText()));
            } else {
                settings.add(s.getKey() + " " + s.getValue().asText());
            }
        });
        assertThat(settings).contains("lookback 7d", "allocation.reclaim-margin 0.1");
        assertThat(lines.subList(3, lines.size()).stream().map(l -> l.strip().replaceAll(" {2,}", " ")).toList())
                .isEqualTo(settings);
    }

    @Test
    @Order(4)
    void policySetPutsAGoodFileInForceAndShowYamlGivesItsText() throws IOException {
        // the defaults have no text: --yaml writes their settings as policy.yaml, which reads back as the same settings
        JsonNode defaultSettings = JSON.readTree(as("root", "policy", "show", "--json").out()).path("settings");
        Cli.Result defaults = as("root", "policy", "show", "--yaml");
        assertThat(defaults.out()).startsWith("lookback: 7d\n").contains("\nallocation:\n", "\n  reclaim-margin: 0.1\n");
        Path same = Files.writeString(dir.resolve("defaults.yaml"), defaults.out());
        Cli.Result back = as("root", "policy", "set", same.toString());
        assertThat(back.exit()).as(back.err()).isZero();
        JsonNode readBack = JSON.readTree(as("root", "policy", "show", "--json").out());
        assertThat(readBack.path("source").asText()).startsWith("set through the API by root");
        assertThat(readBack.path("settings")).isEqualTo(defaultSettings);

        String text = "lookback: 3d\nallocation:\n  reclaim-margin: 0.2\n";
        Path file = Files.writeString(dir.resolve("policy.yaml"), text);
        Cli.Result set = as("root", "policy", "set", file.toString());

        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(set.out()).startsWith("policy set; in force now:\npolicy:  allocation\nsource:  set through the API"
                + " by root at 2026-03-01T09:00:00.000Z\n").containsPattern("\n  lookback +3d\n")
                .containsPattern("\n  allocation.reclaim-margin +0.2\n");
        JsonNode now = JSON.readTree(as("alice", "policy", "show", "--json").out());
        assertThat(now.path("settings").path("lookback").asText()).isEqualTo("3d");
        assertThat(now.path("settings").path("allocation").path("reclaim-margin").asText()).isEqualTo("0.2");
        assertThat(as("alice", "policy", "show", "--yaml").out()).isEqualTo(text);
    }

    @Test
    @Order(5)
    void aBadFileIsTheServersLocatedMessageOnOneLineAndChangesNothing() throws IOException {
        String before = as("alice", "policy", "show", "--json").out();
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "allocation:\n  reclaim-margin: -1\n");

        Cli.Result r = as("root", "policy", "set", bad.toString());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        // located in the file given, as serve --policy-file locates it, not in the server's name for the body
        assertThat(r.err()).isEqualTo("allot: " + bad + ":2:19: field 'allocation': setting 'reclaim-margin': must be a"
                + " number >= 0, got -1 (hint: the file is policy.yaml text, as allot simulate reads it;"
                + " 'allot policy show' shows the settings in force)\n");
        assertThat(as("alice", "policy", "show", "--json").out()).isEqualTo(before);

        Cli.Result missing = as("root", "policy", "set", dir.resolve("nope.yaml").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).isEqualTo("allot: " + dir.resolve("nope.yaml") + ": cannot read: no such file\n");
    }

    @Test
    @Order(5)
    void aFileOfAnotherPolicysSettingsIsRefusedNotRunAsTheDefaults() throws IOException {
        // given a file whose only section is the slurm model's: the service runs allocation, so none of it applies
        String before = as("alice", "policy", "show", "--json").out();
        Path slurm = Files.writeString(dir.resolve("slurm-only.yaml"), "slurm:\n  decay-half-life: 1d\n");

        Cli.Result r = as("root", "policy", "set", slurm.toString());

        // then it is refused (it was answered "policy set" and ran the defaults), and nothing changes
        assertThat(r.exit()).as(r.out()).isEqualTo(2);
        assertThat(r.err()).contains("section 'slurm' does not apply: allot serve runs the allocation policy")
                .contains("hint: remove 'slurm:'");
        assertThat(as("alice", "policy", "show", "--json").out()).isEqualTo(before);
        assertThat(as("alice", "policy", "set", "--help").out()).doesNotContain("an empty file means the defaults")
                .contains("an empty one");
    }

    @Test
    @Order(6)
    void aMemberMayReadThePolicyButNotSetIt() throws IOException {
        String before = as("alice", "policy", "show", "--json").out();
        Path file = Files.writeString(dir.resolve("member.yaml"), "lookback: 1d\n");

        Cli.Result r = as("alice", "policy", "set", file.toString());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("allot: ").contains("change the scheduling policy").hasLineCount(1);
        assertThat(as("alice", "policy", "show", "--json").out()).isEqualTo(before);
    }

    @Test
    @Order(7)
    void anEmptyFileIsRefusedRatherThanPuttingEverySettingBackToItsDefault() throws IOException {
        // 'allot policy set -' with nothing piped in answered "policy set" and ran the defaults
        String before = as("alice", "policy", "show", "--json").out();
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "\n  \n");

        Cli.Result r = as("root", "policy", "set", empty.toString());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("allot: " + empty + ": empty; expected the settings to run (to run the defaults,"
                + " write them out: 'allot policy show --yaml' prints them on a service that runs them, e.g."
                + " 'lookback: 7d') (hint: the file is policy.yaml text, as allot simulate reads it; 'allot policy"
                + " show' shows the settings in force)\n");
        assertThat(as("alice", "policy", "show", "--json").out()).isEqualTo(before);
    }
}
