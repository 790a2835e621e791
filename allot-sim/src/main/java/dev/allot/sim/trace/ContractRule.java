package dev.allot.sim.trace;

import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The rule that fills in what a real trace does not say: the scheduling contract each workload would have
 * declared. One settings object, applied the same way to every imported row of every format except
 * {@code native} (whose rows declare their contract themselves):
 *
 * <ol>
 *   <li>A workload whose duration is shorter than {@code debug-if-shorter-than} (15m) is kind {@code debug} and
 *       declares its whole duration as minimum runtime; any other is kind {@code train} and declares
 *       min(duration, {@code min-runtime}) (2h).</li>
 *   <li>A workload longer than {@code resumable-if-longer-than} (1h) is resumable and checkpoints every
 *       {@code checkpoint-every} (30m; {@code 0s} means it never loses progress); shorter ones are not.</li>
 *   <li>A fraction {@code unallocated-fraction} (0.1) of the workloads runs unallocated (minimum runtime 0),
 *       whatever rules 1 and 2 say. The choice is a hash of {@code seed} (1) and the workload's identity (its id
 *       when the trace has ids, else its submission time, allocation, GPUs and duration), so it does not depend
 *       on the order of the rows, and the same seed always picks the same workloads.</li>
 *   <li>Priority is {@code normal}.</li>
 * </ol>
 * The policy's {@code max-min-runtime} (8h) still caps what rule 1 declares, as for any scenario.
 */
public final class ContractRule {
    public static final String DEBUG_IF_SHORTER_THAN = "debug-if-shorter-than";
    public static final String MIN_RUNTIME = "min-runtime";
    public static final String RESUMABLE_IF_LONGER_THAN = "resumable-if-longer-than";
    public static final String CHECKPOINT_EVERY = "checkpoint-every";
    public static final String UNALLOCATED_FRACTION = "unallocated-fraction";
    public static final String SEED = "seed";
    /** The values {@code unallocated-fraction} may take, as words to follow "a number". */
    private static final String FRACTION_RANGE = "from 0 to 1";

    /** Every setting with its default and meaning, in the order they apply. */
    public static final List<SettingSpec> SETTINGS = List.of(
            SettingSpec.duration(DEBUG_IF_SHORTER_THAN, Duration.ofMinutes(15),
                    "shorter workloads are kind debug and protected for their whole duration"),
            SettingSpec.duration(MIN_RUNTIME, Duration.ofHours(2),
                    "minimum runtime of the others: min(duration, this); must be positive"),
            SettingSpec.duration(RESUMABLE_IF_LONGER_THAN, Duration.ofHours(1),
                    "longer workloads are resumable; shorter ones lose their run when preempted"),
            SettingSpec.duration(CHECKPOINT_EVERY, Duration.ofMinutes(30),
                    "how often resumable workloads checkpoint; 0s: they never lose progress"),
            SettingSpec.number(UNALLOCATED_FRACTION, 0.1,
                    "fraction of workloads, chosen by a seeded hash of their identity, that run unallocated (0 to 1)")
                    .withRange(FRACTION_RANGE),
            SettingSpec.integer(SEED, 1, "seed of the unallocated choice"));

    static final String KIND_DEBUG = "debug";
    static final String KIND_TRAIN = "train";

    private final Settings settings;
    private final long debugBelow;
    private final long minRuntime;
    private final long resumableAbove;
    private final long checkpointEvery;
    private final double unallocatedFraction;
    private final long seedHash;

    private ContractRule(Settings settings) {
        this.settings = settings;
        this.debugBelow = settings.duration(DEBUG_IF_SHORTER_THAN).getSeconds();
        this.minRuntime = settings.duration(MIN_RUNTIME).getSeconds();
        this.resumableAbove = settings.duration(RESUMABLE_IF_LONGER_THAN).getSeconds();
        this.checkpointEvery = settings.duration(CHECKPOINT_EVERY).getSeconds();
        this.unallocatedFraction = settings.number(UNALLOCATED_FRACTION);
        this.seedHash = mix(settings.integer(SEED) ^ 0x5DEECE66DL);
    }

    public static ContractRule defaults() {
        return parse(Map.of(), "contract");
    }

    /**
     * Reads the settings (key to text); an unknown key lists the valid ones, a bad value says what was expected.
     *
     * @param where names the source for messages, e.g. {@code --contract} or {@code trace.yaml, section 'contract'}
     */
    public static ContractRule parse(Map<String, String> given, String where) {
        Settings s = Settings.parse(SETTINGS, given, where);
        if (s.duration(MIN_RUNTIME).isZero()) {
            throw new IllegalArgumentException(where + ": setting '" + MIN_RUNTIME
                    + "': expected a positive duration, got 0s (to run everything unallocated, set "
                    + UNALLOCATED_FRACTION + ": 1)");
        }
        double f = s.number(UNALLOCATED_FRACTION);
        if (f < 0 || f > 1) {
            throw new IllegalArgumentException(where + ": setting '" + UNALLOCATED_FRACTION
                    + "': expected a number " + FRACTION_RANGE + ", got "
                    + given.getOrDefault(UNALLOCATED_FRACTION, s.asText().get(UNALLOCATED_FRACTION)).trim());
        }
        return new ContractRule(s);
    }

    public Settings settings() {
        return settings;
    }

    /** The values in their canonical form ({@link Settings#asText}; defaults included), sorted by key, for reports. */
    public SortedMap<String, String> asText() {
        return settings.asText();
    }

    boolean debug(long durationSeconds) {
        return durationSeconds < debugBelow;
    }

    /** The declared minimum runtime of an allocated workload of this duration (rule 1). */
    long minRuntimeSeconds(long durationSeconds) {
        return debug(durationSeconds) ? durationSeconds : Math.min(durationSeconds, minRuntime);
    }

    boolean resumable(long durationSeconds) {
        return durationSeconds > resumableAbove;
    }

    /** Seconds between checkpoints of resumable workloads; 0 when they never lose progress. */
    long checkpointSeconds() {
        return checkpointEvery;
    }

    /** Rule 3 for a workload whose identity hashes to {@code identity} (see {@link #hash(String)}). */
    boolean unallocated(long identity) {
        if (unallocatedFraction <= 0) {
            return false;
        }
        long h = mix(identity ^ seedHash);
        return (h >>> 11) * 0x1.0p-53 < unallocatedFraction;
    }

    /** A 64-bit hash of a text (FNV-1a over its UTF-16 units): the same on every machine and Java version. */
    static long hash(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h = (h ^ s.charAt(i)) * 0x100000001b3L;
        }
        return h;
    }

    /** Folds one more value into an identity hash. */
    static long hash(long h, long value) {
        return mix(h ^ mix(value));
    }

    /** A 64-bit finaliser: every input bit affects every output bit. */
    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        asText().forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return sb.toString();
    }
}
