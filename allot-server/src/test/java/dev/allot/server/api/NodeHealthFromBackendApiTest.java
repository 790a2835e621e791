package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/nodes/{name}/health} on a service whose nodes come from its backend (Slurm). On the loopback
 * cluster, an operator drained n4 in Slurm ({@code reason="operator: fan"}); Allot showed it unhealthy
 * ({@code slurm: IDLE+DRAIN: operator: fan}); {@code {"healthy": true}} answered 200 with {@code "healthy": true},
 * and the next node listing made it unhealthy again 0.45 s later: the answer said what did not hold, and work placed
 * there meanwhile would have waited in Slurm on a drained node. Now it is refused, saying where to act.
 */
class NodeHealthFromBackendApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Store store;
    private ApiServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        store = Store.sqlite(dir.resolve("data"));
        long t = System.currentTimeMillis();
        store.access().putUser(new User("root", User.Role.ADMIN));
        store.access().addToken("root", "tok-root", "test", t);
        store.nodes().putNode(new Node("n4", 8, false, "slurm: IDLE+DRAIN: operator: fan", t));
        store.nodes().putNode(new Node("n2", 8, false, "GPU 3 fell off the bus", t));
        server = ApiServer.start(store, 0, Clock.systemUTC(), new ApiServer.Extras(List.of(), () -> { }, () -> { },
                () -> { }, () -> { }, IdentityGate.OPEN, ServiceHealth.OK, "slurm", AttemptOutputs.NONE),
                WorkloadExplainer.NONE);
    }

    @AfterEach
    void stop() {
        server.close();
        store.close();
    }

    private record Answer(int status, JsonNode json) {
    }

    private Answer health(String node, String body) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v1/nodes/" + node + "/health");
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer tok-root").header("Content-Type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), JSON.readTree(r.body()));
    }

    private Node node(String name) {
        return store.nodes().nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aNodeTheBackendReportsUnusableIsNotMarkedHealthyByHandButTheOthersAre() throws Exception {
        Answer drained = health("n4", "{\"healthy\": true}");

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
