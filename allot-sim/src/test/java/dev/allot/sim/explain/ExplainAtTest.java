package dev.allot.sim.explain;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.explain.WaitExplanation;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.state.JobState;
import dev.allot.sim.ScenarioBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Explanations asked of a simulated run ({@code allot simulate --explain ID@TIME}): the service's explainer on the
 * run's state at the instant, with the run's settings, and the run itself unchanged.
 */
class ExplainAtTest {
    /** 8 GPUs, A and B of equal share; A's a1 takes them all, protected for 1h; B's b1 comes at 10m. */
    private static ScenarioBuilder story() {
        return given().nodes(1, 8).allocations(t -> t.leaf("A", 1).leaf("B", 1))
                .workload(w("a1").in("A").gpus(8).runs("4h").minRuntime("1h").at("0s"))
                .workload(w("b1").in("B").gpus(8).runs("1h").minRuntime("1h").at("10m"));
    }

    private static ExplainAt ask(ScenarioBuilder b, String... requests) {
        AllocationPolicy policy = (AllocationPolicy) PolicyRegistry.standard().get("allocation")
                .create(b.scenario().policyConfig().settingsFor(AllocationPolicy.FACTORY));
        return new ExplainAt(java.util.Arrays.stream(requests).map(ExplainRequest::parse).toList(), policy);
    }

    private static List<String> words(ExplainAt.Answer a) {
        return a.explanation().orElseThrow().summary(Durations::formatSeconds);
    }

    @Test
    void givenB1WaitingForA1sProtection_thenAt30mItIsExplainedAsTheServiceWould_andA1AsProtected() {
        ExplainAt asked = ask(story(), "b1@30m", "a1@30m", "b1@5m");

        ScenarioBuilder.Run run = story().run("allocation", asked);

        // in the order of their instants: b1 at 5m is not submitted yet (submitted at 10m), so the state knows nothing
        List<ExplainAt.Answer> answers = asked.answers();
        assertThat(answers).extracting(a -> a.request().toString()).containsExactly("b1@5m", "a1@30m", "b1@30m");
        assertThat(answers.get(0).explanation()).isEmpty();
        WaitExplanation a1 = answers.get(1).explanation().orElseThrow();
        assertThat(a1.state()).isEqualTo(JobState.RUNNING);
        assertThat(a1.protection().protectedNow()).isTrue();
        assertThat(a1.protection().protectedUntilSeconds()).isEqualTo(3600);
        WaitExplanation b1 = answers.get(2).explanation().orElseThrow();
        assertThat(b1.state()).isEqualTo(JobState.PENDING);
        assertThat(b1.atSeconds()).isEqualTo(1800);
        assertThat(words(answers.get(2)).get(0)).isEqualTo("b1 waits: 1st of 1 waiting; 1st of 1 in B.");
        assertThat(String.join(" ", words(answers.get(2)))).contains("the protection of a1").contains("ends at 1h (in 30m)");
        // and what was explained happens: b1 takes the GPUs when a1's protection ends
        assertThat(run.workload("b1").firstStartSeconds()).isEqualTo(3600);
    }

    @Test
    void explanationsDoNotChangeTheRun_norLengthenIt() {
        ScenarioBuilder.Run plain = story().run("allocation");
        ExplainAt asked = ask(story(), "b1@30m", "a1@2h", "a1@5h");

        ScenarioBuilder.Run explained = story().run("allocation", asked);

        assertThat(explained.story()).isEqualTo(plain.story());
        assertThat(explained.result().workloads()).isEqualTo(plain.result().workloads());
        assertThat(explained.result().metrics()).isEqualTo(plain.result().metrics());
        assertThat(explained.result().run().endSeconds()).isEqualTo(plain.result().run().endSeconds());
        // an instant after the run's last event (a1's stale end at 4h) is not reached
        assertThat(asked.unanswered()).extracting(ExplainRequest::toString).containsExactly("a1@5h");
        assertThat(asked.answers()).hasSize(2);
    }

    @Test
    void aRequestIsIdAtTime_andAnythingElseIsRefusedWithWhatWasExpected() {
        assertThat(ExplainRequest.parse(" w000037@3h30m ")).isEqualTo(new ExplainRequest("w000037", 12_600));
        assertThat(ExplainRequest.parse("job@2@1d")).isEqualTo(new ExplainRequest("job@2", 86_400));
        assertThatThrownBy(() -> ExplainRequest.parse("w000037")).hasMessageContaining("expected ID@TIME")
                .hasMessageContaining("got 'w000037'");
        assertThatThrownBy(() -> ExplainRequest.parse("@3h")).hasMessageContaining("expected ID@TIME");
        assertThatThrownBy(() -> ExplainRequest.parse("w1@soon")).hasMessageContaining("the instant 'soon' is not a"
                + " duration since the scenario's start");
    }
}
