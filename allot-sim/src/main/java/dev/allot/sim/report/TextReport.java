package dev.allot.sim.report;

import static dev.allot.sim.report.Format.duration;
import static dev.allot.sim.report.Format.integer;
import static dev.allot.sim.report.Format.number;
import static dev.allot.sim.report.Format.pad;
import static dev.allot.sim.report.Format.padLeft;
import static dev.allot.sim.report.Format.percent;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.metrics.AllocationMetrics;
import dev.allot.sim.metrics.PolicyMetrics;
import dev.allot.sim.metrics.WaitStats;
import dev.allot.sim.trace.ImportSummary;
import dev.allot.sim.trace.WorkloadTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The terminal report of {@code allot simulate}: the scenario (cluster, allocation tree with absolute
 * entitlements, workload mix), one table per policy with what each allocation was owed and got, and a
 * side-by-side summary of the headline metrics with the wall time and events per second of each run.
 * Reports read only the named metrics of {@link PolicyMetrics}; they compute nothing themselves.
 */
public final class TextReport {
    private TextReport() {
    }

    public static String render(Scenario scenario, List<SimulationResult> results) {
        StringBuilder out = new StringBuilder();
        scenarioSection(scenario, results.isEmpty() ? null : results.get(0).metrics(), out);
        for (SimulationResult r : results) {
            policySection(r, out);
        }
        sideBySide(results, out);
        return out.toString();
    }

    static void scenarioSection(Scenario s, PolicyMetrics any, StringBuilder out) {
        out.append("Allot simulation: ").append(s.name()).append('\n');
        Map<String, Integer> types = new TreeMap<>();
        for (NodeSpec n : s.cluster().nodes()) {
            types.merge(n.gpuType(), n.gpus(), Integer::sum);
        }
        List<String> t = new ArrayList<>();
        types.forEach((k, v) -> t.add(k + " x" + v));
        out.append(pad("cluster", 13)).append(integer(s.cluster().nodes().size()))
                .append(s.cluster().nodes().size() == 1 ? " node, " : " nodes, ")
                .append(integer(s.cluster().totalGpus())).append(s.cluster().totalGpus() == 1 ? " GPU (" : " GPUs (").append(String.join(", ", t)).append("); ")
                .append(dev.allot.core.model.Words.count(s.cluster().healthEvents().size(), "health event")).append('\n');
        AllocationTree tree = s.tree();
        out.append(pad("allocations", 13)).append(count(tree.leafCount(), "leaf", "leaves"))
                .append("; absolute entitlement of each node:\n");
        for (int n = 0; n < tree.nodeCount(); n++) {
            String label = "  ".repeat(tree.depth(n) + 1) + tree.name(n);
            out.append(pad(label, 40)).append(padLeft(String.format(Locale.ROOT, "%.1f%%", tree.entitlement(n) * 100), 7));
            if (tree.parent(n) >= 0) {
                out.append(String.format(Locale.ROOT, "   (share %s of %s)", share(tree.share(n)), tree.name(tree.parent(n))));
            }
            out.append('\n');
        }
        out.append(pad("workloads", 13)).append(workloadsByKind(s.workloads()));
        out.append("; ").append(integer(s.rejected().size())).append(" rejected");
        if (any != null) {
            out.append("; ").append(count(any.cappedMinRuntimes(), "minimum runtime", "minimum runtimes"))
                    .append(" capped at ")
                    .append(Durations.format(s.policyConfig().scheduler().maxMinRuntime()));
        }
        out.append('\n');
        if (s.workloads() instanceof WorkloadTable table) {
            traceLines(table.summary(), out);
        }
        out.append(pad("settings", 13)).append("lookback ").append(Durations.format(s.policyConfig().scheduler().lookback()))
                .append(", max-min-runtime ").append(Durations.format(s.policyConfig().scheduler().maxMinRuntime()))
                .append(", usage-bucket ").append(Durations.format(s.policyConfig().scheduler().usageBucket())).append('\n');
        if (any != null) {
            out.append(pad("window", 13)).append(Durations.formatSeconds(any.windowSeconds()))
                    .append(" (window metrics cover the whole hours through the last submission; waits cover every workload)\n");
            out.append(pad("paid", 13)).append("owed GPU-time received, hour by hour; paid/day and paid/lookback sum owed and"
                    + " received over each day and each lookback window (").append(Durations.format(s.policyConfig().scheduler().lookback()))
                    .append(") first\n");
        }
    }

    /** A count with thousands separators and its noun ("1 leaf", "1,024 rows"): no header line says "1 leaves". */
    private static String count(long n, String singular, String plural) {
        return integer(n) + " " + dev.allot.core.model.Words.verb(n, singular, plural);
    }

