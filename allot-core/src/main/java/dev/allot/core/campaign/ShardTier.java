package dev.allot.core.campaign;

/** Which contract a shard's workload runs under: charged and protected, or free on idle GPUs. */
public enum ShardTier {
    /** Charged to the campaign's allocation with the campaign's minimum runtime. */
    PROTECTED,
    /** Minimum runtime 0: free, uncharged, always preemptible. */
    UNALLOCATED;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
