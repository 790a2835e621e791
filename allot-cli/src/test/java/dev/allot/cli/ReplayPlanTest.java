package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot replay}'s workload program ({@link ReplayPlan#PROGRAM}) run by {@code sh} as a backend runs it: it
 * ends when the work left is done counted from the attempt's start as Allot stamped it
 * ({@code ALLOT_ATTEMPT_STARTED_AT}), not from its own start, resumes from its checkpoint, and without the variable
 * counts from its own start. The bounds leave a loaded machine a second of slack and still fail the old behaviour
 * (a program that works its whole duration from its own start).
 */
class ReplayPlanTest {
    @TempDir
    Path dir;

    /** Runs the program; returns how long it took, in milliseconds. */
    private long run(long workMillis, long everyMillis, Long startedAtMillis) throws Exception {
        List<String> argv = new ArrayList<>(List.of("sh", "-c", ReplayPlan.PROGRAM, "allot-replay",
                Long.toString(workMillis), Long.toString(everyMillis), dir.resolve("w.done").toString(),
                dir.resolve("w.runs").toString()));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.remove("ALLOT_ATTEMPT_STARTED_AT");
        env.put("ALLOT_ATTEMPT", "3");
        if (startedAtMillis != null) {
            env.put("ALLOT_ATTEMPT_STARTED_AT", Long.toString(startedAtMillis));
        }
        long t0 = System.currentTimeMillis();
        Process p = pb.start();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("the program ended").isTrue();
        long took = System.currentTimeMillis() - t0;
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        return took;
    }

    @Test
    void theWorkEndsItsDurationAfterAllotStartedTheAttemptNotAfterTheProcessStarted() throws Exception {
        // Allot started the attempt 2 s ago (the backend was slow to start the process): 0.5 s of its 2.5 s remain.
        long took = run(2500, 0, System.currentTimeMillis() - 2000);

        assertThat(took).isBetween(400L, 1500L);
        assertThat(Files.readString(dir.resolve("w.runs"))).isEqualTo("3\n");
        assertThat(dir.resolve("w.done")).as("not resumable: no checkpoint").doesNotExist();
    }

    @Test
    void aResumedAttemptDoesTheWorkLeftAfterItsCheckpointFromAllotsStart() throws Exception {
        Files.writeString(dir.resolve("w.done"), "1000\n");
        // 2 s of 3 s left in steps of 1 s: the first step was due 0.5 s ago (it checkpoints at once), the second in 0.5 s.
        long took = run(3000, 1000, System.currentTimeMillis() - 1500);

        assertThat(took).isBetween(400L, 1500L);
        assertThat(Files.readString(dir.resolve("w.done")).strip()).isEqualTo("3000");
    }

    @Test
    void aStepAlreadyDueEndsAtOnceAndWithoutTheVariableTheProgramCountsFromItsOwnStart() throws Exception {
        assertThat(run(1000, 0, System.currentTimeMillis() - 5000)).isLessThan(900L);
        assertThat(run(1200, 0, null)).isGreaterThanOrEqualTo(1200L);
        assertThat(Files.readAllLines(dir.resolve("w.runs"))).containsExactly("3", "3");
    }
}
