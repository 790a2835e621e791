package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.server.store.Node;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a start puts into the store: the local node (created, then its GPU count updated, health kept), the tokens. */
class ServiceStartTest {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");

    @TempDir
    Path dir;

    @Test
    void theLocalNodeIsRegisteredThenUpdatedAndTheTokensComeOnce() {
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withNodeName("n1").withVirtualGpus(3)
                .withDemo(true);
        try (Service s = Service.start(config, new MutableClock(T0))) {
            assertThat(s.adminToken()).isPresent();
            assertThat(s.demoToken()).isPresent();
            assertThat(s.store().nodes().nodes()).containsExactly(new Node("n1", 3, true, null, T0.toEpochMilli()));
            s.store().nodes().setHealth("n1", false, "fan", T0.toEpochMilli());
        }
        try (Service s = Service.start(config.withVirtualGpus(5), new MutableClock(T0))) {
            assertThat(s.adminToken()).isEmpty();
            assertThat(s.demoToken()).isEmpty();
            assertThat(s.keptDemoToken()).as("kept by the first start").isPresent();
            assertThat(s.store().nodes().nodes()).singleElement().satisfies(n -> {
                assertThat(n.gpus()).isEqualTo(5);
                assertThat(n.healthy()).isFalse();
                assertThat(n.reason()).isEqualTo("fan");
            });
        }
    }

    /**
     * Given a service started twice with a different GPU count, when an admin reads the audit trail through the API,
     * then the local node's registration and its change of GPU count are there, made by {@code system:startup}.
     */
    @Test
    void givenARestartWithOtherGpus_whenTheAuditTrailIsRead_thenTheStartRegisteredAndResizedTheNodeAsSystemStartup()
            throws Exception {
        ServiceConfig config = ServiceConfig.defaults(dir).withPort(0).withNodeName("n1").withVirtualGpus(3);
        String token;
        try (Service s = Service.start(config, new MutableClock(T0))) {
            token = s.adminToken().orElseThrow();
        }
        try (Service s = Service.start(config.withVirtualGpus(5), new MutableClock(T0))) {
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://localhost:" + s.port()
                            + "/v1/audit")).header("Authorization", "Bearer " + token).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            com.fasterxml.jackson.databind.JsonNode entries = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(r.body()).path("entries");
            java.util.List<String> rows = new java.util.ArrayList<>();
            entries.forEach(e -> rows.add(e.path("action").asText() + " " + e.path("subject").asText() + " by "
                    + e.path("actor").asText() + " " + e.path("after").path("gpus").asText()));
            assertThat(rows).containsExactly("node.put node:n1 by system:startup 5", "node.put node:n1 by system:startup 3");
        }
    }

    @Test
    void aServiceThatIsNotRootRefusesToStartOnAStoreOfTwoMembersUnlessAcknowledged() {
        Path data = dir.resolve("data");
        ServiceTestSupport.seed(data); // alice and bob, two non-admin users
        ServiceConfig config = ServiceConfig.defaults(data).withPort(0).withNodeName("n1").withVirtualGpus(1);

        assertThatThrownBy(() -> Service.start(config, new MutableClock(T0), java.util.Map.of(),
                dev.allot.server.identity.IdentityMode.decide(config, 1000, "lab")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not root").hasMessageContaining("alice, bob")
                .hasMessageContaining("--single-user-host");

        ServiceConfig acknowledged = config.withSecurity(new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK,
                null, null, null, true, false));
        try (Service s = Service.start(acknowledged, new MutableClock(T0), java.util.Map.of(),
                dev.allot.server.identity.IdentityMode.decide(acknowledged, 1000, "lab"))) {
            assertThat(s.identity().notices()).anyMatch(n -> n.contains("--single-user-host"));
        }
    }
    /**
     * Given a store made by {@code allot serve --demo} as root (every demo user runs as {@code nobody}) in which maria's
     * workload waits, when the service is started again as root without {@code --demo} (maria would run as the account
     * 'maria', which this machine does not have), then it refuses to start, naming maria, her workload and --demo,
     * and the workload still waits; started with --demo again, it starts and the workload is still there, not failed.
     * (The backend refused such work at launch and failed it: 20 accepted workloads lost to a changed option.)
     */
    @Test
    void givenADemoStoreWithWaitingWork_whenRestartedAsRootWithoutDemo_thenItRefusesToStartAndTheWorkStillWaits() {
        Path data = dir.resolve("data");
        ServiceConfig demo = ServiceConfig.defaults(data).withPort(0).withNodeName("n1").withVirtualGpus(2)
                .withDemo(true);
        java.util.Map<String, Service.BackendMaker> runsNothing = java.util.Map.of(ServiceConfig.LOCAL,
                (c, s) -> new dev.allot.server.backend.SimulatedBackend(new MutableClock(T0)));
        try (Service s = Service.start(demo, new MutableClock(T0), runsNothing,
                dev.allot.server.identity.IdentityMode.decide(demo, 0, "root"))) {
            assertThat(s.identity().accounts().accountOf("maria")).isEqualTo("nobody");
        }
        String id;
        try (dev.allot.server.store.Store store = dev.allot.server.store.Store.sqlite(data)) {
            id = store.workloads().submit(new dev.allot.server.store.NewWorkload("lab/nlp/pretrain", "maria", 2, 0,
                    3600L, 600, true, dev.allot.core.model.Priority.NORMAL, "train", java.util.List.of("sleep", "3600"),
                    new java.util.TreeMap<>(), T0.toEpochMilli(), null)).id();
        }
        assertThat(new dev.allot.server.identity.UnixAccounts().lookup("maria")).as("this test needs a machine"
                + " without an account 'maria'").isEmpty();

        ServiceConfig plain = demo.withDemo(false);
        assertThatThrownBy(() -> Service.start(plain, new MutableClock(T0), runsNothing,
                dev.allot.server.identity.IdentityMode.decide(plain, 0, "root")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1 waiting workload could not be started")
                .hasMessageContaining("user 'maria' has no Unix account on this machine")
                .hasMessageContaining("(1 waiting: " + id + ")")
                .hasMessageContaining("start it again with --demo");
        try (dev.allot.server.store.Store store = dev.allot.server.store.Store.sqlite(data)) {
            assertThat(store.workloads().workload(id).orElseThrow().state())
                    .isEqualTo(dev.allot.server.store.WorkloadState.PENDING);
        }

        try (Service s = Service.start(demo, new MutableClock(T0), runsNothing,
                dev.allot.server.identity.IdentityMode.decide(demo, 0, "root"))) {
            assertThat(s.store().workloads().workload(id).orElseThrow().state())
                    .isIn(dev.allot.server.store.WorkloadState.PENDING, dev.allot.server.store.WorkloadState.RUNNING);
        }
    }
}
