package dev.allot.sim.campaign;

import java.util.ArrayList;
import java.util.List;

/**
 * The units a campaign had reported done at given instants, worked out from its runs ({@link CampaignOutcome#attempts})
 * and each shard's true time per unit exactly as the driver's books count them: a run that started at {@code s} from
 * {@code u} units has reported {@code u + (t - s) / secondsPerUnit} (whole units, at most its units at its end) at
 * {@code t}; a shard that no longer runs keeps what its last run reported.
 */
public final class CampaignProgress {
    private CampaignProgress() {
    }

    /**
     * Units done at each of {@code times} (ascending), all shards together.
     *
     * @throws IllegalArgumentException if the times are not ascending or the runs name a shard the spec lacks
     */
    public static long[] unitsDone(CampaignSpec spec, CampaignOutcome outcome, long[] times) {
        for (int k = 1; k < times.length; k++) {
            if (times[k] < times[k - 1]) {
                throw new IllegalArgumentException("times must ascend, got " + times[k - 1] + " then " + times[k]);
            }
        }
        int n = spec.shards().size();
        List<List<CampaignOutcome.Attempt>> byShard = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byShard.add(new ArrayList<>());
        }
        for (CampaignOutcome.Attempt a : outcome.attempts()) {
            if (a.shard() < 0 || a.shard() >= n) {
                throw new IllegalArgumentException("a run of shard " + a.shard() + " in a campaign of " + n
                        + " shards");
            }
            byShard.get(a.shard()).add(a);
        }
        long[] total = new long[times.length];
        for (int i = 0; i < n; i++) {
            long perUnit = spec.trueSecondsPerUnit(spec.shards().get(i));
            List<CampaignOutcome.Attempt> runs = byShard.get(i);
            int r = -1;
            for (int k = 0; k < times.length; k++) {
                long t = times[k];
                while (r + 1 < runs.size() && runs.get(r + 1).startSeconds() <= t) {
                    r++;
                }
                if (r >= 0) {
                    total[k] += unitsAt(runs.get(r), perUnit, t);
                }
            }
        }
        return total;
    }

    /** The units a shard had reported at {@code t}, during or after its run {@code a} (and before its next one). */
    static long unitsAt(CampaignOutcome.Attempt a, long perUnit, long t) {
        if (t >= a.endSeconds()) {
            return a.toUnits();
        }
        return Math.min(a.toUnits(), a.fromUnits() + (t - a.startSeconds()) / perUnit);
    }

    /**
     * Instants from {@code fromSeconds} to {@code toSeconds} (both included) a whole number of minutes apart, at most
     * {@code maxPoints} of them (at least 2): the x axis of a progress chart.
     */
    public static long[] grid(long fromSeconds, long toSeconds, int maxPoints) {
        if (toSeconds < fromSeconds || maxPoints < 2) {
            throw new IllegalArgumentException("a grid from " + fromSeconds + " to " + toSeconds + " in "
                    + maxPoints + " points");
        }
        long span = toSeconds - fromSeconds;
        long perPoint = (span + maxPoints - 2) / (maxPoints - 1);
        long step = Math.max(60, (perPoint + 59) / 60 * 60);
        int points = (int) ((span + step - 1) / step) + 1;
        long[] out = new long[Math.max(2, points)];
        for (int k = 0; k < out.length; k++) {
            out[k] = Math.min(toSeconds, fromSeconds + k * step);
        }
        return out;
    }
}
