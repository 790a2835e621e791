package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.identity.IdentityMode;
import dev.allot.server.identity.UnixAccounts;
import dev.allot.server.identity.WorkloadIdentity;
import dev.allot.server.service.ServiceConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.User;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The identity mode as the API enforces it, with the service's uid and the machine's accounts injected (so both
 * modes are tested whoever runs the tests): a service that is not root refuses a second non-admin user on the local
 * backend (409, naming the users and the option); a root service refuses a submission whose user has no Unix
 * account or maps to root (400, naming the user, the account and {@code --accounts}).
 */
class IdentityGateApiTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final ApiExtension fx = ApiExtension.startedByEachTest();

    /** Accounts as a fake NSS knows them: nobody and root. */
    private static final class FakeAccounts extends UnixAccounts {
        @Override
        protected Optional<Account> getent(String name) {
            return switch (name) {
                case "nobody" -> Optional.of(new Account("nobody", 65534, 65534, Path.of("/nonexistent"), "/bin/sh"));
                case "root" -> Optional.of(new Account("root", 0, 0, Path.of("/root"), "/bin/bash"));
                default -> Optional.empty();
            };
        }
    }

    /** The API with {@code mode}'s identity gate over root (an admin), alice and ghost, all members of lab. */
    private ApiFixture start(IdentityMode mode) {
        return fx.start(store -> {
            long t = ApiFixture.NOW.toEpochMilli();
            for (User u : List.of(new User("root", User.Role.ADMIN), new User("alice", User.Role.USER),
                    new User("ghost", User.Role.USER))) {
                store.access().putUser(u);
                store.access().addToken(u.name(), "tok-" + u.name(), "test", t);
            }
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of("alice", "ghost", "root")),
                    "root", t);
        }, new ApiServer.Extras(List.of(), () -> { }, () -> { }, () -> { }, () -> { },
                new WorkloadIdentity(mode, new FakeAccounts()), ServiceHealth.OK));
    }

    private ApiFixture.Response submit(String token) throws Exception {
        return fx.api.post("/v1/workloads", token, ApiFixture.JSON.writeValueAsString(Map.of("allocation", "lab",
                "gpus", 1, "minRuntime", "1m", "resumable", false, "priority", "normal", "command", List.of("true"))));
    }

    @Test
    void aServiceThatIsNotRootKeepsToOneNonAdminUserOnTheLocalBackend() throws Exception {
        // ghost is a second non-admin user already: the service would refuse to start; the API is tested alone.
        IdentityMode mode = IdentityMode.decide(ServiceConfig.defaults(dir), 1000, "lab");
        ApiFixture api = start(mode);
        api.store.access().putUser(new User("ghost", User.Role.ADMIN)); // back to one non-admin: alice

        ApiFixture.Response bob = api.put("/v1/users/bob", "tok-root", "{\"role\": \"user\"}");
        assertThat(bob.status()).isEqualTo(409);
        assertThat(bob.json().path("error").asText()).contains("uid 1000", "alice, bob");
        assertThat(bob.json().path("hint").asText()).contains("--single-user-host");
        assertThat(api.store.access().users()).extracting(User::name).doesNotContain("bob");

        ApiFixture.Response demote = api.put("/v1/users/ghost", "tok-root", "{\"role\": \"user\"}");
        assertThat(demote.status()).as("an admin made a user is one more non-admin").isEqualTo(409);
        assertThat(api.put("/v1/users/boss", "tok-root", "{\"role\": \"admin\"}").status()).isEqualTo(201);
        assertThat(api.put("/v1/users/alice", "tok-root", "{\"role\": \"user\"}").status()).isEqualTo(200);
        assertThat(submit("tok-alice").status()).as("no account needed: it runs as the service's user")
                .isEqualTo(201);
    }

    @Test
    void aRootServiceRefusesASubmitterWithoutAnAccountOrMappedToRoot() throws Exception {
        Path accounts = dir.resolve("accounts");
        Files.writeString(accounts, "alice: nobody\n");
        IdentityMode mode = IdentityMode.decide(ServiceConfig.defaults(dir).withSecurity(new ServiceConfig.Security(
                ServiceConfig.Security.LOOPBACK, null, null, accounts, false, false)), 0, "root");
        ApiFixture api = start(mode);

        ApiFixture.Response alice = submit("tok-alice");
        assertThat(alice.status()).as("%s", alice.json()).isEqualTo(201);
        ApiFixture.Response ghost = submit("tok-ghost");
        assertThat(ghost.status()).isEqualTo(400);
        assertThat(ghost.json().path("error").asText()).contains("user 'ghost'", "the account 'ghost'",
                "getent passwd");
        assertThat(ghost.json().path("hint").asText()).contains("'ghost: ACCOUNT'", "--accounts");
        ApiFixture.Response root = submit("tok-root");
        assertThat(root.status()).isEqualTo(400);
        assertThat(root.json().path("error").asText()).contains("'root'", "uid 0");
        assertThat(root.json().path("hint").asText()).contains("--allow-root-workloads");
        assertThat(api.get("/v1/workloads", "tok-root").json().path("workloads")).hasSize(1);
    }
}
