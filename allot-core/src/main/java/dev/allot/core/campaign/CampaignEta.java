package dev.allot.core.campaign;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * When each shard and the campaign should end, from the measured rates and the slots as they are now. A running
 * shard ends after its remaining time if it keeps running (an unallocated one may be preempted: its ETA is then
 * optimistic). Waiting shards take the protected slots as they free, in the parking order, each slot a list
 * schedule; with no protected slot a waiting shard has no ETA (it runs only when GPUs happen to be idle). The campaign
 * ends when its last shard does. Braked shards have none: they run again only when a person raises the cap.
 */
public final class CampaignEta {
    /** Per shard end time in seconds on the caller's clock (absent when unknown), and the campaign's (-1 if unknown). */
    public record Eta(Map<Integer, Long> shardEndSeconds, long campaignEndSeconds) {
    }

    private CampaignEta() {
    }

    public static Eta estimate(List<ShardView> shards, SlotPlanner.Plan plan, ProtectedSlots slots, long nowSeconds) {
        Map<Integer, RateEstimator.Estimate> est = plan.estimates();
        Map<Integer, Long> ends = new HashMap<>();
        PriorityQueue<long[]> free = new PriorityQueue<>(Comparator.comparingLong((long[] a) -> a[0]));
        int protectedRunning = 0;
        List<ShardView> waiting = new ArrayList<>();
        boolean unknown = false;
        for (ShardView s : shards) {
            switch (s.phase()) {
                case DONE -> { }
                case RUNNING -> {
                    long end = nowSeconds + est.get(s.index()).remainingSeconds();
                    ends.put(s.index(), end);
                    if (s.tier() == ShardTier.PROTECTED) {
                        protectedRunning++;
                        free.add(new long[] {end, s.index()});
                    }
                }
                case WAITING, UNQUEUED -> waiting.add(s);
                case BRAKED -> unknown = true;
            }
        }
        int slotCount = Math.min(slots.maxShards(), protectedRunning + waiting.size());
        for (int i = protectedRunning; i < slotCount; i++) {
            free.add(new long[] {nowSeconds, -1});
        }
        waiting.sort(ParkingOrder.LPT.comparator(est));
        for (ShardView s : waiting) {
            long[] slot = free.poll();
            if (slot == null) {
                unknown = true;
                continue;
            }
            long end = slot[0] + est.get(s.index()).remainingSeconds();
            ends.put(s.index(), end);
            free.add(new long[] {end, s.index()});
        }
        long campaign = -1;
        if (!unknown) {
            campaign = nowSeconds;
            for (long e : ends.values()) {
                campaign = Math.max(campaign, e);
            }
        }
        return new Eta(Map.copyOf(ends), campaign);
    }
}
