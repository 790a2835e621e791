package dev.allot.server.sched;

import dev.allot.core.policy.Policy;
import dev.allot.core.state.SchedulerConfig;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * New policy settings on their way into a {@link SchedulerLoop}: an administrator's thread hands them over
 * ({@link #offer}, after {@code PUT /v1/policy}) without waiting for a cycle in progress, and the loop's thread takes
 * them at the start of its next cycle ({@link #takeInto}), which then rebuilds the core with them. A class of its own
 * because it is the one place where the policy crosses threads: only the latest settings offered are kept, and the
 * loop's books see them only from the cycle that takes them.
 */
final class PendingPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    /** A policy handed in by {@link #offer}, to be taken at the start of the next cycle; null when none. */
    private final AtomicReference<Next> next = new AtomicReference<>();

    private record Next(Policy policy, SchedulerConfig config) {
    }

    /** Hands over settings for the next cycle, replacing any not yet taken; any thread. */
    void offer(Policy newPolicy, SchedulerConfig newConfig) {
        next.set(new Next(Objects.requireNonNull(newPolicy, "policy"), Objects.requireNonNull(newConfig, "config")));
    }

    /** Puts the settings handed over, if any, into {@code c}; whether there were. On the loop's thread. */
    boolean takeInto(LoopCore c) {
        Next taken = next.getAndSet(null);
        if (taken == null) {
            return false;
        }
        c.policy = taken.policy();
        c.config = taken.config();
        c.restarts = c.policy.restartsWorkThatCannotResume();
        LOG.info("scheduling with the new policy settings from this cycle on: lookback {}, max-min-runtime {},"
                + " usage-bucket {}", c.config.lookback(), c.config.maxMinRuntime(), c.config.usageBucket());
        return true;
    }
}
