package dev.allot.core.campaign;

import java.util.Comparator;
import java.util.Map;

/**
 * Which shards deserve the protected slots first. Two documented comparator chains, each ending in the shard's index:
 * <ul>
 *   <li>{@link #LPT}: longest estimated remaining time first (the makespan of a campaign is its longest tail: a shard
 *       of 27 hours started last ends the campaign late however fast the others went), then lowest index;</li>
 *   <li>{@link #FIFO}: submission order (lowest index first), the seed's v4.</li>
 * </ul>
 */
public enum ParkingOrder {
    LPT, FIFO;

    /** The order over shards, given the current estimates by shard index. */
    public Comparator<ShardView> comparator(Map<Integer, RateEstimator.Estimate> estimates) {
        Comparator<ShardView> byIndex = Comparator.comparingInt(ShardView::index);
        if (this == FIFO) {
            return byIndex;
        }
        Comparator<ShardView> longestFirst = Comparator.comparingLong(
                (ShardView s) -> estimates.get(s.index()).remainingSeconds()).reversed();
        return longestFirst.thenComparing(byIndex);
    }

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
