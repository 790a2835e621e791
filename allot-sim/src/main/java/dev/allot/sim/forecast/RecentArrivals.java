package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * New work a forecast expects: the lab's own recent past, replayed. The future is cut into hours; each hour of a run
 * is a copy of the work submitted in the same hour of day on a recent day, chosen at random per hour and run (the
 * time of day is kept, so nights stay quiet and mornings busy; an hour days ahead copies a day before the forecast,
 * never one after it, so a long horizon sees new work to its end). Recent days weigh most, as bursts last days:
 * yesterday 1/2, the day before 1/4, and so on over the last {@link #DAYS} days; and each run draws its own weights
 * around these (each multiplied by a random factor of mean 1, exponentially distributed: a Bayesian bootstrap of
 * the days), so that runs differ in how much of which recent day's work comes, as real weeks differ, instead of
 * all averaging the same days over a long horizon. With less than a day of history, each future hour copies one of
 * the past hours there are; with less than an hour, it expects no new work, and says so.
 *
 * <p>Why this and not a fitted arrival process: it keeps what a fit loses (bursts, the mix of shapes and teams, the
 * daily rhythm) and needs no parameters. Its durations are drawn like any other workload's. Not thread-safe while it
 * learns; a forecast reads a {@link #copy()}.
 */
public final class RecentArrivals implements ArrivalModel {
    /** How many past days a future hour may copy. */
    public static final int DAYS = 7;
    private static final long DAY = 86_400;
    private static final long HOUR = 3_600;

    private final ArrayDeque<WorkloadSpec> past;
    private long firstSeenSeconds = Long.MAX_VALUE;

    public RecentArrivals() {
        this.past = new ArrayDeque<>();
    }

    private RecentArrivals(RecentArrivals src) {
        this.past = new ArrayDeque<>(src.past);
        this.firstSeenSeconds = src.firstSeenSeconds;
    }

    public RecentArrivals copy() {
        return new RecentArrivals(this);
    }

    /**
     * Learns a submission (in time order); forgets what is older than {@link #DAYS} days. {@code sinceSeconds} is
     * when the history began (the simulation's start, the service's first record): days before it are not offered.
     */
    public void learn(WorkloadSpec spec, long sinceSeconds) {
        firstSeenSeconds = Math.min(firstSeenSeconds, sinceSeconds);
        past.addLast(spec);
        long cutoff = spec.submitSeconds() - DAYS * DAY - HOUR;
        while (!past.isEmpty() && past.peekFirst().submitSeconds() < cutoff) {
            past.pollFirst();
        }
    }

    /**
     * One run's weights of the last {@code days} days, cumulative: yesterday 1/2, the day before 1/4, and so on (the
     * rest on the oldest day), each times an exponential factor of mean 1.
     */
    private static double[] dayWeights(int days, SplittableRandom random) {
        double[] cumulative = new double[days];
        double sum = 0;
        for (int d = 1; d <= days; d++) {
            double prior = d < days ? Math.pow(0.5, d) : Math.pow(0.5, days - 1);
            sum += prior * -Math.log(1 - random.nextDouble());
            cumulative[d - 1] = sum;
        }
        return cumulative;
    }

    /** A day (as a lag in seconds) drawn by a run's cumulative weights. */
    private static long sameHourOnARecentDay(double[] cumulative, SplittableRandom random) {
        double u = random.nextDouble() * cumulative[cumulative.length - 1];
        int d = 0;
        while (d < cumulative.length - 1 && cumulative[d] <= u) {
            d++;
        }
        return (d + 1) * DAY;
    }

    /** How many whole past hours (up to a day) a future hour at {@code now} can copy. */
    public int hoursAvailable(long now) {
        if (firstSeenSeconds == Long.MAX_VALUE) {
            return 0;
        }
        return (int) Math.min(24, Math.max(0, (now - firstSeenSeconds) / HOUR));
    }

    /** How many whole past days a future hour at {@code now} can copy. */
    public int daysAvailable(long now) {
        if (firstSeenSeconds == Long.MAX_VALUE) {
            return 0;
        }
        return (int) Math.min(DAYS, Math.max(0, (now - firstSeenSeconds) / DAY));
    }

    @Override
    public String basis(long now) {
        int days = daysAvailable(now);
        int hours = hoursAvailable(now);
        return days > 0 ? "new work like that of the same hour on a recent day (of the last " + days + ")"
                : hours > 0 ? "new work like that of a recent hour (of the last " + hours + ")"
                : "no new work (less than an hour of history)";
    }

    @Override
    public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                   SplittableRandom random) {
        int days = daysAvailable(now);
        int hours = hoursAvailable(now);
        List<WorkloadSpec> out = new ArrayList<>();
        if (hours == 0 || past.isEmpty()) {
            return out;
        }
        List<WorkloadSpec> list = new ArrayList<>(past);
        double[] weights = days > 0 ? dayWeights(days, random) : null;
        for (long from = now; from < untilSeconds; from += HOUR) {
            // the copied hour is in the past of the forecast however far ahead the future hour is: the same hour of
            // day, whole days before the forecast's instant
            long ahead = (from - now) / DAY * DAY;
            long lag = days > 0 ? ahead + sameHourOnARecentDay(weights, random)
                    : (from - now) + (1 + random.nextInt(hours)) * HOUR;
            long lo = from - lag;
            long hi = Math.min(from + HOUR, untilSeconds) - lag;
            int i = firstAtOrAfter(list, lo + (from == now ? 1 : 0));
            for (; i < list.size() && list.get(i).submitSeconds() < hi; i++) {
                WorkloadSpec w = list.get(i);
                long d = durations.drawSeconds(w, 0, random);
                out.add(new WorkloadSpec(prefix + (lag / HOUR) + "h-" + w.id(), w.submitSeconds() + lag, w.allocation(), w.user(), w.gpus(),
                        w.gpusPerNode(), Duration.ofSeconds(d), w.minRuntime(), w.resumable(), w.priority(),
                        w.checkpointEvery(), w.kind()));
            }
        }
        out.sort((a, b) -> a.submitSeconds() != b.submitSeconds() ? Long.compare(a.submitSeconds(), b.submitSeconds())
                : a.id().compareTo(b.id()));
        return out;
    }

    private static int firstAtOrAfter(List<WorkloadSpec> list, long t) {
        int lo = 0;
        int hi = list.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (list.get(mid).submitSeconds() < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
