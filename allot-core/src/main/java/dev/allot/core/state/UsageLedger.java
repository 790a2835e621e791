package dev.allot.core.state;

/**
 * Charged GPU-seconds per allocation (leaf), over a sliding lookback window and in total.
 *
 * <p>Charges accrue continuously at the rate of the allocation's running allocated GPUs. The window is kept as
 * a ring of fixed buckets: at time t it covers the bucket containing t and the {@code K - 1} before it, where
 * {@code K = ceil(lookback / bucket)}; so it spans between {@code lookback - bucket} and {@code lookback}. With
 * the default one-hour bucket and seven-day lookback the window is 167 to 168 hours. All arithmetic is on
 * whole GPU-seconds (longs): exact and deterministic. Advancing costs O(leaves) plus O(leaves) per bucket
 * boundary crossed, independent of how many workloads ever ran.
 */
public final class UsageLedger {
    private final int leaves;
    private final long bucketSeconds;
    private final int windowBuckets;
    private final long[][] ring;
    private final long[] windowSum;
    private final long[] total;
    private final int[] runningGpus;
    private long currentBucket;
    private long accruedUntil;

    public UsageLedger(int leaves, long lookbackSeconds, long bucketSeconds, long startSeconds) {
        if (bucketSeconds <= 0 || lookbackSeconds <= 0) {
            throw new IllegalArgumentException("lookback and bucket must be positive");
        }
        this.leaves = leaves;
        this.bucketSeconds = bucketSeconds;
        this.windowBuckets = (int) Math.max(1, (lookbackSeconds + bucketSeconds - 1) / bucketSeconds);
        this.ring = new long[leaves][windowBuckets];
        this.windowSum = new long[leaves];
        this.total = new long[leaves];
        this.runningGpus = new int[leaves];
        this.currentBucket = Math.floorDiv(startSeconds, bucketSeconds);
        this.accruedUntil = startSeconds;
    }

    /** Accrues the running charges up to {@code now} and slides the window. Time never goes back. */
    public void advance(long now) {
        if (now < accruedUntil) {
            throw new IllegalArgumentException("time went back from " + accruedUntil + " to " + now);
        }
        long target = Math.floorDiv(now, bucketSeconds);
        if (target - currentBucket > windowBuckets) {
            // A long quiet gap: everything older than the window is gone; only running charges remain.
            long skipTo = target - windowBuckets;
            long skipStart = skipTo * bucketSeconds;
            for (int l = 0; l < leaves; l++) {
                total[l] += (long) runningGpus[l] * (skipStart - accruedUntil);
                java.util.Arrays.fill(ring[l], 0);
                windowSum[l] = 0;
            }
            currentBucket = skipTo;
            accruedUntil = skipStart;
        }
        while (currentBucket < target) {
            long boundary = (currentBucket + 1) * bucketSeconds;
            accrue(boundary);
            currentBucket++;
            int slot = (int) Math.floorMod(currentBucket, (long) windowBuckets);
            for (int l = 0; l < leaves; l++) {
                windowSum[l] -= ring[l][slot];
                ring[l][slot] = 0;
            }
        }
        accrue(now);
    }

    private void accrue(long until) {
        long dt = until - accruedUntil;
        if (dt <= 0) {
            return;
        }
        int slot = (int) Math.floorMod(currentBucket, (long) windowBuckets);
        for (int l = 0; l < leaves; l++) {
            int g = runningGpus[l];
            if (g != 0) {
                long c = g * dt;
                ring[l][slot] += c;
                windowSum[l] += c;
                total[l] += c;
            }
        }
        accruedUntil = until;
    }

    /** Changes the charged running GPUs of a leaf from {@code now} on. */
    public void addRunning(int leaf, int deltaGpus, long now) {
        advance(now);
        runningGpus[leaf] += deltaGpus;
        if (runningGpus[leaf] < 0) {
            throw new IllegalStateException("leaf " + leaf + " would run a negative number of charged GPUs");
        }
    }

    /**
     * Adds past charges: {@code gpus} GPUs of a leaf from {@code from} to {@code to} (seconds, {@code to} at most the
     * time accrued so far). Each second lands in its bucket; what is older than the window counts only in the total.
     */
    public void seed(int leaf, int gpus, long from, long to) {
        if (gpus < 0 || to > accruedUntil) {
            throw new IllegalArgumentException("cannot seed " + gpus + " GPUs from " + from + " to " + to
                    + " (accrued until " + accruedUntil + ")");
        }
        spread(leaf, gpus, from, to);
    }

    /**
     * Takes back charges that accrued for work that had already ended: {@code gpus} GPUs of a leaf from {@code from}
     * to {@code to} (at most the time accrued so far), the exact reverse of {@link #seed}: each second leaves the
     * bucket it landed in, and what is older than the window leaves only the total. For an end its driver learned of
     * late (a probe outage, a restart), which was charged at the running rate until the driver heard of it; the
     * caller takes back only seconds that were charged.
     */
    public void refund(int leaf, int gpus, long from, long to) {
        if (gpus < 0 || to > accruedUntil) {
            throw new IllegalArgumentException("cannot refund " + gpus + " GPUs from " + from + " to " + to
                    + " (accrued until " + accruedUntil + ")");
        }
        spread(leaf, -gpus, from, to);
    }

    /** Adds {@code gpus} (negative: takes them away) from {@code from} to {@code to} into the buckets and total. */
    private void spread(int leaf, int gpus, long from, long to) {
        if (to <= from || gpus == 0) {
            return;
        }
        total[leaf] += (long) gpus * (to - from);
        long oldest = (currentBucket - windowBuckets + 1) * bucketSeconds;
        long t = Math.max(from, oldest);
        while (t < to) {
            long bucket = Math.floorDiv(t, bucketSeconds);
            long end = Math.min(to, (bucket + 1) * bucketSeconds);
            long c = (long) gpus * (end - t);
            ring[leaf][(int) Math.floorMod(bucket, (long) windowBuckets)] += c;
            windowSum[leaf] += c;
            t = end;
        }
    }

    /** Makes this ledger equal to {@code other}, which has the same leaves, window and bucket (a fork's copy). */
    void copyFrom(UsageLedger other) {
        if (other.leaves != leaves || other.windowBuckets != windowBuckets || other.bucketSeconds != bucketSeconds) {
            throw new IllegalArgumentException("ledgers differ in shape: " + other.leaves + " leaves x "
                    + other.windowBuckets + " buckets of " + other.bucketSeconds + " s, not " + leaves + " x "
                    + windowBuckets + " of " + bucketSeconds + " s");
        }
        for (int l = 0; l < leaves; l++) {
            System.arraycopy(other.ring[l], 0, ring[l], 0, windowBuckets);
        }
        System.arraycopy(other.windowSum, 0, windowSum, 0, leaves);
        System.arraycopy(other.total, 0, total, 0, leaves);
        System.arraycopy(other.runningGpus, 0, runningGpus, 0, leaves);
        currentBucket = other.currentBucket;
        accruedUntil = other.accruedUntil;
    }

    /** Charged GPU-seconds of a leaf inside the window, up to the last {@link #advance}. */
    public long windowGpuSeconds(int leaf) {
        return windowSum[leaf];
    }

    /** Charged GPU-seconds of a leaf since the start, up to the last {@link #advance}. */
    public long totalGpuSeconds(int leaf) {
        return total[leaf];
    }

    public int runningGpus(int leaf) {
        return runningGpus[leaf];
    }

    public long windowSeconds() {
        return windowBuckets * bucketSeconds;
    }

    public long bucketSeconds() {
        return bucketSeconds;
    }
}
