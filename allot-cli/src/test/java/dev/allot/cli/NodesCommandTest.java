package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.User;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code allot nodes drain|resume|set}: what an operator does to a node from the command line instead of curl on
 * {@code POST /v1/nodes/NAME/health} and {@code PUT /v1/nodes/NAME}, against a real API; and {@code allot nodes}
 * alone still listing. The server's refusals (not an administrator, no such node, a node Slurm drained) reach the
 * operator as one line with the hint in the command line's words.
 */
class NodesCommandTest {
    @RegisterExtension
    final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN).user("alice", User.Role.USER)
            .allocation("lab", 1, List.of(), List.of("alice"))
            .node("gpu-01", 8, true, null)
            .node("gpu-02", 8, true, null)
            .build();

    /** A service on Slurm: its nodes come from Slurm, and one of them an operator drained there. */
    @RegisterExtension
    final ApiServerExtension onSlurm = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN)
            .node("n1", 8, true, null)
            .node("n4", 8, false, "slurm: IDLE+DRAIN: operator: fan")
            .nodesFromBackend("slurm")
            .build();

    private Cli.Result as(String user, String... args) {
        return cluster.as(user, args);
    }

    @Test
    void givenAFailingNode_whenTheAdministratorDrainsIt_thenItIsUnhealthyWithTheReasonAndTheOutputSaysHowItDrains() {
        Cli.Result drained = as("root", "nodes", "drain", "gpu-02", "--reason", "fan failure");

        assertThat(drained.exit()).as(drained.err()).isZero();
        assertThat(drained.err()).isEmpty();
        assertThat(drained.out()).isEqualTo("gpu-02: unhealthy (fan failure), 8 GPUs: it takes no new work and drains"
                + " as its workloads reach their minimum runtime (unallocated work leaves at once)\n"
                + "to undo: allot nodes resume gpu-02\n");
        Cli.Result listed = as("alice", "nodes");
        assertThat(listed.out()).containsPattern("gpu-02 +8 +unhealthy +fan failure")
                .endsWith("2 nodes, 16 GPUs (8 healthy)\n");
    }

    @Test
    void givenADrainedNode_whenTheAdministratorResumesIt_thenItIsHealthyAndTakesWorkAgain() {
        as("root", "nodes", "drain", "gpu-02", "--reason", "fan failure");

        Cli.Result resumed = as("root", "nodes", "resume", "gpu-02");

        assertThat(resumed.exit()).as(resumed.err()).isZero();
        assertThat(resumed.out()).isEqualTo("gpu-02: healthy, 8 GPUs; it takes work again\n");
        assertThat(as("alice", "nodes").out()).containsPattern("gpu-02 +8 +healthy +- ")
                .endsWith("2 nodes, 16 GPUs (16 healthy)\n");
    }

    @Test
    void givenTheSubcommands_whenNodesIsGivenAlone_thenItStillListsAndListSaysTheSame() {
        Cli.Result alone = as("alice", "nodes");
        Cli.Result list = as("alice", "nodes", "list");

        assertThat(alone.exit()).as(alone.err()).isZero();
        assertThat(alone.out()).startsWith("NODE").containsPattern("gpu-01 +8 +healthy")
                .endsWith("2 nodes, 16 GPUs (16 healthy)\n");
        assertThat(list.out()).isEqualTo(alone.out());
    }

    @Test
    void givenAUserWhoIsNoAdministrator_whenItDrainsANode_thenOneLineSaysSoAndTheNodeStaysHealthy() {
        Cli.Result r = as("alice", "nodes", "drain", "gpu-01", "--reason", "looks slow");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("allot: ").contains("alice", "set the health of nodes").hasLineCount(1)
                .doesNotContain("Exception", "\tat ");
        assertThat(as("alice", "nodes").out()).containsPattern("gpu-01 +8 +healthy");
    }

    @Test
    void givenAMistypedNodeName_whenItIsDrainedOrResumed_thenTheErrorNamesItAndSaysWhatListsTheNodes() {
        for (String[] args : List.of(new String[] {"nodes", "drain", "gpu-9", "--reason", "fan"},
                new String[] {"nodes", "resume", "gpu-9"})) {
            Cli.Result r = as("root", args);

            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).as(String.join(" ", args))
                    .isEqualTo("allot: no node 'gpu-9' (hint: 'allot nodes' lists them)\n");
        }
    }

    @Test
    void givenANodeAnOperatorDrainedInSlurm_whenItIsResumedInAllot_thenTheRefusalSaysToResumeItInSlurm() {
        Cli.Result r = onSlurm.as("root", "nodes", "resume", "n4");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: node 'n4' is unhealthy in the slurm backend (slurm: IDLE+DRAIN:"
                + " operator: fan): the service marks it healthy once the backend can use it again (hint: make it"
                + " usable in slurm (on Slurm, for a node drained by an operator: scontrol update nodename=n4"
                + " state=resume); the service follows within seconds)\n");
    }

    @Test
    void givenANewMachine_whenTheAdministratorSetsItsGpus_thenItIsRegisteredAndSaidToBeNew() {
        Cli.Result r = as("root", "nodes", "set", "gpu-03", "--gpus", "4");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("gpu-03: 4 GPUs, healthy (registered: a new node)\n");
        assertThat(as("alice", "nodes").out()).containsPattern("gpu-03 +4 +healthy")
                .endsWith("3 nodes, 20 GPUs (20 healthy)\n");
    }

    @Test
    void givenANodeThatLostGpus_whenItsCountIsLowered_thenTheOutputSaysWhatHappensToTheWorkOnThem() {
        as("root", "nodes", "drain", "gpu-01", "--reason", "GPU 3 fell off the bus");

        Cli.Result r = as("root", "nodes", "set", "gpu-01", "--gpus", "6");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("gpu-01: 6 GPUs, unhealthy (GPU 3 fell off the bus) (was 8; work running on the"
                + " GPUs it no longer has is stopped: requeued if resumable, failed otherwise)\n");
        assertThat(as("root", "nodes", "set", "gpu-01", "--gpus", "6").out())
                .isEqualTo("gpu-01: 6 GPUs, unhealthy (GPU 3 fell off the bus) (unchanged)\n");
    }

    @Test
    void givenAGpuCountNoMachineHas_whenItIsSet_thenTheErrorNamesTheOption() {
        Cli.Result r = as("root", "nodes", "set", "gpu-01", "--gpus", "0");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: --gpus: ").contains("1 to 4,096").hasLineCount(1);
    }

    @Test
    void givenAServiceOnSlurm_whenANodeSlurmDoesNotRunIsSet_thenTheRefusalSaysWhereNodesComeFrom() {
        Cli.Result r = onSlurm.as("root", "nodes", "set", "n9", "--gpus", "8");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: the slurm backend runs no node 'n9'")
                .contains("hint: 'allot nodes' lists them; 'allot nodes set NAME --gpus N' changes the GPU count of one of"
                        + " those)").hasLineCount(1);
    }

    @Test
    void givenADrainWithoutAReason_whenItRuns_thenItIsRefusedBeforeAnyChange() {
        Cli.Result missing = as("root", "nodes", "drain", "gpu-01");
        Cli.Result blank = as("root", "nodes", "drain", "gpu-01", "--reason", " ");

        assertThat(missing.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(missing.err()).contains("--reason");
        assertThat(blank.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(blank.err()).isEqualTo("allot: --reason: expected why the node is drained, e.g. --reason 'fan"
                + " failure', got ' '\n");
        assertThat(as("alice", "nodes").out()).contains("(16 healthy)");
    }

    @Test
    void givenTheTokenBeforeTheSubcommand_whenANodeIsDrained_thenItIsRefusedInsteadOfRunningWithAnotherToken() {
        Cli.Result r = Cli.run("nodes", "--server", cluster.url(), "--token", "tok-root", "drain", "gpu-01", "--reason",
                "fan");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: the options of 'allot nodes drain' go after its name, e.g. 'allot nodes"
                + " drain ... --server ...', got --server, --token before it\n").doesNotContain("tok-root");
        assertThat(as("alice", "nodes").out()).contains("(16 healthy)");
    }

    @Test
    void givenAMistypedSubcommand_whenItRuns_thenItIsAnUnknownCommandOfNodes() {
        Cli.Result r = as("root", "nodes", "drian", "gpu-01");

        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: unknown command 'drian' of 'allot nodes'").contains("drain");
    }
}
