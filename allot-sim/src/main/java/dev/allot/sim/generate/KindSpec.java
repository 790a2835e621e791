package dev.allot.sim.generate;

import dev.allot.core.model.Priority;
import java.time.Duration;
import java.util.Objects;

/**
 * How one kind of work (the {@code kind} column) is generated: how much of it there is, its shape, its scheduling
 * contract, and when it is submitted. {@link VolumeSplit} (the volume), {@link WorkloadStream} (the shape and the
 * contract) and {@link Timeline} (the profile) document how the fields are used.
 *
 * @param name             the value of the {@code kind} column
 * @param defaultAffinity  how much of this kind a team does unless {@link GeneratorSpec.Team#affinity()} says
 *                         otherwise (0 means only teams that name the kind do it)
 * @param volume           how much of this kind the whole cluster receives
 * @param gpus             the GPU count of one workload
 * @param wholeNodes       whether a GPU count that is a multiple of the node size asks for whole nodes
 *                         ({@code gpus_per_node} = the node size, a gang); otherwise any packing
 * @param duration         the work each workload needs
 * @param granularity      durations are rounded to a multiple of this (at least one granule)
 * @param minRuntime       how the declared minimum runtime is chosen
 * @param resumable        the probability that a workload is resumable
 * @param keepsProgress    among resumable workloads, the probability of an empty {@code checkpoint_every}
 *                         (progress is never lost on preemption)
 * @param checkpointEvery  the checkpoint interval of the other resumable workloads
 * @param priority         declared priority
 * @param inflatedPriority declared priority in teams that inflate their priorities
 * @param profile          when in the week submissions happen
 * @param batchMin         the smallest batch: workloads submitted together with one shape (1 for single jobs)
 * @param batchMax         the largest batch
 * @param batchJitter      within a batch, each duration is the batch's drawn duration times
 *                         {@code exp(batchJitter * Z)}, Z standard normal, kept within the duration's bounds
 */
public record KindSpec(
        String name,
        double defaultAffinity,
        Volume volume,
        Weighted<Integer> gpus,
        boolean wholeNodes,
        LogNormal duration,
        Duration granularity,
        MinRuntime minRuntime,
        double resumable,
        double keepsProgress,
        Weighted<Duration> checkpointEvery,
        Weighted<Priority> priority,
        Weighted<Priority> inflatedPriority,
        TimeProfile profile,
        int batchMin,
        int batchMax,
        double batchJitter) {

    public KindSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(volume, "volume");
        Objects.requireNonNull(gpus, "gpus");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(granularity, "granularity");
        Objects.requireNonNull(minRuntime, "minRuntime");
        Objects.requireNonNull(checkpointEvery, "checkpointEvery");
        Objects.requireNonNull(priority, "priority");
        Objects.requireNonNull(inflatedPriority, "inflatedPriority");
        Objects.requireNonNull(profile, "profile");
        if (name.isBlank() || name.contains(",")) {
            throw new IllegalArgumentException("kind names must be non-blank and contain no comma, got '" + name + "'");
        }
        if (!(defaultAffinity >= 0) || Double.isInfinite(defaultAffinity)) {
            throw new IllegalArgumentException("kind " + name + ": defaultAffinity must be finite and >= 0");
        }
        for (int g : gpus.values()) {
            if (g < 1) {
                throw new IllegalArgumentException("kind " + name + ": GPU counts must be at least 1, got " + g);
            }
        }
        if (granularity.isNegative() || granularity.isZero()) {
            throw new IllegalArgumentException("kind " + name + ": granularity must be positive");
        }
        checkProbability(name, "resumable", resumable);
        checkProbability(name, "keepsProgress", keepsProgress);
        if (batchMin < 1 || batchMax < batchMin) {
            throw new IllegalArgumentException("kind " + name + ": need 1 <= batchMin <= batchMax, got " + batchMin
                    + ".." + batchMax);
        }
        if (!(batchJitter >= 0) || Double.isInfinite(batchJitter)) {
            throw new IllegalArgumentException("kind " + name + ": batchJitter must be finite and >= 0");
        }
    }

    private static void checkProbability(String kind, String field, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("kind " + kind + ": " + field + " must be a probability, got " + p);
        }
    }

    /** A copy with the volume multiplied by {@code factor}. */
    public KindSpec scaled(double factor) {
        return new KindSpec(name, defaultAffinity, volume.scaled(factor), gpus, wholeNodes, duration, granularity,
                minRuntime, resumable, keepsProgress, checkpointEvery, priority, inflatedPriority, profile, batchMin,
                batchMax, batchJitter);
    }

    /**
     * How much work of a kind the cluster receives, relative to its size and the scenario's length, so that the
     * regime (how overloaded the cluster is) stays the same when the cluster or the horizon changes.
     *
     * @param value a count of workloads per GPU-day of capacity ({@link Unit#JOBS_PER_GPU_DAY}), or offered
     *              GPU-hours per GPU-hour of capacity ({@link Unit#LOAD}: 1.0 would keep every GPU busy)
     */
    public record Volume(Unit unit, double value) {
        public Volume {
            Objects.requireNonNull(unit, "unit");
            if (!(value >= 0) || Double.isInfinite(value)) {
                throw new IllegalArgumentException("a volume must be finite and >= 0, got " + value);
            }
        }

        public static Volume jobsPerGpuDay(double value) {
            return new Volume(Unit.JOBS_PER_GPU_DAY, value);
        }

        public static Volume load(double value) {
            return new Volume(Unit.LOAD, value);
        }

        public Volume scaled(double factor) {
            return new Volume(unit, value * factor);
        }

        public enum Unit {
            /** A fixed count: workloads per GPU of the cluster per day of the scenario. */
            JOBS_PER_GPU_DAY,
            /** A GPU-hour budget: offered GPU-hours per GPU-hour of capacity; workloads are drawn until it is spent. */
            LOAD
        }
    }

    /** How a workload's declared minimum runtime is chosen. */
    public sealed interface MinRuntime {
        /** Unallocated: min_runtime 0, never charged, always preemptible. */
        record None() implements MinRuntime {
        }

        /** Drawn from a list independently of the duration, as people pick a round number. */
        record Declared(Weighted<Duration> choices) implements MinRuntime {
            public Declared {
                Objects.requireNonNull(choices, "choices");
                for (Duration d : choices.values()) {
                    if (d.isNegative() || d.isZero()) {
                        throw new IllegalArgumentException("declared minimum runtimes must be positive, got " + d);
                    }
                }
            }
        }

        /**
         * A session booked for its whole length: the duration rounded up to a multiple of {@code roundUpTo},
         * at most {@code cap}; with probability {@code longAskProbability} the owner asks for {@code longAsk} instead.
         */
        record Session(Duration roundUpTo, Duration cap, double longAskProbability, Duration longAsk)
                implements MinRuntime {
            public Session {
                Objects.requireNonNull(roundUpTo, "roundUpTo");
                Objects.requireNonNull(cap, "cap");
                Objects.requireNonNull(longAsk, "longAsk");
                if (roundUpTo.isNegative() || roundUpTo.isZero() || cap.isNegative() || cap.isZero()
                        || longAsk.isNegative() || longAsk.isZero()) {
                    throw new IllegalArgumentException("session rounding, cap and long ask must be positive");
                }
                checkProbability("session", "longAskProbability", longAskProbability);
            }
        }
    }
}
