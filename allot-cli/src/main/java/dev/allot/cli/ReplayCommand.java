package dev.allot.cli;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.report.WorkloadsCsv;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot replay SCENARIO --server URL}: plays a scenario's workloads on a running service, as the simulator
 * plays them, so that the two can be set side by side ({@code allot compare}). Each workload is submitted at its
 * (scaled) time and runs a small program that works for its (scaled) duration and checkpoints as declared
 * ({@link ReplayPlan}); the run itself is {@link ReplayRun}. The CSV is {@code simulate --workloads-out}'s, in
 * scenario seconds.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        header = "Play a scenario's workloads on a running Allot service and write what happened as simulate does.",
        description = {"Submit a scenario's workloads (a folder, or --trace) to a running service at their times,"
                + " each running a small program that lasts its duration and checkpoints as declared; wait until"
                + " every one has ended and write one CSV row per workload, as allot simulate --workloads-out does.",
                "The service must have the scenario's allocations (as paths, e.g. lab/a) and nodes, and run the"
                        + " policy to compare with; the token's user must be allowed to submit to every allocation.",
                "Then: allot simulate SCENARIO --submit-times live.csv --workloads-out sim.csv;",
                "      allot compare sim.csv live.csv"})
final class ReplayCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "SCENARIO", description = "the scenario folder (or give --trace)")
    Path dir;

    @Mixin
    TraceOptions traceOptions = new TraceOptions();

    @Mixin
    ClientOptions connection = new ClientOptions();

    @Option(names = "--time-scale", paramLabel = "X", defaultValue = "1",
            description = "scenario seconds per real second (default: ${DEFAULT-VALUE}; 60 plays an hour in a minute);"
                    + " the CSV is in scenario seconds")
    double timeScale;

    @Option(names = "--workloads-out", paramLabel = "FILE", description = "write one CSV row per workload, as allot simulate does")
    Path workloadsOut;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "where the workloads' programs keep their checkpoints and starts; the nodes must see it"
                    + " and the accounts the service runs them as must write it (default: a new folder under the"
                    + " system's temporary folder that every account may write)")
    Path stateDir;

    @Option(names = "--timeout", paramLabel = "DURATION",
            description = "stop waiting after this long, real time (default: twice the scenario played serially, plus a minute)")
    String timeout;

    /**
     * A new folder under the system's temporary folder that the workloads' programs can write: the service may run
     * them as other accounts than the replay's (as root without --accounts, the demo runs them as 'nobody'), and a
     * folder only its creator may write failed each program at its first step ("Permission denied"). It is sticky
     * (mode 1777, as {@code /tmp} is): in a folder anyone may write, only a file's owner may then remove or rename
     * it, and the kernel's protected-symlink rule, which holds only in sticky folders, keeps the programs from
     * following a link another local user planted at one of their predictable names ({@code <id>.done}).
     */
    static Path sharedTempDirectory() throws IOException {
        Path dir = Files.createTempDirectory("allot-replay-");
        try {
            Files.setAttribute(dir, "unix:mode", STICKY_WORLD_WRITABLE);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            try {
                Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
            } catch (UnsupportedOperationException e2) {
                // no POSIX permissions here: the folder is as the file system makes it
            }
        }
        return dir;
    }

    /** rwxrwxrwt. */
    static final int STICKY_WORLD_WRITABLE = 01777;

    private static void deleteIfEmpty(Path dir) {
        try (var entries = Files.list(dir)) {
            if (entries.findAny().isEmpty()) {
                Files.delete(dir);
            }
        } catch (IOException e) {
            // left behind: harmless, and the message above is what matters
        }
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        OutputFiles.check("--workloads-out", workloadsOut);
        OutputFiles.checkDistinct(java.util.Collections.singletonMap("--workloads-out", workloadsOut),
                traceOptions.inputs(dir));
        Scenario scenario = traceOptions.scenario(dir, false, PolicyRegistry.standard());
        ReplayPlan plan = ReplayPlan.of(scenario, timeScale);
        Duration wait = timeout == null ? plan.defaultTimeout() : positive(timeout);
        ApiClient client = connection.client();
        Path state = stateDir != null ? Files.createDirectories(stateDir) : sharedTempDirectory();
        ReplayRun.Outcome outcome;
        try {
            outcome = new ReplayRun(client, plan, state, out).run(wait);
        } catch (ApiClient.ClientException e) {
            spec.commandLine().getErr().println("allot: " + CliHints.message(e, spec));
            if (stateDir == null) {
                deleteIfEmpty(state); // refused before anything ran: nothing of it is left behind
            }
            return e.exitCode();
        }
        long ended = outcome.rows().stream().filter(r -> !r.finalState().equals("pending")
                && !r.finalState().equals("running")).count();
        out.println(String.format(Locale.ROOT, "%d of %d workloads ended; submissions reached the service at most"
                + " %.2f s late (real time)", ended, plan.submissions().size(), outcome.lateSubmissionsSeconds()));
        if (workloadsOut != null) {
            OutputFiles.writeText("--workloads-out", workloadsOut, w -> WorkloadsCsv.writeRows(outcome.rows(), w));
            out.println("wrote " + workloadsOut);
        }
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        int exit = 0;
        if (!outcome.runTwice().isEmpty()) {
            err.println("allot: an attempt's program started more than once: " + String.join(", ", outcome.runTwice()));
            exit = 1;
        }
        if (outcome.timedOut()) {
            err.println("allot: " + (plan.submissions().size() - ended) + " workload(s) had not ended after "
                    + dev.allot.core.model.Durations.format(wait) + " (--timeout); their rows say where they were");
            exit = 1;
        }
        err.flush();
        return exit;
    }

    private static Duration positive(String text) {
        Duration d;
        try {
            d = dev.allot.core.model.Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--timeout: " + e.getMessage());
        }
        if (d.isZero()) {
            throw new IllegalArgumentException("--timeout expects a duration > 0 such as 10m, got '" + text + "'");
        }
        return d;
    }
}
