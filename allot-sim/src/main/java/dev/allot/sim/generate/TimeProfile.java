package dev.allot.sim.generate;

import java.util.List;

/**
 * When in the week a kind of work is submitted: a relative weight for each hour of the day, multiplied by
 * {@code weekend} on Saturdays and Sundays. The scenario starts on a Monday at 00:00, so day 5 and day 6 of each
 * week are the weekend. Only ratios matter: the weights shape the submission-time density, not the volume.
 *
 * @param hourly 24 weights, hour 0 (00:00-01:00) first
 */
public record TimeProfile(List<Double> hourly, double weekend) {
    public TimeProfile {
        hourly = List.copyOf(hourly);
        if (hourly.size() != 24) {
            throw new IllegalArgumentException("a time profile needs 24 hourly weights, got " + hourly.size());
        }
        for (double w : hourly) {
            if (!(w >= 0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException("hourly weights must be finite and >= 0, got " + w);
            }
        }
        if (!(weekend >= 0) || Double.isInfinite(weekend)) {
            throw new IllegalArgumentException("the weekend factor must be finite and >= 0, got " + weekend);
        }
    }

    /**
     * People at their desks: near zero at night (0.05 from 00:00 to 07:00), ramping up from 07:00 (0.4), full from
     * 09:00 to 18:00 with a lunch dip (0.7 at 12:00-13:00), tailing off in the evening (0.4 until 21:00, then 0.15);
     * weekends at 0.2 of a weekday.
     */
    public static final TimeProfile OFFICE_HOURS = new TimeProfile(List.of(
            0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.4, 0.4, 1.0, 1.0, 1.0,
            0.7, 1.0, 1.0, 1.0, 1.0, 1.0, 0.4, 0.4, 0.4, 0.15, 0.15, 0.15), 0.2);

    /**
     * Long runs and scripted submissions: launched mostly in the working day but also in the evening before people
     * leave (0.8 from 18:00 to 23:00) and by pipelines at night (0.3); weekends at 0.5.
     */
    public static final TimeProfile LAUNCH = new TimeProfile(List.of(
            0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.6, 0.6, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8, 0.8, 0.8, 0.8, 0.8, 0.4), 0.5);

    /** The weight of hour {@code hour} of the scenario (hour 0 is Monday 00:00), ignoring the weekend factor. */
    public double hourWeight(long hour) {
        return hourly.get((int) (hour % 24));
    }

    /** Whether day {@code day} of the scenario (day 0 is a Monday) is a Saturday or a Sunday. */
    public static boolean isWeekend(long day) {
        return day % 7 >= 5;
    }
}
