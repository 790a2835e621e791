package dev.allot.sim.metrics;

import java.util.Arrays;

/** A growable series of per-hour GPU-second integrals (index = hour since time 0). */
public final class Hourly {
    private long[] values = new long[24 * 16];
    private int hours;

    void add(int hour, long gpuSeconds) {
        if (hour >= values.length) {
            values = Arrays.copyOf(values, Math.max(values.length * 2, hour + 1));
        }
        values[hour] += gpuSeconds;
        if (hour >= hours) {
            hours = hour + 1;
        }
    }

    /** GPU-seconds in hour {@code h} (0 beyond the recorded range). */
    public long get(int hour) {
        return hour < values.length ? values[hour] : 0;
    }

    /** GPU-hours in hour {@code h}, i.e. the mean number of GPUs over that hour. */
    public double gpuHours(int hour) {
        return get(hour) / 3600.0;
    }

    /** Number of hours with recorded values. */
    public int hours() {
        return hours;
    }

    /** Sum of GPU-seconds over hours [from, to). */
    public long sum(int from, int to) {
        long s = 0;
        for (int h = Math.max(0, from); h < to && h < values.length; h++) {
            s += values[h];
        }
        return s;
    }
}
