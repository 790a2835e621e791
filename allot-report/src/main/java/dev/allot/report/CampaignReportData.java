package dev.allot.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.campaign.ProtectedSlots;
import dev.allot.sim.AllotVersion;
import dev.allot.sim.campaign.CampaignComparison;
import dev.allot.sim.campaign.CampaignOutcome;
import dev.allot.sim.campaign.CampaignProgress;
import dev.allot.sim.campaign.CampaignSpec;
import dev.allot.sim.campaign.CampaignTable;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The document a campaign report embeds (schema {@value #SCHEMA}): the comparison exactly as {@code allot campaign
 * simulate --json} writes it, the table's cells and heading as the terminal prints them, the shards (family, units,
 * true time per unit), and for every seed every strategy's run from the driver's books: its outcome, units done on a
 * grid of instants shared by the strategies of that seed, and every run of every shard, in columns.
 *
 * <p>The grid of a seed runs from the campaign's submission to the latest end of a strategy's campaign in that seed
 * (or of the simulation, for one that did not finish), at most {@value #POINTS} instants a whole number of minutes
 * apart. Deterministic: the same runs give the same document.
 */
public final class CampaignReportData {
    public static final String SCHEMA = "allot.campaign-report/1";
    /** Instants of a seed's progress grid, at most. */
    static final int POINTS = 481;
    /** How a shard's run ended, by the code the document's {@code attempts.end} holds. */
    static final List<CampaignOutcome.End> ENDS = List.of(CampaignOutcome.End.values());

    private static final ObjectMapper TREE = new ObjectMapper();

    private CampaignReportData() {
    }

    /** The document of a comparison's runs and their summary. */
    public static ObjectNode document(CampaignTable.Summary summary, List<CampaignComparison.Run> runs) {
        CampaignSpec c = summary.campaign();
        ObjectNode root = TREE.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("allot", AllotVersion.VERSION);
        root.set("comparison", comparisonJson(summary));
        ArrayNode heading = root.putArray("heading");
        CampaignTable.heading(summary).forEach(heading::add);
        ArrayNode table = root.putArray("table");
        for (String[] line : CampaignTable.cells(summary)) {
            ArrayNode l = table.addArray();
            for (String cell : line) {
                l.add(cell);
            }
        }
        root.put("submitAtSeconds", c.submitAtSeconds());
        root.put("protected", c.slots().describe());
        int slotShards = Math.min(c.slots().maxShards(), c.slots().maxGpus() == ProtectedSlots.UNLIMITED
                ? ProtectedSlots.UNLIMITED : c.slots().maxGpus() / c.gpusPerShard());
        if (slotShards == ProtectedSlots.UNLIMITED) {
            root.putNull("protectedShards");
        } else {
            root.put("protectedShards", slotShards);
        }
        root.put("gpusPerShard", c.gpusPerShard());
        ArrayNode ends = root.putArray("ends");
        ENDS.forEach(e -> ends.add(e.name().toLowerCase(Locale.ROOT)));
        ObjectNode shards = root.putObject("shards");
        ArrayNode ids = shards.putArray("id");
        ArrayNode family = shards.putArray("family");
        ArrayNode units = shards.putArray("units");
        ArrayNode perUnit = shards.putArray("secondsPerUnit");
        for (CampaignSpec.Shard s : c.shards()) {
            ids.add(c.shardId(s.index()));
            family.add(s.family());
            units.add(s.units());
            perUnit.add(c.trueSecondsPerUnit(s));
        }
        ArrayNode strategies = root.putArray("strategies");
        Map<Long, List<CampaignComparison.Run>> bySeed = new LinkedHashMap<>();
        for (CampaignComparison.Run r : runs) {
            if (!r.baseline()) {
                bySeed.computeIfAbsent(r.seed() == null ? -1L : r.seed(), k -> new ArrayList<>()).add(r);
            }
        }
        if (bySeed.isEmpty()) {
            throw new IllegalArgumentException("a campaign report needs at least one run of a strategy");
        }
        bySeed.values().iterator().next().forEach(r -> strategies.add(r.strategy().name()));
        ArrayNode seeds = root.putArray("seeds");
        for (List<CampaignComparison.Run> seedRuns : bySeed.values()) {
            seeds.add(seed(c, seedRuns));
        }
        return root;
    }

    /** One seed: its grid and each strategy's run. */
    private static ObjectNode seed(CampaignSpec c, List<CampaignComparison.Run> seedRuns) {
        CampaignComparison.Run first = seedRuns.get(0);
        ObjectNode o = TREE.createObjectNode();
        if (first.seed() == null) {
            o.putNull("seed");
        } else {
            o.put("seed", first.seed());
        }
        long to = c.submitAtSeconds();
        for (CampaignComparison.Run r : seedRuns) {
            to = Math.max(to, lastInstant(r));
        }
        long[] grid = CampaignProgress.grid(c.submitAtSeconds(), to, POINTS);
        o.put("fromSeconds", c.submitAtSeconds());
        o.put("toSeconds", to);
        o.set("x", longs(grid));
        ArrayNode list = o.putArray("runs");
        for (CampaignComparison.Run r : seedRuns) {
            list.add(run(c, r, grid));
        }
        return o;
    }

    /** The campaign's end in a run, or the simulation's when the campaign did not finish. */
    private static long lastInstant(CampaignComparison.Run r) {
        return r.outcome().finished() ? r.outcome().endSeconds() : r.result().run().endSeconds();
    }

    private static ObjectNode run(CampaignSpec c, CampaignComparison.Run r, long[] grid) {
        CampaignOutcome out = r.outcome();
        ObjectNode o = TREE.createObjectNode();
        o.put("strategy", out.strategy());
        o.put("endSeconds", out.endSeconds());
        o.put("makespanSeconds", out.makespanSeconds());
        o.put("simulationEndSeconds", r.result().run().endSeconds());
        o.put("unitsTotal", out.unitsTotal());
        o.put("unitsDone", out.unitsDone());
        o.put("chargedGpuSeconds", out.chargedGpuSeconds());
        o.put("lostGpuSeconds", out.lostGpuSeconds());
        o.put("unallocatedGpuSeconds", out.unallocatedGpuSeconds());
        o.put("unitsRedone", out.unitsRedone());
        o.put("restarts", out.restarts());
        o.put("promotions", out.promotions());
        o.put("retiers", out.retiers());
        o.put("preemptions", out.preemptions());
        o.set("shardEndSeconds", longs(out.shardEndSeconds().stream().mapToLong(Long::longValue).toArray()));
        o.set("unitsDoneAt", longs(CampaignProgress.unitsDone(c, out, grid)));
        List<CampaignOutcome.Attempt> attempts = out.attempts();
        int n = attempts.size();
        long[] shard = new long[n];
        long[] start = new long[n];
        long[] end = new long[n];
        long[] protectedFrom = new long[n];
        long[] fromUnits = new long[n];
        long[] toUnits = new long[n];
        long[] how = new long[n];
        for (int k = 0; k < n; k++) {
            CampaignOutcome.Attempt a = attempts.get(k);
            shard[k] = a.shard();
            start[k] = a.startSeconds();
            end[k] = a.endSeconds();
            protectedFrom[k] = a.protectedFromSeconds();
            fromUnits[k] = a.fromUnits();
            toUnits[k] = a.toUnits();
            how[k] = ENDS.indexOf(a.end());
        }
        ObjectNode at = o.putObject("attempts");
        at.set("shard", longs(shard));
        at.set("startSeconds", longs(start));
        at.set("endSeconds", longs(end));
        at.set("protectedFromSeconds", longs(protectedFrom));
        at.set("fromUnits", longs(fromUnits));
        at.set("toUnits", longs(toUnits));
        at.set("end", longs(how));
        return o;
    }

    private static ArrayNode longs(long[] values) {
        ArrayNode a = TREE.createArrayNode();
        for (long v : values) {
            a.add(v);
        }
        return a;
    }

    /** The comparison as {@code --json} writes it, read back as a tree. */
    private static JsonNode comparisonJson(CampaignTable.Summary summary) {
        StringWriter w = new StringWriter();
        try {
            CampaignTable.writeJson(summary, w);
            return TREE.readTree(w.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
