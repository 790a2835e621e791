package dev.allot.sim.trace;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What an import did: how many data rows the file had, how many became workloads, were rejected (malformed, out
 * of range, naming an unknown allocation, or too big for the cluster; only under {@code lenient}) or skipped by
 * the format's documented rule (e.g. a pod without a GPU), how many fractional GPU requests were rounded up, and
 * what the contract rule decided.
 *
 * @param skipped        reason to count, sorted by reason
 * @param contract       the contract settings applied, or empty when the format declares its contract (native)
 * @param timeZeroEpoch  epoch seconds of time 0 when the trace has absolute times, else null
 */
public record ImportSummary(String format, String file, long rowsRead, long imported, long rejected,
                            SortedMap<String, Long> skipped, long roundedUp, long unallocated, long debug,
                            long resumable, SortedMap<String, String> contract, Long timeZeroEpoch) {
    public ImportSummary {
        skipped = Collections.unmodifiableSortedMap(new TreeMap<>(skipped));
        contract = Collections.unmodifiableSortedMap(new TreeMap<>(contract));
    }

    /** Rows skipped by the format's rules, all reasons together. */
    public long skippedTotal() {
        long n = 0;
        for (long c : skipped.values()) {
            n += c;
        }
        return n;
    }
}
