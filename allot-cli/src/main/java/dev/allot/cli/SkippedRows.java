package dev.allot.cli;

import java.io.PrintWriter;
import java.util.List;

/**
 * What {@code --lenient} left out, said before the results: how many workload rows, the first few with their
 * {@code file:line:column} and reason so the file can be fixed, and how many more. Shared by simulate, sweep and
 * campaign simulate (sweep and campaign skipped rows without a word).
 */
final class SkippedRows {
    /** The most rejected rows quoted; the rest are counted. */
    static final int SHOWN = dev.allot.sim.input.RejectedRows.SHOWN;

    private SkippedRows() {
    }

    /** Prints nothing when no row was skipped. */
    static void print(PrintWriter out, List<String> rejected) {
        if (rejected.isEmpty()) {
            return;
        }
        out.println(rejected.size() == 1 ? "skipped 1 workload row (--lenient):"
                : "skipped " + rejected.size() + " workload rows (--lenient); the first:");
        rejected.stream().limit(SHOWN).forEach(r -> out.println("  " + r));
        if (rejected.size() > SHOWN) {
            out.println("  and " + (rejected.size() - SHOWN) + " more");
        }
    }
}
