package dev.allot.core.rules;

import java.util.Locale;

/**
 * How many GPUs one node may have: 1 to {@link #MAX}. The scheduler keeps books for every GPU of a node (which
 * workload holds it, which are free), so a mistyped count (1000000000 for 1000) ran the service out of memory at its
 * next cycle, and at every cycle after, until the count was put right (the simulator, given such a node in
 * {@code cluster.yaml} or {@code --nodes}, ran out of memory blaming the workloads); no machine holds more than a few
 * dozen GPUs.
 */
public final class NodeGpus {
    /** The most GPUs one node may have. */
    public static final int MAX = 4096;
    /** What a node's GPU count is expected to be, for messages. */
    public static final String EXPECTED = String.format(Locale.ROOT, "a whole number from 1 to %,d (the GPUs of one"
            + " machine)", MAX);

    private NodeGpus() {
    }

    /** Whether {@code gpus} is a GPU count one node may have. */
    public static boolean allowed(long gpus) {
        return gpus >= 1 && gpus <= MAX;
    }
}
