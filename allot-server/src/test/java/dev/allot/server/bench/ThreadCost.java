package dev.allot.server.bench;

import dev.allot.server.store.Store;
import java.lang.management.ManagementFactory;

/**
 * What a piece of work on the current thread cost, measured from {@link #start} to {@link ThreadCost#spent}: the
 * thread's CPU time, the bytes it allocated, and the SQL statements the store executed meanwhile. On a machine shared
 * with other work, wall time mostly measures the neighbours; these three move only with the code, so a change can be
 * compared against the build before it (issue 21's intake cycle, {@link CycleBench}).
 */
final class ThreadCost {
    private final Store store;
    private final long cpu0;
    private final long bytes0;
    private final long statements0;

    /** What was spent: CPU nanoseconds and allocated bytes of the thread, statements of the store (-1: unknown). */
    record Spent(long cpuNanos, long allocatedBytes, long statements) {
    }

    private ThreadCost(Store store) {
        this.store = store;
        this.cpu0 = cpu();
        this.bytes0 = allocated();
        this.statements0 = store.statementsExecuted();
    }

    static ThreadCost start(Store store) {
        return new ThreadCost(store);
    }

    Spent spent() {
        long cpu = cpu();
        long bytes = allocated();
        return new Spent(cpu < 0 ? -1 : cpu - cpu0, bytes < 0 ? -1 : bytes - bytes0,
                store.statementsExecuted() - statements0);
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