    /** What the import of a real trace read, left out and decided, and the contract rule it applied. */
    static void traceLines(ImportSummary t, StringBuilder out) {
        out.append(pad("trace", 13)).append(t.format()).append(' ').append(t.file()).append(": ")
                .append(count(t.rowsRead(), "row", "rows")).append(" read, ").append(integer(t.imported())).append(" imported, ")
                .append(integer(t.rejected())).append(" rejected, ").append(integer(t.skippedTotal())).append(" skipped");
        if (!t.skipped().isEmpty()) {
            List<String> reasons = new ArrayList<>();
            t.skipped().forEach((reason, n) -> reasons.add(reason + " " + integer(n)));
            out.append(" (").append(String.join(", ", reasons)).append(')');
        }
        out.append("; ").append(count(t.roundedUp(), "fractional GPU request", "fractional GPU requests"))
                .append(" rounded up; ")
                .append(integer(t.unallocated())).append(" unallocated, ").append(integer(t.debug())).append(" debug, ")
                .append(integer(t.resumable())).append(" resumable\n");
        out.append(pad("contract", 13));
        if (t.contract().isEmpty()) {
            out.append("declared by every row\n");
        } else {
            List<String> kv = new ArrayList<>();
            t.contract().forEach((key, v) -> kv.add(key + " " + v));
            out.append(String.join(", ", kv)).append('\n');
        }
    }

    /**
     * A share as written: whole numbers as they are, others to 3 decimals from 1 up and to 3 significant digits below
     * (the HTML report's rule too). Three decimals throughout printed a trace team's share of 0.0003 as 0.000, which
     * reads as a share of 0: an allocation entitled to nothing.
     */
    static String share(double v) {
        if (v == Math.rint(v)) {
            return Long.toString((long) v);
        }
        java.math.BigDecimal d = v >= 1 ? java.math.BigDecimal.valueOf(v).setScale(3, java.math.RoundingMode.HALF_UP)
                : new java.math.BigDecimal(v).round(new java.math.MathContext(3));
        return d.stripTrailingZeros().toPlainString();
    }

    static void policySection(SimulationResult r, StringBuilder out) {
        PolicyMetrics m = r.metrics();
        SimulationResult.RunStats run = r.run();
        out.append('\n').append("== ").append(r.policy()).append("  (").append(String.format(Locale.ROOT, "%.2f", run.wallNanos() / 1e9))
                .append(" s wall, ").append(integer(run.events())).append(" events, ")
                .append(integer(Math.round(run.eventsPerSecond()))).append(" events/s, simulated to ")
                .append(Durations.formatSeconds(run.endSeconds())).append(")\n");
        if (!m.settings().isEmpty()) {
            List<String> s = new ArrayList<>();
            m.settings().forEach((k, v) -> s.add(k + "=" + v));
            out.append("settings: ").append(String.join(", ", s)).append('\n');
        }
        String[] head = {"allocation", "entitled", "owed GPU-h", "received GPU-h", "paid", "paid/day", "paid/lookback",
            "unalloc GPU-h", "workloads", "preempted", "wait p50", "wait p90"};
        int[] width = {22, 9, 12, 15, 8, 9, 14, 14, 10, 10, 9, 9};
        row(out, head, width);
        for (AllocationMetrics a : m.allocations()) {
            row(out, new String[] {a.name(), String.format(Locale.ROOT, "%.1f%%", a.entitlement() * 100), number(a.owedGpuHours()),
                    number(a.receivedGpuHours()), percent(a.paidFraction()), percent(a.paidFractionDaily()),
                    percent(a.paidFractionWindow()), number(a.unallocatedGpuHours()),
                    integer(a.workloads()), integer(a.preemptions()), duration(a.waits().p50()), duration(a.waits().p90())}, width);
        }
    }

