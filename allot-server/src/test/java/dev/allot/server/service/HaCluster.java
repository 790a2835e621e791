package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.TestFolders;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.PostgresSchema;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.TestAbortedException;

/**
 * Several Allot instances ({@link ServiceMain} processes, the {@code local} backend) on one PostgreSQL schema, for the
 * high-availability stories: a fresh schema seeded as {@link ServiceTestSupport#seed} seeds one, a data directory per
 * instance, one local backend directory they share (so that a new leader finds the processes the old one started),
 * each instance's own log, a leader lease short enough for quick rounds, and optionally a {@link TcpProxy} between an
 * instance and the database. After each test every instance and every workload process is killed and the schema
 * dropped.
 *
 * <p>Needs {@code ALLOT_TEST_POSTGRES_URL} (and {@code _USER}, {@code _PASSWORD}; {@code .ci/run} starts one): the
 * test is skipped without it, unless {@code CI} or {@code ALLOT_REQUIRE_SLURM=1} is set (as {@code .ci/run} does), which
 * makes its absence a failure.
 */
final class HaCluster implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    /** The lease the instances run with: short, so that a round takes little time. */
    static final Duration LEASE = Duration.ofMillis(1500);
    static final Duration RENEW_EVERY = Duration.ofMillis(300);

    /** One running instance. */
    record Instance(String name, Process process, String url, Path data, Path log, TcpProxy proxy) {
        long pid() {
            return process.pid();
        }
    }

    private PostgresSchema schema;
    private Path dir;
    private Path backendDir;
    private CrashLedger ledger;
    private final List<Instance> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (System.getenv("ALLOT_TEST_POSTGRES_URL") == null || System.getenv("ALLOT_TEST_POSTGRES_URL").isBlank()) {
            String why = "the high-availability stories need PostgreSQL: set ALLOT_TEST_POSTGRES_URL, _USER and"
                    + " _PASSWORD (.ci/postgres.sh starts one)";
            if (System.getenv("CI") != null || "1".equals(System.getenv("ALLOT_REQUIRE_SLURM"))) {
                throw new AssertionError(why + "; CI (or ALLOT_REQUIRE_SLURM=1) makes that a failure");
            }
            throw new TestAbortedException(why);
        }
        schema = new PostgresSchema();
        schema.create();
        dir = Files.createTempDirectory("allot-ha");
        backendDir = ServiceTestSupport.sharedDirectory(dir.resolve("backend"));
        ledger = new CrashLedger(ServiceTestSupport.sharedFile(dir.resolve("ledger")));
        try (Store store = open()) {
            ServiceTestSupport.seed(store);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (Instance i : started) {
            i.process().destroyForcibly();
            sendSignal(i.pid(), "CONT"); // a stopped process dies only once it runs
            if (i.proxy() != null) {
                i.proxy().close();
            }
        }
        for (Instance i : started) {
            i.process().waitFor();
        }
        if (ledger != null) {
            for (CrashLedger.Entry e : ledger.entries()) {
                if (e.start()) {
                    CrashLedger.process(e).ifPresent(h -> ServiceTestSupport.killTree(h.pid()));
                }
            }
        }
        for (long pid : ServiceTestSupport.wrapperPids(backendDir == null ? null : backendDir.resolve("attempts"))) {
            ProcessHandle.of(pid).filter(h -> h.info().commandLine().orElse("").contains("allot:"))
                    .ifPresent(h -> ServiceTestSupport.killTree(h.pid()));
        }
        if (schema != null) {
            schema.drop();
        }
        if (dir != null && context.getExecutionException().isPresent()) {
            System.out.println("HaCluster: the instances' logs are kept in " + dir);
        } else if (dir != null) {
            try {
                TestFolders.deleteTree(dir);
            } catch (java.io.UncheckedIOException e) {
                // an instance killed a moment ago may still write its last log line: the folder stays, the test holds
                System.out.println("HaCluster: could not remove " + dir + ": " + e.getCause());
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == HaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        return this;
    }

    Store open() {
        return schema.open();
    }

    Path dir() {
        return dir;
    }

    CrashLedger ledger() {
        return ledger;
    }

    /** Starts an instance that reaches the database directly. */
    Instance start(String name) throws IOException, InterruptedException {
        return start(name, false);
    }

    /** Starts an instance, through a {@link TcpProxy} to the database when {@code proxied}. */
    Instance start(String name, boolean proxied) throws IOException, InterruptedException {
        return start(name, proxied, List.of());
    }

    /** Starts an instance that reaches the database directly, with more options ({@code --backend simulated}). */
    Instance start(String name, List<String> options) throws IOException, InterruptedException {
        return start(name, false, options);
    }

    private Instance start(String name, boolean proxied, List<String> options)
            throws IOException, InterruptedException {
        TcpProxy proxy = null;
        String url = schema.jdbcUrl();
        if (proxied) {
            URI db = URI.create(schema.url.substring("jdbc:".length()));
            proxy = new TcpProxy(db.getHost(), db.getPort());
            url = url.replace(db.getHost() + ":" + db.getPort(), "127.0.0.1:" + proxy.port());
        }
        Path data = dir.resolve("data-" + name);
        Path log = dir.resolve(name + ".log");
        ServiceTestSupport.ServiceProcess p = ServiceTestSupport.startServiceProcess(dir, data, 8,
                new ServiceTestSupport.Database(url, schema.user, schema.password), log,
                java.util.stream.Stream.concat(Stream.of("--ha-lease-ms", Long.toString(LEASE.toMillis()),
                        "--ha-renew-ms", Long.toString(RENEW_EVERY.toMillis()), "--local-backend-dir",
                        backendDir.toString()), options.stream()).toList());
        Instance i = new Instance(name, p.process(), p.url(), data, log, proxy);
        started.add(i);
        return i;
    }

    /** What an instance's {@code /v1/health} says of leadership ({@code leader.role}); empty when it does not answer. */
    Optional<String> role(Instance i) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(i.url() + "/v1/health"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
            JsonNode leader = JSON.readTree(r.body()).path("leader");
            return leader.isMissingNode() ? Optional.empty() : Optional.of(leader.path("role").asText());
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The instance among {@code among} whose health says it leads; empty if none does. */
    Optional<Instance> leader(List<Instance> among) {
        for (Instance i : among) {
            if (i.process().isAlive() && role(i).filter("leader"::equals).isPresent()) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    /** When the lease was last taken (a new term), epoch millis by the database's clock (this machine's). */
    long leaseTakenAtMillis() {
        try (Store store = open()) {
            return store.leases().current().orElseThrow().acquiredAtMillis();
        }
    }

    /**
     * Pauses an instance with SIGSTOP and returns, once every thread of it is stopped ({@code T} in
     * {@code /proc/PID/task/TID/stat}), this machine's clock then (epoch millis): whatever the instance did, it did
     * before that moment. The moment the signal is sent says nothing of that: the instance runs on while {@code kill}
     * starts and the signal reaches each of its threads, on a loaded machine for tens of milliseconds.
     */
    long pause(Instance i) throws InterruptedException {
        sendSignal(i.pid(), "STOP");
        ServiceTestSupport.await("every thread of instance " + i.name() + " stopped after SIGSTOP",
                Duration.ofSeconds(30), () -> everyThreadStopped(i.pid()));
        return System.currentTimeMillis();
    }

    private static boolean everyThreadStopped(long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return tasks.allMatch(t -> {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    return state == 'T' || state == 't';
                } catch (IOException | RuntimeException gone) {
                    return true; // a thread that ended does nothing more
                }
            });
        } catch (IOException e) {
            throw new AssertionError("process " + pid + " is gone: it cannot be paused", e);
        }
    }

    /** Sends a signal by name ({@code STOP}, {@code CONT}) to a process. */
    static void sendSignal(long pid, String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Every workload in the store, by id, and its attempts, read now. */
    record Snapshot(Map<String, Workload> workloads, Map<String, List<Attempt>> attempts) {
    }

    Snapshot snapshot() {
        Map<String, Workload> workloads = new TreeMap<>();
        Map<String, List<Attempt>> attempts = new HashMap<>();
        try (Store store = open()) {
            ServiceTestSupport.allWorkloads(store).forEach(w -> workloads.put(w.id(), w));
            for (String id : workloads.keySet()) {
                attempts.put(id, store.attempts().attempts(id));
            }
        }
        return new Snapshot(workloads, attempts);
    }

    /** The log lines of an instance that contain {@code text}. */
    List<String> logLines(Instance i, String text) throws IOException {
        return Files.readAllLines(i.log()).stream().filter(l -> l.contains(text)).toList();
    }
}
