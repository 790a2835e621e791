package dev.allot.cli;

import dev.allot.server.api.ApiServer;
import dev.allot.server.api.IdentityGate;
import dev.allot.server.api.ServiceHealth;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A SQLite store in a temporary directory, seeded with users (each with the token {@code tok-<name>}), allocations
 * and nodes, and an {@link ApiServer} on a free port over it, its clock fixed at {@link #NOW}; the CLI's client reads
 * no environment meanwhile. Registered with {@code @RegisterExtension} on an instance field it starts and stops
 * around each test, on a static field once for the class.
 */
final class ApiServerExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    static final Instant NOW = Instant.parse("2026-03-01T09:00:00Z");

    private final List<Consumer<Store>> seeds;
    private final String nodesFromBackend;
    private final ServiceHealth health;
    private boolean perClass;
    private Path dataDir;
    private Store store;
    private ApiServer server;
    private String url;
    private Function<String, String> realEnvironment;

    private ApiServerExtension(List<Consumer<Store>> seeds, String nodesFromBackend, ServiceHealth health) {
        this.seeds = List.copyOf(seeds);
        this.nodesFromBackend = nodesFromBackend;
        this.health = health;
    }

    static Builder builder() {
        return new Builder();
    }

    /** What the store holds before the server starts, in the order given. */
    static final class Builder {
        private final List<Consumer<Store>> seeds = new ArrayList<>();
        private String nodesFromBackend;
        private ServiceHealth health = ServiceHealth.OK;

        /** A user with the token {@code tok-<name>}. */
        Builder user(String name, User.Role role) {
            seeds.add(store -> {
                store.access().putUser(new User(name, role));
                store.access().addToken(name, "tok-" + name, "test", NOW.toEpochMilli());
            });
            return this;
        }

        /** An allocation, put by {@code root}. */
        Builder allocation(String path, double share, List<String> managers, List<String> members) {
            seeds.add(store -> store.allocations().putAllocation(new Allocation(path, share, managers, members), "root",
                    NOW.toEpochMilli()));
            return this;
        }

        Builder node(String name, int gpus, boolean healthy, String reason) {
            seeds.add(store -> store.nodes().putNode(new Node(name, gpus, healthy, reason, NOW.toEpochMilli())));
            return this;
        }

        /** The server keeps its nodes in step with this backend's ({@code slurm}), as a service on it does. */
        Builder nodesFromBackend(String backend) {
            this.nodesFromBackend = backend;
            return this;
        }

        /** What {@code /v1/health} reports beyond answering (default: nothing). */
        Builder health(ServiceHealth health) {
            this.health = health;
            return this;
        }

        ApiServerExtension build() {
            return new ApiServerExtension(seeds, nodesFromBackend, health);
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        perClass = true;
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        stop();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        if (!perClass) {
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        if (!perClass) {
            stop();
        }
    }

    private void start() throws IOException {
        realEnvironment = ClientOptions.useEnvironment(Map.of());
        dataDir = Files.createTempDirectory("allot-cli-test-");
        store = Store.sqlite(dataDir);
        seeds.forEach(seed -> seed.accept(store));
        Runnable none = () -> { };
        server = ApiServer.start(store, 0, Clock.fixed(NOW, ZoneOffset.UTC), new ApiServer.Extras(List.of(), none, none,
                none, none, IdentityGate.OPEN, health, nodesFromBackend));
        url = "http://127.0.0.1:" + server.port();
    }

    private void stop() throws IOException {
        ClientOptions.environment = realEnvironment;
        try {
            if (server != null) {
                server.close();
            }
            if (store != null) {
                store.close();
            }
        } finally {
            server = null;
            store = null;
            if (dataDir != null) {
                try (Stream<Path> all = Files.walk(dataDir)) {
                    all.sorted(Comparator.reverseOrder()).forEach(p -> {
                        try {
                            Files.delete(p);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
                }
                dataDir = null;
            }
        }
    }

    Store store() {
        return store;
    }

    /** The server's base URL, {@code http://127.0.0.1:<port>}. */
    String url() {
        return url;
    }

    /** Runs a client command as {@code user} (with {@code tok-<user>}). */
    Cli.Result as(String user, String... args) {
        return withToken("tok-" + user, args);
    }

    /** Runs a client command with {@code --server} and {@code --token} before its {@code --}, if any, else last. */
    Cli.Result withToken(String token, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        int at = all.contains("--") ? all.indexOf("--") : all.size();
        all.addAll(at, List.of("--server", url, "--token", token));
        return Cli.run(all.toArray(String[]::new));
    }
}
