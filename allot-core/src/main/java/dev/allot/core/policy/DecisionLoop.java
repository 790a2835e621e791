package dev.allot.core.policy;

import dev.allot.core.state.ClusterState;
import java.util.Objects;
import java.util.TreeSet;

/**
 * When and how a driver asks the policy: the one loop the simulator and the service both run, so that the same
 * submissions under the same settings are decided at the same instants with the same results.
 *
 * <p><b>One decision instant</b> ({@link #decide}): ask the policy, carry out its plan in order, and while a plan
 * sent work back to the queue (a preempted or drained resumable job, which may start again at once) ask again at the
 * same instant, at most {@link #MAX_ROUNDS} times (a guard against a cascade). The wake-up of the instant is the
 * <em>earliest</em> any round asked for.
 *
 * <p><b>Between instants</b> the driver keeps its wake-ups here ({@link #requestWakeUp}, {@link #takeDue}): a
 * wake-up is kept when it lies after the instant and before the last one kept; every kept wake-up is honoured (it
 * makes its time an instant to decide at), even when a later decision asked for a different one. The simulator
 * schedules an event for each kept wake-up; the service asks {@link #takeDue} each cycle.
 *
 * <p>Besides wake-ups, a driver decides only when something happened: a submission, an end, a health change, a
 * protection running out ({@link dev.allot.core.state.ProtectionBooks#endedCount()}), or, in the service, an edit. The core never reads
 * a clock; a driver that wants to time the policy does it in {@link Driver#ask}.
 */
public final class DecisionLoop {
    /** How many times the policy is asked at one instant while its plans keep sending work back to the queue. */
    public static final int MAX_ROUNDS = 8;

    private final TreeSet<Long> wakeUps = new TreeSet<>();
    /** The wake-up kept last, until its time comes; a later request is kept only if it is earlier than this. */
    private long lastKept = Plan.NO_WAKE_UP;

    /** What a driver does with the policy's plans. */
    public interface Driver {
        /** Asks the policy for one plan (the default just asks; the service also times it). */
        default Plan ask(Policy policy, ClusterState state, long nowSeconds) {
            return policy.schedule(state, nowSeconds);
        }

        /** Carries out one decision of the plan, in order; returns whether it sent a job back to the queue. */
        boolean carryOut(Decision decision);

        /** After each round's decisions have been carried out (the state's drain notices are taken here). */
        default void afterRound() {
        }
    }

    /** What one decision instant did: how many times the policy was asked, the earliest wake-up it asked for. */
    public record Outcome(int rounds, long wakeAtSeconds) {
    }

    /**
     * Decides at {@code nowSeconds}: asks, carries out, and asks again while a plan requeued work, up to
     * {@link #MAX_ROUNDS}. The wake-up is not kept; pass it to {@link #requestWakeUp}.
     */
    public static Outcome decide(Policy policy, ClusterState state, long nowSeconds, Driver driver) {
        Objects.requireNonNull(driver, "driver");
        long wake = Plan.NO_WAKE_UP;
        int rounds = 0;
        while (rounds < MAX_ROUNDS) {
            rounds++;
            Plan plan = driver.ask(policy, state, nowSeconds);
            boolean requeued = false;
            for (Decision d : plan.decisions()) {
                requeued |= driver.carryOut(d);
            }
            driver.afterRound();
            wake = Math.min(wake, plan.wakeAtSeconds());
            if (!requeued) {
                break;
            }
        }
        return new Outcome(rounds, wake);
    }

    /**
     * Keeps the wake-up a decision at {@code nowSeconds} asked for, if it lies after now and before the wake-up kept
     * last; returns whether it was kept (the simulator then schedules an event at that time).
     */
    public boolean requestWakeUp(long wakeAtSeconds, long nowSeconds) {
        if (wakeAtSeconds == Plan.NO_WAKE_UP || wakeAtSeconds <= nowSeconds || wakeAtSeconds >= lastKept) {
            return false;
        }
        wakeUps.add(wakeAtSeconds);
        lastKept = wakeAtSeconds;
        return true;
    }

    /** Whether a kept wake-up has come by {@code nowSeconds}; those that have are forgotten. */
    public boolean takeDue(long nowSeconds) {
        boolean due = false;
        while (!wakeUps.isEmpty() && wakeUps.first() <= nowSeconds) {
            long w = wakeUps.pollFirst();
            if (w == lastKept) {
                lastKept = Plan.NO_WAKE_UP;
            }
            due = true;
        }
        return due;
    }

    /** The earliest kept wake-up still to come, or {@link Plan#NO_WAKE_UP}. */
    public long nextWakeUpSeconds() {
        return wakeUps.isEmpty() ? Plan.NO_WAKE_UP : wakeUps.first();
    }

    /** Forgets every kept wake-up (a driver whose state was rebuilt decides afresh). */
    public void clear() {
        wakeUps.clear();
        lastKept = Plan.NO_WAKE_UP;
    }
}
