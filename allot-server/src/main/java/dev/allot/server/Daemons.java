package dev.allot.server;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's background threads, made and stopped one way: a single daemon thread per job (the scheduling loop,
 * the health check, the local backend's grace timers), named for the process table, and a stop that interrupts the
 * job in progress and waits a bounded time for it.
 */
public final class Daemons {
    private static final Logger LOG = LoggerFactory.getLogger(Daemons.class);

    private Daemons() {
    }

    /** A scheduled executor with one daemon thread of this name. */
    public static ScheduledExecutorService single(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Stops the executor (interrupting the job in progress) and waits up to {@code wait} for it; null is fine. */
    public static void stop(ScheduledExecutorService executor, Duration wait, String what) {
        if (executor == null) {
            return;
        }
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} did not stop within {} ms", what, wait.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
