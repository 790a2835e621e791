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
 * <p>The service runs with {@code --settle} 300 ms ({@link #SETTLE}): Slurm shows two programs that exit in the same
 * instant a listing apart (about 0.1 s, with jitter), and a cycle between them decided on the first end alone, so a
 * small job started on its GPUs where the simulator, which sees both ends at one second, started the larger one that
 * needed them all, and the work queued behind followed (two of seven runs without it missed the p90: 5.85 s, 1.86 s).
 * With it, a cycle that saw ends leaves the decision to the next cycle that sees no further end, at most 300 ms later.
 * Submissions of one second are the same kind of tie: sent one by one, w08 and w09 (both due at second 7) reached the
 * service 19 ms apart in a CI run, a cycle started w08 alone, and w09 then preempted unallocated w01, whose final state
 * differed from the simulator's. {@code allot replay} now sends the workloads due together in one batch request,
 * which the service stores in one transaction and its scheduler sees in one cycle.
 *
 * <p>Asserted: no program of an attempt started twice (the replay's runs files) and every workload ended; each started
 * attempt is a Slurm job; and the run's agreement with the simulator within issue 19's bounds
 * ({@link FidelityBounds#issue19}): median |start error| at most 0.5 s, p90 at most 2 s, wait p90 within 5% of the
 * simulator's plus a tick, final states identical, preemption totals at most one apart. Measured on this 2-core
 * machine with the program counting from the second of Allot's decision, the service deciding at the clock read after
 * its listing (README, "Check the simulator against your cluster") and the settle time: seven runs with 500 ms (load
 * 0.8 to 3.5; median 0.07 to 0.11 s, p90 0.19 to 0.76 s, wait p90 13.0 to 13.7 s against 13.0 s: 500 ms let a stream
 * of ends hold a decision 0.76 s), then six with 300 ms, one of them beside two CPU spinners (median 0.08 to 0.16 s,
 * p90 0.21 to 0.31 s, max 0.36 s, wait p90 13.0 to 13.1 s, preemptions equal, final states identical), then six
 * with the batched submissions, two of them beside two CPU spinners (median 0.07 to 0.13 s, p90 0.17 to 0.24 s, max
 * 0.26 to 0.81 s, wait p90 12.9 to 13.2 s, preemptions equal, final states identical). Before those changes the p90
 * was 2.3 to 5.6 s in every run.
 */
class SlurmReplayTest extends SlurmStories {
    static final Duration TICK = Duration.ofMillis(100);
    /** {@code allot serve --settle}: ends Slurm shows a listing apart are decided on together (at most this late). */
    static final Duration SETTLE = Duration.ofMillis(300);
    /** The bounds asserted: issue 19's ({@link FidelityBounds#issue19}), see the class comment. */
    static final FidelityBounds BOUNDS = FidelityBounds.issue19(TICK.toMillis() / 1000.0);

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
        List<String> issue19 = BOUNDS.violations(r);
        String text = replayOut + RunComparison.render(r) + "issue 19's bounds: "
                + (issue19.isEmpty() ? "all hold" : String.join("; ", issue19)) + "\n";
        System.out.print(text);
        Files.writeString(Path.of("target", "slurm-replay.txt"), text, StandardCharsets.UTF_8);
        Files.copy(live, Path.of("target", "slurm-replay-live.csv"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(sim, Path.of("target", "slurm-replay-sim.csv"), StandardCopyOption.REPLACE_EXISTING);

        assertThat(r.inBoth()).isEqualTo(40);
        assertThat(issue19).as("%s", text).isEmpty();
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
