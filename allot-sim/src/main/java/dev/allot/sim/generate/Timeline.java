package dev.allot.sim.generate;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The submission-time density of one team and one kind over the horizon, hour by hour: the kind's hourly weight
 * times, on a burst day, the burst factor (weekend or not), and otherwise the team's day factor times the kind's
 * weekend factor on Saturdays and Sundays. Sampling picks an hour in proportion to its weight, then a uniform
 * second within it.
 */
final class Timeline {
    private final double[] cumulative;

    /** A team's per-day multipliers; {@code burst[d]} marks days whose factor replaces the weekend factor. */
    record Activity(double[] factor, boolean[] burst) {
    }

    Timeline(int days, Activity activity, TimeProfile profile) {
        cumulative = new double[days * 24];
        double sum = 0;
        for (int h = 0; h < cumulative.length; h++) {
            int day = h / 24;
            double dayWeight = activity.burst()[day] ? activity.factor()[day]
                    : activity.factor()[day] * (TimeProfile.isWeekend(day) ? profile.weekend() : 1.0);
            sum += profile.hourWeight(h) * dayWeight;
            cumulative[h] = sum;
        }
        if (!(sum > 0)) {
            // a profile with no weight anywhere: spread submissions evenly rather than fail
            for (int h = 0; h < cumulative.length; h++) {
                cumulative[h] = h + 1;
            }
        }
    }

    /** A submission time in whole seconds from the start of the scenario. */
    long sample(SplittableRandom rng) {
        double u = rng.nextDouble() * cumulative[cumulative.length - 1];
        int i = Arrays.binarySearch(cumulative, u);
        int hour = i >= 0 ? i + 1 : -i - 1;
        // an exact hit on a boundary belongs to the next hour; skip hours of zero weight
        while (hour < cumulative.length - 1 && (hour > 0 ? cumulative[hour] - cumulative[hour - 1] : cumulative[0]) <= 0) {
            hour++;
        }
        hour = Math.min(hour, cumulative.length - 1);
        return hour * 3600L + rng.nextInt(3600);
    }
}
