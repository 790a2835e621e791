package dev.allot.server.testing;

/**
 * The module's second test lane: the {@code @ResourceLock} taken by the test classes that run beside the others
 * ({@code @Execution(CONCURRENT)}, see {@code junit-platform.properties}). They mostly wait (on {@code allot serve}
 * processes and their leases, kills and restarts, on workload processes, on PostgreSQL's commits), so on a 2-core
 * machine they cost little CPU beside the main lane. They run one at a time under this lock, so that their failover
 * and recovery timings never compete with each other, and none of them asserts an upper bound on a latency that the
 * main lane's load could break.
 */
public final class SecondLane {
    /** The lock's name. */
    public static final String LOCK = "allot-server: the second test lane";

    private SecondLane() {
    }
}
