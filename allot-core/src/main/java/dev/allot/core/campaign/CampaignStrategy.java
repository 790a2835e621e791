package dev.allot.core.campaign;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a campaign uses its protected slots, made of four parts: which shards go first ({@link ParkingOrder}), how a
 * shard already running on idle GPUs takes a slot ({@link MoveMode}), how many slots there are ({@link SlotRule}),
 * and in which order the shards wait for GPUs ({@link WaitOrder}). Allot's own is {@link #ALLOT}; the others are the
 * seed's babysitter versions and the two plain ways, kept to be compared in one simulation ({@link #named}).
 */
public record CampaignStrategy(String name, ParkingOrder parking, MoveMode moves, SlotRule slots, String summary,
                               WaitOrder waiting) {
    /** A strategy whose shards wait in submission order ({@link WaitOrder#SUBMISSION}). */
    public CampaignStrategy(String name, ParkingOrder parking, MoveMode moves, SlotRule slots, String summary) {
        this(name, parking, moves, slots, summary, WaitOrder.SUBMISSION);
    }

    /** In which order a campaign's waiting shards stand in their allocation's queue. */
    public enum WaitOrder {
        /** The order they were submitted in, as any scheduler's queue keeps them (the seed's Slurm queue). */
        SUBMISSION,
        /**
         * The parking order, re-chosen at every plan: idle GPUs go first to the waiting shard with the most work
         * left, the one that would otherwise end the campaign last ({@code ClusterState.rerank}).
         */
        PARKING
    }

    /** How a running unallocated shard takes a protected slot. */
    public enum MoveMode {
        /** The same attempt becomes protected where it runs ({@link CampaignMove.Promote}). */
        IN_PLACE,
        /** It is stopped and queued again as protected ({@link CampaignMove.Restart}), as on Slurm by hand. */
        RESTART
    }

    /** How many protected slots the strategy uses. */
    public enum SlotRule {
        /** The campaign's declared slots. */
        DECLARED,
        /** Every shard protected. */
        ALL,
        /** No shard protected: every shard runs unallocated. */
        NONE;

        public ProtectedSlots apply(ProtectedSlots declared) {
            return switch (this) {
                case DECLARED -> declared;
                case ALL -> ProtectedSlots.unlimited();
                case NONE -> ProtectedSlots.none();
            };
        }
    }

    /**
     * Allot's: the protected slots go to the shards with the longest estimated remaining work (LPT), a shard already
     * running unallocated takes a slot where it runs (promotion in place: no restart, nothing lost), and the shards
     * that wait stand in their allocation's queue longest remaining work first, so that idle GPUs too go first to the
     * shards that would otherwise end the campaign last. Every choice is re-made at each plan, as rates are measured.
     * Measured in the lab preset (docs/campaigns.md), the wait order is what makes it shorter than the seed's v4.1:
     * with LPT slots and promotion in place alone the two ended within 1% of each other.
     */
    public static final CampaignStrategy ALLOT = new CampaignStrategy("allot", ParkingOrder.LPT, MoveMode.IN_PLACE,
            SlotRule.DECLARED, "longest remaining work first, for the slots and for idle GPUs; promotion in place",
            WaitOrder.PARKING);
    public static final CampaignStrategy V4 = new CampaignStrategy("v4", ParkingOrder.FIFO, MoveMode.RESTART,
            SlotRule.DECLARED, "the seed's v4: submission order; a move restarts the shard");
    public static final CampaignStrategy V4_1 = new CampaignStrategy("v4.1", ParkingOrder.LPT, MoveMode.RESTART,
            SlotRule.DECLARED, "the seed's v4.1: longest remaining work first; a move restarts the shard");
    public static final CampaignStrategy ALL_PROTECTED = new CampaignStrategy("all-protected", ParkingOrder.FIFO,
            MoveMode.IN_PLACE, SlotRule.ALL, "every shard charged and protected");
    public static final CampaignStrategy ALL_UNALLOCATED = new CampaignStrategy("all-unallocated", ParkingOrder.FIFO,
            MoveMode.IN_PLACE, SlotRule.NONE, "every shard unallocated on idle GPUs");

    private static final Map<String, CampaignStrategy> BY_NAME = new LinkedHashMap<>();

    static {
        for (CampaignStrategy s : List.of(ALLOT, V4, V4_1, ALL_PROTECTED, ALL_UNALLOCATED)) {
            BY_NAME.put(s.name(), s);
        }
    }

    public static Optional<CampaignStrategy> named(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /** Every strategy, Allot's first. */
    public static List<CampaignStrategy> all() {
        return List.copyOf(BY_NAME.values());
    }

    /** The names, for an error that lists the valid ones. */
    public static List<String> names() {
        return List.copyOf(BY_NAME.keySet());
    }
}
