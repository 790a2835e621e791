package dev.allot.core.policy.kueue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Admission Fair Sharing's historical usage of LocalQueues: an exponentially decayed average of the GPUs each
 * LocalQueue has admitted, plus an entry penalty per admission.
 *
 * <p>Kueue updates a LocalQueue's consumed resources as {@code consumed x (1 - a) + admitted x a} with
 * {@code a = 1 - 0.5^(elapsed / usageHalfLifeTime)}, every {@code usageSamplingInterval} and when a workload is
 * admitted, and adds to it at once an entry penalty of {@code a(usageSamplingInterval) x the workload's requests}
 * so that a burst of admissions counts before the next sample. Here the same formula is applied over every interval
 * in which the admitted GPUs were constant (they only change when the scheduler acts), so the decay is exact rather
 * than sampled; the entry penalty keeps Kueue's sampling interval. Time is a parameter; {@link StrictMath} keeps
 * the result the same on every platform.
 */
public final class LocalQueueUsage {
    private final double halfLifeSeconds;
    private final double entryPenaltyRate;
    private final Map<Long, Integer> ids = new HashMap<>();
    private double[] consumed = new double[16];
    private long[] admitted = new long[16];
    private int count;
    private long lastSeconds = Long.MIN_VALUE;

    /**
     * @param halfLifeSeconds       Kueue's {@code usageHalfLifeTime}; 0 keeps no history (usage always 0)
     * @param samplingSeconds       Kueue's {@code usageSamplingInterval}, which sizes the entry penalty
     */
    public LocalQueueUsage(long halfLifeSeconds, long samplingSeconds) {
        if (halfLifeSeconds < 0 || samplingSeconds < 0) {
            throw new IllegalArgumentException("half-life and sampling interval must be >= 0");
        }
        this.halfLifeSeconds = halfLifeSeconds;
        this.entryPenaltyRate = halfLifeSeconds == 0 ? 0 : 1 - StrictMath.pow(0.5, samplingSeconds / (double) halfLifeSeconds);
    }

    /** The LocalQueue of a user in a ClusterQueue, numbered on first sight. */
    public int localQueue(int cq, int user) {
        long key = ((long) cq << 32) | (user & 0xffffffffL);
        Integer id = ids.get(key);
        if (id == null) {
            id = count++;
            ids.put(key, id);
            if (count > consumed.length) {
                consumed = Arrays.copyOf(consumed, count * 2);
                admitted = Arrays.copyOf(admitted, count * 2);
            }
        }
        return id;
    }

    public int size() {
        return count;
    }

    /** Decays every LocalQueue's usage towards the GPUs it held since the last call, up to {@code now}. */
    public void advanceTo(long now) {
        if (lastSeconds != Long.MIN_VALUE && now < lastSeconds) {
            throw new IllegalArgumentException("time went back from " + lastSeconds + " to " + now);
        }
        if (lastSeconds != Long.MIN_VALUE && now > lastSeconds) {
            if (halfLifeSeconds == 0) {
                Arrays.fill(consumed, 0, count, 0);
            } else {
                double keep = StrictMath.pow(0.5, (now - lastSeconds) / halfLifeSeconds);
                for (int i = 0; i < count; i++) {
                    consumed[i] = consumed[i] * keep + admitted[i] * (1 - keep);
                }
            }
        }
        lastSeconds = now;
    }

    /** Forgets the admitted GPUs of every LocalQueue (before recounting them). */
    public void clearAdmitted() {
        Arrays.fill(admitted, 0, count, 0);
    }

    /** Counts GPUs a LocalQueue holds (a recount, or an eviction with a negative value); no penalty. */
    public void addAdmitted(int lq, long gpus) {
        admitted[lq] += gpus;
    }

    /** A workload of the LocalQueue is admitted: it holds its GPUs from now and pays the entry penalty at once. */
    public void admit(int lq, long gpus) {
        admitted[lq] += gpus;
        consumed[lq] += entryPenaltyRate * gpus;
    }

    /** The LocalQueue's usage for ordering: decayed consumption, entry penalties included (weight 1). */
    public double usage(int lq) {
        return consumed[lq];
    }

    public long admitted(int lq) {
        return admitted[lq];
    }

    /** The entry penalty per admitted GPU: {@code 1 - 0.5^(usageSamplingInterval / usageHalfLifeTime)}. */
    public double entryPenaltyRate() {
        return entryPenaltyRate;
    }
}
