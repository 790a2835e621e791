package dev.allot.server.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What the service-level tests (end to end, crash safety) share: a data directory seeded through the store before
 * the service starts (users {@code root}, {@code alice} in {@code lab/a}, {@code bob} in {@code lab/b}, each with
 * token {@code tok-<name>}; the tree {@code lab} > {@code a}, {@code b} with equal shares), a small JSON-over-HTTP
 * client, and process checks that count a zombie as gone.
 */
final class ServiceTestSupport {
    static final ObjectMapper JSON = new ObjectMapper();

    private ServiceTestSupport() {
    }

    /** Seeds users, tokens and the tree {@code lab/a}, {@code lab/b} into a fresh SQLite store in {@code dataDir}. */
    static void seed(Path dataDir) {
        try (Store store = Store.sqlite(dataDir)) {
            seed(store);
        }
    }

    /** {@link #seed(Path)} into any store. */
    static void seed(Store store) {
        long t = System.currentTimeMillis();
        for (User u : List.of(new User("root", User.Role.ADMIN), new User("alice", User.Role.USER),
                new User("bob", User.Role.USER))) {
            store.access().putUser(u);
            store.access().addToken(u.name(), "tok-" + u.name(), "test", t);
        }
        store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
        store.allocations().putAllocation(new Allocation("lab/a", 1, List.of(), List.of("alice")), "root", t);
        store.allocations().putAllocation(new Allocation("lab/b", 1, List.of(), List.of("bob")), "root", t);
    }

    /**
     * As whom the tests' workloads run, in one place: as root (as in CI) every user is mapped to {@code nobody} by an
     * accounts file written in {@code dir} (the service never runs a workload as root), and {@code dir} is made
     * passable (0711) so that those workloads reach the {@link #sharedDirectory shared} files below it; as another
     * user the service cannot switch users, and {@code --single-user-host} lets alice and bob share it.
     */
    static ServiceConfig.Security workloadSecurity(Path dir) {
        if (dev.allot.server.identity.UnixAccounts.serviceUid() != 0) {
            return new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null, null, true, false);
        }
        try {
            Path accounts = dir.resolve("accounts");
            Files.writeString(accounts, "*: nobody\n");
            passable(dir);
            return new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null, accounts, false, false);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A directory every workload may write into (0777), whatever account it runs as. */
    static Path sharedDirectory(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir;
    }

    /** A file every workload may append to (0666), whatever account it runs as. */
    static Path sharedFile(Path file) throws IOException {
        if (!Files.exists(file)) {
            Files.createFile(file);
        }
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        return file;
    }

    private static void passable(Path dir) throws IOException {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> p = new java.util.HashSet<>(
                Files.getPosixFilePermissions(dir));
        p.add(java.nio.file.attribute.PosixFilePermission.GROUP_EXECUTE);
        p.add(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE);
        Files.setPosixFilePermissions(dir, p);
    }

    /** An answer: status and body parsed as JSON (null when empty or not JSON). */
    record Answer(int status, JsonNode json) {
    }

    /** A client for one service URL; thread-safe (one keep-alive {@link HttpClient}). */
    static final class Client {
        private final HttpClient http;
        private volatile String base;

        Client(String base) {
            this.base = base;
            this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                    .version(HttpClient.Version.HTTP_1_1).build();
        }

        void base(String url) {
            this.base = url;
        }

