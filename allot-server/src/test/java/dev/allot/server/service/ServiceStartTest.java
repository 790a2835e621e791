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
            assertThat(s.store().nodes().nodes()).singleElement().satisfies(n -> {
                assertThat(n.gpus()).isEqualTo(5);
                assertThat(n.healthy()).isFalse();
                assertThat(n.reason()).isEqualTo("fan");
            });
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
}
