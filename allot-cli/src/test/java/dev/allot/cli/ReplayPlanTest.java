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
 * ends when the work left is done counted from the whole second of the attempt's start as Allot stamped it
 * ({@code ALLOT_ATTEMPT_STARTED_AT}), not from its own start nor from the stamp's millisecond, resumes from its
 * checkpoint, and without the variable counts from its own start. The stamps in these tests lie 0.9 s into their
 * second: the bounds leave a loaded machine 0.7 s of slack after the due end and still fail a program that counts from
 * the stamp's millisecond (0.9 s later) or works its whole duration from its own start.
 */
class ReplayPlanTest {
    @TempDir
    Path dir;

    /** Runs the program; returns when it ended, epoch milliseconds. */
    private long endOf(long workMillis, long everyMillis, Long startedAtMillis) throws Exception {
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
        Process p = pb.start();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("the program ended").isTrue();
        long ended = System.currentTimeMillis();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        return ended;
    }

    /** The whole second before the current one, epoch milliseconds. */
    private static long lastWholeSecondMillis() {
        return System.currentTimeMillis() / 1000 * 1000 - 1000;
    }

    @Test
    void theWorkEndsItsDurationAfterTheSecondAllotStartedTheAttemptInNotAfterTheProcessStarted() throws Exception {
        // Allot decided the start 0.9 s into the last second (the backend was slow to start the process): the 3 s of
        // work end 3 s after that second began, 1 to 2 s from now.
        long second = lastWholeSecondMillis();
        long ended = endOf(3000, 0, second + 900);

        assertThat(ended).isBetween(second + 3000 - 50, second + 3000 + 700);
        assertThat(Files.readString(dir.resolve("w.runs"))).isEqualTo("3\n");
        assertThat(dir.resolve("w.done")).as("not resumable: no checkpoint").doesNotExist();
    }

    @Test
    void aResumedAttemptDoesTheWorkLeftAfterItsCheckpointFromTheSecondOfAllotsStart() throws Exception {
        Files.writeString(dir.resolve("w.done"), "1000\n");
        // 2.5 s of 3.5 s left in steps of 1 s from the last second: the first step is due now (it checkpoints at once),
        // the others 1 and 1.5 s after it.
        long second = lastWholeSecondMillis();
        long ended = endOf(3500, 1000, second + 900);

        assertThat(ended).isBetween(second + 2500 - 50, second + 2500 + 700);
        assertThat(Files.readString(dir.resolve("w.done")).strip()).isEqualTo("3500");
    }

    @Test
    void aStepAlreadyDueEndsAtOnceAndWithoutTheVariableTheProgramCountsFromItsOwnStart() throws Exception {
        long t0 = System.currentTimeMillis();
        assertThat(endOf(1000, 0, t0 - 5000) - t0).isLessThan(900L);
        long t1 = System.currentTimeMillis();
        assertThat(endOf(1200, 0, null) - t1).isGreaterThanOrEqualTo(1200L);
        assertThat(Files.readAllLines(dir.resolve("w.runs"))).containsExactly("3", "3");
    }
}
