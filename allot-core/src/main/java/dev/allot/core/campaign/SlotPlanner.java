package dev.allot.core.campaign;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Chooses which shards hold a campaign's protected slots, and the moves that get them there.
 *
 * <p>The rule: shards running protected keep their slots (taking one back would throw work away or break the minimum
 * runtime the campaign was charged for). The other slots go to the remaining live shards in the strategy's
 * {@link ParkingOrder}, skipping a shard that does not fit the GPU limit. A chosen shard that waits unallocated is
 * retiered (free: nothing ran); one running unallocated is promoted in place or restarted, by the strategy's
 * {@link CampaignStrategy.MoveMode}; one not queued is queued protected. A waiting protected shard that is no longer
 * chosen (the estimates changed) goes back to unallocated, and every other live shard runs unallocated on idle GPUs.
 * Same views, same moves: the plan depends only on its inputs, ties broken on the shard index.
 */
public final class SlotPlanner {
    /** The plan and the estimates it was made from (for explanations and ETAs). */
    public record Plan(List<CampaignMove> moves, List<Integer> chosen, Map<Integer, RateEstimator.Estimate> estimates) {
    }

    private SlotPlanner() {
    }

    /**
     * @param declaredSecondsPerUnit the campaign's declared rate, 0 when none
     */
    public static Plan plan(List<ShardView> shards, ProtectedSlots declared, CampaignStrategy strategy,
                            double declaredSecondsPerUnit) {
        Map<Integer, RateEstimator.Estimate> estimates = RateEstimator.estimate(shards, declaredSecondsPerUnit);
        ProtectedSlots slots = strategy.slots().apply(declared);
        int usedShards = 0;
        long usedGpus = 0;
        List<ShardView> candidates = new ArrayList<>();
        for (ShardView s : shards) {
            if (s.runningProtected()) {
                usedShards++;
                usedGpus += s.gpus();
            } else if (s.phase().live()) {
                candidates.add(s);
            }
        }
        Comparator<ShardView> order = strategy.parking().comparator(estimates);
        candidates.sort(order);
        List<CampaignMove> moves = new ArrayList<>();
        List<Integer> chosen = new ArrayList<>();
        for (ShardView s : candidates) {
            boolean take = slots.fits(usedShards, usedGpus, s.gpus());
            if (take) {
                usedShards++;
                usedGpus += s.gpus();
                chosen.add(s.index());
            }
            ShardTier want = take ? ShardTier.PROTECTED : ShardTier.UNALLOCATED;
            switch (s.phase()) {
                case UNQUEUED -> moves.add(new CampaignMove.Queue(s.index(), want));
                case WAITING -> {
                    if (s.tier() != want) {
                        moves.add(new CampaignMove.Retier(s.index(), want));
                    }
                }
                case RUNNING -> {
                    if (take) { // running unallocated: running protected ones are not candidates
                        moves.add(strategy.moves() == CampaignStrategy.MoveMode.IN_PLACE
                                ? new CampaignMove.Promote(s.index()) : new CampaignMove.Restart(s.index()));
                    }
                }
                default -> throw new IllegalStateException("shard " + s.index() + " is not live: " + s.phase());
            }
        }
        moves.sort(Comparator.comparingInt(CampaignMove::shard));
        return new Plan(List.copyOf(moves), List.copyOf(chosen), estimates);
    }

    /**
     * The order the strategy wants its live shards to stand in their allocation's queue, as shard indexes, first
     * first: with {@link CampaignStrategy.WaitOrder#PARKING} (Allot's) the parking order of the plan's estimates, so
     * that idle GPUs go first to the shards that would otherwise end the campaign last; empty with
     * {@link CampaignStrategy.WaitOrder#SUBMISSION}, where shards keep their submission order. A shard's position is
     * its queue rank ({@code ClusterState.rerank}); the simulator and the service apply the same order.
     */
    public static List<Integer> queueOrder(List<ShardView> shards, Plan plan, CampaignStrategy strategy) {
        if (strategy.waiting() != CampaignStrategy.WaitOrder.PARKING) {
            return List.of();
        }
        List<ShardView> live = new ArrayList<>();
        for (ShardView s : shards) {
            if (s.phase().live()) {
                live.add(s);
            }
        }
        live.sort(strategy.parking().comparator(plan.estimates()));
        return live.stream().map(ShardView::index).toList();
    }
}
