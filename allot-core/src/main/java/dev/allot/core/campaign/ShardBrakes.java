package dev.allot.core.campaign;

import dev.allot.core.model.Decimals;
import java.util.ArrayList;
import java.util.List;

/**
 * The safety brakes of a campaign, per shard and for the whole campaign, with the seed's rule: a cap is a brake, not a
 * budget. A shard whose spending reached a cap stops being scheduled (a running shard finishes its attempt; it is not
 * resubmitted), and it runs again only when that cap is raised above what it has spent; never by itself, never in a
 * loop. Every number is cumulative over the shard's (or campaign's) runs, charged or not.
 *
 * @param shardGpuHours    GPU-hours one shard may use, null for no cap
 * @param shardRequeues    how many times one shard may go back to the queue after starting, null for no cap
 * @param campaignGpuHours GPU-hours the whole campaign may use, null for no cap
 * @param campaignCost     cost the whole campaign may use at {@code pricePerGpuHour}, null for no cap
 * @param pricePerGpuHour  a price per GPU-hour for cost caps, null when none is configured
 */
public record ShardBrakes(Double shardGpuHours, Integer shardRequeues, Double campaignGpuHours, Double campaignCost,
                          Double pricePerGpuHour) {
    public static final ShardBrakes NONE = new ShardBrakes(null, null, null, null, null);

    public ShardBrakes {
        check("shard-gpu-hours", shardGpuHours);
        check("campaign-gpu-hours", campaignGpuHours);
        check("campaign-cost", campaignCost);
        check("price-per-gpu-hour", pricePerGpuHour);
        if (shardRequeues != null && shardRequeues < 0) {
            throw new IllegalArgumentException("shard-requeues must be at least 0, got " + shardRequeues);
        }
        if (campaignCost != null && pricePerGpuHour == null) {
            throw new IllegalArgumentException("campaign-cost needs price-per-gpu-hour; give both or neither");
        }
    }

    private static void check(String field, Double v) {
        if (v != null && !(v >= 0 && !v.isInfinite())) {
            throw new IllegalArgumentException(field + " must be a finite number >= 0, got " + Decimals.plain(v));
        }
    }

    /**
     * Why a shard is held, in words with the numbers, or null when it may run. {@code shardGpuSeconds} and
     * {@code requeues} are the shard's, {@code campaignGpuSeconds} the whole campaign's.
     */
    public String heldReason(long shardGpuSeconds, int requeues, long campaignGpuSeconds) {
        List<String> why = new ArrayList<>();
        double shardHours = shardGpuSeconds / 3600.0;
        double campaignHours = campaignGpuSeconds / 3600.0;
        if (shardGpuHours != null && shardHours >= shardGpuHours) {
            why.add(String.format(java.util.Locale.ROOT, "the shard used %.1f GPU-hours, its cap is %s",
                    shardHours, number(shardGpuHours)));
        }
        if (shardRequeues != null && requeues > shardRequeues) {
            why.add("the shard went back to the queue " + (requeues == 1 ? "once" : requeues + " times") + ", its cap is "
                    + shardRequeues);
        }
        if (campaignGpuHours != null && campaignHours >= campaignGpuHours) {
            why.add(String.format(java.util.Locale.ROOT, "the campaign used %.1f GPU-hours, its cap is %s",
                    campaignHours, number(campaignGpuHours)));
        }
        if (campaignCost != null && campaignHours * pricePerGpuHour >= campaignCost) {
            why.add(String.format(java.util.Locale.ROOT, "the campaign cost %.2f at %s per GPU-hour, its cap is %s",
                    campaignHours * pricePerGpuHour, number(pricePerGpuHour), number(campaignCost)));
        }
        if (why.isEmpty()) {
            return null;
        }
        return String.join("; ", why) + "; it runs again only when the cap is raised above what it spent";
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