        Answer get(String path, String token) throws IOException, InterruptedException {
            return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), token);
        }

        Answer post(String path, String token, String body) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                    .POST(body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                    .header("Content-Type", "application/json");
            return send(b, token);
        }

        Answer delete(String path, String token) throws IOException, InterruptedException {
            return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE(), token);
        }

        Answer put(String path, String token, String body) throws IOException, InterruptedException {
            return send(HttpRequest.newBuilder(URI.create(base + path))
                    .PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                    .header("Content-Type", "application/json"), token);
        }

        private Answer send(HttpRequest.Builder b, String token) throws IOException, InterruptedException {
            b.timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer " + token);
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            JsonNode json = null;
            if (!r.body().isEmpty()) {
                try {
                    json = JSON.readTree(r.body());
                } catch (IOException notJson) {
                    json = null;
                }
            }
            return new Answer(r.statusCode(), json);
        }
    }

    /** A submission body; {@code key} may be null for none. */
    static String submission(String allocation, String minRuntime, boolean resumable, List<String> command,
                             java.util.Map<String, String> environment, String key) {
        var o = JSON.createObjectNode();
        o.put("allocation", allocation);
        o.put("gpus", 1);
        o.put("minRuntime", minRuntime);
        o.put("resumable", resumable);
        o.put("priority", "normal");
        var c = o.putArray("command");
        command.forEach(c::add);
        var e = o.putObject("environment");
        environment.forEach(e::put);
        if (key != null) {
            o.put("idempotencyKey", key);
        }
        return o.toString();
    }

    /**
     * Every process a local backend launched under {@code dataRoot}: the wrappers, found by their token (it names the
     * data directory) in their arguments, and, when {@code environmentMark} is not null, the processes whose
     * environment holds it (the workloads, and a wrapper whose child had not yet written its record file).
     */
    static List<Long> launchedUnder(Path dataRoot, String environmentMark) {
        String token = "allot:" + dataRoot;
        List<Long> found = new java.util.ArrayList<>();
        ProcessHandle.allProcesses().forEach(h -> {
            if (h.info().arguments().map(a -> java.util.Arrays.stream(a).anyMatch(x -> x.startsWith(token)))
                    .orElse(false)) {
                found.add(h.pid());
                return;
            }
            try {
                String env = Files.readString(Path.of("/proc", Long.toString(h.pid()), "environ"),
                        java.nio.charset.StandardCharsets.ISO_8859_1);
                if (environmentMark != null && env.contains(environmentMark)) {
                    found.add(h.pid());
                }
            } catch (IOException | RuntimeException unreadable) {
                // gone, or not ours to read
            }
        });
        return found;
    }

    /** Alive and not a zombie (a killed grandchild may wait to be reaped by an init that never reaps). */
    /**
     * How long a {@link ServiceMain} process may take to listen: generous, because the process-spawning stories run
     * beside the module's other tests (a JVM starting on a loaded 2-core machine, several at once in the
     * high-availability stories). Only a bound for a hang, never a timing asserted.
     */
    static final Duration SERVICE_START = Duration.ofSeconds(180);

    /** A {@link ServiceMain} started as a process of its own (so that a test can kill it with SIGKILL) and its URL. */
    record ServiceProcess(Process process, String url) {
    }

    /**
     * Starts {@link ServiceMain} as a separate JVM ({@link ServiceJvm}) on {@code data} with the local backend and
     * {@code gpus} GPUs (the workload isolation of {@link #workloadSecurity}), its output appended to
     * {@code dir/service.log}, and returns once it listens (its {@code service.json} names its pid).
     */
    static ServiceProcess startServiceProcess(Path dir, Path data, int gpus) throws IOException, InterruptedException {
        return startServiceProcess(dir, data, gpus, null);
    }

    /** A database the service keeps its store in instead of SQLite in its data directory. */
    record Database(String jdbcUrl, String user, String password) {
    }

    /** {@link #startServiceProcess(Path, Path, int)} with its store in {@code database} (null: SQLite). */
    static ServiceProcess startServiceProcess(Path dir, Path data, int gpus, Database database)
            throws IOException, InterruptedException {
        return startServiceProcess(dir, data, gpus, database, dir.resolve("service.log"), List.of());
    }

    /** {@link #startServiceProcess(Path, Path, int, Database)} with its output in {@code log} and more options. */
    static ServiceProcess startServiceProcess(Path dir, Path data, int gpus, Database database, Path log,
                                              List<String> options) throws IOException, InterruptedException {
        Path json = data.resolve(ServiceFiles.SERVICE_JSON);
        Files.deleteIfExists(json);
        ProcessBuilder pb = new ProcessBuilder(ServiceJvm.command());
        pb.command().addAll(List.of(ServiceMain.class.getName(), "--data-dir", data.toString(), "--port", "0",
                "--backend", "local", "--gpus", Integer.toString(gpus), "--tick-ms", "100", "--grace-ms", "1000"));
        ServiceConfig.Security security = workloadSecurity(dir);
        pb.command().addAll(security.accountsFile() != null
                ? List.of("--accounts", security.accountsFile().toString())
                : List.of("--single-user-host", Boolean.toString(security.singleUserHost())));
        if (database != null) {
            pb.command().addAll(List.of("--database-url", database.jdbcUrl(), "--database-user", database.user()));
            pb.environment().put("ALLOT_DB_PASSWORD", database.password());
        }
        pb.command().addAll(options);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process p = pb.start();
        await("the service writes service.json (log: " + log + ")", SERVICE_START, () -> {
            if (!p.isAlive()) {
                throw new AssertionError("the service exited with " + p.exitValue() + "; see " + log);
            }
            try {
                return Files.exists(json) && JSON.readTree(json.toFile()).path("pid").asLong() == p.pid();
            } catch (IOException e) {
                return false;
            }
        });
        return new ServiceProcess(p, JSON.readTree(json.toFile()).path("url").asText());
    }

    static boolean alive(long pid) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            return !(close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z');
        } catch (IOException | RuntimeException gone) {
            return h.get().isAlive();
        }
    }

    /** SIGKILL to a pid and everything below it, if alive. */
    static void killTree(long pid) {
        ProcessHandle.of(pid).ifPresent(h -> {
            h.descendants().forEach(ProcessHandle::destroyForcibly);
            h.destroyForcibly();
        });
    }

    /** Polls until the condition holds; fails with {@code what} after {@code timeout}. Never asserts a timing. */
    /**
     * Whether {@code file} exists and holds a whole line: a shell's {@code echo > file} creates it empty first, so a
     * test that waited only for the file could read it empty.
     */
    static boolean written(Path file) {
        try {
            return java.nio.file.Files.exists(file) && java.nio.file.Files.readString(file).endsWith("\n");
        } catch (IOException e) {
            return false; // not there yet, or being replaced: ask again
        }
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(50);
        }
    }

    /** The pids of the local backend's wrapper processes, from the pid files under {@code attemptsDir} (none if absent). */
    static List<Long> wrapperPids(Path attemptsDir) throws IOException {
        if (attemptsDir == null || !Files.isDirectory(attemptsDir)) {
            return List.of();
        }
        List<Long> pids = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> files = Files.list(attemptsDir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".pid")).toList()) {
                for (String line : Files.readAllLines(f)) {
                    if (line.startsWith("pid=")) {
                        pids.add(Long.parseLong(line.substring(4).trim()));
                    }
                }
            }
        }
        return pids;
    }

    /**
     * Asks the service behind {@code base} to cancel each of its first 100 workloads that has not ended: a story's
     * clean-up before it closes the service, so that the stops reach the processes.
     */
    static void cancelNotEnded(String base) throws IOException, InterruptedException {
        Client c = new Client(base);
        for (JsonNode w : c.get("/v1/workloads?limit=100", "tok-root").json().path("workloads")) {
            if (!java.util.Set.of("completed", "failed", "cancelled", "preempted").contains(w.path("state").asText())) {
                c.post("/v1/workloads/" + w.path("id").asText() + "/cancel", "tok-root", null);
            }
        }
    }

    /** Waits until the service behind {@code http} has no pending, running or requeued workload: every one has ended. */
    static void awaitAllEnded(Client http, Duration timeout) throws InterruptedException {
        await("every workload has ended", timeout, () -> {
            try {
                JsonNode w = http.get("/v1/workloads?state=pending,running,requeued&limit=1", "tok-root")
                        .json();
                return w != null && w.path("workloads").isEmpty();
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        });
    }

    /** Every workload in {@code store}, page by page in submission order. */
    static List<dev.allot.server.store.Workload> allWorkloads(Store store) {
        List<dev.allot.server.store.Workload> out = new java.util.ArrayList<>();
        dev.allot.server.store.WorkloadFilter f = dev.allot.server.store.WorkloadFilter.all();
        while (true) {
            List<dev.allot.server.store.Workload> page = store.workloads().workloads(f);
            out.addAll(page);
            if (page.size() < f.limit()) {
                return out;
            }
            f = f.withAfterSeq(page.get(page.size() - 1).seq());
        }
    }
}
