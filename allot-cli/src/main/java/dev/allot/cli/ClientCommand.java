package dev.allot.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What the client commands share: the connection options, {@code --json}, and turning a failed call into
 * {@code allot: <message>} on stderr with its exit code (2 for the caller's fault, 1 otherwise), the server's hints
 * said for the command line ({@link CliHints}).
 */
abstract class ClientCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions connection = new ClientOptions();

    @Option(names = "--json", description = "print the server's JSON answer instead of text")
    boolean json;

    @Override
    public final Integer call() {
        ApiClient client = connection.client();
        PrintWriter out = spec.commandLine().getOut();
        try {
            JsonNode answer = call(client);
            if (json) {
                out.println(pretty(json(answer)));
            } else {
                render(answer, out);
            }
            out.flush();
            return 0;
        } catch (ApiClient.ClientException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("allot: " + CliHints.message(e, spec));
            err.flush();
            return e.exitCode();
        }
    }

    /**
     * Refuses options given to a client command that has subcommands ({@code allot nodes}) before its subcommand:
     * picocli gives them to the command, which does not run, and the subcommand ran without them, with another
     * server or token ({@code allot nodes --token T drain gpu-07} drained as whoever $ALLOT_TOKEN is). Refused as
     * picocli refuses a word, through the parameter error handler; only the options' names are said, never a value.
     */
    static void refuseOptionsBeforeSubcommand(picocli.CommandLine.ParseResult parsed) {
        for (picocli.CommandLine.ParseResult r = parsed; r.subcommand() != null; r = r.subcommand()) {
            if (!(r.commandSpec().userObject() instanceof ClientCommand)) {
                continue;
            }
            List<String> given = r.matchedOptions().stream().filter(o -> !o.usageHelp() && !o.versionHelp())
                    .map(picocli.CommandLine.Model.OptionSpec::longestName).distinct().toList();
            if (!given.isEmpty()) {
                picocli.CommandLine sub = r.subcommand().commandSpec().commandLine();
                String name = sub.getCommandSpec().qualifiedName(" ");
                throw new picocli.CommandLine.ParameterException(sub, "the options of '" + name + "' go after its"
                        + " name, e.g. '" + name + " ... " + given.get(0) + " ...', got " + String.join(", ", given)
                        + " before it");
            }
        }
    }

    /** Makes the call and answers the server's JSON. */
    abstract JsonNode call(ApiClient client);

    /**
     * The answer as {@code --json} prints it: the server's, unless the command masks secrets in it as its text does
     * ({@link Secrets}).
     */
    JsonNode json(JsonNode answer) {
        return answer;
    }

    /** Prints the answer for people. */
    abstract void render(JsonNode answer, PrintWriter out);

    static String pretty(JsonNode node) {
        try {
            return ApiClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A field as text, or {@code "-"} when absent or null. */
    static String text(JsonNode node, String field) {
        String s = ApiClient.textOrNull(node, field);
        // control characters written as escapes (\n, \u001b): a text stored before the server refused them (a kind of
        // "x\u001b[31m...") reached the terminal of whoever printed it
        return s == null || s.isEmpty() ? "-" : dev.allot.core.rules.Violation.escaped(s);
    }

    /** Rows as a fixed-width table: columns as wide as their widest cell, two spaces apart, no trailing blanks. */
    static void table(PrintWriter out, List<String> header, List<List<String>> rows) {
        int[] width = new int[header.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = header.get(i).length();
        }
        for (List<String> row : rows) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        printRow(out, header, width);
        for (List<String> row : rows) {
            printRow(out, row, width);
        }
    }

    private static void printRow(PrintWriter out, List<String> cells, int[] width) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            String c = cells.get(i);
            sb.append(c);
            if (i < width.length - 1) {
                sb.append(" ".repeat(width[i] - c.length() + 2));
            }
        }
        out.println(sb.toString().stripTrailing());
    }

    /** A command line as a person would type it: arguments with spaces or quotes are single-quoted. */
    static String shellWords(JsonNode array) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode a : array) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(shellWord(a.asText()));
        }
        return sb.toString();
    }

    /** One argument as a person would type it: single-quoted when it has spaces, quotes or other such characters. */
    static String shellWord(String s) {
        return !s.isEmpty() && s.chars().allMatch(ch -> Character.isLetterOrDigit(ch) || "-_./=:,+@%".indexOf(ch) >= 0)
                ? s : ShellWords.quote(s);
    }
}