    private static void row(StringBuilder out, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            out.append(i == 0 ? pad(cells[i], width[i]) : padLeft(cells[i], width[i]));
        }
        out.append('\n');
    }

    static void sideBySide(List<SimulationResult> results, StringBuilder out) {
        out.append("\n== side by side\n");
        List<String[]> rows = new ArrayList<>();
        rows.add(header(results));
        add(rows, results, "occupancy", m -> percent(m.occupancy()));
        add(rows, results, "  while work waited", m -> m.occupancyWhileWaiting() == null ? "-" : percent(m.occupancyWhileWaiting()));
        add(rows, results, "unallocated share", m -> percent(m.unallocatedShare()));
        add(rows, results, "paid fraction", m -> percent(m.paidFraction()));
        add(rows, results, "paid over days", m -> percent(m.paidFractionDaily()));
        add(rows, results, "paid over lookback windows", m -> percent(m.paidFractionWindow()));
        add(rows, results, "worst allocation paid", m -> percent(m.allocations().stream().map(AllocationMetrics::paidFraction)
                .filter(java.util.Objects::nonNull).min(Double::compare).orElse(null)));
        add(rows, results, "allocations paid >= 95%", m -> m.allocations().stream().filter(a -> a.paidFraction() != null && a.paidFraction() >= 0.95).count()
                + " of " + m.allocations().stream().filter(a -> a.paidFraction() != null).count());
        if (results.stream().anyMatch(r -> r.metrics().paidBound() != null)) {
            add(rows, results, "paid at instants", m -> m.paidBound() == null ? "-" : percent(m.paidBound().paidFraction()));
            add(rows, results, "  most any schedule could", m -> m.paidBound() == null ? "-" : percent(m.paidBound().boundFraction()));
            add(rows, results, "worst at instants", m -> m.paidBound() == null || m.paidBound().worstPaidFraction() == null
                    ? "-" : percent(m.paidBound().worstPaidFraction()));
            add(rows, results, "  most, each paid >= 95%", m -> fairBound(m.paidBound()));
        }
        add(rows, results, "demand / healthy GPUs", m -> String.format(Locale.ROOT, "%.2fx", m.meanDemandRatio()));
        for (String cls : new String[] {"all", "debug", "large"}) {
            add(rows, results, "wait p50/p90/p99 " + cls, m -> waits(m.waits().get(cls)));
        }
        add(rows, results, "never started", m -> integer(m.waits().get("all").neverStarted()));
        add(rows, results, "completed", m -> integer(m.completed()));
        add(rows, results, "preempted for good", m -> integer(m.preemptedFinal()));
        add(rows, results, "preemptions", m -> integer(m.preemptions()));
        add(rows, results, "  of unallocated work", m -> integer(m.unallocatedPreemptions()));
        add(rows, results, "drain evictions", m -> integer(m.drainEvictions()));
        add(rows, results, "lost GPU-hours", m -> number(m.lostGpuHours()));
        add(rows, results, "lost / delivered", m -> String.format(Locale.ROOT, "%.2f%%", m.lostShare() * 100));
        add(rows, results, "  by allocated work", m -> String.format(Locale.ROOT, "%.2f%%", m.allocatedLostShare() * 100));
        add(rows, results, "delivered GPU-hours", m -> number(m.deliveredGpuHours()));
        add(rows, results, "drain-blocked node-hours", m -> String.format(Locale.ROOT, "%.1f", m.drainBlockedHours()));
        add(rows, results, "drains without waiting", m -> m.drainsWithoutWaiting() + " of " + m.drains());
        add(rows, results, "wall time", null);
        add(rows, results, "events/s", null);
        int first = 26;
        // Each policy's column is 24 wide, or wider so that two blanks stay before its widest cell: waits in days
        // ('13d19h / 31d18h / 68d11h', 24 characters) ran into the column before them.
        int[] col = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 1; i < r.length; i++) {
                col[i] = Math.max(col[i], Math.max(24, r[i].length() + 2));
            }
        }
        for (String[] r : rows) {
            out.append(pad(r[0], first));
            for (int i = 1; i < r.length; i++) {
                out.append(padLeft(r[i], col[i]));
            }
            out.append('\n');
        }
    }

    private static String fairBound(dev.allot.sim.metrics.PaidBound.Result r) {
        Double f = r == null ? null : r.fairBoundFraction();
        return f == null ? "-" : f < 0 ? "no schedule" : percent(f);
    }

    private static String waits(WaitStats w) {
        if (w == null || w.count() == 0) {
            return "-";
        }
        return duration(w.p50()) + " / " + duration(w.p90()) + " / " + duration(w.p99());
    }

    private static String[] header(List<SimulationResult> results) {
        String[] h = new String[results.size() + 1];
        h[0] = "metric";
        for (int i = 0; i < results.size(); i++) {
            h[i + 1] = results.get(i).policy();
        }
        return h;
    }

    private static void add(List<String[]> rows, List<SimulationResult> results, String name, Function<PolicyMetrics, String> f) {
        String[] r = new String[results.size() + 1];
        r[0] = name;
        for (int i = 0; i < results.size(); i++) {
            SimulationResult res = results.get(i);
            if (f != null) {
                r[i + 1] = f.apply(res.metrics());
            } else if (name.equals("wall time")) {
                r[i + 1] = String.format(Locale.ROOT, "%.2f s", res.run().wallNanos() / 1e9);
            } else {
                r[i + 1] = integer(Math.round(res.run().eventsPerSecond()));
            }
        }
        rows.add(r);
    }

    /**
     * The one wording of a count of workloads by kind, as simulate's scenario summary and generate print it: {@code
     * 22,879 (debug 17,920, eval 1,075, train 3,884)}, kinds in name order, {@code (no kind)} for those without one, no
     * parentheses when there are none.
     */
    public static String workloadsByKind(List<WorkloadSpec> workloads) {
        Map<String, Integer> kinds = new TreeMap<>();
        if (workloads instanceof WorkloadTable table) { // read the column: build no workload
            for (int i = 0; i < table.size(); i++) {
                kinds.merge(table.kind(i).isEmpty() ? "(no kind)" : table.kind(i), 1, Integer::sum);
            }
        } else {
            for (WorkloadSpec w : workloads) {
                kinds.merge(w.kind().isEmpty() ? "(no kind)" : w.kind(), 1, Integer::sum);
            }
        }
        List<String> k = new ArrayList<>();
        kinds.forEach((name, c) -> k.add(name + " " + integer(c)));
        // no workloads: no kinds to list (it printed '0 ()')
        return integer(workloads.size()) + (k.isEmpty() ? "" : " (" + String.join(", ", k) + ")");
    }
}
