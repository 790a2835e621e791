package dev.allot.sim.input;

import java.util.List;

/**
 * What lenient reading may not do: skipping bad workload rows is for a file with a few of them, and a file of which
 * no row was accepted is refused rather than run as a scenario of no workloads (it ran on 'workloads 0; 12 rejected'
 * and exited 0). Shared by scenario folders and the trace importer, which said the same only when it had to build
 * a default tree.
 */
public final class RejectedRows {
    /** The most rejected rows quoted in the message, as the lenient summary of a run quotes them. */
    public static final int SHOWN = 5;

    private RejectedRows() {
    }

    /**
     * Throws when no row of {@code file} became a workload while some were rejected; a file without rows (a header
     * alone) is not refused here.
     *
     * @param accepted how many workloads the file gave
     * @param rejected the messages of the rows lenient reading skipped, each {@code file:line:column: problem}
     */
    public static void requireOneAccepted(String file, long accepted, List<String> rejected) {
        if (accepted > 0 || rejected.isEmpty()) {
            return;
        }
        StringBuilder problem = new StringBuilder("no row became a workload: ")
                .append(rejected.size() == 1 ? "its 1 row was rejected" : rejected.size() + " rows were rejected")
                .append(" (--lenient skips bad rows, but a run needs at least one workload); ")
                .append(rejected.size() == 1 ? "the reason: " : "the first: ");
        for (int i = 0; i < Math.min(SHOWN, rejected.size()); i++) {
            problem.append(i == 0 ? "" : "; ").append(rejected.get(i));
        }
        if (rejected.size() > SHOWN) {
            problem.append("; and ").append(rejected.size() - SHOWN).append(" more");
        }
        throw new InputException(file, 0, 0, null, problem.toString());
    }
}
