package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.JSON;
import static dev.allot.server.service.ServiceTestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.service.HaCluster.Instance;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.testing.SecondLane;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * High availability on PostgreSQL ({@link HaCluster}, real {@code allot serve} processes, the local backend): the
 * machine's node as the services share it. Every service registers its node at start, and the leader sets the node's
 * GPU count from its own {@code --gpus} (or what it detects) when its term begins; a standby never changes it. An
 * administrator who started a second service with another {@code --gpus} (a typo, or a machine whose
 * {@code nvidia-smi} is missing so that it counts 8 virtual GPUs) made the standby shrink the node in the store at its
 * start, and the leader, reading the nodes, stopped the work on the GPUs "gone" as lost: running work failed because a
 * standby started.
 *
 * <p>It runs beside the module's other tests, one at a time with the other stories of service processes.
 */
@ExtendWith(HaCluster.class)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class HighAvailabilityNodeTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenWorkOnAllEightGpusWhenAStandbyStartsWithFourGpusThenTheWorkRunsOnAndOnlyThatStandbyLeadingSetsFour(
            HaCluster cluster) throws Exception {
        Instance a = cluster.start("a");
        await("a leads", WAIT, () -> cluster.role(a).filter("leader"::equals).isPresent());
        Client http = new Client(a.url());
        String id = submitOnEightGpus(http);
        await(id + " runs", WAIT, () -> "running".equals(HaCluster.state(http, id)));

        Instance b = cluster.start("b", List.of("--gpus", "4"));
        await("b stands by", WAIT, () -> cluster.role(b).filter("standby"::equals).isPresent());
        assertThat(node(cluster).gpus()).as("the node's GPUs once the standby started").isEqualTo(8);
        // the leader reads the nodes at least every 5 s (and stopped the work at the first read after the shrink,
        // before the fix): a read later its work still runs, once
        Thread.sleep(6_000);
        assertThat(HaCluster.state(http, id)).as("%s after the standby started", id).isEqualTo("running");
        assertThat(cluster.snapshot().attempts().get(id)).as("%s's attempts", id).hasSize(1);
        assertThat(cluster.logLines(a, "its GPUs are gone")).as("the leader's log").isEmpty();
        assertThat(cluster.logLines(b, "it sets that count when it leads")).as("the standby's log").hasSize(1);

        a.process().destroyForcibly();
        a.process().waitFor();
        await("b leads", WAIT, () -> cluster.role(b).filter("leader"::equals).isPresent());
        // leading, b says what its machine has, as a restart with --gpus 4 would
        await("the node has b's 4 GPUs", WAIT, () -> node(cluster).gpus() == 4);
    }

    private static Node node(HaCluster cluster) {
        try (Store store = cluster.open()) {
            List<Node> nodes = store.nodes().nodes();
            assertThat(nodes).as("the nodes in the store").hasSize(1);
            return nodes.get(0);
        }
    }

    private static String submitOnEightGpus(Client http) throws IOException, InterruptedException {
        var o = JSON.createObjectNode();
        o.put("allocation", "lab/a");
        o.put("gpus", 8);
        o.put("minRuntime", "1h");
        o.put("resumable", false);
        o.put("priority", "normal");
        o.putArray("command").add("sleep").add("600");
        ServiceTestSupport.Answer answer = http.post("/v1/workloads", "tok-alice", o.toString());
        assertThat(answer.status()).as("submission: %s", answer.json()).isEqualTo(201);
        return answer.json().path("id").asText();
    }

}
