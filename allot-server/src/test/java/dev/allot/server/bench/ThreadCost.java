package dev.allot.server.bench;

import dev.allot.server.store.Store;
import java.lang.management.ManagementFactory;

/**
 * What a piece of work on the current thread cost, measured from {@link #start} to {@link ThreadCost#spent}: the
 * thread's CPU time, the bytes it allocated, and the SQL statements the store executed meanwhile; and the garbage
 * collections meanwhile (count and time, any thread's doing: the pauses a slow intake may have waited for), and the
 * CPU all the JVM's threads used meanwhile (the compiler's and the collector's too: what a cold intake competes with
 * for the machine's cores). On a machine shared
 * with other work, wall time mostly measures the neighbours; these three move only with the code, so a change can be
 * compared against the build before it (issue 21's intake cycle, {@link CycleBench}).
 */
final class ThreadCost {
    private final Store store;
    private final long cpu0;
    private final long bytes0;
    private final long statements0;
    private final long collections0;
    private final long collectionMillis0;
    private final long processCpu0;

    /**
     * What was spent: CPU nanoseconds and allocated bytes of the thread, statements of the store (-1: unknown), and
     * the collections of the JVM meanwhile with their time as its collectors report it, and the JVM's CPU meanwhile.
     */
    record Spent(long cpuNanos, long allocatedBytes, long statements, long collections, long collectionMillis,
                 long processCpuNanos) {
    }

    private ThreadCost(Store store) {
        this.store = store;
        this.cpu0 = cpu();
        this.bytes0 = allocated();
        this.statements0 = store.statementsExecuted();
        this.collections0 = collections(false);
        this.collectionMillis0 = collections(true);
        this.processCpu0 = ServiceBench.processCpuNanos();
    }

    static ThreadCost start(Store store) {
        return new ThreadCost(store);
    }

    Spent spent() {
        long cpu = cpu();
        long bytes = allocated();
        return new Spent(cpu < 0 ? -1 : cpu - cpu0, bytes < 0 ? -1 : bytes - bytes0,
                store.statementsExecuted() - statements0, collections(false) - collections0,
                collections(true) - collectionMillis0, ServiceBench.processCpuNanos() - processCpu0);
    }

    /** The JVM's collections so far, all collectors: their count, or ({@code millis}) their time. */
    private static long collections(boolean millis) {
        long sum = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, millis ? gc.getCollectionTime() : gc.getCollectionCount());
        }
        return sum;
    }

    private static long cpu() {
        java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
        return t.isCurrentThreadCpuTimeSupported() ? t.getCurrentThreadCpuTime() : -1;
    }

    private static long allocated() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                && t.isThreadAllocatedMemorySupported()) {
            return t.getThreadAllocatedBytes(Thread.currentThread().getId());
        }
        return -1;
    }
}
