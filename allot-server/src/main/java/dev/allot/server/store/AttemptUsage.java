package dev.allot.server.store;

import dev.allot.server.store.Attempts.ChargedRun;
import dev.allot.server.store.Attempts.RunTotals;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The read-only usage queries behind {@link Attempts}: what the attempts add up to over time, for fair share (charged
 * usage and runs, the uncharged runs, what allocated work asked for) and for the safety brakes (each workload's
 * failures and GPU-seconds). Apart from {@link Attempts} because adding up runs is one idea and the lifecycle of an
 * attempt (begin, mark, end, promote, under the invariant that a workload runs exactly when it has an open attempt)
 * is another; these only read. {@link Attempts} keeps the public methods and their contracts and hands the work here.
 */
final class AttemptUsage {
    private final Transactions transactions;

    AttemptUsage(Transactions transactions) {
        this.transactions = transactions;
    }

    /** The query behind {@link Attempts#usageSince}. */
    SortedMap<String, Double> usageSince(long sinceMillis, long nowMillis) {
        SortedMap<String, Double> usage = new TreeMap<>();
        for (ChargedRun r : chargedRuns(sinceMillis, nowMillis)) {
            double gpuSeconds = r.gpuSecondsIn(sinceMillis, nowMillis);
            if (gpuSeconds > 0) {
                usage.merge(r.allocationPath(), gpuSeconds, Double::sum);
            }
        }
        return usage;
    }

    /** The query behind {@link Attempts#chargedRuns}. */
    List<ChargedRun> chargedRuns(long sinceMillis, long nowMillis) {
        return runsIn("list charged runs", "a.charged_from_ms IS NOT NULL", "a.charged_from_ms", "a.ended_at_ms",
                sinceMillis, nowMillis);
    }

    /** The query behind {@link Attempts#unallocatedRuns}. */
    List<ChargedRun> unallocatedRuns(long sinceMillis, long nowMillis) {
        return runsIn("list unallocated runs", "(a.charged_from_ms IS NULL OR a.charged_from_ms > a.started_at_ms)",
                "a.started_at_ms", "(CASE WHEN a.charged_from_ms IS NULL THEN a.ended_at_ms ELSE a.charged_from_ms END)",
                sinceMillis, nowMillis);
    }

    /**
     * The stretches {@code [start, end)} (fixed SQL expressions on {@code a}, never user input; end null while open)
     * of the attempts {@code condition} selects that overlap {@code [sinceMillis, nowMillis)}, in submission order.
     */
    private List<ChargedRun> runsIn(String what, String condition, String start, String end, long sinceMillis,
                                    long nowMillis) {
        if (sinceMillis > nowMillis) {
            throw new IllegalArgumentException("usage window starts (" + sinceMillis + " ms) after it ends ("
                    + nowMillis + " ms)");
        }
        return transactions.tx(what, h ->
                h.createQuery("SELECT w.allocation_path, a.placement, " + start + " AS run_start, " + end
                                + " AS run_end FROM attempts a JOIN workloads w ON w.id = a.workload_id"
                                + " WHERE " + condition + " AND " + start + " < :now"
                                + " AND (" + end + " IS NULL OR " + end + " > :since)"
                                + " ORDER BY w.seq, a.attempt")
                        .bind("since", sinceMillis).bind("now", nowMillis)
                        .map((rs, ctx) -> new ChargedRun(rs.getString(1),
                                Rows.placement(rs.getString(2)).stream().mapToInt(p -> p.gpus().size()).sum(),
                                rs.getLong(3), Rows.nullableLong(rs, "run_end")))
                        .list());
    }

    /** The query behind {@link Attempts#allocatedDemand}. */
    List<ChargedRun> allocatedDemand(long sinceMillis, long nowMillis) {
        return transactions.read("list allocated demand", h ->
                h.createQuery("SELECT w.allocation_path, w.gpus, w.submitted_at_ms, w.state,"
                                + " (SELECT MAX(a.ended_at_ms) FROM attempts a WHERE a.workload_id = w.id) AS ended_at_ms"
                                + " FROM workloads w WHERE w.min_runtime_seconds > 0 AND w.submitted_at_ms < :now"
                                + " ORDER BY w.seq")
                        .bind("now", nowMillis)
                        .map((rs, ctx) -> {
                            boolean ended = WorkloadState.parse(rs.getString(4)).ended();
                            Long end = Rows.nullableLong(rs, "ended_at_ms");
                            return new ChargedRun(rs.getString(1), rs.getInt(2), rs.getLong(3),
                                    ended ? (end == null ? rs.getLong(3) : end) : null);
                        })
                        .list().stream()
                        .filter(r -> r.endedAtMillis() == null || r.endedAtMillis() > sinceMillis).toList());
    }

