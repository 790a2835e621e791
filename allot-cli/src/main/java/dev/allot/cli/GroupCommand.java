package dev.allot.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A command that only groups subcommands ({@code allot user}, {@code allot token}, ...): alone it prints its usage;
 * given words but no subcommand it says that it needs one, naming the group and an example, and exits
 * {@link AllotCommand#EXIT_BAD_INPUT}. The words are taken here so that picocli's own error does not echo them: they
 * may hold a token.
 */
abstract class GroupCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** What came without a subcommand, taken here so picocli's error does not echo it (it may hold a token). */
    @picocli.CommandLine.Unmatched
    List<String> unmatched = new ArrayList<>();

    private final String exampleSubcommand;

    /** @param exampleSubcommand the subcommand the error suggests, e.g. {@code list} */
    GroupCommand(String exampleSubcommand) {
        this.exampleSubcommand = exampleSubcommand;
    }

    /**
     * Refuses words a group's subcommand does not take. The group's {@link #unmatched} makes picocli accept unmatched
     * words for its subcommands too (they inherit the setting), and the subcommand ran without them: 'allot budget
     * usage --since 2 hours' showed a 2-second window. They are refused as picocli refuses them elsewhere ('allot
     * queue extra'), through the parameter error handler, which masks tokens.
     */
    static void refuseWordsAfterSubcommand(picocli.CommandLine.ParseResult parsed) {
        picocli.CommandLine.ParseResult last = parsed;
        while (last.subcommand() != null) {
            last = last.subcommand();
        }
        if (!last.unmatched().isEmpty() && last.commandSpec().unmatchedArgsBindings().isEmpty()) {
            throw new picocli.CommandLine.UnmatchedArgumentException(last.commandSpec().commandLine(),
                    List.copyOf(last.unmatched()));
        }
    }

    @Override
    public Integer call() {
        if (!unmatched.isEmpty()) {
            String group = "allot " + spec.name();
            spec.commandLine().getErr().println("allot: '" + group + "' needs a subcommand before its options, e.g."
                    + " '" + group + " " + exampleSubcommand + " --server URL'");
            spec.commandLine().usage(spec.commandLine().getErr());
            return AllotCommand.EXIT_BAD_INPUT;
        }
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }
}
