package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.User;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code allot replay}'s checks of the service before it submits anything (ServeDecidesAsSimulateTest replays). */
class ReplayCommandTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN)
            .allocation("lab", 1, List.of(), List.of())
            .allocation("lab/a", 1, List.of(), List.of())
            .node("gpu-01", 8, true, null)
            .build();

    @Test
    void aServiceWithoutAnAllocationTheScenarioNamesIsRefusedBeforeAnythingIsSubmitted() {
        // examples/replay names lab/a and lab/b; the service has lab/a only. The replay failed at the first
        // submission to lab/b, after what was due before it had been submitted
        Cli.Result r = cluster.as("root", "replay", Cli.example("replay"), "--state-dir", tmp.toString(),
                "--timeout", "5s");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: the service has no allocation 'lab/b' that the scenario's workloads name"
                + " (w01 is in lab/b); nothing was submitted (hint: create each first, e.g. allot budget set lab/b"
                + " --share 1; 'allot budget show' lists the service's allocations)\n");
        assertThat(r.out()).doesNotContain("replaying");
        assertThat(cluster.as("root", "queue").out()).isEqualTo("no workloads\n");
    }

    @Test
    void anInterruptedReplayNamesTheWorkloadsItLeftOnTheService() {
        // Ctrl-C during a replay exited 130 without a word, and the workloads it had submitted ran on
        dev.allot.sim.Scenario scenario = dev.allot.sim.input.ScenarioReader.read(
                Path.of(Cli.example("replay")), false, dev.allot.core.policy.PolicyRegistry.standard());
        ReplayRun run = new ReplayRun(null, ReplayPlan.of(scenario, 1.0), tmp,
                new java.io.PrintWriter(java.io.Writer.nullWriter()));
        assertThat(run.interruptedNote()).as("nothing submitted yet").isNull();
        run.submitted("w-7");
        assertThat(run.interruptedNote()).isEqualTo("allot: replay interrupted after submitting 1 of 40 workloads"
                + " (w-7); they stay on the service and run as it schedules them: 'allot queue' lists them, 'allot"
                + " cancel ID' cancels one");
        run.submitted("w-8");
        run.submitted("w-9");
        run.submitted("w-10");
        assertThat(run.interruptedNote()).startsWith("allot: replay interrupted after submitting 4 of 40 workloads"
                + " (w-7 to w-10);");
    }

    @Test
    void theSharedStateFolderIsWritableByTheWorkloadsAccountsAndStickyAsTmpIs() throws Exception {
        Path dir = ReplayCommand.sharedTempDirectory();
        try {
            // anyone may write (the programs run as other accounts), but only a file's owner may remove or rename it,
            // and links another user plants are not followed: the sticky bit of /tmp
            assertThat((int) java.nio.file.Files.getAttribute(dir, "unix:mode") & 07777).isEqualTo(01777);
        } finally {
            java.nio.file.Files.delete(dir);
        }
    }

    /** The same check for shapes: the service's nodes cannot hold what the scenario's cluster could. */
    @org.junit.jupiter.api.Nested
    class OnSmallerNodes {
        @RegisterExtension
        final ApiServerExtension small = ApiServerExtension.builder()
                .user("root", User.Role.ADMIN)
                .allocation("lab", 1, List.of(), List.of())
                .allocation("lab/a", 1, List.of(), List.of())
                .allocation("lab/b", 1, List.of(), List.of())
                .node("gpu-01", 8, true, null)
                .build();

        @Test
        void aWorkloadNoNodeOfTheServiceCanHoldIsRefusedBeforeAnythingIsSubmitted() {
            // the demo's one 8-GPU node took six workloads, then refused a 16-GPU one mid-replay
            Cli.Result r = small.as("root", "replay", Cli.example("replay"), "--state-dir", tmp.toString(),
                    "--timeout", "5s");
            assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).startsWith("allot: workload ").contains("field 'gpus'",
                    "the service's nodes cannot hold it, so nothing was submitted");
            assertThat(r.out()).doesNotContain("replaying");
            assertThat(small.as("root", "queue").out()).isEqualTo("no workloads\n");
        }
    }
    /** A service with no nodes yet takes submissions (nodes may come later), but a replay on it is timed for nothing. */
    @org.junit.jupiter.api.Nested
    class OnAServiceWithoutNodes {
        @RegisterExtension
        final ApiServerExtension bare = ApiServerExtension.builder()
                .user("root", User.Role.ADMIN)
                .allocation("lab", 1, List.of(), List.of())
                .allocation("lab/a", 1, List.of(), List.of())
                .allocation("lab/b", 1, List.of(), List.of())
                .build();

        @Test
        void aReplayOnAServiceWithNoNodesIsRefusedBeforeAnythingIsSubmitted() {
            // a simulated-backend service before its nodes were registered took all 40 workloads, and the replay then
            // waited out its whole --timeout (7m26s) and wrote rows of workloads that never started
            Cli.Result r = bare.as("root", "replay", Cli.example("replay"), "--state-dir", tmp.toString(),
                    "--timeout", "5s");
            assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).isEqualTo("allot: the service has no nodes with GPUs, so none of the scenario's 40"
                    + " workloads could start; nothing was submitted (hint: give the service the nodes of the"
                    + " scenario's cluster.yaml first: on the simulated backend PUT /v1/nodes/NAME {\"gpus\": N} for"
                    + " each; 'allot nodes' lists the service's)\n");
            assertThat(r.out()).doesNotContain("replaying");
            assertThat(bare.as("root", "queue").out()).isEqualTo("no workloads\n");
        }
    }
}
