package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code allot policy show|set}: the scheduling policy the server runs ({@code GET} and {@code PUT /v1/policy}). The
 * service reads {@code policy.yaml} as {@code allot simulate} reads a scenario's, so {@code show --yaml} prints a file
 * that {@code set} (and {@code simulate}) take back. Not to be confused with {@code allot policies}, which lists the
 * policies the simulator knows.
 */
@Command(name = "policy", mixinStandardHelpOptions = true,
        header = "The scheduling policy the Allot server runs, and its settings.",
        description = {"The scheduling policy the Allot server runs: its settings (policy.yaml, as allot simulate reads"
                + " a scenario's) and where they came from.",
                "Example: allot policy show --yaml > policy.yaml; edit it;",
                "         allot policy set policy.yaml"},
        subcommands = {PolicyCommand.Show.class, PolicyCommand.Set.class})
final class PolicyCommand extends GroupCommand {
    PolicyCommand() {
        super("show");
    }

    /** The policy, where it came from, and every setting, one a line: {@code allocation.reclaim-margin  0.1}. */
    static void print(JsonNode p, PrintWriter out) {
        out.println("policy:  " + ClientCommand.text(p, "policy"));
        out.println("source:  " + ClientCommand.text(p, "source"));
        out.println("settings:");
        List<String[]> rows = new ArrayList<>();
        for (Map.Entry<String, JsonNode> s : p.path("settings").properties()) {
            if (s.getValue().isObject()) {
                for (Map.Entry<String, JsonNode> own : s.getValue().properties()) {
                    rows.add(new String[] {s.getKey() + "." + own.getKey(), own.getValue().asText()});
                }
            } else {
                rows.add(new String[] {s.getKey(), s.getValue().asText()});
            }
        }
        int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
        for (String[] r : rows) {
            out.println("  " + r[0] + " ".repeat(width - r[0].length() + 2) + r[1]);
        }
    }

    /** The policy as policy.yaml: the text it was read from, or (for the defaults, which have none) its settings. */
    static String yaml(JsonNode p) {
        String text = p.path("text").asText("");
        if (!text.isBlank()) {
            return text.endsWith("\n") ? text : text + "\n";
        }
        StringBuilder y = new StringBuilder();
        for (Map.Entry<String, JsonNode> s : p.path("settings").properties()) {
            if (s.getValue().isObject()) {
                y.append(s.getKey()).append(":\n");
                for (Map.Entry<String, JsonNode> own : s.getValue().properties()) {
                    y.append("  ").append(own.getKey()).append(": ").append(scalar(own.getValue().asText())).append('\n');
                }
            } else {
                y.append(s.getKey()).append(": ").append(scalar(s.getValue().asText())).append('\n');
            }
        }
        return y.toString();
    }

    /** A YAML scalar: plain when it reads back as the same string, else double-quoted. */
    static String scalar(String v) {
        if (v.matches("[A-Za-z0-9][A-Za-z0-9._/+-]*")) {
            return v;
        }
        return '"' + v.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** {@code allot policy show}: the policy in force. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            header = "Show the scheduling policy in force, where it came from and its settings.",
            description = {"Show the scheduling policy the server runs, where it came from (defaults, a file, or set"
                    + " through the API by whom and when) and every setting in force.",
                    "With --yaml, print it as policy.yaml instead: the text it was read from, or the settings when it"
                            + " runs the defaults."})
    static final class Show extends ClientCommand {
        @Option(names = "--yaml", description = "print the policy as policy.yaml (what 'allot policy set' takes)")
        boolean yaml;

        @Override
        JsonNode call(ApiClient client) {
            return client.get("/v1/policy");
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            if (yaml) {
                out.print(yaml(answer));
            } else {
                print(answer, out);
            }
        }
    }

    /**
     * {@code allot policy set FILE}: an administrator puts a policy.yaml in force; the server checks it as
     * {@code simulate} does and refuses it (at its line and field) when it does not read.
     */
    @Command(name = "set", mixinStandardHelpOptions = true,
            header = "Put a policy.yaml in force (administrators).",
            description = {"Put the policy.yaml in FILE in force (administrators). It is read as allot simulate reads a"
                    + " scenario's policy.yaml (the shared settings and the allocation: section; what it leaves out"
                    + " takes its default); a file that does not read, an empty one and one with another policy's"
                    + " section are refused, with the line and field where there is one (to run the defaults, write them"
                    + " out: allot policy show --yaml on a service that runs them prints them). The server keeps it across restarts (unless it was started with"
                    + " --policy-file) and applies it at its next cycle.",
                    "Example: allot policy set policy.yaml"})
    static final class Set extends ClientCommand {
        @Parameters(index = "0", paramLabel = "FILE", description = "the policy.yaml to run; - reads standard input")
        Path file;

        @Override
        JsonNode call(ApiClient client) {
            try {
                return client.putText("/v1/policy", read(file), "application/yaml");
            } catch (ApiClient.ClientException e) {
                throw located(e, file);
            }
        }

        /**
         * The server's refusal located in the file the user named: the server reads a body, not a file, and says
         * {@code policy.yaml:2:19: ...}; the person at the terminal gave {@code /tmp/bad.yaml} (as {@code serve
         * --policy-file} names it). Standard input ({@code -}) keeps the server's words.
         */
        static ApiClient.ClientException located(ApiClient.ClientException e, Path file) {
            String body = "policy.yaml:";
            if (e.error() == null || !e.error().startsWith(body) || file.toString().equals("-")) {
                return e;
            }
            return new ApiClient.ClientException(e.exitCode(), file + ":" + e.error().substring(body.length()),
                    e.field(), e.hint());
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            out.println("policy set; in force now:");
            print(answer, out);
        }

        /** The file's text; one that cannot be read is the caller's fault, said in words (exit 2). */
        static String read(Path file) {
            try {
                return file.toString().equals("-") ? new String(System.in.readAllBytes(),
                        java.nio.charset.StandardCharsets.UTF_8) : Files.readString(file);
            } catch (NoSuchFileException e) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, file + ": cannot read: no such file");
            } catch (AccessDeniedException e) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, file + ": cannot read: permission"
                        + " denied");
            } catch (java.nio.charset.MalformedInputException e) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, file + ": cannot read: not UTF-8"
                        + " text");
            } catch (IOException e) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, file + ": cannot read: "
                        + (Files.isDirectory(file) ? "is a directory" : AllotCommand.describe(e)));
            }
        }
    }
}
