package dev.allot.sim.campaign;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.Durations;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The comparison's output ({@code allot campaign simulate}): per strategy, the mean and spread over seeds of the
 * campaign's makespan (submission to last unit), the GPU-hours charged to its allocation, the GPU-hours its shards
 * lost to preemptions and restarts, units done twice, restarts, promotions in place, preemptions by the policy, and
 * the other allocations' paid fraction against the baseline run without the campaign. That paid fraction is measured
 * over the campaign's window of each seed (from its submission to the end of the hour in which the slowest strategy
 * finished: the hours in which a campaign can harm anyone, the same hours for every strategy and the baseline) and
 * over the scenario's whole measurement window. Same runs, same table and JSON, byte for byte.
 */
public final class CampaignTable {
    public static final String SCHEMA = "allot.campaign-simulate/1";

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .build();

    /** Mean, sample standard deviation, min and max of one metric over seeds, and the values in seed order. */
    public record Stat(double mean, double sd, double min, double max, List<Double> values) {
        static Stat of(List<Double> values) {
            double sum = 0;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            int n = 0;
            for (double v : values) {
                if (!Double.isNaN(v)) {
                    sum += v;
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                    n++;
                }
            }
            double mean = n == 0 ? Double.NaN : sum / n;
            double ss = 0;
            for (double v : values) {
                if (!Double.isNaN(v)) {
                    ss += (v - mean) * (v - mean);
                }
            }
            return new Stat(mean, n < 2 ? 0 : Math.sqrt(ss / (n - 1)), n == 0 ? Double.NaN : min,
                    n == 0 ? Double.NaN : max, List.copyOf(values));
        }
    }

    /** One measured quantity of a run: its name in the JSON, its column header, and how to print it. */
    public enum Metric {
        MAKESPAN_HOURS("makespanHours", "MAKESPAN h", 1),
        CHARGED_GPU_HOURS("chargedGpuHours", "CHARGED GPU-h", 1),
        LOST_GPU_HOURS("lostGpuHours", "LOST GPU-h", 1),
        UNALLOCATED_GPU_HOURS("unallocatedGpuHours", "FREE GPU-h", 1),
        UNITS_REDONE("unitsRedone", "REDONE", 0),
        RESTARTS("restarts", "RESTARTS", 1),
        PROMOTIONS("promotions", "PROMOTIONS", 1),
        PREEMPTIONS("preemptions", "PREEMPTED", 1),
        OTHERS_PAID_WINDOW("othersPaidCampaignWindow", "OTHERS PAID", -1),
        OTHERS_PAID_WINDOW_DELTA("othersPaidCampaignWindowVsBaseline", "vs BASE", -2),
        OTHERS_PAID_WHOLE("othersPaidWholeRun", "OTHERS PAID (RUN)", -1),
        OTHERS_PAID_WHOLE_DELTA("othersPaidWholeRunVsBaseline", "vs BASE", -2);

        final String json;
        final String header;
        /** Decimals, or -1 for a percentage, -2 for a difference in percentage points. */
        final int decimals;

        Metric(String json, String header, int decimals) {
            this.json = json;
            this.header = header;
            this.decimals = decimals;
        }
    }

    /** A strategy's row (the baseline's has only the paid fractions). */
    public record Row(String strategy, String summary, int runs, int finished, Map<Metric, Stat> stats) {
        public Stat get(Metric m) {
            return stats.get(m);
        }
    }

    /** The whole comparison: the rows, Allot's row against v4.1's when both ran, and the seeds. */
    public record Summary(CampaignSpec campaign, String scenario, String policy, List<Long> seeds, List<Row> rows) {
        public Row row(String strategy) {
            return rows.stream().filter(r -> r.strategy().equals(strategy)).findFirst().orElse(null);
        }
    }

    private CampaignTable() {
    }

