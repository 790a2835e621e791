package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.policy.PreemptionCause;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Why an attempt is stopped, in the words its backend shows (on Slurm, the job's comment). */
class StopWordsTest {
    private static LiveAttempt attempt() {
        return new LiveAttempt(new AttemptKey("w-7", 1), "13", List.of(), 0, null, null);
    }

    @Test
    void aDrainSaysWhichHostIsUnhealthy_notTheCausesInternalName() {
        LiveAttempt l = attempt();
        l.cause = PreemptionCause.drain("gpu-04", "host gpu-04 is unhealthy and w-7 is past its 1h minimum runtime");

        // it said "stopped: host_drain"
        assertThat(Dispatcher.stopWords(l)).isEqualTo("drained: host gpu-04 is unhealthy");
    }

    @Test
    void aPreemptionNamesThePreemptor_andACancellationSaysSo() {
        LiveAttempt l = attempt();
        l.cause = PreemptionCause.by(PreemptionCause.Kind.FAIR_SHARE, "w-3", "w-3 of lab/a reclaims ...");
        assertThat(Dispatcher.stopWords(l)).isEqualTo("preempted by w-3");
        l.cancelled = true;
        assertThat(Dispatcher.stopWords(l)).isEqualTo("cancelled");
    }
}