    private static RunTotals totals(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new RunTotals(rs.getInt(2), rs.getLong(3) / 1000.0, rs.getInt(4));
    }

    /** What a {@link RunTotals} adds up, per workload; each query adds which workloads and the grouping. */
    private static final String RUN_TOTALS = "SELECT a.workload_id,"
            + " SUM(CASE WHEN a.outcome IN ('failed', 'lost') THEN 1 ELSE 0 END),"
            + " SUM(w.gpus * (CASE WHEN COALESCE(a.ended_at_ms, :now) > a.started_at_ms"
            + " THEN COALESCE(a.ended_at_ms, :now) - a.started_at_ms ELSE 0 END)),"
            + " SUM(CASE WHEN a.outcome IN " + AttemptOutcome.preemptedLabelsSql() + " THEN 1 ELSE 0 END)"
            + " FROM attempts a JOIN workloads w ON w.id = a.workload_id";

    /**
     * {@link #RUN_TOTALS} with positional parameters ({@code now} twice, then the ids), run by hand
     * ({@link RawStatement}) for the round of ends of a cycle: through Jdbi, its list of 512 ids was parsed again at
     * each run (the parser's cache missed it), some 30% of the time the intake of 10,000 spent ending its 971
     * preempted attempts.
     */
    private static final String RUN_TOTALS_POSITIONAL = RUN_TOTALS.replace(":now", "?");

    /** The query behind {@link Attempts#runTotals(String, long)}. */
    RunTotals runTotals(String workloadId, long nowMillis) {
        Objects.requireNonNull(workloadId, "workloadId");
        return transactions.read("add up the runs of workload " + workloadId, h ->
                h.createQuery(RUN_TOTALS + " WHERE a.workload_id = :id GROUP BY a.workload_id")
                        .bind("id", workloadId).bind("now", nowMillis)
                        .map((rs, ctx) -> totals(rs))
                        .findOne()
                        .orElse(RunTotals.NONE));
    }

    /** Workload ids per query of {@link Attempts#runTotals(Collection, long)}. */
    private static final int TOTALS_PER_QUERY = 512;

    /**
     * The query behind {@link Attempts#runTotals(Collection, long)}: one per {@value #TOTALS_PER_QUERY} ids. An id list
     * is padded to a power of two by repeating its first id, so that its SQL comes in a few lengths the statement
     * cache keeps, not one per count.
     */
    Map<String, RunTotals> runTotals(Collection<String> workloadIds, long nowMillis) {
        List<String> ids = List.copyOf(new LinkedHashSet<>(workloadIds));
        if (ids.isEmpty()) {
            return Map.of();
        }
        return transactions.read("add up the runs of " + ids.size() + " workloads", h -> {
            Map<String, RunTotals> out = new HashMap<>();
            for (int from = 0; from < ids.size(); from += TOTALS_PER_QUERY) {
                List<String> chunk = ids.subList(from, Math.min(ids.size(), from + TOTALS_PER_QUERY));
                int width = Integer.highestOneBit(chunk.size());
                width = width < chunk.size() ? width * 2 : width;
                try (RawStatement st = transactions.raw(h, RUN_TOTALS_POSITIONAL + " WHERE a.workload_id IN ("
                        + "?, ".repeat(width - 1) + "?) GROUP BY a.workload_id")) {
                    st.set(nowMillis).set(nowMillis);
                    for (int i = 0; i < width; i++) {
                        st.set(chunk.get(i < chunk.size() ? i : 0));
                    }
                    st.forEachRow(rs -> out.put(rs.getString(1), totals(rs)));
                }
            }
            return out;
        });
    }

    /** The query behind {@link Attempts#runTotalsOfWaiting}. */
    Map<String, RunTotals> runTotalsOfWaiting(long nowMillis) {
        return transactions.read("add up the runs of waiting workloads", h -> {
            Map<String, RunTotals> out = new HashMap<>();
            h.createQuery(RUN_TOTALS + " WHERE w.state IN " + Attempts.WAITING + " GROUP BY a.workload_id")
                    .bind("now", nowMillis)
                    .map((rs, ctx) -> Map.entry(rs.getString(1),
                            totals(rs)))
                    .forEach(e -> out.put(e.getKey(), e.getValue()));
            return out;
        });
    }
}
