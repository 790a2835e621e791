package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The root help lists each command with one whole sentence (the long text stays in the command's own help), and a
 * word that names no command is refused as such, with or without {@code --help}.
 */
class HelpAndUnknownCommandsTest {

    /** Every command below {@code cl}, depth first. */
    private static List<CommandLine> commands(CommandLine cl) {
        List<CommandLine> all = new ArrayList<>();
        for (CommandLine sub : cl.getSubcommands().values()) {
            all.add(sub);
            all.addAll(commands(sub));
        }
        return all;
    }

    /** The line picocli shows for a command in its parent's list: the header's first line, else the description's. */
    private static String summary(CommandLine cmd) {
        String[] header = cmd.getCommandSpec().usageMessage().header();
        String[] description = cmd.getCommandSpec().usageMessage().description();
        return header.length > 0 ? header[0] : description.length > 0 ? description[0] : "";
    }

    @Test
    void givenEveryCommand_whenListedInItsParentsHelp_thenItsSummaryIsOneShortWholeSentence() {
        List<String> bad = new ArrayList<>();
        for (CommandLine cmd : commands(AllotCommand.commandLine())) {
            String s = summary(cmd);
            String name = cmd.getCommandSpec().qualifiedName(" ");
            if (s.isBlank() || !s.endsWith(".") || s.length() > 100 || s.contains(". ")) {
                bad.add(name + ": '" + s + "'");
            }
        }
        assertThat(bad).as("commands whose summary is not one short sentence").isEmpty();
    }

    @Test
    void givenTheRootHelp_whenPrinted_thenNoCommandLineEndsMidSentence() {
        Cli.Result r = Cli.run("--help");
        assertThat(r.exit()).isZero();
        String commands = r.out().substring(r.out().indexOf("Commands:"));
        assertThat(commands)
                .contains("simulate      Replay a scenario folder or a real trace through policies and\n")
                .doesNotContain("workloads.\n")
                .doesNotContain("trace.yaml,");
        // each entry (a line starting with two spaces and a name, plus its continuation lines) ends with a full stop
        for (String entry : commands.split("\n(?=  \\S)")) {
            if (entry.startsWith("Commands:")) {
                continue;
            }
            assertThat(entry.strip()).as("entry %s", entry).endsWith(".");
        }
    }

    /**
     * picocli prints each element of a command's description on a line of its own, and wraps it at 80 columns: an
     * element that stops mid-sentence printed "...workloads.csv|jsonl\nor trace.yaml,\noptional policy.yaml)...", a
     * line cut short in every paragraph. So each element is a paragraph: it ends a sentence, or is an example.
     */
    @Test
    void givenEveryCommandsOwnHelp_whenPrinted_thenEachLineOfItsDescriptionIsAWholeParagraph() {
        List<String> bad = new ArrayList<>();
        for (CommandLine cmd : commands(AllotCommand.commandLine())) {
            if (cmd.getCommand() instanceof CommandLine.HelpCommand) {
                continue; // picocli's own
            }
            for (String line : cmd.getCommandSpec().usageMessage().description()) {
                boolean example = line.matches("(Example|Then|In the simulator|From inside a workload)\\b.*|\\s.*");
                if (!example && !line.endsWith(".")) {
                    bad.add(cmd.getCommandSpec().qualifiedName(" ") + ": '" + line + "'");
                }
            }
        }
        assertThat(bad).as("description lines that stop mid-sentence").isEmpty();
    }

    /**
     * An example is a command to copy: picocli wraps a line longer than its 80 columns, and an example cut there
     * broke a word in two ("allot forecast accuracy --trace philly:" and "examples/traces/..." on the next line), so
     * each example line fits, continued with a backslash when long.
     */
    @Test
    void givenEveryCommandsOwnHelp_whenPrinted_thenNoExampleLineIsWrapped() {
        List<String> bad = new ArrayList<>();
        for (CommandLine cmd : commands(AllotCommand.commandLine())) {
            if (cmd.getCommand() instanceof CommandLine.HelpCommand) {
                continue;
            }
            int width = cmd.getCommandSpec().usageMessage().width();
            for (String line : cmd.getCommandSpec().usageMessage().description()) {
                boolean example = line.matches("(Example|Then|In the simulator|From inside a workload)\\b.*|\\s.*");
                if (example && line.length() > width) {
                    bad.add(cmd.getCommandSpec().qualifiedName(" ") + ": '" + line + "'");
                }
            }
        }
        assertThat(bad).as("example lines longer than the help's width").isEmpty();
    }

    @Test
    void givenAWordWhereANumberGoes_whenParsed_thenTheErrorSaysWhatWasExpectedAndTheHelpOfTheWholeCommand() {
        // it said "'abc' is not a double" and "Try 'allot set --help'", a command that does not exist
        Cli.Result share = Cli.run("budget", "set", "lab/x", "--share", "abc");
        assertThat(share.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(share.err()).isEqualTo("allot: Invalid value for option '--share': expected a number, got 'abc'\n"
                + "Try 'allot budget set --help' for the options.\n");
        Cli.Result gpus = Cli.run("submit", "--allocation", "lab/x", "--gpus", "x", "--min-runtime", "5m", "--", "true");
        assertThat(gpus.err()).startsWith("allot: Invalid value for option '--gpus': expected a whole number, got 'x'\n");
        Cli.Result huge = Cli.run("submit", "--allocation", "lab/x", "--gpus", "99999999999", "--min-runtime", "5m", "--",
                "true");
        // only the bound it is beyond: "from -2147483648 to 2147483647" read as if a negative count of GPUs would do
        assertThat(huge.err()).startsWith("allot: Invalid value for option '--gpus': expected a whole number of at most"
                + " 2147483647, got '99999999999'\n");
        Cli.Result small = Cli.run("progress", "w-1", "-99999999999999999999", "2");
        assertThat(small.err()).startsWith("allot: Invalid value for positional parameter at index 1 (DONE): expected a"
                + " whole number of at least -9223372036854775808, got '-99999999999999999999'\n");
        Cli.Result done = Cli.run("progress", "w-1", "1", "2.5");
        assertThat(done.err()).isEqualTo("allot: Invalid value for positional parameter at index 2 (TOTAL): expected a"
                + " whole number, got '2.5'\nTry 'allot progress --help' for the options.\n");
        assertThat(Cli.run("--bogus").err()).endsWith("Try 'allot --help' for the options.\n");
    }

    @Test
    void givenSubmitsHelp_whenPrinted_thenItNamesEveryPriorityAndWhatTheDurationIsFor() {
        Cli.Result r = Cli.run("submit", "--help");
        assertThat(r.exit()).isZero();
        String help = r.out().replaceAll("\\s+", " ");
        // it said "the priority (default: normal)" and "the expected running time, e.g. 3h (for the simulated
        // backend)", though the live forecasts assume a declared duration on every backend
        for (dev.allot.core.model.Priority p : dev.allot.core.model.Priority.values()) {
            assertThat(help).contains(p.label());
        }
        assertThat(help).contains("--priority=P low, normal, high or urgent: orders work inside its allocation only")
                .contains("start forecasts (allot queue, allot explain) assume it")
                .doesNotContain("(for the simulated backend)");
    }

    @Test
    void givenTheForecastGroup_whenItsHelpIsPrinted_thenItBeginsWithWhatTheCommandDoes() {
        Cli.Result r = Cli.run("forecast", "--help");
        assertThat(r.exit()).isZero();
        // it began "Start forecasts: measure how well they predict ...", a label and a fragment
        assertThat(r.out()).startsWith("Measure in the simulator how well the start forecasts predict when waiting work\n"
                + "starts.\n");
    }

    @Test
    void givenACommandsOwnHelp_whenPrinted_thenItKeepsTheLongText() {
        Cli.Result r = Cli.run("simulate", "--help");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("Replay a scenario folder (cluster.yaml, allocations.yaml, workloads.csv|jsonl")
                .contains("metrics side by side.");
    }

    @Test
    void givenAWordThatIsNoCommand_whenAskedForItsHelp_thenItIsRefusedByNameWithExit2() {
        Cli.Result r = Cli.run("flotilla", "--help");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("allot: unknown command 'flotilla'\n")
                .contains("The commands of 'allot': simulate, report, sweep, generate")
                .contains("serve")
                .contains("Try 'allot --help' for what each does.")
                .doesNotContain("Usage:");
    }

    @Test
    void givenWordsACommandDoesNotTake_whenRun_thenTheyAreNamedWithWhatItTakesAndTheUsualCause() {
        // it said "Unmatched arguments from index 2: 'w-2', 'w-3'", an index nobody counted
        Cli.Result r = Cli.run("cancel", "w-1", "w-2", "w-3", "--server", "http://127.0.0.1:9");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("allot: unexpected words 'w-2', 'w-3': 'allot cancel' takes ID beside its"
                + " options (hint: a value with blanks goes in quotes, as one word: \"disk full\")\n"
                + "Try 'allot cancel --help' for the options.\n");
        r = Cli.run("nodes", "drain", "vm", "--reason", "disk", "full", "--server", "http://127.0.0.1:9");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: unexpected word 'full': 'allot nodes drain' takes NAME beside its"
                + " options (hint: ");
        r = Cli.run("queue", "extra", "--server", "http://127.0.0.1:9");
        assertThat(r.err()).startsWith("allot: unexpected word 'extra': 'allot queue' takes no word beside its"
                + " options (hint: ");
    }

    @Test
    void givenAWordThatIsNoCommand_whenRunAlone_thenTheSameRefusalSuggestsTheNearestCommand() {
        Cli.Result r = Cli.run("simulat");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: unknown command 'simulat'\n")
                .contains("Did you mean: allot simulate")
                .contains("The commands of 'allot': simulate,")
                .doesNotContain("Unmatched argument");
    }

    @Test
    void givenAWordFarFromEveryCommand_whenRun_thenNoCommandIsSuggested() {
        // 'allot bogus' suggested "allot user or allot progress", neither a slip of it
        Cli.Result r = Cli.run("bogus");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: unknown command 'bogus'\nThe commands of 'allot': simulate,")
                .doesNotContain("Did you mean");
        assertThat(Cli.run("queu").err()).contains("Did you mean: allot queue?\n");
    }

    @Test
    void givenNoCommand_whenRun_thenTheUsageGoesToStandardErrorWithExit2() {
        // it printed the usage on standard output with exit 0, as if something had been done
        Cli.Result r = Cli.run();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo(Cli.run("--help").out());
    }

    @Test
    void givenAWordThatIsNoSubcommand_whenAskedForHelp_thenTheParentCommandNamesIt() {
        Cli.Result r = Cli.run("budget", "shwo", "--help");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("allot: unknown command 'shwo' of 'allot budget'\n")
                .contains("Did you mean: budget show?")
                .contains("The commands of 'allot budget': show, set, remove, usage.");
    }

    @Test
    void helpOfASubcommandPrintsWhatItsOwnHelpPrints() {
        // 'allot help campaign submit' said "Unmatched argument at index 2: 'submit'"
        Cli.Result help = Cli.run("help", "campaign", "submit");
        assertThat(help.exit()).as(help.err()).isZero();
        assertThat(help.out()).isEqualTo(Cli.run("campaign", "submit", "--help").out())
                .contains("Usage: allot campaign submit");
        assertThat(Cli.run("help", "queue").out()).isEqualTo(Cli.run("queue", "--help").out());
        assertThat(Cli.run("help").out()).isEqualTo(Cli.run("--help").out());
        assertThat(Cli.run("help", "--help").out()).contains("Usage: allot help [-h] [COMMAND...]");

        Cli.Result unknown = Cli.run("help", "campaign", "sumbit");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).startsWith("allot: unknown command 'sumbit' of 'allot campaign'\n")
                .contains("Did you mean: campaign submit?");
        Cli.Result leaf = Cli.run("help", "queue", "extra");
        assertThat(leaf.exit()).isEqualTo(2);
        assertThat(leaf.err()).startsWith("allot: 'allot queue' has no commands, got 'extra'\n");
    }

    @Test
    void givenEveryCommand_whenAskedForItsVersion_thenItPrintsTheVersionLineOfAllot() {
        Cli.Result root = Cli.run("--version");
        assertThat(root.out()).isEqualTo("allot " + AllotCommand.VERSION + "\n");
        List<String> bad = new ArrayList<>();
        for (CommandLine cmd : commands(AllotCommand.commandLine())) {
            if (!cmd.getCommandSpec().optionsMap().containsKey("--version")) {
                continue; // lists no --version (picocli's help command)
            }
            List<String> words = new ArrayList<>(List.of(cmd.getCommandSpec().qualifiedName(" ").split(" ")));
            words.remove(0);
            for (String flag : List.of("--version", "-V")) {
                List<String> args = new ArrayList<>(words);
                args.add(flag);
                Cli.Result r = Cli.run(args.toArray(String[]::new));
                if (r.exit() != 0 || !r.out().equals(root.out()) || !r.err().isEmpty()) {
                    bad.add(String.join(" ", args) + ": exit " + r.exit() + ", out '" + r.out() + "'");
                }
            }
        }
        // 'allot simulate --version', 'allot queue -V', 'allot budget show --version' printed nothing and exited 0
        assertThat(bad).as("commands whose --version does not print the version of allot").isEmpty();
    }

    @Test
    void givenAMisspeltOptionThatLeavesARequiredOneMissing_whenRun_thenTheMisspeltOneIsNamedWithItsSuggestion() {
        // it said only "Missing required option: '--allocation=PATH'", and never named '--alocation'
        Cli.Result submit = Cli.run("submit", "--alocation", "lab/nlp/eval", "--gpus", "1", "--min-runtime", "1m", "--",
                "true");
        assertThat(submit.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(submit.err()).isEqualTo("allot: Unknown option: '--alocation'\n"
                + "Possible solutions: --allocation\n"
                + "Try 'allot submit --help' for the options.\n");
        // a missing positional parameter, in another command, is the same story
        Cli.Result set = Cli.run("budget", "set", "--shrae=2");
        assertThat(set.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(set.err()).isEqualTo("allot: Unknown option: '--shrae=2'\n"
                + "Possible solutions: --share\n"
                + "Try 'allot budget set --help' for the options.\n");
        // with no unknown option, the missing one is still named
        assertThat(Cli.run("submit", "--gpus", "1", "--min-runtime", "1m", "--", "true").err())
                .startsWith("allot: Missing required option: '--allocation=PATH'\n");
    }

    /**
     * An option without a paramLabel shows picocli's placeholder, the field's name: {@code forecast accuracy} said
     * {@code --horizon=<horizon> --runs=<runs>} where {@code whatif} says {@code --horizon=DURATION --runs=N}.
     */
    @Test
    void givenEveryCommandsHelp_whenRendered_thenEveryOptionValueHasALabelInCapitalsNotAFieldName() {
        List<String> bad = new ArrayList<>();
        for (CommandLine cmd : commands(AllotCommand.commandLine())) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\S*=?<\\w+>").matcher(cmd.getUsageMessage());
            while (m.find()) {
                bad.add(cmd.getCommandSpec().qualifiedName(" ") + ": " + m.group());
            }
        }
        assertThat(bad).as("option values shown as <fieldName>").isEmpty();
        assertThat(Cli.run("forecast", "accuracy", "--help").out()).contains("--horizon=DURATION").contains("--runs=N");
    }

    @Test
    void givenAnUnknownOption_whenRun_thenItIsStillAnOptionError() {
        Cli.Result r = Cli.run("--bogus");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Unknown option: '--bogus'").doesNotContain("unknown command");
    }

    @Test
    void givenAnExtraWordAfterACommandWithoutSubcommands_whenRun_thenItIsNotCalledACommand() {
        Cli.Result r = Cli.run("policies", "extra");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).doesNotContain("unknown command");
    }

    /**
     * picocli formats option and command texts as format strings: a bare "95% (" printed "[picocli WARN] Could not
     * format ..." and the raw text in the help of {@code simulate} and {@code sweep}. Every text must render.
     */
    @Test
    void givenEveryCommand_whenItsHelpIsRendered_thenPicocliWarnsOfNoText() {
        List<String> bad = new ArrayList<>();
        java.io.PrintStream err = System.err;
        for (CommandLine cmd : commands(AllotCommand.commandLine())) {
            java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
            System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
            try {
                cmd.getUsageMessage();
            } finally {
                System.setErr(err);
            }
            String warned = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
            if (warned.contains("picocli WARN")) {
                bad.add(cmd.getCommandSpec().qualifiedName(" ") + ": " + warned.lines().findFirst().orElse(""));
            }
        }
        assertThat(bad).as("commands whose help text does not render").isEmpty();
    }
}