    public static Summary summarize(List<CampaignComparison.Run> runs, CampaignSpec campaign, AllocationTree tree,
                                    String scenario, String policy) {
        int leaf = tree.leaf(campaign.allocation()).orElseThrow();
        List<Double> entitlements = new ArrayList<>();
        for (int l = 0; l < tree.leafCount(); l++) {
            entitlements.add(tree.leafEntitlement(l));
        }
        Map<Long, List<CampaignComparison.Run>> bySeed = new LinkedHashMap<>();
        for (CampaignComparison.Run r : runs) {
            bySeed.computeIfAbsent(r.seed() == null ? -1L : r.seed(), k -> new ArrayList<>()).add(r);
        }
        Map<String, Map<Metric, List<Double>>> values = new LinkedHashMap<>();
        Map<String, String> summaries = new LinkedHashMap<>();
        Map<String, int[]> finished = new LinkedHashMap<>();
        values.put("baseline", new LinkedHashMap<>());
        summaries.put("baseline", "the background alone, without the campaign");
        finished.put("baseline", new int[2]);
        for (List<CampaignComparison.Run> seedRuns : bySeed.values()) {
            int fromHour = (int) (campaign.submitAtSeconds() / 3600);
            long latest = campaign.submitAtSeconds();
            for (CampaignComparison.Run r : seedRuns) {
                if (!r.baseline()) {
                    latest = Math.max(latest, r.outcome().finished() ? r.outcome().endSeconds()
                            : r.result().run().endSeconds());
                }
            }
            int toHour = (int) ((latest + 3599) / 3600);
            CampaignComparison.Run base = seedRuns.stream().filter(CampaignComparison.Run::baseline).findFirst()
                    .orElseThrow();
            int wholeHours = (int) (base.result().metrics().windowSeconds() / 3600);
            double baseWindow = CampaignComparison.othersPaidFraction(base.result().hourly(), entitlements, leaf,
                    fromHour, toHour);
            double baseWhole = CampaignComparison.othersPaidFraction(base.result().hourly(), entitlements, leaf, 0,
                    wholeHours);
            add(values.get("baseline"), Metric.OTHERS_PAID_WINDOW, baseWindow);
            add(values.get("baseline"), Metric.OTHERS_PAID_WHOLE, baseWhole);
            finished.get("baseline")[0]++;
            for (CampaignComparison.Run r : seedRuns) {
                if (r.baseline()) {
                    continue;
                }
                CampaignStrategy s = r.strategy();
                Map<Metric, List<Double>> v = values.computeIfAbsent(s.name(), k -> new LinkedHashMap<>());
                summaries.put(s.name(), s.summary());
                int[] f = finished.computeIfAbsent(s.name(), k -> new int[2]);
                f[0]++;
                CampaignOutcome o = r.outcome();
                if (o.finished()) {
                    f[1]++;
                }
                add(v, Metric.MAKESPAN_HOURS, o.finished() ? o.makespanSeconds() / 3600.0 : Double.NaN);
                add(v, Metric.CHARGED_GPU_HOURS, o.chargedGpuSeconds() / 3600.0);
                add(v, Metric.LOST_GPU_HOURS, o.lostGpuSeconds() / 3600.0);
                add(v, Metric.UNALLOCATED_GPU_HOURS, o.unallocatedGpuSeconds() / 3600.0);
                add(v, Metric.UNITS_REDONE, o.unitsRedone());
                add(v, Metric.RESTARTS, o.restarts());
                add(v, Metric.PROMOTIONS, o.promotions());
                add(v, Metric.PREEMPTIONS, o.preemptions());
                double window = CampaignComparison.othersPaidFraction(r.result().hourly(), entitlements, leaf,
                        fromHour, toHour);
                double whole = CampaignComparison.othersPaidFraction(r.result().hourly(), entitlements, leaf, 0,
                        wholeHours);
                add(v, Metric.OTHERS_PAID_WINDOW, window);
                add(v, Metric.OTHERS_PAID_WINDOW_DELTA, window - baseWindow);
                add(v, Metric.OTHERS_PAID_WHOLE, whole);
                add(v, Metric.OTHERS_PAID_WHOLE_DELTA, whole - baseWhole);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Map<Metric, List<Double>>> e : values.entrySet()) {
            if (e.getKey().equals("baseline")) {
                continue;
            }
            rows.add(row(e.getKey(), summaries.get(e.getKey()), finished.get(e.getKey()), e.getValue()));
        }
        rows.add(row("baseline", summaries.get("baseline"), new int[] {finished.get("baseline")[0], 0},
                values.get("baseline")));
        List<Long> seeds = new ArrayList<>();
        bySeed.keySet().forEach(seeds::add);
        return new Summary(campaign, scenario, policy, seeds, rows);
    }

    private static Row row(String name, String summary, int[] finished, Map<Metric, List<Double>> values) {
        Map<Metric, Stat> stats = new LinkedHashMap<>();
        for (Metric m : Metric.values()) {
            List<Double> v = values.get(m);
            if (v != null) {
                stats.put(m, Stat.of(v));
            }
        }
        return new Row(name, summary, finished[0], finished[1], stats);
    }

    private static void add(Map<Metric, List<Double>> v, Metric m, double value) {
        v.computeIfAbsent(m, k -> new ArrayList<>()).add(value);
    }

    // ------------------------------------------------------------------ text

    private static final List<Metric> TABLE = List.of(Metric.MAKESPAN_HOURS, Metric.CHARGED_GPU_HOURS,
            Metric.LOST_GPU_HOURS, Metric.UNITS_REDONE, Metric.RESTARTS, Metric.PROMOTIONS, Metric.PREEMPTIONS,
            Metric.OTHERS_PAID_WINDOW, Metric.OTHERS_PAID_WINDOW_DELTA);

    /** The terminal table: a header line about the campaign, one row per strategy, the baseline, and the goal. */
    public static String render(Summary s) {
        StringBuilder out = new StringBuilder();
        for (String line : heading(s)) {
            out.append(line).append('\n');
        }
        List<String[]> cells = cells(s);
        int[] width = new int[cells.get(0).length];
        for (String[] line : cells) {
            for (int i = 0; i < line.length; i++) {
                width[i] = Math.max(width[i], line[i].length());
            }
        }
        for (String[] line : cells) {
            StringBuilder l = new StringBuilder();
            for (int i = 0; i < line.length; i++) {
                if (i == 0) {
                    l.append(String.format("%-" + width[i] + "s", line[i]));
                } else {
                    l.append("  ").append(String.format("%" + width[i] + "s", line[i]));
                }
            }
            out.append(l.toString().stripTrailing()).append('\n');
        }
        String goal = goal(s);
        if (goal != null) {
            out.append(goal).append('\n');
        }
        return out.toString();
    }

    /** The two lines above the table: the campaign, and the background, policy and seeds it ran in. */
    public static List<String> heading(Summary s) {
        CampaignSpec c = s.campaign();
        List<String> lines = new ArrayList<>();
        long workSeconds = 0;
        for (CampaignSpec.Shard sh : c.shards()) {
            workSeconds += c.trueSeconds(sh);
        }
        lines.add(String.format(Locale.ROOT, "campaign %s: %d shards (%s), %,d units, %,.1f GPU-hours of work; %s,"
                        + " %s protected, min runtime %s, submitted at %s", c.name(), c.shards().size(),
                String.join(", ", c.familySecondsPerUnit().keySet()), c.unitsTotal(),
                workSeconds * (double) c.gpusPerShard() / 3600, c.allocation(), c.slots().describe(),
                Durations.formatSeconds(c.minRuntime().getSeconds()), Durations.formatSeconds(c.submitAtSeconds())));
        lines.add(String.format(Locale.ROOT, "%s, policy %s, %d seed%s%s; others = every allocation but %s, paid over"
                        + " the campaign's window", s.scenario(), s.policy(), s.seeds().size(),
                s.seeds().size() == 1 ? "" : "s", s.seeds().size() > 1 ? " (mean ± sd)" : "", c.allocation()));
        return lines;
    }

    /**
     * The table's cells as the terminal prints them (and the report shows them): the header, then one line per
     * strategy and the baseline; "-" where a row has no value.
     */
    public static List<String[]> cells(Summary s) {
        boolean spread = s.seeds().size() > 1;
        List<String[]> cells = new ArrayList<>();
        String[] header = new String[TABLE.size() + 1];
        header[0] = "STRATEGY";
        for (int i = 0; i < TABLE.size(); i++) {
            header[i + 1] = TABLE.get(i).header;
        }
        cells.add(header);
        for (Row r : s.rows()) {
            String[] line = new String[TABLE.size() + 1];
            line[0] = r.strategy() + (r.strategy().equals("baseline") || r.finished() == r.runs() ? ""
                    : " (" + (r.runs() - r.finished()) + " unfinished)");
            for (int i = 0; i < TABLE.size(); i++) {
                Stat st = r.get(TABLE.get(i));
                line[i + 1] = st == null ? "-" : cell(TABLE.get(i), st, spread);
            }
            cells.add(line);
        }
        return cells;
    }

    private static String cell(Metric m, Stat st, boolean spread) {
        String mean = format(m, st.mean());
        return spread && !Double.isNaN(st.mean()) ? mean + " ± " + format(m, st.sd()).replace("+", "") : mean;
    }

    private static String format(Metric m, double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return switch (m.decimals) {
            case -1 -> String.format(Locale.ROOT, "%.1f%%", v * 100);
            case -2 -> String.format(Locale.ROOT, "%+.2fpp", v * 100);
            case 0 -> String.format(Locale.ROOT, "%.0f", v);
            default -> String.format(Locale.ROOT, "%." + m.decimals + "f", v);
        };
    }

    /**
     * The goal in one line when both Allot's strategy and v4.1 ran: makespan at least 20% shorter than v4.1's
     * (on the means), charged GPU-hours no more than v4.1's, no unit done twice; null otherwise.
     */
    public static String goal(Summary s) {
        Row allot = s.row(CampaignStrategy.ALLOT.name());
        Row v41 = s.row(CampaignStrategy.V4_1.name());
        if (allot == null || v41 == null) {
            return null;
        }
        double a = allot.get(Metric.MAKESPAN_HOURS).mean();
        double b = v41.get(Metric.MAKESPAN_HOURS).mean();
        double shorter = 1 - a / b;
        double chargedA = allot.get(Metric.CHARGED_GPU_HOURS).mean();
        double chargedB = v41.get(Metric.CHARGED_GPU_HOURS).mean();
        double redone = 0;
        for (Row r : s.rows()) {
            Stat st = r.get(Metric.UNITS_REDONE);
            if (st != null) {
                redone += st.values().stream().mapToDouble(Double::doubleValue).sum();
            }
        }
        List<Double> perSeed = new ArrayList<>();
        List<Double> as = allot.get(Metric.MAKESPAN_HOURS).values();
        List<Double> bs = v41.get(Metric.MAKESPAN_HOURS).values();
        int better = 0;
        for (int i = 0; i < Math.min(as.size(), bs.size()); i++) {
            double d = 1 - as.get(i) / bs.get(i);
            perSeed.add(d);
            if (d > 0) {
                better++;
            }
        }
        Stat paired = Stat.of(perSeed);
        boolean met = shorter >= 0.20 && chargedA <= chargedB && redone == 0
                && allot.finished() == allot.runs() && v41.finished() == v41.runs();
        // a longer makespan is said so: "-3.2% shorter" read as a typo for 3.2% shorter
        return String.format(Locale.ROOT, "goal (makespan >= 20%% shorter than v4.1 at no more charged GPU-hours,"
                        + " no unit done twice): %s; allot's mean makespan is %.1f%% %s (per seed %.1f%% to %.1f%%,"
                        + " shorter in %d of %d), charged %.1f vs %.1f GPU-hours, %.0f units done twice",
                met ? "met" : "NOT met", Math.abs(shorter) * 100, shorter < 0 ? "longer" : "shorter",
                paired.min() * 100, paired.max() * 100, better,
                perSeed.size(), chargedA, chargedB, redone);
    }

    // ------------------------------------------------------------------ JSON

    public static void writeJson(Summary s, Writer w) throws IOException {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("schema", SCHEMA);
        CampaignSpec c = s.campaign();
        ObjectNode campaign = root.putObject("campaign");
        campaign.put("name", c.name());
        campaign.put("allocation", c.allocation());
        campaign.put("submitAtSeconds", c.submitAtSeconds());
        campaign.put("shards", c.shards().size());
        campaign.put("unitsTotal", c.unitsTotal());
        campaign.put("protected", c.slots().describe());
        campaign.put("minRuntimeSeconds", c.minRuntime().getSeconds());
        root.put("scenario", s.scenario());
        root.put("policy", s.policy());
        ArrayNode seeds = root.putArray("seeds");
        s.seeds().forEach(seeds::add);
        ArrayNode rows = root.putArray("strategies");
        for (Row r : s.rows()) {
            ObjectNode o = rows.addObject();
            o.put("strategy", r.strategy());
            o.put("summary", r.summary());
            o.put("runs", r.runs());
            if (!r.strategy().equals("baseline")) {
                o.put("finished", r.finished());
            }
            for (Map.Entry<Metric, Stat> e : r.stats().entrySet()) {
                ObjectNode m = o.putObject(e.getKey().json);
                number(m, "mean", e.getValue().mean());
                number(m, "sd", e.getValue().sd());
                number(m, "min", e.getValue().min());
                number(m, "max", e.getValue().max());
                ArrayNode values = m.putArray("values");
                for (double v : e.getValue().values()) {
                    if (Double.isNaN(v)) {
                        values.addNull();
                    } else {
                        values.add(round(v));
                    }
                }
            }
        }
        String goal = goal(s);
        if (goal != null) {
            root.put("goal", goal);
        }
        MAPPER.writeValue(w, root);
        w.write('\n');
    }

    private static void number(ObjectNode o, String key, double v) {
        if (Double.isNaN(v)) {
            o.putNull(key);
        } else {
            o.put(key, round(v));
        }
    }

    private static double round(double v) {
        return java.math.BigDecimal.valueOf(v).setScale(6, java.math.RoundingMode.HALF_EVEN).doubleValue();
    }
}
