package dev.allot.cli;

import dev.allot.core.rules.Secrets;
import dev.allot.sim.check.InvariantViolation;
import dev.allot.sim.input.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code allot} command: the entry point of the shaded jar. */
@Command(name = "allot", mixinStandardHelpOptions = true, version = "allot " + AllotCommand.VERSION,
        description = "Allot: a GPU cluster scheduler with budgets, hierarchical fair share and scheduling contracts.",
        subcommands = {SimulateCommand.class, ReportCommand.class, SweepCommand.class, GenerateCommand.class, BenchCommand.class,
                PoliciesCommand.class, TracesCommand.class, SubmitCommand.class, QueueCommand.class, ShowCommand.class,
                ExplainCommand.class, LogsCommand.class, CancelCommand.class, ForecastCommand.class, ProgressCommand.class, CampaignCommand.class,
                NodesCommand.class, BudgetCommand.class, BrakesCommand.class, WhatIfCommand.class,
                PolicyCommand.class, SlurmConfigCommand.class,
                TokenCommand.class, UserCommand.class,
                ReplayCommand.class, CompareCommand.class, ServeCommand.class, HelpCommand.class})
public final class AllotCommand implements java.util.concurrent.Callable<Integer> {
    public static final String VERSION = dev.allot.sim.AllotVersion.VERSION;

    /** Exit code for bad input: a malformed file, an unknown policy, a bad option value. */
    public static final int EXIT_BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * {@code allot} alone names no command: the usage goes to standard error with exit 2, as git does, so that a script
     * that lost its command word fails instead of carrying on (it printed the usage on standard output, exit 0).
     * {@code allot --help} prints it on standard output, exit 0.
     */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_BAD_INPUT;
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new AllotCommand());
        NumberArguments.register(cl);
        giveEveryCommandTheVersion(cl, cl.getCommandSpec().version());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof InputException || ex instanceof IllegalArgumentException
                    || ex instanceof OutputFiles.CannotWriteException) {
                cmd.getErr().println("allot: " + ex.getMessage());
                return EXIT_BAD_INPUT;
            }
            if (ex instanceof InvariantViolation) {
                cmd.getErr().println("allot: " + ex.getMessage());
                return 1;
            }
            // No stack trace reaches the user: one line, and the trace only when asked for.
            cmd.getErr().println("allot: " + describe(ex));
            if (System.getenv("ALLOT_DEBUG") != null) {
                ex.printStackTrace(cmd.getErr());
            } else {
                cmd.getErr().println("allot: this is a fault in allot; ALLOT_DEBUG=1 prints its stack trace");
            }
            return 1;
        });
        cl.setExecutionStrategy(parsed -> {
            Integer refused = UnknownCommands.refuse(parsed);
            if (refused == null) {
                GroupCommand.refuseWordsAfterSubcommand(parsed);
                ClientCommand.refuseOptionsBeforeSubcommand(parsed);
            }
            try {
                return refused != null ? refused : new CommandLine.RunLast().execute(parsed);
            } catch (OutOfMemoryError e) {
                // An Error passes the exception handler above: the JVM printed "Exception in thread "main"
                // java.lang.OutOfMemoryError: Java heap space" and a stack trace.
                CommandLine cmd = parsed.subcommands().isEmpty() ? cl
                        : parsed.subcommands().get(parsed.subcommands().size() - 1).commandSpec().commandLine();
                cmd.getErr().println(outOfMemory());
                return 1;
            }
        });
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine cmd = ex.getCommandLine();
            if (UnknownCommands.isUnknownCommand(ex)) {
                UnknownCommands.print(cmd, ((CommandLine.UnmatchedArgumentException) ex).getUnmatched());
                return EXIT_BAD_INPUT;
            }
            ex = UnknownCommands.unknownOptionFirst(ex);
            // picocli echoes what it could not parse; an API token must never reach the terminal or a log.
            String stray = UnknownCommands.strayWords(ex);
            cmd.getErr().println("allot: " + maskTokens(stray != null ? stray : ex.getMessage(), args));
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, cmd.getErr());
            if (ex instanceof CommandLine.UnmatchedArgumentException u) {
                FamiliarOptions.hints(cmd, u.getUnmatched(), u.getSuggestions()).forEach(cmd.getErr()::println);
            }
            // the whole command: 'allot budget set --help' (it said 'allot set --help', which names no command)
            cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName(" ") + " --help' for the options.");
            return EXIT_BAD_INPUT;
        });
        return cl;
    }

    /**
     * Every subcommand lists {@code -V, --version} (mixinStandardHelpOptions) but picocli prints only the version of
     * the command it is given: {@code allot simulate --version} printed nothing and exited 0. Each prints the root's.
     */
    private static void giveEveryCommandTheVersion(CommandLine cmd, String[] version) {
        for (CommandLine sub : cmd.getSubcommands().values()) {
            if (sub.getCommandSpec().version().length == 0) {
                sub.getCommandSpec().version(version);
            }
            giveEveryCommandTheVersion(sub, version);
        }
    }

    /**
     * One line for a failure no command mapped: an I/O failure in the operating system's words, anything else with
     * its kind (it is a fault in allot).
     */
    static String describe(Exception ex) {
        Throwable t = ex instanceof java.io.UncheckedIOException u ? u.getCause() : ex;
        String message = t.getMessage() == null || t.getMessage().isBlank() ? "" : t.getMessage();
        if (t instanceof java.io.IOException io) {
            return message.isEmpty() ? io.getClass().getSimpleName() : message
                    + (t instanceof java.nio.file.FileSystemException fse && fse.getReason() != null
                    && !message.contains(fse.getReason()) ? ": " + fse.getReason() : "");
        }
        return "unexpected " + t.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
    }

    /**
     * One line for a run that needed more heap than the JVM has: how much it had and how to give it more (the run's
     * memory grows with its workloads and with the hours from time 0 to its last submission).
     */
    static String outOfMemory() {
        return "allot: out of memory: the run needed more than the JVM's maximum heap of "
                + (Runtime.getRuntime().maxMemory() >> 20) + " MB (memory grows with the workloads and with the hours"
                + " from time 0 to the last submission); give more with ALLOT_JAVA_OPTS=-Xmx8g ./allot ... or"
                + " java -Xmx8g -jar allot.jar ...";
    }

    /**
     * The message with the value of every {@code --token} argument, and anything shaped as a token
     * ({@link Secrets#TOKEN_SHAPE}), masked: also the value of a misspelt option ({@code --tokn=allot_...}) that
     * picocli quotes whole.
     */
    static String maskTokens(String message, String[] args) {
        String masked = Secrets.TOKEN_SHAPE.matcher(message).replaceAll("****");
        for (int i = 0; i < args.length; i++) {
            String value = null;
            if (args[i].equals("--token") && i + 1 < args.length) {
                value = args[i + 1];
            } else if (args[i].startsWith("--token=")) {
                value = args[i].substring("--token=".length());
            }
            if (value != null && !value.isEmpty()) {
                masked = masked.replace(value, "****");
            }
        }
        return masked;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
