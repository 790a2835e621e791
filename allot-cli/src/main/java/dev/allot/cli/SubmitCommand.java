package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code allot submit ... -- COMMAND [ARGS...]}: submits a workload to the server and prints its id and state. */
@Command(name = "submit", mixinStandardHelpOptions = true,
        description = {"Submit a workload to the Allot server; prints its id and state.",
                "Example: allot submit --allocation lab/nlp/pretrain --gpus 8 --min-runtime 2h \\",
                "           --resumable -- python train.py"})
final class SubmitCommand extends ClientCommand {
    @Option(names = "--allocation", required = true, paramLabel = "PATH", description = "the allocation, e.g. lab/nlp/pretrain")
    String allocation;

    /** Whether the server answered with the workload an earlier submission stored under the same idempotency key. */
    private boolean replayed;

    @Option(names = "--gpus", required = true, paramLabel = "N", description = "GPUs in total")
    int gpus;

    @Option(names = "--gpus-per-node", paramLabel = "K", description = "GPUs on each node (must divide --gpus); any packing when omitted")
    Integer gpusPerNode;

    @Option(names = "--min-runtime", required = true, paramLabel = "DURATION",
            description = "the guaranteed running time before it may be preempted, e.g. 2h; 0 for unallocated")
    String minRuntime;

    @Option(names = "--resumable", description = "the workload checkpoints and may be preempted and resumed")
    boolean resumable;

    @Option(names = "--priority", defaultValue = "normal", paramLabel = "P",
            description = "low, normal, high or urgent: orders work inside its allocation only (default: ${DEFAULT-VALUE})")
    String priority;

    @Option(names = "--kind", paramLabel = "KIND", description = "a short word such as train or eval (server default: train)")
    String kind;

    @Option(names = "--duration", paramLabel = "DURATION",
            description = "the expected running time, e.g. 3h: start forecasts (allot queue, allot explain) assume it"
                    + " (else the running times of work like it); the simulated backend ends the workload after it")
    String duration;

    /** Named as the API's field, so that an error about 'environment' names --env ({@link CliHints#option}). */
    @Option(names = "--env", paramLabel = "K=V", description = "an environment variable for the workload; repeatable")
    List<String> environment = new ArrayList<>();

    @Option(names = "--idempotency-key", paramLabel = "KEY",
            description = "the same key on a retried submission answers the first workload instead of a second")
    String idempotencyKey;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "the program and its arguments (after --), each a word of its own; not run through a shell")
    List<String> command;

    @Override
    JsonNode call(ApiClient client) {
        requireCommandAfterDelimiter();
        requireWordsApart();
        JsonNode answer = client.post("/v1/workloads", body());
        replayed = client.lastAnswerReplayed();
        return answer;
    }

    /**
     * The command is every word after {@code --}, and only those: picocli would also take a stray word before
     * {@code --} (such as the unit in {@code --min-runtime 10 minutes -- sleep 10}) as the command's first word, and
     * run {@code minutes sleep 10} with a 10-second minimum runtime. A word before {@code --} that no option took is
     * refused, with the command as it was parsed, and so is a command given without {@code --}.
     *
     * @throws IllegalArgumentException naming the stray words and the parsed command
     */
    void requireCommandAfterDelimiter() {
        picocli.CommandLine.ParseResult parsed = spec == null ? null : spec.commandLine().getParseResult();
        if (parsed == null || command == null) {
            return; // built directly, not parsed
        }
        List<String> original = parsed.originalArgs();
        int delimiter = original.indexOf("--");
        int after = delimiter < 0 ? 0 : original.size() - delimiter - 1;
        if (command.size() <= after) {
            return;
        }
        List<String> stray = command.subList(0, command.size() - after);
        String parsedCommand = String.join(" ", command);
        throw new IllegalArgumentException(delimiter < 0
                ? "the command must follow '--' (options first, then -- and the command), got '" + parsedCommand
                        + "' without '--'; e.g. allot submit ... -- " + parsedCommand
                : "'" + String.join(" ", stray) + "' before '--' is not an option's value (the command would be '"
                        + parsedCommand + "'); give each option one value (--min-runtime 10m, not 10 minutes) and"
                        + " the whole command after '--'");
    }

    /**
     * A command whose program is one word with blanks ({@code -- "sleep 1"}) is refused before asking
     * ({@link CommandWords}).
     *
     * @throws IllegalArgumentException naming the word and showing the command with its words apart
     */
    void requireWordsApart() {
        CommandWords.problem(command, CommandWords::onCommandLine).ifPresent(p -> {
            throw new IllegalArgumentException(p);
        });
    }

    ObjectNode body() {
        ObjectNode b = ApiClient.JSON.createObjectNode();
        b.put("allocation", allocation);
        b.put("gpus", gpus);
        if (gpusPerNode != null) {
            b.put("gpusPerNode", gpusPerNode);
        }
        b.put("minRuntime", minRuntime);
        if (duration != null) {
            b.put("duration", duration);
        }
        b.put("resumable", resumable);
        b.put("priority", priority);
        if (kind != null) {
            b.put("kind", kind);
        }
        var cmd = b.putArray("command");
        command.forEach(cmd::add);
        if (!environment.isEmpty()) {
            ObjectNode e = b.putObject("environment");
            for (String kv : environment) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--env expects NAME=VALUE, got '" + kv + "'");
                }
                String name = kv.substring(0, eq);
                if (e.has(name)) {
                    throw new IllegalArgumentException("--env gives " + name + " twice");
                }
                e.put(name, kv.substring(eq + 1));
            }
        }
        if (idempotencyKey != null) {
            b.put("idempotencyKey", idempotencyKey);
        }
        return b;
    }

    @Override
    void render(JsonNode w, PrintWriter out) {
        if (replayed) {
            // a retry: it printed "submitted w-47 (completed)", as if a new workload had been stored
            out.println("already submitted as " + text(w, "id") + " (" + text(w, "state") + "): the idempotency key '"
                    + idempotencyKey + "' was used by it; nothing new was submitted");
            return;
        }
        out.println("submitted " + text(w, "id") + " (" + text(w, "state") + ")");
        if (w.hasNonNull("minRuntimeNote")) {
            out.println("note: " + text(w, "minRuntimeNote"));
        }
    }
}
