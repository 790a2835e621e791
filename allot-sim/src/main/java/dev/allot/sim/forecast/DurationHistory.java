package dev.allot.sim.forecast;

import dev.allot.core.model.Durations;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Durations from what a workload declares, else from the measured running times of finished work like it (and, given
 * a state, of the work like it still running), else a stated default.
 *
 * <p><b>Like it</b> means, most specific first: the same user, allocation, kind and GPU count; the same allocation,
 * kind and GPUs; the same allocation and kind; the same kind; any work. The first of these with at least
 * {@link #MIN_SAMPLES} finished runs is used, keeping the latest {@link #KEEP} of each. A draw picks one of those
 * runs at random among the ones longer than what the workload has already run (work that has run 3 hours is not
 * going to stop at 2); when none is longer, it assumes the work runs half as long again as it has (at least a
 * minute more), as nothing measured says otherwise.
 *
 * <p><b>Given a state</b> ({@link #given}), what a forecast uses: each group's runs become a cohort by start, with the
 * work of the group still running in that state counted as running at least as long as it has
 * ({@link SurvivalSample}, Kaplan-Meier). The cohort is the work that started after the oldest end the group still
 * keeps (all of it finished since, so all of it is kept) or all work while fewer than {@link #KEEP} runs are known.
 * Learning from finished work alone is biased both ways on a busy cluster: towards short runs while long ones that
 * started recently are still going, and towards long ones when a wave of long work that started long ago ends.
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

    /** Learns that a workload like {@code spec} ran {@code runSeconds} in all and finished (when is not known). */
    public void learn(WorkloadSpec spec, long runSeconds) {
        learn(spec, runSeconds, Long.MIN_VALUE, Long.MIN_VALUE);
    }

    /**
     * Learns that a workload like {@code spec} first started at {@code firstStartSeconds}, ran {@code runSeconds} in
     * all and finished at {@code endSeconds} ({@code Long.MIN_VALUE}: not known). Learn in the order work ends.
     */
    public void learn(WorkloadSpec spec, long runSeconds, long firstStartSeconds, long endSeconds) {
        if (runSeconds <= 0) {
            return;
        }
        for (String key : keys(spec)) {
            groups.computeIfAbsent(key, k -> new Samples()).add(runSeconds, firstStartSeconds, endSeconds);
        }
    }

    /**
     * This history with the work running in {@code state} counted as running at least as long as it has (see the
     * class comment). Read-only; it sees later learning of this history, so give it a {@link #copy()}.
     */
    @Override
    public DurationModel given(ClusterState state) {
        long now = state.now();
        Map<String, List<long[]>> running = new HashMap<>(); // key -> {first start, run so far}
        for (Job j : state.jobs()) {
            if (j.state() != JobState.RUNNING) {
                continue;
            }
            long done = j.progressSeconds() + Math.max(0, now - j.attemptStartSeconds());
            if (done <= 0) {
                continue;
            }
            long[] run = {j.firstStartSeconds() < 0 ? j.attemptStartSeconds() : j.firstStartSeconds(), done};
            for (String key : keys(j.spec())) {
                if (groups.containsKey(key)) {
                    running.computeIfAbsent(key, k -> new ArrayList<>()).add(run);
                }
            }
        }
        return new AtState(running);
    }

    /** The history at one state's instant: each group's cohort with its running work, built when first drawn from. */
    private final class AtState implements DurationModel {
        private final Map<String, List<long[]>> running;
        private final Map<Samples, SurvivalSample> cohorts = new HashMap<>();

        AtState(Map<String, List<long[]>> running) {
            this.running = running;
        }

        @Override
        public long drawSeconds(WorkloadSpec spec, long doneSeconds, SplittableRandom random) {
            OptionalLong d = declared.apply(spec);
            if (d.isPresent()) {
                return Math.max(d.getAsLong(), doneSeconds + 60);
            }
            String key = groupKey(spec);
            if (key == null) {
                return Math.max(defaultDuration.getSeconds(), SurvivalSample.beyond(doneSeconds));
            }
            Samples s = groups.get(key);
            SurvivalSample cohort = cohorts.computeIfAbsent(s, x -> x.cohort(running.getOrDefault(key, List.of())));
            return cohort.draw(doneSeconds, random);
        }

        @Override
        public String basis(WorkloadSpec spec) {
            String key = groupKey(spec);
            List<long[]> r = key == null ? List.of() : running.getOrDefault(key, List.of());
            String b = DurationHistory.this.basis(spec);
            return r.isEmpty() || declared.apply(spec).isPresent() ? b : b + " and " + r.size() + " still running";
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
        int from = SurvivalSample.upperBound(sorted, doneSeconds);
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
        return SurvivalSample.beyond(doneSeconds);
    }

    private Samples group(WorkloadSpec spec) {
        String key = groupKey(spec);
        if (key == null) {
            return null;
        }
        Samples s = groups.get(key);
        if (s.label == null) {
            s.label = label(key, spec);
        }
        return s;
    }

    /** The key of the most specific group like {@code spec} with at least {@link #MIN_SAMPLES} runs, or null. */
    private String groupKey(WorkloadSpec spec) {
        for (String key : keys(spec)) {
            Samples s = groups.get(key);
            if (s != null && s.count >= MIN_SAMPLES) {
                return key;
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

    /**
     * The latest {@link #KEEP} runs of one group, in a ring (with when each first started and ended,
     * {@code Long.MIN_VALUE} when not known), with a sorted view made on demand.
     */
    private static final class Samples {
        final long[] ring = new long[KEEP];
        final long[] starts = new long[KEEP];
        final long[] ends = new long[KEEP];
        int count;
        long[] sorted;
        String label;

        void add(long v, long start, long end) {
            ring[count % KEEP] = v;
            starts[count % KEEP] = start;
            ends[count % KEEP] = end;
            count++;
            sorted = null;
        }

        /**
         * The cohort that started after the oldest end kept (all work since, if fewer than {@link #KEEP} are kept or
         * an end is not known), with {@code running} ({first start, run so far}) counted as still going.
         */
        SurvivalSample cohort(List<long[]> running) {
            int n = Math.min(count, KEEP);
            long since = Long.MIN_VALUE;
            if (count > KEEP) {
                since = Long.MAX_VALUE;
                for (int i = 0; i < n; i++) {
                    since = Math.min(since, ends[i]);
                }
            }
            long[] finished = new long[n];
            int f = 0;
            for (int i = 0; i < n; i++) {
                if (since == Long.MIN_VALUE || starts[i] >= since) {
                    finished[f++] = ring[i];
                }
            }
            long[] going = new long[running.size()];
            int g = 0;
            for (long[] r : running) {
                if (r[0] >= since) {
                    going[g++] = r[1];
                }
            }
            if (f == 0) { // nothing finished started since: the kept runs as they are
                return SurvivalSample.of(Arrays.copyOf(ring, n), Arrays.copyOf(going, g));
            }
            return SurvivalSample.of(Arrays.copyOf(finished, f), Arrays.copyOf(going, g));
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
            System.arraycopy(starts, 0, c.starts, 0, KEEP);
            System.arraycopy(ends, 0, c.ends, 0, KEEP);
            c.count = count;
            c.sorted = sorted;
            c.label = label;
            return c;
        }
    }
}
