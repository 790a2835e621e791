package dev.allot.server.api;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A value read from the store and kept for a short time, for the API's hot path (every submission checks the token,
 * the tree and the nodes): read again once {@code ttlNanos} have passed, or at once after {@link #invalidate()},
 * which the API calls after every change it makes itself. The service is the store's only writer, so the time to
 * live only bounds how stale a value can be after a change made behind its back.
 */
final class Cached<T> {
    private final Supplier<T> read;
    private final long ttlNanos;
    private T value;
    private long readAtNanos;
    private long generation;

    Cached(Supplier<T> read, long ttlNanos) {
        this.read = Objects.requireNonNull(read, "read");
        this.ttlNanos = ttlNanos;
    }

    T get() {
        long gen;
        synchronized (this) {
            if (value != null && System.nanoTime() - readAtNanos < ttlNanos) {
                return value;
            }
            gen = generation;
        }
        long at = System.nanoTime();
        T fresh = read.get();
        synchronized (this) {
            if (gen == generation) { // not invalidated while reading
                value = fresh;
                readAtNanos = at;
            }
        }
        return fresh;
    }

    synchronized void invalidate() {
        value = null;
        generation++;
    }
}
