package dev.allot.core.policy.slurm;

import java.util.Arrays;

/**
 * Usage per association with Slurm's half-life decay ({@code PriorityDecayHalfLife},
 * <a href="https://slurm.schedmd.com/priority_multifactor.html">priority_multifactor.html</a>): past usage counts
 * half as much for every half-life that has passed since it happened.
 *
 * <p>Usage accrues continuously at each leaf's current rate (GPUs, times the QOS usage factor). Advancing by
 * {@code dt} seconds at a constant rate {@code r} is exact: {@code U' = U * 2^(-dt/h) + r * (h / ln 2) *
 * (1 - 2^(-dt/h))}, the integral of {@code r} decayed from each instant to the end; a half-life of zero means no
 * decay ({@code U' = U + r * dt}). The caller changes a rate only at the instants it changes, so advancing in steps
 * or at once gives the same result up to rounding. Slurm applies its decay in {@code PriorityCalcPeriod} steps (5
 * minutes) with a per-second factor {@code 1 - 0.693 / h}, which over one half-life keeps 0.50007 of the usage
 * rather than exactly half; here the half-life is exact and the accrual continuous.
 *
 * <p>All arithmetic uses {@link StrictMath}, so results are the same on every JVM. Time is a parameter; nothing
 * here reads a clock.
 */
public final class DecayedUsage {
    private static final double LN2 = StrictMath.log(2);
    private final double[] usage;
    private final double[] rate;
    private final long halfLifeSeconds;
    private long at;

    /**
     * @param halfLifeSeconds the decay half-life; 0 for no decay
     * @param startSeconds    the time usage starts at zero
     */
    public DecayedUsage(int leaves, long halfLifeSeconds, long startSeconds) {
        if (halfLifeSeconds < 0) {
            throw new IllegalArgumentException("the half-life must not be negative, got " + halfLifeSeconds);
        }
        this.usage = new double[leaves];
        this.rate = new double[leaves];
        this.halfLifeSeconds = halfLifeSeconds;
        this.at = startSeconds;
    }

    /** Decays and accrues up to {@code now}. Time never goes back. */
    public void advanceTo(long now) {
        if (now < at) {
            throw new IllegalArgumentException("time went back from " + at + " to " + now);
        }
        long dt = now - at;
        if (dt == 0) {
            return;
        }
        if (halfLifeSeconds == 0) {
            for (int l = 0; l < usage.length; l++) {
                usage[l] += rate[l] * dt;
            }
        } else {
            double x = -(dt * LN2) / halfLifeSeconds;
            double keep = StrictMath.exp(x);
            double accrued = -StrictMath.expm1(x) * (halfLifeSeconds / LN2);
            for (int l = 0; l < usage.length; l++) {
                usage[l] = usage[l] * keep + rate[l] * accrued;
            }
        }
        at = now;
    }

    /** Usage accrues at this many (weighted) GPUs from the last {@link #advanceTo} on. */
    public void setRate(int leaf, double gpus) {
        if (!(gpus >= 0) || Double.isInfinite(gpus)) {
            throw new IllegalArgumentException("rate must be finite and >= 0, got " + gpus);
        }
        rate[leaf] = gpus;
    }

    public double rate(int leaf) {
        return rate[leaf];
    }

    /** Decayed usage of a leaf, in GPU-seconds, as of {@link #at()}. */
    public double usage(int leaf) {
        return usage[leaf];
    }

    /** A copy of every leaf's usage. */
    public double[] usage() {
        return usage.clone();
    }

    /** Copies every leaf's usage into {@code out}. */
    public void copyUsage(double[] out) {
        System.arraycopy(usage, 0, out, 0, usage.length);
    }

    /** The time usage was last advanced to. */
    public long at() {
        return at;
    }

    public long halfLifeSeconds() {
        return halfLifeSeconds;
    }

    /** Zeroes every rate (usage stays). */
    public void clearRates() {
        Arrays.fill(rate, 0);
    }
}
