package dev.allot.server.campaign;

import dev.allot.core.campaign.ShardPhase;
import dev.allot.core.campaign.ShardTier;
import dev.allot.core.campaign.ShardView;
import dev.allot.server.store.CampaignShard;
import dev.allot.server.store.CampaignSnapshot;
import dev.allot.server.store.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A stored campaign's shards as the core's campaign rules see them ({@link ShardView}): units, measured time, phase
 * and tier, read from the store alone (so that a restarted service plans from what it stored) or with the scheduling
 * loop's word on where each workload stands now. The one place the rule is written:
 * <ul>
 *   <li>a held shard is {@link ShardPhase#BRAKED};</li>
 *   <li>a shard without a workload is {@link ShardPhase#DONE} when every unit is done, else
 *       {@link ShardPhase#UNQUEUED};</li>
 *   <li>one whose workload runs is {@link ShardPhase#RUNNING}, even when every unit is reported done (it holds its
 *       slot until its workload ends);</li>
 *   <li>one whose workload waits is {@link ShardPhase#WAITING}, or {@link ShardPhase#DONE} when every unit is done;</li>
 *   <li>one whose workload completed is {@link ShardPhase#DONE}; failed or cancelled, {@link ShardPhase#BRAKED} (the
 *       controller holds it, saying why).</li>
 * </ul>
 * The tier is its workload's contract: {@link ShardTier#PROTECTED} when it declares a minimum runtime.
 */
public final class ShardViews {
    private ShardViews() {
    }

    /** From the store alone. */
    public static List<ShardView> of(CampaignSnapshot snap) {
        return of(snap, id -> Optional.empty());
    }

    /** With {@code live} saying where the loop holds a workload now (empty: the store's state stands). */
    public static List<ShardView> of(CampaignSnapshot snap, Function<String, Optional<ShardPhase>> live) {
        List<ShardView> out = new ArrayList<>(snap.shards().size());
        for (CampaignShard s : snap.shards()) {
            Optional<Workload> w = snap.workloadOf(s);
            ShardPhase phase = phase(s, w, w.flatMap(x -> live.apply(x.id())));
            ShardTier tier = w.isPresent() && w.get().allocated() ? ShardTier.PROTECTED : ShardTier.UNALLOCATED;
            out.add(new ShardView(s.index(), s.family(), snap.campaign().gpus(), s.unitsTotal(),
                    Math.min(s.unitsDone(), s.unitsTotal()), s.measuredSeconds(), phase, tier));
        }
        return out;
    }

    static ShardPhase phase(CampaignShard s, Optional<Workload> w, Optional<ShardPhase> live) {
        if (s.held()) {
            return ShardPhase.BRAKED;
        }
        if (w.isEmpty()) {
            return s.done() ? ShardPhase.DONE : ShardPhase.UNQUEUED;
        }
        if (live.isPresent()) {
            return live.get() == ShardPhase.WAITING && s.done() ? ShardPhase.DONE : live.get();
        }
        return switch (w.get().state()) {
            case RUNNING -> ShardPhase.RUNNING;
            case PENDING, REQUEUED -> s.done() ? ShardPhase.DONE : ShardPhase.WAITING;
            case COMPLETED -> ShardPhase.DONE;
            case FAILED, CANCELLED, PREEMPTED -> s.done() ? ShardPhase.DONE : ShardPhase.BRAKED;
        };
    }
}
