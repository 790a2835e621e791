package dev.allot.cli;

import dev.allot.sim.check.InvariantViolation;
import dev.allot.sim.input.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code allot} command: the entry point of the shaded jar. */
@Command(name = "allot", mixinStandardHelpOptions = true, version = "allot " + AllotCommand.VERSION,
        description = "Allot: a GPU cluster scheduler with budgets, hierarchical fair share and scheduling contracts.",
        subcommands = {SimulateCommand.class, ReportCommand.class, SweepCommand.class, GenerateCommand.class, BenchCommand.class,
                PoliciesCommand.class, TracesCommand.class, SubmitCommand.class, QueueCommand.class, ShowCommand.class,
                CancelCommand.class, NodesCommand.class, BudgetCommand.class, CommandLine.HelpCommand.class})
public final class AllotCommand implements Runnable {
    public static final String VERSION = dev.allot.sim.AllotVersion.VERSION;

    /** Exit code for bad input: a malformed file, an unknown policy, a bad option value. */
    public static final int EXIT_BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new AllotCommand());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof InputException || ex instanceof IllegalArgumentException) {
                cmd.getErr().println("allot: " + ex.getMessage());
                return EXIT_BAD_INPUT;
            }
            if (ex instanceof InvariantViolation) {
                cmd.getErr().println("allot: " + ex.getMessage());
                return 1;
            }
            throw ex;
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
