package dev.allot.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code allot help [COMMAND [SUBCOMMAND...]]}: the help of any command, however deep ({@code allot help campaign
 * submit}). Picocli's own help command takes one word: {@code allot help campaign submit} said "Unmatched argument
 * at index 2: 'submit'". A word that names no command is refused as {@link UnknownCommands} refuses it elsewhere.
 */
@Command(name = "help", helpCommand = true, header = "Display help information about the specified command.",
        description = {"Display help information about the specified command, e.g. allot help campaign submit"
                + " (the same as allot campaign submit --help)."})
final class HelpCommand implements CommandLine.IHelpCommandInitializable2, Runnable {
    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "the command, then its subcommand, if any")
    List<String> words = new ArrayList<>();

    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    private CommandLine self;
    private CommandLine.Help.ColorScheme colors;
    private PrintWriter out;

    @Override
    public void init(CommandLine helpCommandLine, CommandLine.Help.ColorScheme colorScheme, PrintWriter outWriter,
                     PrintWriter errWriter) {
        this.self = helpCommandLine;
        this.colors = colorScheme;
        this.out = outWriter;
    }

    @Override
    public void run() {
        CommandLine at = self.getParent();
        for (int i = 0; i < words.size(); i++) {
            CommandLine next = at.getSubcommands().get(words.get(i));
            if (next == null) {
                List<String> rest = words.subList(i, words.size());
                if (at.getSubcommands().isEmpty()) {
                    throw new CommandLine.ParameterException(at, "'" + at.getCommandSpec().qualifiedName(" ")
                            + "' has no commands, got '" + rest.get(0) + "'");
                }
                throw new CommandLine.UnmatchedArgumentException(at, new ArrayList<>(rest));
            }
            at = next;
        }
        at.usage(out, colors);
        out.flush();
    }
}
