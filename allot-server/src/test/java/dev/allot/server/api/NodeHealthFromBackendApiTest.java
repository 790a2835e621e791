package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /v1/nodes/{name}/health} on a service whose nodes come from its backend (Slurm). On the loopback
 * cluster, an operator drained n4 in Slurm ({@code reason="operator: fan"}); Allot showed it unhealthy
 * ({@code slurm: IDLE+DRAIN: operator: fan}); {@code {"healthy": true}} answered 200 with {@code "healthy": true},
 * and the next node listing made it unhealthy again 0.45 s later: the answer said what did not hold, and work placed
 * there meanwhile would have waited in Slurm on a drained node. Now it is refused, saying where to act.
 */
class NodeHealthFromBackendApiTest {
    @RegisterExtension
    final ApiExtension fx = ApiExtension.over(NodeHealthFromBackendApiTest::seed, new ApiServer.Extras(List.of(),
            () -> { }, () -> { }, () -> { }, () -> { }, IdentityGate.OPEN, ServiceHealth.OK, "slurm",
            AttemptOutputs.NONE));

    /** An administrator, and two unhealthy nodes: n4 drained in Slurm, n2 marked by a person. */
    private static void seed(Store store) {
        long t = ApiFixture.NOW.toEpochMilli();
        store.access().putUser(new User("root", User.Role.ADMIN));
        store.access().addToken("root", "tok-root", "test", t);
        store.nodes().putNode(new Node("n4", 8, false, "slurm: IDLE+DRAIN: operator: fan", t));
        store.nodes().putNode(new Node("n2", 8, false, "GPU 3 fell off the bus", t));
    }

    private ApiFixture.Response health(String node, String body) {
        return fx.api.post("/v1/nodes/" + node + "/health", "tok-root", body);
    }

    private Node node(String name) {
        return fx.api.store.nodes().nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aNodeTheBackendReportsUnusableIsNotMarkedHealthyByHandButTheOthersAre() {
        ApiFixture.Response drained = health("n4", "{\"healthy\": true}");

        assertThat(drained.status()).isEqualTo(409);
        assertThat(drained.json().path("error").asText()).contains("node 'n4' is unhealthy in the slurm backend",
                "slurm: IDLE+DRAIN: operator: fan");
        assertThat(drained.json().path("hint").asText()).contains("scontrol update nodename=n4 state=resume");
        assertThat(node("n4").healthy()).isFalse();

        // health a person set stays theirs to undo, and a node the backend made unhealthy may still be marked so
        assertThat(health("n2", "{\"healthy\": true}").status()).isEqualTo(200);
        assertThat(node("n2").healthy()).isTrue();
        assertThat(health("n4", "{\"healthy\": false, \"reason\": \"fan replaced, testing\"}").status())
                .isEqualTo(200);
        assertThat(node("n4").reason()).isEqualTo("fan replaced, testing");
    }
}
