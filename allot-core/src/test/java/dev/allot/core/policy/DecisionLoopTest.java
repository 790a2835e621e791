package dev.allot.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decision loop both drivers run: rounds while plans requeue work, the earliest wake-up, the kept wake-ups. */
class DecisionLoopTest {
    /** A policy that returns the scripted plans in turn (no decisions, only wake-ups), counting its calls. */
    private static final class Scripted implements Policy {
        final List<Long> wakes;
        int asked;

        Scripted(Long... wakes) {
            this.wakes = List.of(wakes);
        }

        @Override
        public String name() {
            return "scripted";
        }

        @Override
        public Plan schedule(ClusterState state, long nowSeconds) {
            return new Plan(List.of(), wakes.get(Math.min(asked++, wakes.size() - 1)));
        }

        @Override
        public boolean isProtected(Job job, long nowSeconds) {
            return false;
        }
    }

    /** Carries out nothing; says a plan requeued work for the first {@code requeuing} rounds. */
    private static DecisionLoop.Driver requeuing(int requeuing, List<String> log) {
        return new DecisionLoop.Driver() {
            int rounds;

            @Override
            public Plan ask(Policy policy, ClusterState state, long nowSeconds) {
                Plan p = policy.schedule(state, nowSeconds);
                rounds++;
                return new Plan(rounds <= requeuing ? List.of(new Decision.Preempt(null, null)) : List.of(),
                        p.wakeAtSeconds());
            }

            @Override
            public boolean carryOut(Decision decision) {
                log.add("carry out");
                return true;
            }

            @Override
            public void afterRound() {
                log.add("round");
            }
        };
    }

    @Test
    void asksAgainWhileAPlanRequeuesAndKeepsTheEarliestWakeUp() {
        Scripted policy = new Scripted(500L, 300L, 400L);
        List<String> log = new ArrayList<>();

        DecisionLoop.Outcome o = DecisionLoop.decide(policy, null, 100, requeuing(2, log));

        assertThat(o.rounds()).isEqualTo(3);
        assertThat(o.wakeAtSeconds()).as("the earliest of the rounds', not the last's").isEqualTo(300);
        assertThat(log).containsExactly("carry out", "round", "carry out", "round", "round");
    }

    @Test
    void stopsAtTheBoundWhenEveryPlanRequeues() {
        Scripted policy = new Scripted(Plan.NO_WAKE_UP);

        DecisionLoop.Outcome o = DecisionLoop.decide(policy, null, 0, requeuing(1000, new ArrayList<>()));

        assertThat(o.rounds()).isEqualTo(DecisionLoop.MAX_ROUNDS);
        assertThat(policy.asked).isEqualTo(DecisionLoop.MAX_ROUNDS);
        assertThat(o.wakeAtSeconds()).isEqualTo(Plan.NO_WAKE_UP);
    }

    @Test
    void keepsEveryWakeUpEarlierThanTheLastKeptAndHonoursEachOne() {
        DecisionLoop loop = new DecisionLoop();
        assertThat(loop.requestWakeUp(200, 0)).isTrue();
        assertThat(loop.requestWakeUp(250, 10)).as("later than the one kept").isFalse();
        assertThat(loop.requestWakeUp(100, 10)).isTrue();
        assertThat(loop.requestWakeUp(50, 60)).as("not after now").isFalse();
        assertThat(loop.requestWakeUp(Plan.NO_WAKE_UP, 60)).isFalse();

        assertThat(loop.takeDue(99)).isFalse();
        assertThat(loop.takeDue(100)).isTrue();
        assertThat(loop.takeDue(100)).as("taken once").isFalse();
        // the last kept has come: any later wake-up is kept again, and the earlier one (200) still counts
        assertThat(loop.requestWakeUp(300, 100)).isTrue();
        assertThat(loop.nextWakeUpSeconds()).isEqualTo(200);
        assertThat(loop.takeDue(200)).isTrue();
        assertThat(loop.nextWakeUpSeconds()).isEqualTo(300);
        assertThat(loop.requestWakeUp(350, 200)).as("300 is still the last kept").isFalse();
    }
}
