package dev.allot.cli;

import picocli.CommandLine.Command;

/** {@code allot forecast}: how good Allot's start forecasts are, measured in the simulator. */
@Command(name = "forecast", mixinStandardHelpOptions = true,
        header = "Measure in the simulator how well the start forecasts predict when waiting work starts.",
        description = {"The live service forecasts each waiting workload's start (see allot explain, allot queue);"
                        + " allot forecast accuracy measures such forecasts in the simulator against the actual"
                        + " starts.",
                "Example: allot forecast accuracy --preset lab"},
        subcommands = {ForecastAccuracyCommand.class})
final class ForecastCommand extends GroupCommand {
    ForecastCommand() {
        super("accuracy");
    }
}
