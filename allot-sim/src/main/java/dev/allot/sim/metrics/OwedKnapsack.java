package dev.allot.sim.metrics;

/**
 * The most of what is owed that any schedule could pay at one instant: each allocation is owed
 * min(quota, GPUs its allocated work asks for), it can only be given whole jobs of its own demand, and all of them
 * share the healthy GPUs. A group knapsack over the allocations, one group per allocation, whose options are the
 * GPU counts its jobs can add up to, each worth min(count, quota).
 *
 * <p>Why: the hourly paid fraction says how much of what was owed a policy paid, not how much could have been paid.
 * When jobs are larger than what their allocation is owed (a 5% team's 128-GPU gang), no scheduler can pay every
 * allocation at once, and this says how far that goes. It is a relaxation, so an upper bound: it ignores nodes (a
 * gang's shape), protection (nothing has to wait for a minimum runtime) and the cost of preempting.
 */
final class OwedKnapsack {
    private OwedKnapsack() {
    }

    /**
     * One allocation's demand at an instant: {@code counts[i]} jobs of {@code sizes[i]} GPUs each (allocated work
     * submitted and not finished, waiting or running), and its quota (entitlement x healthy GPUs).
     */
    record Demand(double quotaGpus, int[] sizes, int[] counts) {
        long totalGpus() {
            long sum = 0;
            for (int i = 0; i < sizes.length; i++) {
                sum += (long) sizes[i] * counts[i];
            }
            return sum;
        }
    }

    /** The most paid GPUs (sum over allocations of min(given, quota)) when at most {@code capacityGpus} are given. */
    static double mostPaid(int capacityGpus, Demand[] demands) {
        double[] best = new double[capacityGpus + 1]; // best[c]: the most paid using at most c GPUs
        double[] next = new double[capacityGpus + 1];
        for (Demand d : demands) {
            if (d.totalGpus() == 0 || d.quotaGpus() <= 0) {
                continue;
            }
            System.arraycopy(best, 0, next, 0, best.length);
            for (int x : worthGiving(d, capacityGpus)) {
                double value = Math.min(x, d.quotaGpus());
                for (int c = capacityGpus; c >= x; c--) {
                    double v = best[c - x] + value;
                    if (v > next[c]) {
                        next[c] = v;
                    }
                }
            }
            double[] swap = best;
            best = next;
            next = swap;
        }
        return best[capacityGpus];
    }

    /**
     * The GPU counts worth giving an allocation, ascending: those some subset of its jobs adds up to, up to the
     * smallest such count at or above its quota (more pays nothing more) and at most {@code capacityGpus}.
     */
    static int[] worthGiving(Demand d, int capacityGpus) {
        long[] reach = reachable(d, capacityGpus);
        int limit = limit(reach, capacityGpus, d.quotaGpus());
        int n = 0;
        for (int x = 1; x <= limit; x++) {
            if (get(reach, x)) {
                n++;
            }
        }
        int[] out = new int[n];
        n = 0;
        for (int x = 1; x <= limit; x++) {
            if (get(reach, x)) {
                out[n++] = x;
            }
        }
        return out;
    }

    /**
     * The largest GPU count worth giving: the smallest reachable count at or above the quota (more pays nothing more),
     * else the largest reachable one.
     */
    private static int limit(long[] reach, int capacity, double quota) {
        int largest = 0;
        for (int x = 1; x <= capacity; x++) {
            if (get(reach, x)) {
                largest = x;
                if (x >= quota - 1e-9) {
                    return x;
                }
            }
        }
        return largest;
    }

    /** The GPU counts, up to {@code capacity}, that some subset of the allocation's jobs adds up to. */
    static long[] reachable(Demand d, int capacity) {
        long[] bits = new long[(capacity >> 6) + 1];
        bits[0] = 1L;
        for (int i = 0; i < d.sizes().length; i++) {
            int size = d.sizes()[i];
            if (size <= 0 || size > capacity) {
                continue;
            }
            int left = Math.min(d.counts()[i], capacity / size);
            for (int chunk = 1; left > 0; chunk <<= 1) { // binary splitting: any count 0..left is a sum of chunks
                int take = Math.min(chunk, left);
                orShifted(bits, (long) take * size, capacity);
                left -= take;
            }
        }
        return bits;
    }

    private static void orShifted(long[] bits, long shift, int capacity) {
        if (shift > capacity) {
            return;
        }
        int words = (int) (shift >> 6);
        int offset = (int) (shift & 63);
        for (int w = bits.length - 1; w >= words; w--) {
            long v = bits[w - words] << offset;
            if (offset != 0 && w - words - 1 >= 0) {
                v |= bits[w - words - 1] >>> (64 - offset);
            }
            bits[w] |= v;
        }
        int extra = (capacity + 1) & 63; // clear the bits past capacity in the last word
        if (extra != 0) {
            bits[bits.length - 1] &= (1L << extra) - 1;
        }
    }

    static boolean get(long[] bits, int x) {
        return (bits[x >> 6] & (1L << (x & 63))) != 0;
    }
}
