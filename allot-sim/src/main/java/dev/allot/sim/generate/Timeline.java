package dev.allot.sim.generate;

import dev.allot.sim.generate.GeneratorSpec.Bursts;
import dev.allot.sim.generate.GeneratorSpec.Team;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * When workloads are submitted: the submission-time density of one team and one kind over the horizon, hour by hour,
 * and the team's day factors it is built on ({@link #activity}). The kind's hourly weight times, on a burst day, the
 * burst factor (weekend or not), and otherwise the team's day factor times the kind's weekend factor on Saturdays and
 * Sundays. Sampling picks an hour in proportion to its weight, then a uniform second within it.
 *
 * <p>Submissions fall in whole seconds in {@code [0, days x 86400)}; day 0 is a Monday. The backlog is all at 0; the
 * rest almost never is: a workload the timeline puts in the first hour lands on its first second with a chance of
 * one in 3,600 (in {@code lab}, one does over seeds 1-40: a debug job of seed 12). The density over the horizon is
 * hourly: the kind's {@link TimeProfile} weight for the hour of the day, times the weekend factor on Saturdays and
 * Sundays, times the team's factor for the day. A steady team's factor is 1 every day. A bursty team has one episode
 * per {@code daysPerEpisode} days of horizon, placed uniformly in its own slice of the horizon (never on day 0): a
 * quiet spell of {@code quietMinDays..quietMaxDays} days at {@code quietFactor}, then a burst of
 * {@code burstMinDays..burstMaxDays} days at {@code burstFactor} with the weekend factor ignored (a deadline push).
 * The team's volume is fixed, so quiet days move work into the rest of the horizon and bursts concentrate it: on a
 * burst day the team submits several times its usual day.
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

    /** Day factors of a team: 1 every day when steady; quiet spells and bursts when bursty. */
    static Activity activity(Team team, int days, Bursts bursts, SplittableRandom rng) {
        double[] factor = new double[days];
        boolean[] burst = new boolean[days];
        Arrays.fill(factor, 1.0);
        if (team.activity() != GeneratorSpec.Activity.BURSTY) {
            return new Activity(factor, burst);
        }
        int episodes = Math.max(1, days / bursts.daysPerEpisode());
        int segment = days / episodes;
        for (int e = 0; e < episodes; e++) {
            int quiet = bursts.quietMinDays() + rng.nextInt(bursts.quietMaxDays() - bursts.quietMinDays() + 1);
            int loud = bursts.burstMinDays() + rng.nextInt(bursts.burstMaxDays() - bursts.burstMinDays() + 1);
            int start = e * segment;
            int end = e == episodes - 1 ? days : start + segment;
            int earliest = start + (e == 0 && days > 1 ? 1 : 0); // the scenario opens with everybody at work
            int room = end - earliest;
            loud = Math.min(loud, room);
            quiet = Math.min(quiet, room - loud);
            int first = earliest + rng.nextInt(room - quiet - loud + 1);
            for (int d = first; d < first + quiet; d++) {
                factor[d] = bursts.quietFactor();
            }
            for (int d = first + quiet; d < first + quiet + loud; d++) {
                factor[d] = bursts.burstFactor();
                burst[d] = true;
            }
        }
        return new Activity(factor, burst);
    }
}
