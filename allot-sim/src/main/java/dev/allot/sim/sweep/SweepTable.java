package dev.allot.sim.sweep;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.allot.core.model.Durations;
import dev.allot.sim.metrics.AllocationMetrics;
import dev.allot.sim.metrics.PolicyMetrics;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The sweep's output: one row per run (or, with several seeds, one row per setting and policy with the mean and
 * standard deviation over the seeds) of the headline metrics, as a terminal table or CSV. The CSV, one row per run,
 * also has each allocation's paid fraction and preemptions (too wide for a terminal). Reads only named metrics.
 */
public final class SweepTable {
    /** A headline metric: its column name, how to read it from the metrics, and how to print it. */
    public record Column(String name, ToDoubleFunction<PolicyMetrics> value, Kind kind) {
    }

    /**
     * How a column prints: PERCENT with one decimal, SMALL_PERCENT (a share of a few percent at most, compared with
     * thresholds like 1%) with two; both are fractions 0..1 with 4 decimals in the CSV.
     */
    public enum Kind {
        PERCENT, SMALL_PERCENT, SECONDS, COUNT, NUMBER
    }

    public static final List<Column> COLUMNS = List.of(
            new Column("occupancy", PolicyMetrics::occupancy, Kind.PERCENT),
            new Column("occupancy_waiting", m -> orNaN(m.occupancyWhileWaiting()), Kind.PERCENT),
            new Column("paid", m -> orNaN(m.paidFraction()), Kind.PERCENT),
            new Column("paid_daily", m -> orNaN(m.paidFractionDaily()), Kind.PERCENT),
            new Column("paid_window", m -> orNaN(m.paidFractionWindow()), Kind.PERCENT),
            new Column("worst_paid", SweepTable::worstPaid, Kind.PERCENT),
            new Column("wait_p50_all", m -> seconds(m.waits().get("all").p50()), Kind.SECONDS),
            new Column("wait_p90_all", m -> seconds(m.waits().get("all").p90()), Kind.SECONDS),
            new Column("wait_p90_debug", m -> seconds(m.waits().get("debug").p90()), Kind.SECONDS),
            new Column("wait_p90_large", m -> seconds(m.waits().get("large").p90()), Kind.SECONDS),
            new Column("preemptions", m -> m.preemptions(), Kind.COUNT),
            new Column("preemptions_unallocated", m -> m.unallocatedPreemptions(), Kind.COUNT),
            new Column("lost_gpu_hours", PolicyMetrics::lostGpuHours, Kind.NUMBER),
            new Column("lost_share", PolicyMetrics::lostShare, Kind.SMALL_PERCENT),
            new Column("lost_share_allocated", PolicyMetrics::allocatedLostShare, Kind.SMALL_PERCENT),
            new Column("drain_blocked_hours", PolicyMetrics::drainBlockedHours, Kind.NUMBER));

    /**
     * With {@code --paid-bound}: the paid fraction at regular instants and the most any schedule could have paid at
     * them ({@link dev.allot.sim.metrics.PaidBound}), the run's worst allocation at them, and the most any schedule
     * could have paid while paying every allocation at least 95% at them, after the headline columns.
     */
    public static final List<Column> BOUND_COLUMNS = List.of(
            new Column("paid_instants", m -> m.paidBound() == null ? Double.NaN : orNaN(m.paidBound().paidFraction()), Kind.PERCENT),
            new Column("paid_bound", m -> m.paidBound() == null ? Double.NaN : orNaN(m.paidBound().boundFraction()), Kind.PERCENT),
            new Column("worst_instants", m -> m.paidBound() == null ? Double.NaN : orNaN(m.paidBound().worstPaidFraction()), Kind.PERCENT),
            new Column("paid_bound_worst95", SweepTable::fairBound, Kind.PERCENT));

    /**
     * The most any schedule could pay while paying every allocation 95% ({@link dev.allot.sim.metrics.PaidBound});
     * NaN when no schedule could (a group's mean is then over the seeds where one could; the CSV has each seed).
     */
    private static double fairBound(PolicyMetrics m) {
        Double f = m.paidBound() == null ? null : m.paidBound().fairBoundFraction();
        return f == null || f < 0 ? Double.NaN : f;
    }

