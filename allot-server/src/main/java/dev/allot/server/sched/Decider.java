package dev.allot.server.sched;

import dev.allot.core.policy.Decision;
import dev.allot.core.policy.DecisionLoop;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.Policy;
import dev.allot.core.state.ClusterState;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deciding, the part of a {@link SchedulerLoop} cycle that asks the core's {@link Policy}: whether it is due (by the
 * simulator's rules, {@link DecisionLoop}) and one decision instant, its decisions handed to the {@link Carrier} in
 * order. Works on the loop's shared {@link LoopCore}, on the loop's thread.
 */
final class Decider {
    /** The loop's logger, so that what the parts say is logged as before the loop was split. */
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerLoop.class);

    private final LoopCore c;

    Decider(LoopCore c) {
        this.c = Objects.requireNonNull(c, "core");
    }

    /**
     * Whether the policy is to be asked now, by the simulator's rules: something changed since it was last asked, a
     * wake-up it asked for has come, or a protection ran out. Takes the wake-ups that have come.
     */
    boolean decisionDue(long now) {
        boolean woken = c.wakeUps.takeDue(now);
        return c.dirty | woken || c.state.protections().endedCount() != c.protectionsSeen;
    }

    /** One decision instant ({@link DecisionLoop#decide}): the policy's rounds, carried out in order. */
    void decide(long now, long nowMillis) {
        c.dirty = false;
        long[] nanos = {0};
        DecisionLoop.Outcome[] decided = new DecisionLoop.Outcome[1];
        c.carrier.together(() -> decided[0] = DecisionLoop.decide(c.policy, c.state, now, new DecisionLoop.Driver() {
            @Override
            public Plan ask(Policy p, ClusterState s, long nowSeconds) {
                long t0 = System.nanoTime();
                Plan plan = p.schedule(s, nowSeconds);
                nanos[0] += System.nanoTime() - t0;
                return plan;
            }

            @Override
            public boolean carryOut(Decision d) {
                return c.carrier.carryOut(d, now, nowMillis);
            }

            @Override
            public void afterRound() {
                for (int node : c.state.nodes().takeDrainNotices()) {
                    LOG.info("node {} is drained", c.nodeNames.get(node));
                }
            }
        }));
        DecisionLoop.Outcome outcome = decided[0];
        c.wakeUps.requestWakeUp(outcome.wakeAtSeconds(), now);
        c.lastDecisionNanos = nanos[0];
        c.protectionsSeen = c.state.protections().endedCount();
        c.decisions++;
        c.observer.cycle(nanos[0], c.state.pending().total(), c.state.running().count());
    }
}
