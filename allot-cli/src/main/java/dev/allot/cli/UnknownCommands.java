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

    /** Prints the refusal for the unmatched words of {@code cmd}, the first of which names no command. */
    static void print(CommandLine cmd, List<String> unmatched) {
        PrintWriter err = cmd.getErr();
        String path = qualifiedName(cmd);
        err.println("allot: unknown command '" + unmatched.get(0) + "'" + (cmd.getParent() == null ? ""
                : " of '" + path + "'"));
        CommandLine.UnmatchedArgumentException.printSuggestions(
                new CommandLine.UnmatchedArgumentException(cmd, unmatched), err);
        err.println("The commands of '" + path + "': " + String.join(", ", cmd.getSubcommands().keySet()) + ".");
        err.println("Try '" + path + " --help' for what each does.");
        err.flush();
    }

    /** A word in the place of a subcommand of a command that has some, and not an option. */
    private static boolean isCommandWord(CommandLine cmd, String word) {
        return !cmd.getSubcommands().isEmpty() && !word.startsWith("-") && !word.isEmpty();
    }

    private static String qualifiedName(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName(" ");
    }
}
