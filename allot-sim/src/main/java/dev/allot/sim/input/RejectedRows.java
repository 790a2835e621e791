package dev.allot.sim.input;

import java.util.List;
import java.util.Map;

/**
 * A file of which no row became a workload is refused rather than run as a scenario of no workloads: skipping bad
 * workload rows (lenient reading) is for a file with a few of them (it ran on 'workloads 0; 12 rejected' and exited
 * 0), and a file with a header and no rows ran the same report of nothing, lenient or not. Shared by scenario folders
 * and the trace importer, which said so only when it had to build a default tree.
 */
public final class RejectedRows {
    /** The most rejected rows quoted in the message, as the lenient summary of a run quotes them. */
    public static final int SHOWN = 5;

    private RejectedRows() {
    }

    /**
     * Throws when no row of {@code file} became a workload: all rejected by lenient reading, all skipped by a trace
     * format's rules, or none at all (a header alone, or only comments): a run of no workloads printed a report of
     * nothing and exited 0.
     *
     * @param accepted how many workloads the file gave
     * @param rejected the messages of the rows lenient reading skipped, each {@code file:line:column: problem}
     * @param skipped  rows a trace format's documented rule left out, by reason; empty for a scenario's workloads
     * @param noRows   what the file holds and what was expected, when it had no rows at all, e.g. {@code the file
     *                 has a header row and no workload rows; expected ...}
     */
    public static void requireOneAccepted(String file, long accepted, List<String> rejected,
                                          Map<String, Long> skipped, String noRows) {
        if (accepted > 0) {
            return;
        }
        if (rejected.isEmpty()) {
            long n = 0;
            for (long c : skipped.values()) {
                n += c;
            }
            if (n == 0) {
                throw new InputException(file, 0, 0, null, noRows);
            }
            StringBuilder reasons = new StringBuilder();
            skipped.forEach((reason, c) -> reasons.append(reasons.length() == 0 ? "" : ", ").append(reason)
                    .append(": ").append(c));
            throw new InputException(file, 0, 0, null, "no row became a workload: "
                    + (n == 1 ? "its 1 row was" : "all " + n + " rows were") + " skipped by the format's rules ("
                    + reasons + "); a run needs at least one workload");
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
