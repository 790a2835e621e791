package dev.allot.server.store;

import dev.allot.core.campaign.ProtectedSlots;
import dev.allot.core.campaign.ShardBrakes;
import dev.allot.core.model.Priority;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A campaign as stored: many shards of one job submitted together to one allocation by its owner, each shard run as
 * an ordinary workload of the owner ({@link CampaignShard}). What it was submitted with, its brakes' caps (which its
 * owner may change) and where it stands.
 *
 * @param command         the program and its arguments, {@code {shard}} standing for the shard's index
 * @param environment     variables added to every shard's workload (Allot adds {@code ALLOT_CAMPAIGN},
 *                        {@code ALLOT_SHARD} and, at each launch, {@code ALLOT_RESUME_FROM})
 * @param gpus            GPUs one shard's run takes
 * @param minRuntimeSeconds the minimum runtime of a protected shard (an unallocated one has none)
 * @param protectedShards how many shards may run protected at once, or null when {@code protectedGpus} says
 * @param protectedGpus   how many GPUs its protected shards may hold at once, or null when {@code protectedShards} says
 * @param secondsPerUnit  the rate the owner declared, used until one is measured; null when none was
 * @param brakes          the caps per shard and for the campaign ({@link ShardBrakes#NONE} for none)
 * @param failureRetries  how many times a shard whose workload failed is queued again by itself (0: held at the first
 *                        failure until a person retries it; {@link #MAX_FAILURE_RETRIES} at most)
 */
public record Campaign(
        String name,
        String owner,
        String allocationPath,
        List<String> command,
        SortedMap<String, String> environment,
        int gpus,
        long minRuntimeSeconds,
        Integer protectedShards,
        Integer protectedGpus,
        Double secondsPerUnit,
        Priority priority,
        ShardBrakes brakes,
        int failureRetries,
        State state,
        long createdAtMillis) {

    /**
     * At most this many automatic retries of a failed shard: a program that fails again and again is a person's to
     * look at, and every retry spends GPU time (the brakes' caps hold a shard whatever its retries).
     */
    public static final int MAX_FAILURE_RETRIES = 100;
    /** At most this many characters in a campaign's name. */
    public static final int MAX_NAME = 64;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_NAME - 1) + "}");
    /** What a name must be, for errors. */
    public static final String NAME_EXPECTED = "1 to " + MAX_NAME + " letters, digits, '.', '_' or '-', starting with"
            + " a letter or a digit, e.g. eval-2026-03";

    /** Where a campaign stands: running until every shard is done, or cancelled by a person. */
    public enum State {
        RUNNING, DONE, CANCELLED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static State parse(String label) {
            for (State s : values()) {
                if (s.label().equals(label)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown campaign state '" + label + "'");
        }
    }

    public Campaign {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(priority, "priority");
        Objects.requireNonNull(brakes, "brakes");
        Objects.requireNonNull(state, "state");
        command = List.copyOf(command);
        environment = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(environment));
        Allocation.checkPath(allocationPath);
        if (!validName(name)) {
            throw new IllegalArgumentException("campaign name '" + name + "': expected " + NAME_EXPECTED);
        }
        if ((protectedShards == null) == (protectedGpus == null)) {
            throw new IllegalArgumentException("campaign " + name + ": give protected shards or protected GPUs, one"
                    + " of them");
        }
        if (gpus < 1 || minRuntimeSeconds < 1) {
            throw new IllegalArgumentException("campaign " + name + ": gpus " + gpus + ", minimum runtime "
                    + minRuntimeSeconds + " s; expected both at least 1");
        }
        if (failureRetries < 0 || failureRetries > MAX_FAILURE_RETRIES) {
            throw new IllegalArgumentException("campaign " + name + ": failure retries " + failureRetries
                    + "; expected 0 to " + MAX_FAILURE_RETRIES);
        }
    }

    public static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** How much of it may run protected at once. */
    public ProtectedSlots slots() {
        return protectedShards != null ? ProtectedSlots.shards(protectedShards) : ProtectedSlots.gpus(protectedGpus);
    }

    /** The declared rate, 0 when none (what the core's estimator takes). */
    public double declaredSecondsPerUnit() {
        return secondsPerUnit == null ? 0 : secondsPerUnit;
    }

    /** The command of shard {@code index}: every {@code {shard}} replaced by the index. */
    public List<String> commandOf(int index) {
        return command.stream().map(a -> a.replace("{shard}", Integer.toString(index))).toList();
    }
}
