package dev.allot.server.campaign;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.campaign.CampaignMove;
import dev.allot.core.campaign.RateEstimator;
import dev.allot.core.campaign.ShardTier;
import dev.allot.core.campaign.SlotPlanner;
import dev.allot.core.model.Decimals;
import dev.allot.core.model.Durations;
import dev.allot.server.store.Campaign;
import dev.allot.server.store.CampaignShard;

/**
 * What a campaign's shard is submitted as, and why a move was made, in words. A shard's workload is an ordinary
 * submission of the campaign's owner ({@code POST /v1/workloads}'s body, checked the same way): the campaign's
 * allocation, GPUs and priority, resumable, kind {@value #KIND}, the command with {@code {shard}} replaced by the
 * index, the campaign's environment plus {@code ALLOT_CAMPAIGN}, {@code ALLOT_SHARD}, {@code ALLOT_UNITS} (the
 * shard's units in all) and {@code ALLOT_FAMILY} (when it has one); minimum runtime the
 * campaign's when protected, 0 when unallocated; and, when the campaign declared a rate, the expected duration of the
 * units left (what the policy estimates with, and what the simulated backend runs for).
 */
public final class ShardSubmissions {
    public static final String KIND = "campaign";
    public static final String CAMPAIGN_VARIABLE = "ALLOT_CAMPAIGN";
    public static final String SHARD_VARIABLE = "ALLOT_SHARD";
    public static final String RESUME_VARIABLE = "ALLOT_RESUME_FROM";
    public static final String UNITS_VARIABLE = "ALLOT_UNITS";
    public static final String FAMILY_VARIABLE = "ALLOT_FAMILY";
    private static final ObjectMapper JSON = new ObjectMapper();

    private ShardSubmissions() {
    }

    /** The submission of shard {@code s}'s next workload under {@code tier}. */
    public static ObjectNode body(Campaign c, CampaignShard s, ShardTier tier) {
        ObjectNode b = JSON.createObjectNode();
        b.put("allocation", c.allocationPath());
        b.put("gpus", c.gpus());
        b.put("minRuntime", tier == ShardTier.PROTECTED ? Long.toString(c.minRuntimeSeconds()) : "0");
        if (c.secondsPerUnit() != null) {
            long left = Math.max(1, s.unitsTotal() - s.unitsDone());
            b.put("duration", Long.toString(Math.max(1, (long) Math.ceil(left * c.secondsPerUnit()))));
        }
        b.put("resumable", true);
        b.put("priority", c.priority().label());
        b.put("kind", KIND);
        var command = b.putArray("command");
        c.commandOf(s.index()).forEach(command::add);
        ObjectNode env = b.putObject("environment");
        c.environment().forEach(env::put);
        env.put(CAMPAIGN_VARIABLE, c.name());
        env.put(SHARD_VARIABLE, Integer.toString(s.index()));
        env.put(UNITS_VARIABLE, Long.toString(s.unitsTotal()));
        if (s.family() != null) {
            env.put(FAMILY_VARIABLE, s.family());
        }
        return b;
    }

    /** Why the planner made this move, in words: the shard's estimate and where its rate came from. */
    static String why(CampaignMove move, SlotPlanner.Plan plan, int shard) {
        RateEstimator.Estimate e = plan.estimates().get(shard);
        String estimate = "about " + Durations.formatSeconds(e.remainingSeconds()) + " of work left at "
                + Decimals.significant(e.secondsPerUnit(), 3) + " s/unit (" + source(e.source()) + ")";
        boolean protect = move instanceof CampaignMove.Promote
                || (move instanceof CampaignMove.Queue q && q.tier() == ShardTier.PROTECTED)
                || (move instanceof CampaignMove.Retier r && r.tier() == ShardTier.PROTECTED);
        return protect ? "the longest remaining work among the shards not protected: " + estimate
                : "the protected slots go to shards with more work left; it runs on idle GPUs, " + estimate;
    }

    static String source(RateEstimator.Source s) {
        return switch (s) {
            case SHARD -> "measured on the shard";
            case FAMILY -> "measured on its family";
            case CAMPAIGN -> "measured on the campaign";
            case DECLARED -> "declared";
            case NONE -> "nothing measured yet: units stand for time";
        };
    }
}
