package dev.allot.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code allot} command: the entry point of the shaded jar. */
@Command(name = "allot", mixinStandardHelpOptions = true, version = "allot 0.1.0",
        description = "Allot: a GPU cluster scheduler with budgets, hierarchical fair share and scheduling contracts.",
        subcommands = {CommandLine.HelpCommand.class})
public final class AllotCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new AllotCommand()).execute(args));
    }
}
