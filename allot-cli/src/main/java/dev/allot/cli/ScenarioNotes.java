package dev.allot.cli;

import java.io.PrintWriter;
import java.util.List;

/**
 * How a scenario was read where that may surprise ({@link dev.allot.sim.Scenario#notes()}, e.g. which instant became
 * time 0), said before the results as {@code note: ...}, one line each. Shared by simulate, sweep and campaign
 * simulate, which print it just before what {@code --lenient} skipped.
 */
final class ScenarioNotes {
    private ScenarioNotes() {
    }

    /** Prints nothing when there is no note. */
    static void print(PrintWriter out, List<String> notes) {
        notes.forEach(n -> out.println("note: " + n));
    }
}