    /** The columns of these runs: the headline ones, and the bound's when any run measured it. */
    public static List<Column> columns(List<Sweep.Run> runs) {
        if (runs.stream().noneMatch(r -> r.result().metrics().paidBound() != null)) {
            return COLUMNS;
        }
        List<Column> all = new ArrayList<>(COLUMNS);
        all.addAll(BOUND_COLUMNS);
        return List.copyOf(all);
    }

    private SweepTable() {
    }

    private static double orNaN(Double fraction) {
        return fraction == null ? Double.NaN : fraction;
    }

    private static double seconds(Long s) {
        return s == null ? Double.NaN : s;
    }

    private static double worstPaid(PolicyMetrics m) {
        double worst = Double.NaN;
        for (AllocationMetrics a : m.allocations()) {
            if (a.paidFraction() != null && !(a.paidFraction() >= worst)) {
                worst = a.paidFraction();
            }
        }
        return worst;
    }

    /**
     * A row: the setting values, the policy, the number of seeds, and per column (of {@code columns}) the mean and the
     * spread over the runs that had a value, and how many did.
     */
    public record Row(Map<String, String> settings, String policy, int runs, List<Column> columns, double[] mean,
                      double[] sd, int[] counted) {
    }

    /** Groups runs by settings and policy (in grid order) and averages over seeds. */
    public static List<Row> rows(List<Sweep.Run> runs) {
        Map<String, List<Sweep.Run>> groups = new LinkedHashMap<>();
        for (Sweep.Run r : runs) {
            groups.computeIfAbsent(r.point().settings() + "|" + r.point().policy(), k -> new ArrayList<>()).add(r);
        }
        List<Column> columns = columns(runs);
        List<Row> rows = new ArrayList<>();
        for (List<Sweep.Run> g : groups.values()) {
            double[] mean = new double[columns.size()];
            double[] sd = new double[columns.size()];
            int[] counted = new int[columns.size()];
            for (int c = 0; c < columns.size(); c++) {
                double sum = 0;
                int n = 0;
                for (Sweep.Run r : g) {
                    double v = columns.get(c).value().applyAsDouble(r.result().metrics());
                    if (!Double.isNaN(v)) {
                        sum += v;
                        n++;
                    }
                }
                mean[c] = n == 0 ? Double.NaN : sum / n;
                counted[c] = n;
                double ss = 0;
                for (Sweep.Run r : g) {
                    double v = columns.get(c).value().applyAsDouble(r.result().metrics());
                    if (!Double.isNaN(v)) {
                        ss += (v - mean[c]) * (v - mean[c]);
                    }
                }
                sd[c] = n < 2 ? 0 : Math.sqrt(ss / (n - 1));
            }
            Sweep.Point p = g.get(0).point();
            rows.add(new Row(p.settings(), p.policy(), g.size(), columns, mean, sd, counted));
        }
        return rows;
    }

