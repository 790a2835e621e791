package dev.allot.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The one rule for a word that names no command: {@code allot flotilla} and {@code allot flotilla --help} both
 * say "unknown command 'flotilla'", suggest the nearest commands, list the commands there are, and exit 2. Picocli on
 * its own reads {@code flotilla --help} as a request for the root help and exits 0, which hides the typo, and says
 * "Unmatched argument at index 0" for {@code flotilla} alone; both are about a command, so they say so.
 */
final class UnknownCommands {
    private UnknownCommands() {
    }

    /**
     * Before a parsed command line runs: when the deepest command it reached has subcommands and the first word
     * left unmatched is not an option, prints the refusal to {@code err} and answers the exit code; else null.
     */
    static Integer refuse(ParseResult parsed) {
        ParseResult last = parsed;
        while (last.hasSubcommand()) {
            last = last.subcommand();
        }
        CommandLine cmd = last.commandSpec().commandLine();
        List<String> unmatched = last.unmatched();
        if (unmatched.isEmpty() || !isCommandWord(cmd, unmatched.get(0))) {
            return null;
        }
        print(cmd, unmatched);
        return AllotCommand.EXIT_BAD_INPUT;
    }

    /** Whether {@code ex} is about a command word: then {@link #print} says so instead of picocli's message. */
    static boolean isUnknownCommand(CommandLine.ParameterException ex) {
        return ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()
                && isCommandWord(ex.getCommandLine(), u.getUnmatched().get(0));
    }

    /**
     * The error to report for {@code ex}: when the command was also given a word that looks like an option (starts
     * with {@code --}) and names none, that unknown option, with picocli's suggestions; else {@code ex}. Picocli checks
     * required options before it reports unmatched words, so {@code submit --alocation lab/x ...} said only "Missing
     * required option: '--allocation=PATH'" and never named the misspelt word that caused it.
     */
    static CommandLine.ParameterException unknownOptionFirst(CommandLine.ParameterException ex) {
        if (ex instanceof CommandLine.UnmatchedArgumentException) {
            return ex;
        }
        CommandLine cmd = ex.getCommandLine();
        List<String> unknown = cmd.getUnmatchedArguments().stream()
                .filter(word -> word.startsWith("--") && word.length() > 2)
                .toList();
        return unknown.isEmpty() ? ex : new CommandLine.UnmatchedArgumentException(cmd, unknown);
    }

    /**
     * What to say of words a command does not take, none of them an option, or null when {@code ex} is not about
     * such words: picocli said "Unmatched argument at index 2: 'w-2'" of {@code allot cancel w-1 w-2}, an index the
     * user never counted, and nothing of what the command takes or of the usual cause, a value with blanks unquoted
     * ({@code nodes drain vm --reason disk full}).
     */
    static String strayWords(CommandLine.ParameterException ex) {
        if (!(ex instanceof CommandLine.UnmatchedArgumentException u) || u.getUnmatched().isEmpty()
                || u.getUnmatched().stream().anyMatch(w -> w.startsWith("-") && w.length() > 1)) {
            return null;
        }
        CommandLine cmd = ex.getCommandLine();
        List<String> takes = cmd.getCommandSpec().positionalParameters().stream()
                .map(CommandLine.Model.PositionalParamSpec::paramLabel).toList();
        return "unexpected " + (u.getUnmatched().size() == 1 ? "word " : "words ")
                + String.join(", ", u.getUnmatched().stream().map(w -> "'" + w + "'").toList()) + ": '"
                + cmd.getCommandSpec().qualifiedName(" ") + "' takes "
                + (takes.isEmpty() ? "no word beside its options" : String.join(" ", takes) + " beside its options")
                + " (hint: a value with blanks goes in quotes, as one word: \"disk full\")";
    }

    /** Prints the refusal for the unmatched words of {@code cmd}, the first of which names no command. */
    static void print(CommandLine cmd, List<String> unmatched) {
        PrintWriter err = cmd.getErr();
        String path = qualifiedName(cmd);
        err.println("allot: unknown command '" + unmatched.get(0) + "'" + (cmd.getParent() == null ? ""
                : " of '" + path + "'"));
        // picocli suggests its nearest commands however far: 'allot bogus' got "allot user or allot progress"
        List<String> near = new CommandLine.UnmatchedArgumentException(cmd, unmatched).getSuggestions().stream()
                .filter(s -> near(unmatched.get(0), s.substring(s.lastIndexOf(' ') + 1)))
                .toList();
        if (!near.isEmpty()) {
            String name = cmd.getCommandName() + " "; // as picocli says them: "allot simulate", "budget show"
            err.println("Did you mean: " + name + String.join(" or " + name, near) + "?");
        }
        err.println("The commands of '" + path + "': " + String.join(", ", cmd.getSubcommands().keySet()) + ".");
        err.println("Try '" + path + " --help' for what each does.");
        err.flush();
    }

    /**
     * Whether {@code typed} is a slip for {@code command}: within one edit (a letter added, dropped, changed, or two
     * neighbours swapped) for words of up to four letters, within two for longer ones.
     */
    static boolean near(String typed, String command) {
        return editDistance(typed.toLowerCase(java.util.Locale.ROOT), command) <= (typed.length() <= 4 ? 1 : 2);
    }

    /** The optimal string alignment distance: Levenshtein's, with a swap of neighbours as one edit. */
    private static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /** A word in the place of a subcommand of a command that has some, and not an option. */
    private static boolean isCommandWord(CommandLine cmd, String word) {
        return !cmd.getSubcommands().isEmpty() && !word.startsWith("-") && !word.isEmpty();
    }

    private static String qualifiedName(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName(" ");
    }
}
