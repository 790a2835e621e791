package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A Slurm job that ends while Allot is stopped is recorded as ending when Slurm says it did (its EndTime), not when
 * the restarted Allot first sees it: the allocation is charged, and the attempt's history reads, up to the real end.
 */
class SlurmEndWhileDownTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How long Allot stays down after the job ended. */
    private static final Duration DOWN_AFTER_END = Duration.ofSeconds(5);

    /** How Allot reads Slurm after the restart: both carry the end time. */
    enum Observing {
        COMMANDS, SLURMRESTD
    }

    @ParameterizedTest
    @EnumSource(Observing.class)
    void givenAJobThatEndsWhileAllotIsStopped_whenAllotRestarts_thenItRecordsTheEndSlurmRecorded(Observing observing)
            throws Exception {
        story = new Story(slurm, dir.resolve("data"), "it-enddown");
        if (observing == Observing.SLURMRESTD) {
            story.observingWithRest();
        }
        story.seed().start();
        String id = story.submit("alice", "lab/a", 4, "1m", false, "sleep 3");
        Story.until(id + " runs", WAIT, () -> story.state(id).equals("running")
                && story.attempts(id).get(0).path("phase").asText().equals("running"));

        story.stop(); // Allot is down; Slurm runs the job to its end
        Story.await(id + " ends in Slurm", WAIT, () -> story.jobs(id, 1).stream()
                .anyMatch(j -> SlurmCluster.ended(j.state())));
        SlurmCluster.Job job = story.jobs(id, 1).get(0);
        assertThat(job.state()).isEqualTo("COMPLETED");
        Instant slurmEnd = Instant.ofEpochSecond(job.endEpochSeconds());
        Thread.sleep(DOWN_AFTER_END.toMillis());
        Instant restarted = Instant.now();
        story.start();

        Story.until(id + " completes in Allot", WAIT, () -> story.state(id).equals("completed"));
        JsonNode attempt = story.attempts(id).get(0);
        Instant started = Instant.parse(attempt.path("startedAt").asText());
        Instant ended = Instant.parse(attempt.path("endedAt").asText());
        assertThat(Duration.between(slurmEnd, ended).abs()).as("Allot's end %s against Slurm's EndTime %s", ended,
                slurmEnd).isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertThat(ended).as("before the restart that saw it").isBefore(restarted.minus(DOWN_AFTER_END)
                .plusSeconds(2));
        assertThat(Duration.between(started, ended)).as("the run Allot records: the job's 3 s, not the outage")
                .isLessThan(Duration.ofSeconds(3).plus(DOWN_AFTER_END).minusSeconds(2));
    }
}
