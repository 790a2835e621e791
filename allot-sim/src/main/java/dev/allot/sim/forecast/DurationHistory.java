package dev.allot.sim.forecast;

import dev.allot.core.model.Durations;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Durations from what a workload declares, else from the measured running times of finished work like it, else a
 * stated default.
 *
 * <p><b>Like it</b> means, most specific first: the same user, allocation, kind and GPU count; the same allocation,
 * kind and GPUs; the same allocation and kind; the same kind; any work. The first of these with at least
 * {@link #MIN_SAMPLES} finished runs is used, keeping the latest {@link #KEEP} of each. A draw picks one of those
 * runs at random among the ones longer than what the workload has already run (work that has run 3 hours is not
 * going to stop at 2); when none is longer, it assumes the work runs half as long again as it has (at least a
 * minute more), as nothing measured says otherwise.
 *
 * <p>Not thread-safe while it learns; a forecast reads a {@link #copy()}.
 */
public final class DurationHistory implements DurationModel {
    /** Runs a group needs before its durations are trusted. */
    public static final int MIN_SAMPLES = 5;
    /** Runs kept per group (the latest). */
    public static final int KEEP = 200;

    private final Duration defaultDuration;
    private final Function<WorkloadSpec, OptionalLong> declared;
    private final Map<String, Samples> groups;

    /**
     * @param defaultDuration what work is assumed to run when nothing is declared or measured
     * @param declared        the duration a workload declared, if any (the live service's optional {@code duration};
     *                        a simulated workload declares none: its duration is the truth a forecast must not see)
     */
    public DurationHistory(Duration defaultDuration, Function<WorkloadSpec, OptionalLong> declared) {
        this(defaultDuration, declared, new HashMap<>());
    }

    private DurationHistory(Duration defaultDuration, Function<WorkloadSpec, OptionalLong> declared,
                            Map<String, Samples> groups) {
        if (defaultDuration.isZero() || defaultDuration.isNegative()) {
            throw new IllegalArgumentException("the default duration must be positive, not " + defaultDuration);
        }
        this.defaultDuration = defaultDuration;
        this.declared = declared;
        this.groups = groups;
    }

    /** A workload declares nothing (the simulator's case). */
    public static Function<WorkloadSpec, OptionalLong> nothingDeclared() {
        return s -> OptionalLong.empty();
    }

    /** A copy that later learning of this one does not change. */
    public DurationHistory copy() {
        Map<String, Samples> c = new HashMap<>(groups.size() * 2);
        groups.forEach((k, v) -> c.put(k, v.copy()));
        return new DurationHistory(defaultDuration, declared, c);
    }

    /** Learns that a workload like {@code spec} ran {@code runSeconds} in all and finished. */
    public void learn(WorkloadSpec spec, long runSeconds) {
        if (runSeconds <= 0) {
            return;
        }
        for (String key : keys(spec)) {
            groups.computeIfAbsent(key, k -> new Samples()).add(runSeconds);
        }
    }

    @Override
    public long drawSeconds(WorkloadSpec spec, long doneSeconds, SplittableRandom random) {
        OptionalLong d = declared.apply(spec);
        if (d.isPresent()) {
            return Math.max(d.getAsLong(), doneSeconds + 60);
        }
        Samples s = group(spec);
        if (s == null) {
            return Math.max(defaultDuration.getSeconds(), beyond(doneSeconds));
        }
        long[] sorted = s.sorted();
        int from = upperBound(sorted, doneSeconds);
        if (from == sorted.length) {
            return beyond(doneSeconds);
        }
        return sorted[from + random.nextInt(sorted.length - from)];
    }

    @Override
    public String basis(WorkloadSpec spec) {
        if (declared.apply(spec).isPresent()) {
            return "declared";
        }
        Samples s = group(spec);
        if (s == null) {
            return "default " + Durations.format(defaultDuration);
        }
        return "history of " + Math.min(s.count, KEEP) + " finished runs of " + s.label;
    }

    private static long beyond(long doneSeconds) {
        return doneSeconds + Math.max(60, doneSeconds / 2);
    }

    private Samples group(WorkloadSpec spec) {
        for (String key : keys(spec)) {
            Samples s = groups.get(key);
            if (s != null && s.count >= MIN_SAMPLES) {
                if (s.label == null) {
                    s.label = label(key, spec);
                }
                return s;
            }
        }
        return null;
    }

    private static String[] keys(WorkloadSpec s) {
        return new String[] {
                "u\u0000" + s.user() + "\u0000" + s.allocation() + "\u0000" + s.kind() + "\u0000" + s.gpus(),
                "a\u0000" + s.allocation() + "\u0000" + s.kind() + "\u0000" + s.gpus(),
                "k\u0000" + s.allocation() + "\u0000" + s.kind(),
                "n\u0000" + s.kind(),
                "*"};
    }

    private static String label(String key, WorkloadSpec s) {
        return switch (key.charAt(0)) {
            case 'u' -> "user " + s.user() + ", " + s.allocation() + ", " + s.kind() + ", " + s.gpus() + " GPUs";
            case 'a' -> s.allocation() + ", " + s.kind() + ", " + s.gpus() + " GPUs";
            case 'k' -> s.allocation() + ", " + s.kind();
            case 'n' -> "kind " + s.kind();
            default -> "any work";
        };
    }

    /** The first index whose value is above {@code x} in a sorted array. */
    private static int upperBound(long[] a, long x) {
        int lo = 0;
        int hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] <= x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The latest {@link #KEEP} runs of one group, in a ring, with a sorted view made on demand. */
    private static final class Samples {
        final long[] ring = new long[KEEP];
        int count;
        long[] sorted;
        String label;

        void add(long v) {
            ring[count % KEEP] = v;
            count++;
            sorted = null;
        }

        long[] sorted() {
            if (sorted == null) {
                sorted = Arrays.copyOf(ring, Math.min(count, KEEP));
                Arrays.sort(sorted);
            }
            return sorted;
        }

        Samples copy() {
            Samples c = new Samples();
            System.arraycopy(ring, 0, c.ring, 0, KEEP);
            c.count = count;
            c.sorted = sorted;
            c.label = label;
            return c;
        }
    }
}
