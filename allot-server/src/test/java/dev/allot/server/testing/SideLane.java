package dev.allot.server.testing;

/**
 * The {@code @ResourceLock} of the module's side lane: test classes that mostly wait (on headless Chromium, on
 * workload processes that take seconds to stop) and assert nothing about how fast they run,
 * marked {@code @Execution(CONCURRENT)} so that they run beside the module's main lane (the same-thread classes) and
 * the service-process stories, one side-lane class at a time (see {@code junit-platform.properties}). A class under a
 * lock runs its methods on its own thread, one after another, as before.
 *
 * <p>A side-lane class must not share ports, files or static state with another class, and must not be one that
 * captures what a logger logs ({@code CapturedLog}, an appender on the root logger): those run {@code @Isolated},
 * since a class beside them logs into the same loggers.
 */
public final class SideLane {
    public static final String LOCK = "allot-server: side lane (browser and slow-stop tests)";

    private SideLane() {
    }
}
