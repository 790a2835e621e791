package dev.allot.core.campaign;

import java.util.ArrayList;
import java.util.List;

/**
 * Shards for the campaign tests, told in hours of work left: each shard below measured one unit in one hour on its own,
 * so its estimate is its own rate (one hour per unit) and its remaining time is exactly the hours given.
 */
final class Shards {
    static final long H = 3600;

    private Shards() {
    }

    static ShardView shard(int index, int gpus, long hoursLeft, ShardPhase phase, ShardTier tier) {
        return new ShardView(index, null, gpus, hoursLeft + 1, 1, H, phase, tier);
    }

    static ShardView unqueued(int index, long hoursLeft) {
        return shard(index, 1, hoursLeft, ShardPhase.UNQUEUED, ShardTier.UNALLOCATED);
    }

    static ShardView waiting(int index, long hoursLeft, ShardTier tier) {
        return shard(index, 1, hoursLeft, ShardPhase.WAITING, tier);
    }

    static ShardView running(int index, long hoursLeft, ShardTier tier) {
        return shard(index, 1, hoursLeft, ShardPhase.RUNNING, tier);
    }

    /** The views after a carrier did every move of a plan (a restarted shard waits again, protected). */
    static List<ShardView> carryOut(List<ShardView> shards, List<CampaignMove> moves) {
        List<ShardView> out = new ArrayList<>(shards);
        for (CampaignMove m : moves) {
            int i = indexOf(out, m.shard());
            ShardView s = out.get(i);
            ShardView after;
            if (m instanceof CampaignMove.Queue q) {
                after = with(s, ShardPhase.WAITING, q.tier());
            } else if (m instanceof CampaignMove.Retier r) {
                after = with(s, s.phase(), r.tier());
            } else if (m instanceof CampaignMove.Promote) {
                after = with(s, ShardPhase.RUNNING, ShardTier.PROTECTED);
            } else {
                after = with(s, ShardPhase.WAITING, ShardTier.PROTECTED); // a restart
            }
            out.set(i, after);
        }
        return out;
    }

    private static int indexOf(List<ShardView> shards, int index) {
        for (int i = 0; i < shards.size(); i++) {
            if (shards.get(i).index() == index) {
                return i;
            }
        }
        throw new IllegalArgumentException("no shard " + index);
    }

    static ShardView with(ShardView s, ShardPhase phase, ShardTier tier) {
        return new ShardView(s.index(), s.family(), s.gpus(), s.unitsTotal(), s.unitsDone(), s.measuredSeconds(), phase,
                tier);
    }
}
