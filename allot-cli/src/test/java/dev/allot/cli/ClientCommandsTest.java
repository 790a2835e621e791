package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.backend.Launch;
import dev.allot.server.store.User;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client commands against a real API server on a random port, over a SQLite store seeded through the store's
 * public API. The environment is replaced by an empty one (through {@link ClientOptions#useEnvironment}) so the
 * developer's own ALLOT_SERVER or ALLOT_TOKEN cannot leak into the tests.
 *
 * <pre>
 * lab                   share 1
 * lab/nlp               share 3, managed by mp
 * lab/nlp/pretrain      share 1, members alice, bob
 * lab/vision            share 1
 * </pre>
 */
class ClientCommandsTest {
    static final Instant NOW = ApiServerExtension.NOW;
    static final String X = "lab/nlp/pretrain";
    static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN).user("mp", User.Role.USER).user("alice", User.Role.USER)
            .user("bob", User.Role.USER).user("outsider", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of())
            .allocation("lab/nlp", 3, List.of("mp"), List.of())
            .allocation(X, 1, List.of(), List.of("alice", "bob"))
            .allocation("lab/vision", 1, List.of(), List.of())
            .node("gpu-01", 8, true, null)
            .node("gpu-02", 8, false, "fan failure")
            .build();

    /** Runs a client command as a user against the test server. */
    static Cli.Result as(String user, String... args) {
        return cluster.as(user, args);
    }

    static String submit(String user, String... extra) {
        List<String> args = new ArrayList<>(List.of("submit", "--allocation", X, "--gpus", "8", "--gpus-per-node", "4",
                "--min-runtime", "2h", "--resumable", "--duration", "3h", "--env", "SEED=7"));
        args.addAll(Arrays.asList(extra));
        args.addAll(List.of("--", "python", "train.py", "--lr", "3e-4"));
        Cli.Result r = as(user, args.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("submitted w-").contains("(pending)");
        return r.out().substring("submitted ".length(), r.out().indexOf(' ', "submitted ".length()));
    }

    static JsonNode json(String text) throws IOException {
        return JSON.readTree(text);
    }

    @Test
    void submitThenQueueShowsIt() {
        String id = submit("alice");
        Cli.Result q = as("alice", "queue");
        assertThat(q.exit()).as(q.err()).isZero();
        List<String> lines = q.out().lines().toList();
        assertThat(lines.get(0)).startsWith("ID").contains("ALLOCATION", "USER", "GPUS", "MIN RUNTIME", "STATE", "SUBMITTED");
        String row = lines.stream().filter(l -> l.startsWith(id + " ")).findFirst().orElseThrow();
        assertThat(row).contains(X, "alice", "8 (4/node)", "2h", "pending", "2026-03-01T09:00:00.000Z");
        // fixed width: every column starts where its header does
        assertThat(row.indexOf(X)).isEqualTo(lines.get(0).indexOf("ALLOCATION"));
        assertThat(row.indexOf("pending")).isEqualTo(lines.get(0).indexOf("STATE"));
        // this server runs no scheduler: the waiting work has no place yet, and the table says why
        assertThat(row.split(" +")[1]).isEqualTo("-");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("(the scheduler has not ordered the queue yet: waiting work is"
                + " listed without a place)");
    }

    @Test
    void queueFiltersAndKeepsTheServersOrder() throws IOException {
        String a = submit("bob", "--kind", "eval");
        String b = submit("bob", "--priority", "high");
        Cli.Result q = as("bob", "queue", "--user", "bob", "--state", "pending,running", "--allocation", "lab/nlp");
        assertThat(q.exit()).as(q.err()).isZero();
        assertThat(q.out()).contains(a, b).doesNotContain("alice");
        assertThat(q.out().indexOf(a)).isLessThan(q.out().indexOf(b));

        Cli.Result none = as("bob", "queue", "--allocation", "lab/vision");
        assertThat(none.out()).isEqualTo("no workloads\n");
        Cli.Result typo = as("bob", "queue", "--allocation", "lab/visoin");
        assertThat(typo.exit()).isEqualTo(2);
        assertThat(typo.err()).isEqualTo("allot: --allocation: unknown allocation 'lab/visoin' (hint: expected an allocation path of the tree (it selects that allocation and"
                + " everything below it): lab, lab/nlp, lab/nlp/pretrain, lab/vision)\n");

        Cli.Result nobody = as("root", "queue", "--user", "nobody-here");
        assertThat(nobody.exit()).isEqualTo(2);
        assertThat(nobody.err()).isEqualTo("allot: --user: no user 'nobody-here' (hint: 'allot"
                + " user list' lists them)\n");
        assertThat(nobody.out()).isEmpty();
        assertThat(as("root", "queue", "--user", "outsider").out()).isEqualTo("no workloads\n");
        assertThat(as("root", "queue", "--user", "root").out()).isEqualTo("no workloads\n");
        assertThat(as("outsider", "queue", "--user", "outsider").out()).isEqualTo("no workloads\n");
        // A user who is not an administrator cannot list users, so is not told whether another one exists.
        for (String other : List.of("nobody-here", "mp")) {
            Cli.Result asked = as("outsider", "queue", "--user", other);
            assertThat(asked.exit()).as(asked.err()).isZero();
            assertThat(asked.out()).isEqualTo("no workloads\n");
        }

        Cli.Result limited = as("bob", "queue", "--user", "bob", "--limit", "1", "--json");
        assertThat(json(limited.out()).path("workloads")).hasSize(1);
    }

    @Test
    void queueWithAnUnknownStateIsTheServersFieldError() {
        Cli.Result r = as("alice", "queue", "--state", "sleeping");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: --state: unknown state 'sleeping' (hint: expected one of");
        // 'repeated' reads as one more state unless the list of states is closed first
        assertThat(r.err()).endsWith(", cancelled (several: comma-separated, or repeated))\n");
    }

    @Test
    void showPrintsTheFieldsAndNoAttemptsYet() {
        String id = submit("alice", "--idempotency-key", "show-1");
        Cli.Result r = as("alice", "show", id);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("workload " + id + "\n")
                .containsPattern("state +pending")
                .containsPattern("allocation +" + X)
                .containsPattern("user +alice")
                .containsPattern("gpus +8 \\(4/node\\)")
                .containsPattern("min runtime +2h")
                .containsPattern("duration +3h")
                .containsPattern("resumable +yes")
                .containsPattern("priority +normal")
                .containsPattern("kind +train")
                .containsPattern("command +python train.py --lr 3e-4")
                .containsPattern("environment +SEED=7")
                .containsPattern("idempotency key +show-1")
                .endsWith("attempts: none yet\n");
    }

    @Test
    void givenASubmissionWithAKey_whenItIsRetried_thenTheRetrySaysAlreadySubmittedNotSubmitted() {
        String id = submit("alice", "--idempotency-key", "retry-1");
        List<String> args = new ArrayList<>(List.of("submit", "--allocation", X, "--gpus", "8", "--gpus-per-node", "4",
                "--min-runtime", "2h", "--resumable", "--duration", "3h", "--env", "SEED=7", "--idempotency-key",
                "retry-1", "--", "python", "train.py", "--lr", "3e-4"));

        Cli.Result again = as("alice", args.toArray(String[]::new));

        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(again.out()).isEqualTo("already submitted as " + id + " (pending): the idempotency key 'retry-1' was"
                + " used by it; nothing new was submitted\n");
    }

    @Test
    void showPrintsAttempts() {
        String id = submit("alice");
        cluster.store().attempts().beginAttempt(id, List.of(new Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3)),
                new Launch.NodeGpus("gpu-02", List.of(4, 5, 6, 7))), NOW.toEpochMilli());
        Cli.Result r = as("alice", "show", id);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("state +starting").contains("attempts:\n  #  PHASE")
                .containsPattern("  1 +launching +8 +gpu-01:0,1,2,3 gpu-02:4,5,6,7 +2026-03-01T09:00:00.000Z +-");
    }

    @Test
    void showKeepsAPreemptionsLongReasonOutOfTheTableAndCountsLostWorkInGpuHours() {
        String id = submit("alice");
        String reason = "preempted to make room for w-9: " + "the allocation is over its entitlement; ".repeat(15);
        cluster.store().attempts().endAttempt(cluster.store().attempts().beginAttempt(id,
                List.of(new Launch.NodeGpus("gpu-01", List.of(0, 1, 2, 3, 4, 5, 6, 7))), NOW.toEpochMilli()),
                dev.allot.server.store.AttemptOutcome.PREEMPTED, reason, "w-9", 5400.0, NOW.toEpochMilli());
        Cli.Result r = as("alice", "show", id);
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("  #  PHASE")).findFirst().orElseThrow());
        assertThat(lines.get(header)).endsWith("OUTCOME           LOST GPU-H");
        // 5400 GPU-seconds: 1.50 GPU-hours, as explain says it
        assertThat(lines.get(header + 1)).endsWith("preempted by w-9  1.50").hasSizeLessThan(120);
        assertThat(lines.get(header + 2)).isEqualTo("  attempt 1: " + reason);
    }

    @Test
    void cancelPrintsTheNewState() {
        String id = submit("alice");
        Cli.Result r = as("alice", "cancel", id);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(id + ": cancelled\n");
        assertThat(as("alice", "show", id).out()).containsPattern("state +cancelled");
    }

    @Test
    void cancelOfSomeoneElsesWorkloadIsForbidden() {
        String id = submit("alice");
        Cli.Result r = as("outsider", "cancel", id);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: user 'outsider' may not cancel workload " + id + " (hint: its owner, a"
                + " manager of allocation '" + X + "' or above, or an administrator may)");
        assertThat(r.err()).doesNotContain("/v1/");
    }

    @Test
    void nodes() {
        Cli.Result r = as("outsider", "nodes");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).startsWith("NODE").contains("GPUS", "HEALTH", "REASON", "UPDATED");
        assertThat(r.out()).containsPattern("gpu-01 +8 +healthy +- +2026-03-01T09:00:00.000Z")
                .containsPattern("gpu-02 +8 +unhealthy +fan failure +2026-03-01T09:00:00.000Z")
                .endsWith("2 nodes, 16 GPUs (8 healthy)\n");
    }

    @Test
    void budgetShowIsTheIndentedTree() {
        Cli.Result r = as("alice", "budget", "show");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).startsWith("ALLOCATION").contains("SHARE", "OF PARENT", "MANAGERS", "MEMBERS");
        assertThat(lines).hasSize(5);
        assertThat(lines.get(1)).matches("lab +1 +100% +- +-");
        assertThat(lines.get(2)).matches("  nlp +3 +75% +mp +-");
        assertThat(lines.get(3)).matches("    pretrain +1 +100% +- +alice, bob");
        assertThat(lines.get(4)).matches("  vision +1 +25% +- +-");
    }

    @Test
    void budgetWithoutShowIsUsageAndDoesNotEchoTheToken() {
        Cli.Result r = Cli.run("budget", "--server", cluster.url(), "--token", "s3cret");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("allot budget show").doesNotContain("s3cret");
        assertThat(r.out()).doesNotContain("s3cret");
        Cli.Result plain = Cli.run("budget");
        assertThat(plain.exit()).isZero();
        assertThat(plain.out()).contains("show");
    }

    @Test
    void aTokenGivenWhereNoOptionTakesItIsNeverEchoed() {
        for (String[] args : List.of(new String[] {"--token", "s3cret-x", "queue"},
                new String[] {"--token=s3cret-x", "nodes"})) {
            Cli.Result r = Cli.run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err() + r.out()).as(String.join(" ", args)).doesNotContain("s3cret-x");
        }
    }

    @Test
    void jsonOutputsParse() throws IOException {
        Cli.Result submitted = as("alice", "submit", "--allocation", X, "--gpus", "2", "--min-runtime", "0", "--json",
                "--", "sleep", "60");
        assertThat(submitted.exit()).as(submitted.err()).isZero();
        JsonNode w = json(submitted.out());
        String id = w.path("id").asText();
        assertThat(w.path("state").asText()).isEqualTo("pending");
        assertThat(w.path("allocated").asBoolean()).isFalse();
        assertThat(w.path("command")).hasSize(2);

        assertThat(json(as("alice", "queue", "--json").out()).path("workloads").isArray()).isTrue();
        JsonNode detail = json(as("alice", "show", id, "--json").out());
        assertThat(detail.path("workload").path("id").asText()).isEqualTo(id);
        assertThat(detail.path("attempts").isArray()).isTrue();
        assertThat(json(as("alice", "nodes", "--json").out()).path("nodes")).hasSize(2);
        assertThat(json(as("alice", "budget", "show", "--json").out()).path("allocations")).hasSize(4);
        assertThat(json(as("alice", "cancel", id, "--json").out()).path("state").asText()).isEqualTo("cancelled");
    }

    @Test
    void zeroGpusIsTheServersFieldError() {
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "0", "--min-runtime", "2h", "--", "true");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("allot: --gpus: expected a whole number >= 1, got 0\n");
    }

    @Test
    void unknownAllocationIsTheServersFieldError() {
        Cli.Result r = as("alice", "submit", "--allocation", "lab/nope", "--gpus", "1", "--min-runtime", "2h", "--", "true");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: --allocation: unknown allocation 'lab/nope' (hint:"
                + " 'allot budget show' lists them; use the full path, e.g. \"lab/nlp/pretrain\")\n");
    }

    @Test
    void submittingWhereOneIsNoMemberIs403WithAHintForPeople() {
        Cli.Result r = as("outsider", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "1h", "--", "true");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: user 'outsider' may not submit to allocation '" + X + "' (hint: ask a"
                + " manager of the allocation to add you to its members)\n");
    }

    @Test
    void badDurationAndPriorityAreFieldErrors() {
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "soon", "--", "true");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: --min-runtime: ").contains(" (hint: ");
        Cli.Result x = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10x", "--", "true");
        assertThat(x.exit()).isEqualTo(2);
        // what is expected is said once, in the message; the hint adds what "0" means
        assertThat(x.err()).isEqualTo("allot: --min-runtime: expected a duration text such as \"90s\", \"30m\","
                + " \"2h\", \"1h30m\", \"2d\" or plain seconds (\"3600\"); \"0\" for unallocated, got a string"
                + " (\"10x\") (hint: \"0\" makes the workload unallocated: free, never charged"
                + " and always preemptible)\n");
        Cli.Result p = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "1h", "--priority", "whenever",
                "--", "true");
        assertThat(p.exit()).isEqualTo(2);
        assertThat(p.err()).startsWith("allot: --priority: ").doesNotContain("field");
    }

    @Test
    void aMalformedEnvIsRefusedBeforeAsking() {
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "1h", "--env", "NOEQUALS",
                "--", "true");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: --env expects NAME=VALUE, got 'NOEQUALS'\n");
    }

    @Test
    void givenAStrayWordBeforeTheDelimiter_whenSubmitting_thenItIsRefusedShowingTheParsedCommandAndNothingIsStored() {
        int before = cluster.store().workloads().workloads(dev.allot.server.store.WorkloadFilter.all()).size();
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10", "minutes",
                "--", "sleep", "10");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("allot: 'minutes' before '--' is not an option's value (the command would be"
                + " 'minutes sleep 10'); give each option one value (--min-runtime 10m, not 10 minutes) and the whole"
                + " command after '--'\n");
        assertThat(cluster.store().workloads().workloads(dev.allot.server.store.WorkloadFilter.all())).hasSize(before);
    }

    @Test
    void givenACommandWithoutTheDelimiter_whenSubmitting_thenItAsksForTheDelimiter() {
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10m", "sleep", "10");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: the command must follow '--' (options first, then -- and the command),"
                + " got 'sleep 10' without '--'; e.g. allot submit ... -- sleep 10\n");
    }

    @Test
    void givenTheCommandAsOneQuotedWordWithBlanks_whenSubmitting_thenItIsRefusedBeforeAskingShowingItsWordsApart() {
        int before = cluster.store().workloads().workloads(dev.allot.server.store.WorkloadFilter.all()).size();
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10m", "--", "sleep 1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("allot: the command is one word with blanks, 'sleep 1': give its words apart, as:"
                + " allot submit ... -- sleep 1 (the command is run without a shell; a program path with blanks is"
                + " taken when that file exists here)\n");
        assertThat(cluster.store().workloads().workloads(dev.allot.server.store.WorkloadFilter.all())).hasSize(before);
    }

    @Test
    void givenAProgramWithBlanksBeforeOtherWords_whenSubmitting_thenTheHintKeepsTheOtherWordsAndOffersAShellForShellSyntax() {
        Cli.Result program = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10m", "--",
                "python train.py", "--name", "run 1");
        assertThat(program.exit()).isEqualTo(2);
        assertThat(program.err()).startsWith("allot: the program is one word with blanks, 'python train.py': give its"
                + " words apart, as: allot submit ... -- python train.py --name 'run 1' (");
        Cli.Result shell = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10m", "--",
                "make && ./run > out.log");
        assertThat(shell.exit()).isEqualTo(2);
        assertThat(shell.err()).contains("; or, for shell syntax, give a shell the text: allot submit ... -- sh -c"
                + " 'make && ./run > out.log' (");
    }

    @Test
    void givenAProgramWhosePathHasABlankAndExists_whenSubmitting_thenItIsTakenAsOneWord(@TempDir Path dir)
            throws IOException {
        Path program = Files.createFile(dir.resolve("my tool"));
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10m", "--json",
                "--", program.toString(), "--fast");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(json(r.out()).path("command").get(0).asText()).isEqualTo(program.toString());
    }

    @Test
    void givenTheCommandAfterTheDelimiter_whenItsWordsStartWithDashes_thenTheyAreTheCommandsWords() throws IOException {
        Cli.Result plain = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10m", "--json",
                "--", "sleep", "10");
        assertThat(plain.exit()).as(plain.err()).isZero();
        assertThat(json(plain.out()).path("command").toString()).isEqualTo("[\"sleep\",\"10\"]");
        Cli.Result dashes = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "10m", "--json",
                "--", "-weird-program", "--gpus", "3", "--", "-x");
        assertThat(dashes.exit()).as(dashes.err()).isZero();
        JsonNode w = json(dashes.out());
        assertThat(w.path("command").toString()).isEqualTo("[\"-weird-program\",\"--gpus\",\"3\",\"--\",\"-x\"]");
        assertThat(w.path("gpus").asInt()).isEqualTo(1);
    }

    @Test
    void submitWithoutACommandIsAUsageError() {
        Cli.Result r = as("alice", "submit", "--allocation", X, "--gpus", "1", "--min-runtime", "1h");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("COMMAND");
    }

    @Test
    void aWrongTokenIs401AndTheTokenIsNotPrinted() {
        Cli.Result r = Cli.run("nodes", "--server", cluster.url(), "--token", "s3cret-wrong");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: unknown or revoked token (hint: give your token with --token TOKEN or"
                + " ALLOT_TOKEN (or \"token\" in the client configuration); an administrator makes one with"
                + " 'allot token create --user NAME')\n");
        assertThat(r.out() + r.err()).doesNotContain("s3cret-wrong");
    }

    @Test
    void showOfAnUnknownIdIs404() {
        Cli.Result r = as("alice", "show", "w-999999");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: no workload 'w-999999' (hint: workload ids look like w-42; 'allot queue'"
                + " lists them)\n");
        // An id that could never be one path segment is refused before asking, in the words of the command line
        // (the server would refuse the encoded '/' in words about URLs): never GET /v1/nodes.
        Cli.Result odd = as("alice", "show", "../nodes");
        assertThat(odd.exit()).isEqualTo(2);
        assertThat(odd.err()).isEqualTo("allot: expected a workload id without '/' or '\\', got '../nodes'\n");
    }

    @Test
    void givenAnEmptyOrDotId_whenShownExplainedOrCancelled_thenItIsRefusedNamingWhatWasExpected() {
        // an empty id used to name the collection: 'allot show ""' printed a blank workload and exited 0
        for (String command : List.of("show", "explain", "cancel")) {
            Cli.Result empty = as("alice", command, "");
            assertThat(empty.exit()).as(command).isEqualTo(2);
            assertThat(empty.out()).as(command).isEmpty();
            assertThat(empty.err()).as(command).isEqualTo("allot: expected a workload id, got an empty text\n");
            Cli.Result dots = as("alice", command, "..");
            assertThat(dots.exit()).as(command).isEqualTo(2);
            assertThat(dots.err()).as(command).isEqualTo("allot: expected a workload id, got '..' (no name is '.' or"
                    + " '..')\n");
        }
        // and so are names of users and campaigns that no path can carry
        assertThat(as("root", "user", "set", "x/y", "--role", "user").err())
                .isEqualTo("allot: expected a user name without '/' or '\\', got 'x/y'\n");
        assertThat(as("root", "campaign", "status", "..").err())
                .isEqualTo("allot: expected a campaign name, got '..' (no name is '.' or '..')\n");
    }

    @Test
    void aServerThatIsDownExits1WithTheHint() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String down = "http://127.0.0.1:" + port;
        Cli.Result r = Cli.run("queue", "--server", down, "--token", "s3cret");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("allot: cannot reach the Allot server at " + down
                + " (is `allot serve` running? set --server or ALLOT_SERVER)\n");
        assertThat(r.err()).doesNotContain("s3cret");
    }

    @Test
    void aMissingTokenExits2NamingTheOptionAndTheVariable() {
        Cli.Result r = Cli.run("nodes", "--server", cluster.url());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--token").contains("ALLOT_TOKEN");
        assertThat(r.err()).as("a service started without --demo wrote no token for the client: where one is")
                .contains("ALLOT_TOKEN=$(cat allot-data/admin-token)");
    }

    @Test
    void aBadServerUrlExits2() {
        Cli.Result r = Cli.run("nodes", "--server", "ftp://x", "--token", "t");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--server").contains("ftp://x");
    }

    @Test
    void aTokenWithALineBreakOrABlankExits2NamingWhereItCameFromNeverPrintingIt() {
        // it said 'allot: invalid header value: "Bearer s3cret-part\nX: y"', the token on the terminal
        for (String token : new String[] {"s3cret-part\nX: y", "s3cret-part other", "s3cret\u0000x"}) {
            Cli.Result r = Cli.run("nodes", "--server", cluster.url(), "--token", token);
            assertThat(r.exit()).as(r.err()).isEqualTo(2);
            assertThat(r.err()).isEqualTo("allot: the API token of --token holds a blank, a line break or another"
                    + " character no token has (a token is one word of printable ASCII, e.g. allot_...); give it alone,"
                    + " as 'allot token create' printed it\n").doesNotContain("s3cret");
        }
        Function<String, String> previous = ClientOptions.useEnvironment(Map.of("ALLOT_TOKEN", "s3cret\r\nmore"));
        try {
            Cli.Result env = Cli.run("nodes", "--server", cluster.url());
            assertThat(env.exit()).isEqualTo(2);
            assertThat(env.err()).startsWith("allot: the API token of ALLOT_TOKEN holds").doesNotContain("s3cret");
        } finally {
            ClientOptions.environment = previous;
        }
        assertThat(Cli.run("nodes", "--server", cluster.url(), "--token", " tok-alice\n").exit())
                .as("blanks around it are trimmed, as before").isZero();
    }

    @Test
    void aServerUrlEndingInTheApisV1Exits2SayingToLeaveItOut() {
        // copied from "API description: http://127.0.0.1:8080/v1/openapi.json", it said "no such endpoint: GET
        // /v1/v1/nodes" with a hint that the client and server versions may differ
        for (String url : new String[] {cluster.url() + "/v1", cluster.url() + "/v1/", cluster.url() + "/V1/openapi.json"}) {
            Cli.Result r = Cli.run("nodes", "--server", url, "--token", "tok-alice");
            assertThat(r.exit()).as(url).isEqualTo(2);
            assertThat(r.err()).as(url).isEqualTo("allot: --server (or ALLOT_SERVER, or the client configuration's"
                    + " \"server\") is the service's address without the API's /v1 (the commands add it), such as"
                    + " http://127.0.0.1:8080, got '" + url.replaceAll("/+$", "") + "'\n");
        }
        assertThat(Cli.run("nodes", "--server", cluster.url() + "/", "--token", "tok-alice").exit()).isZero();
    }

    @Test
    void serverAndTokenDefaultFromTheEnvironment() {
        Function<String, String> previous = ClientOptions.useEnvironment(Map.of("ALLOT_SERVER", cluster.url() + "/", "ALLOT_TOKEN", "tok-alice"));
        try {
            Cli.Result r = Cli.run("nodes");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("gpu-01");
            // the options win over the environment
            Cli.Result wrong = Cli.run("nodes", "--token", "nope");
            assertThat(wrong.exit()).isEqualTo(2);
            assertThat(wrong.err()).contains("unknown or revoked token");
        } finally {
            ClientOptions.environment = previous;
        }
    }

    @Test
    void withoutServerAnywhereTheDefaultIsLocalhost8080() {
        ClientOptions o = new ClientOptions();
        assertThat(o.serverUri().toString()).isEqualTo("http://127.0.0.1:8080");
    }

    @Test
    void theClientsMainCodeUsesNoServerClasses() throws IOException {
        // allot serve runs the service in this JVM (with its Slurm options and its policy.yaml); every other command
        // talks plain HTTP.
        Path main = Cli.ROOT.resolve("allot-cli/src/main/java/dev/allot/cli");
        java.util.Set<String> serve = java.util.Set.of("ServeCommand.java", "ServeAnnouncement.java", "SlurmOptions.java",
                "ServePolicy.java");
        try (Stream<Path> files = Files.list(main)) {
            for (Path f : files.filter(f -> !serve.contains(f.getFileName().toString())).toList()) {
                assertThat(Files.readString(f)).as(f.toString()).doesNotContain("dev.allot.server");
            }
        }
    }
}
