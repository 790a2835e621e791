package dev.allot.core.campaign;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How long a shard has left: units left x its time per unit. The time per unit is the best measurement there is, in
 * this order: the shard's own (the running time that produced its units done over those units); else its family's,
 * pooled over the family's shards that reported units; else the campaign's, pooled over every shard; else the rate
 * the campaign declared; else none is known, and units left stand in for time (one second per unit), which still
 * orders shards of one speed correctly. The seed's babysitter estimated the same way (rows left x measured time per
 * row of that shard family).
 */
public final class RateEstimator {
    /** Where an estimate came from, from most to least specific. */
    public enum Source {
        SHARD, FAMILY, CAMPAIGN, DECLARED, NONE;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A shard's estimate: seconds per unit, remaining seconds, and where the rate came from. */
    public record Estimate(double secondsPerUnit, long remainingSeconds, Source source) {
    }

    private RateEstimator() {
    }

    /**
     * Estimates for every shard, by index.
     *
     * @param declaredSecondsPerUnit the campaign's declared rate, or 0 when none was declared
     */
    public static Map<Integer, Estimate> estimate(List<ShardView> shards, double declaredSecondsPerUnit) {
        Map<String, long[]> families = new HashMap<>();
        long allSeconds = 0;
        long allUnits = 0;
        for (ShardView s : shards) {
            if (s.unitsDone() > 0 && s.measuredSeconds() > 0) {
                allSeconds += s.measuredSeconds();
                allUnits += s.unitsDone();
                if (s.family() != null) {
                    long[] f = families.computeIfAbsent(s.family(), k -> new long[2]);
                    f[0] += s.measuredSeconds();
                    f[1] += s.unitsDone();
                }
            }
        }
        Map<Integer, Estimate> out = new HashMap<>();
        for (ShardView s : shards) {
            double rate;
            Source source;
            long[] f = s.family() == null ? null : families.get(s.family());
            if (s.unitsDone() > 0 && s.measuredSeconds() > 0) {
                rate = (double) s.measuredSeconds() / s.unitsDone();
                source = Source.SHARD;
            } else if (f != null) {
                rate = (double) f[0] / f[1];
                source = Source.FAMILY;
            } else if (allUnits > 0) {
                rate = (double) allSeconds / allUnits;
                source = Source.CAMPAIGN;
            } else if (declaredSecondsPerUnit > 0) {
                rate = declaredSecondsPerUnit;
                source = Source.DECLARED;
            } else {
                rate = 1;
                source = Source.NONE;
            }
            out.put(s.index(), new Estimate(rate, Math.round(rate * s.unitsLeft()), source));
        }
        return out;
    }
}
