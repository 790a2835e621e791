package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * New work a forecast expects: the lab's own recent past, replayed. The future is cut into hours; each hour of a run
 * is a copy of the same hour of day on one of the last {@link #DAYS} days, chosen at random per hour and run (with
 * the time of day kept, so nights stay quiet and mornings busy), of the work that was submitted then. With less than
 * a day of history it expects no new work, and says so.
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
        return days == 0 ? "no new work (less than a day of history)"
                : "new work like that of the same hours on the last " + (days == 1 ? "day" : days + " days");
    }

    @Override
    public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                   SplittableRandom random) {
        int days = daysAvailable(now);
        List<WorkloadSpec> out = new ArrayList<>();
        if (days == 0 || past.isEmpty()) {
            return out;
        }
        List<WorkloadSpec> list = new ArrayList<>(past);
        for (long from = now; from < untilSeconds; from += HOUR) {
            long lag = (1 + random.nextInt(days)) * DAY;
            long lo = from - lag;
            long hi = Math.min(from + HOUR, untilSeconds) - lag;
            int i = firstAtOrAfter(list, lo + (from == now ? 1 : 0));
            for (; i < list.size() && list.get(i).submitSeconds() < hi; i++) {
                WorkloadSpec w = list.get(i);
                long d = durations.drawSeconds(w, 0, random);
                out.add(new WorkloadSpec(prefix + (lag / DAY) + "d-" + w.id(), w.submitSeconds() + lag, w.allocation(), w.user(), w.gpus(),
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
