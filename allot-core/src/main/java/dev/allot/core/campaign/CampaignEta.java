package dev.allot.core.campaign;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * When each shard and the campaign should end, from the measured rates and the slots as they are now. A running
 * shard ends after its remaining time if it keeps running (an unallocated one may be preempted: its ETA is then
 * optimistic). Waiting shards take the protected slots as they free, longest remaining work first, a list schedule
 * that counts the slots in shards and in GPUs as the {@link SlotPlanner} does (a shard running protected holds its
 * slot until it ends); with no protected slot, or one too small for it, a waiting shard has no ETA (it runs only when
 * GPUs happen to be idle). The campaign ends when its last shard does. Braked shards have none: they run again only when a person raises the cap.
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
        // the protected slots held now and until when: {end, gpus} of each shard holding one, earliest end first
        PriorityQueue<long[]> held = new PriorityQueue<>(Comparator.comparingLong((long[] a) -> a[0]));
        int heldShards = 0;
        long heldGpus = 0;
        List<ShardView> waiting = new ArrayList<>();
        boolean unknown = false;
        for (ShardView s : shards) {
            switch (s.phase()) {
                case DONE -> { }
                case RUNNING -> {
                    long end = nowSeconds + est.get(s.index()).remainingSeconds();
                    ends.put(s.index(), end);
                    if (s.tier() == ShardTier.PROTECTED) {
                        held.add(new long[] {end, s.gpus()});
                        heldShards++;
                        heldGpus += s.gpus();
                    }
                }
                case WAITING, UNQUEUED -> {
                    if (slots.fits(0, 0, s.gpus())) {
                        waiting.add(s);
                    } else {
                        unknown = true; // no slot, or fewer GPUs in all the slots than the shard takes
                    }
                }
                case BRAKED -> unknown = true;
            }
        }
        // list schedule: whenever slots free, the waiting shards that fit start, longest first (as the planner
        // picks them, a shard that does not fit left for a later one that does); the slots count shards and GPUs
        waiting.sort(ParkingOrder.LPT.comparator(est));
        long t = nowSeconds;
        while (!waiting.isEmpty()) {
            for (Iterator<ShardView> it = waiting.iterator(); it.hasNext(); ) {
                ShardView s = it.next();
                if (slots.fits(heldShards, heldGpus, s.gpus())) {
                    it.remove();
                    long end = t + est.get(s.index()).remainingSeconds();
                    ends.put(s.index(), end);
                    held.add(new long[] {end, s.gpus()});
                    heldShards++;
                    heldGpus += s.gpus();
                }
            }
            if (!waiting.isEmpty()) {
                // never empty here: with every slot free, any shard left (it fits the slots alone) would have started
                long[] freed = held.poll();
                t = Math.max(t, freed[0]);
                heldShards--;
                heldGpus -= freed[1];
            }
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
