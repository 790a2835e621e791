package dev.allot.core.campaign;

/**
 * How much of a campaign may run protected at once: at most {@code maxShards} shards holding at most {@code maxGpus}
 * GPUs together. A campaign declares one or the other; the other is then unlimited.
 */
public record ProtectedSlots(int maxShards, int maxGpus) {
    public static final int UNLIMITED = Integer.MAX_VALUE;

    public ProtectedSlots {
        if (maxShards < 0 || maxGpus < 0) {
            throw new IllegalArgumentException("protected slots must be at least 0, got " + maxShards + " shards and "
                    + maxGpus + " GPUs");
        }
    }

    public static ProtectedSlots shards(int n) {
        return new ProtectedSlots(n, UNLIMITED);
    }

    public static ProtectedSlots gpus(int n) {
        return new ProtectedSlots(UNLIMITED, n);
    }

    public static ProtectedSlots none() {
        return new ProtectedSlots(0, 0);
    }

    public static ProtectedSlots unlimited() {
        return new ProtectedSlots(UNLIMITED, UNLIMITED);
    }

    /** Whether one more shard of {@code gpus} fits beside {@code shards} shards holding {@code usedGpus}. */
    public boolean fits(int shards, long usedGpus, int gpus) {
        return shards < maxShards && usedGpus + gpus <= maxGpus;
    }

    /** "2 shards", "16 GPUs", "none", "all", for tables and explanations. */
    public String describe() {
        if (maxShards == 0 || maxGpus == 0) {
            return "none";
        }
        if (maxShards == UNLIMITED && maxGpus == UNLIMITED) {
            return "all";
        }
        return maxGpus == UNLIMITED ? maxShards + " shard" + (maxShards == 1 ? "" : "s")
                : maxShards == UNLIMITED ? maxGpus + " GPUs" : maxShards + " shards, " + maxGpus + " GPUs";
    }
}
