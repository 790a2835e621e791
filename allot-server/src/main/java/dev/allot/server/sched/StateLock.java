package dev.allot.server.sched;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The lock over a {@link SchedulerLoop}'s state (the core's state, the books, the counters: {@link LoopCore}), which
 * the reads of the API take ({@link SchedulerLoop#inspect}, {@link SchedulerLoop#counters}, ...) and which a cycle
 * holds only while it works on that state in memory and in the store, never while it waits for the backend.
 *
 * <p><b>Why.</b> A backend's call may take seconds, and a minute with its retries (Slurm's commands while
 * {@code slurmctld} is down). Holding the state through such a call made the queue, explanations and {@code /metrics}
 * wait for it. So every call to the backend is made {@link #outside} this lock ({@link UnlockedBackend} wraps the
 * loop's backend so that no call can be made otherwise): the cycle publishes its state at each such call, at a point
 * where the state is whole (before a listing, as the last cycle left it; while starts and stops are sent, with their
 * decision taken and recorded; a rebuild of the core sends its stops once done), and takes it back when the backend
 * answers. While the backend is slow, a read answers from the state as the cycle left it, as a
 * copy made at that point would, without the cost of a copy: nothing changes the state while the cycle waits, since
 * only the cycle changes it (the API's writes go to the store, or are handed to the next cycle, and nudge it).
 *
 * <p>A read still waits for a cycle's own work between two backend calls (the policy, the store's writes: about
 * milliseconds), as it waited before. Two cycles never run at once: that is the loop's own monitor, held for the
 * whole cycle, which reads never take.
 */
final class StateLock {
    private final ReentrantLock lock = new ReentrantLock();

    void lock() {
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    /** Runs {@code change} holding the lock (a setting of the loop's, made outside a cycle). */
    void holding(Runnable change) {
        read(() -> {
            change.run();
            return null;
        });
    }

    /** Runs {@code read} holding the lock. */
    <T> T read(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code call} with the lock released if this thread holds it (however many times), taken back after; a
     * thread that does not hold it just runs the call.
     */
    <T> T outside(Supplier<T> call) {
        int holds = lock.getHoldCount();
        for (int i = 0; i < holds; i++) {
            lock.unlock();
        }
        try {
            return call.get();
        } finally {
            for (int i = 0; i < holds; i++) {
                lock.lock();
            }
        }
    }

    /** {@link #outside(Supplier)} for a call that returns nothing. */
    void outside(Runnable call) {
        outside(() -> {
            call.run();
            return null;
        });
    }
}