    /** The terminal table. */
    public static String render(List<Row> rows, List<String> keys) {
        List<String[]> lines = new ArrayList<>();
        List<String> head = new ArrayList<>(keys);
        head.add("policy");
        boolean seeds = rows.stream().anyMatch(r -> r.runs() > 1);
        if (seeds) {
            head.add("runs");
        }
        List<Column> columns = rows.isEmpty() ? COLUMNS : rows.get(0).columns();
        for (Column c : columns) {
            head.add(c.name());
        }
        lines.add(head.toArray(String[]::new));
        for (Row r : rows) {
            List<String> cells = new ArrayList<>();
            for (String k : keys) {
                cells.add(r.settings().get(k));
            }
            cells.add(r.policy());
            if (seeds) {
                cells.add(Integer.toString(r.runs()));
            }
            for (int c = 0; c < columns.size(); c++) {
                String v = format(columns.get(c).kind(), r.mean()[c]);
                if (r.runs() > 1 && !Double.isNaN(r.mean()[c])) {
                    v += " ±" + format(columns.get(c).kind(), r.sd()[c]);
                    if (r.counted()[c] < r.runs()) {
                        v += " (" + r.counted()[c] + " of " + r.runs() + ")"; // the others had none
                    }
                }
                cells.add(v);
            }
            lines.add(cells.toArray(String[]::new));
        }
        int[] width = new int[head.size()];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                width[i] = Math.max(width[i], l[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                sb.append(i == 0 ? "" : "  ");
                sb.append(i < keys.size() + 1 ? String.format("%-" + width[i] + "s", l[i]) : String.format("%" + width[i] + "s", l[i]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    static String format(Kind kind, double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return switch (kind) {
            case PERCENT -> String.format(Locale.ROOT, "%.1f%%", v * 100);
            case SMALL_PERCENT -> String.format(Locale.ROOT, "%.2f%%", v * 100);
            case SECONDS -> Durations.formatSeconds(Math.round(v >= 600 ? Math.round(v / 60.0) * 60 : v));
            case COUNT -> String.format(Locale.ROOT, "%,.0f", v);
            case NUMBER -> String.format(Locale.ROOT, "%,.1f", v);
        };
    }

    /**
     * One CSV row per run: the point, then every column's raw value (fractions 0..1, seconds, counts), then per
     * allocation (leaf, in tree order) its paid fraction in {@code paid:<path>} (empty when it was owed nothing) and
     * then its preemptions in {@code preemptions:<path>}. The allocations are those of the runs, in the order they
     * first appear; a run without one leaves its cells empty.
     */
    public static void writeCsv(List<Sweep.Run> runs, List<String> keys, Writer out) throws IOException {
        List<String> paths = allocationPaths(runs);
        CsvSchema.Builder b = CsvSchema.builder().addColumn("run");
        keys.forEach(b::addColumn);
        b.addColumn("policy").addColumn("seed");
        List<Column> columns = columns(runs);
        columns.forEach(c -> b.addColumn(c.name()));
        paths.forEach(p -> b.addColumn("paid:" + p));
        paths.forEach(p -> b.addColumn("preemptions:" + p));
        CsvSchema schema = b.build().withHeader().withLineSeparator("\n");
        try (SequenceWriter w = dev.allot.sim.report.CsvOutput.mapper().writer(schema)
                .without(com.fasterxml.jackson.core.JsonGenerator.Feature.AUTO_CLOSE_TARGET).writeValues(out)) {
            for (Sweep.Run r : runs) {
                List<Object> row = new ArrayList<>();
                row.add(r.point().index() + 1);
                for (String k : keys) {
                    row.add(r.point().settings().get(k));
                }
                row.add(r.point().policy());
                row.add(r.point().seed() == null ? "" : r.point().seed());
                for (Column c : columns) {
                    double v = c.value().applyAsDouble(r.result().metrics());
                    row.add(Double.isNaN(v) ? "" : String.format(Locale.ROOT, switch (c.kind()) {
                        case PERCENT, SMALL_PERCENT -> "%.4f";
                        case NUMBER -> "%.2f";
                        default -> "%.0f";
                    }, v));
                }
                Map<String, AllocationMetrics> byPath = new LinkedHashMap<>();
                r.result().metrics().allocations().forEach(a -> byPath.put(a.path(), a));
                for (String p : paths) {
                    AllocationMetrics a = byPath.get(p);
                    row.add(a == null || a.paidFraction() == null ? "" : String.format(Locale.ROOT, "%.4f", a.paidFraction()));
                }
                for (String p : paths) {
                    AllocationMetrics a = byPath.get(p);
                    row.add(a == null ? "" : Long.toString(a.preemptions()));
                }
                w.write(row.toArray());
            }
        }
    }

    /** The allocation paths of the runs, in the order they first appear (tree order when every run has one tree). */
    static List<String> allocationPaths(List<Sweep.Run> runs) {
        java.util.Set<String> paths = new java.util.LinkedHashSet<>();
        for (Sweep.Run r : runs) {
            r.result().metrics().allocations().forEach(a -> paths.add(a.path()));
        }
        return List.copyOf(paths);
    }
}
