package dev.allot.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.server.service.Service;
import dev.allot.server.service.ServiceConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.slurm.SlurmBackend;
import dev.allot.slurm.SlurmConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;

/**
 * One Allot service driving the Slurm test cluster, as a lab would run it, and a client for its API. The store is
 * seeded with users {@code root} (admin), {@code alice} (member of {@code lab/a}) and {@code bob} ({@code lab/b}),
 * tokens {@code tok-<user>}, and the tree {@code lab} > {@code a}, {@code b} with equal shares.
 */
final class Story implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    final SlurmCluster slurm;
    final Path dataDir;
    final String instance;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private Service service;
    private Process process;
    /** How {@link #process} was started with respect to the class archive. */
    private ServeClassArchive.Start archive;
    private int processes;
    private String url;
    private SlurmConfig slurmConfig;
    private Path accountsFile;
    /** {@link #accountsFile} is this story's own, mapping everyone to root; written at start. */
    private boolean rootAccounts = true;
    private final Map<String, String> serviceEnvironment = new java.util.TreeMap<>();
    /** The scheduling loop's tick ({@code allot serve --tick}) of {@link #start}. */
    private Duration tick = Duration.ofMillis(200);
    private Duration settle = Duration.ZERO;
    /** A PostgreSQL store shared with other stories (high availability); null: SQLite in the data directory. */
    private String dbUrl;
    private String dbUser;
    private String dbPassword;

    Story(SlurmCluster slurm, Path dataDir, String instance) {
        this.slurm = slurm;
        this.dataDir = dataDir;
        // Unique per run: Slurm lists ended jobs for an hour, and a job of an earlier run with this run's tag would be
        // taken for this run's attempt (an instance id names one store; a test's store is new each run).
        this.instance = instance + "-" + Long.toHexString(System.nanoTime() & 0xffffffL);
        // Unless told otherwise (runningAs), every user's jobs run as root, the service's own user here: mapped and
        // allowed explicitly (Allot refuses root workloads otherwise).
        this.accountsFile = dataDir.resolveSibling(dataDir.getFileName() + "-accounts");
        this.slurmConfig = SlurmConfig.defaults(slurm.conf, dataDir.resolve("jobs"), this.instance)
                .withCommandTimeout(Duration.ofSeconds(2)).withRootWorkloads(true);
    }

    /**
     * A second service standing in for {@code first} (high availability): its own data directory, the same Allot
     * instance id (so its Slurm jobs are the same instance's, and the instance lock the same) and the same jobs'
     * working directory.
     */
    Story(SlurmCluster slurm, Path dataDir, Story first) {
        this.slurm = slurm;
        this.dataDir = dataDir;
        this.instance = first.instance;
        this.accountsFile = dataDir.resolveSibling(dataDir.getFileName() + "-accounts");
        this.slurmConfig = first.slurmConfig;
    }

    /**
     * Keeps the store in PostgreSQL ({@code allot serve --db-url}, {@link #startProcess} only), with a short leader
     * lease (1.5 s, renewed every 0.3 s), so that several stories' services share it.
     */
    Story onDatabase(String url, String user, String password) {
        this.dbUrl = url;
        this.dbUser = user;
        this.dbPassword = password;
        return this;
    }

    /** Who leads, as this service's {@code /v1/health} says ({@code leader} or {@code standby}); "" if it is down. */
    String role() {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/v1/health"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(r.body()).path("leader").path("role").asText("");
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Run each user's workloads as the Unix account {@code accounts} maps it to ({@code allot serve --accounts}). */
    Story runningAs(Path accounts) {
        accountsFile = accounts;
        rootAccounts = false;
        slurmConfig = slurmConfig.withRootWorkloads(false);
        return this;
    }

    /** Unless the story runs users as their own accounts: every user runs as root ('*: root'), allowed. */
    private void writeRootAccounts() throws IOException {
        if (rootAccounts) {
            Files.writeString(accountsFile, "*: root\n");
        }
    }

    /** Adds a variable to the service's own environment ({@link #startProcess} only). */
    Story withServiceEnvironment(String name, String value) {
        serviceEnvironment.put(name, value);
        return this;
    }

    /** Runs the scheduling loop every {@code every} ({@link #start} only; 200 ms unless told). */
    Story withTick(Duration every) {
        tick = every;
        return this;
    }

    /** Holds decisions after ends for at most {@code d} ({@code allot serve --settle}; {@link #start} only). */
    Story withSettle(Duration d) {
        settle = d;
        return this;
    }

    /** Observe through slurmrestd instead of the commands. */
    Story observingWithRest() {
        slurmConfig = slurmConfig.withRest(slurm.restUrl, "root", slurm.restTokenFile);
        return this;
    }

    /** Run Slurm's commands from {@code dir} (fault-injecting wrappers) instead of the PATH. */
    Story withSlurmBin(Path dir) {
        slurmConfig = slurmConfig.withBinDir(dir);
        return this;
    }

    SlurmConfig slurmConfig() {
        return slurmConfig;
    }

    /** Seeds the store (users, tokens, tree) on a fresh data directory. */
    Story seed() {
        try (Store store = dbUrl == null ? Store.sqlite(dataDir) : Store.open(dbUrl, dbUser, dbPassword)) {
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
        return this;
    }

    /** Starts the service on the Slurm backend (again, after {@link #stop}: a restart). */
    Story start() throws IOException {
        Files.createDirectories(slurmConfig.workDir());
        writeRootAccounts();
        ServiceConfig config = ServiceConfig.defaults(dataDir).withPort(0).withBackend("slurm")
                .withTick(tick).withSettle(settle).withGrace(Duration.ofSeconds(2))
                .withSecurity(new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null, accountsFile,
                        false, slurmConfig.rootWorkloads()));
        service = Service.start(config, Clock.systemUTC(),
                Map.of("slurm", (c, s) -> SlurmBackend.connect(slurmConfig, Clock.systemUTC())));
        url = service.url();
        return this;
    }

    /**
     * Starts {@code allot serve --backend slurm} as a separate process (the test's class path), so that it can be
     * killed with SIGKILL; returns once it has written {@code service.json}.
     */
    Story startProcess() throws Exception {
        Files.createDirectories(slurmConfig.workDir());
        Files.createDirectories(dataDir);
        Files.writeString(dataDir.resolve("instance-id"), instance + "\n");
        Path serviceJson = dataDir.resolve(dev.allot.server.service.ServiceFiles.SERVICE_JSON);
        Files.deleteIfExists(serviceJson);
        // C1 only and the serial collector: a story's service does little work, and so starts in about 40% less time
        // (3.5-7 s instead of 7-11 s each on the loaded 2-core machine; seven starts per run). Same code, same checks.
        // Its classes from a shared archive once the run has one: see ServeClassArchive.
        archive = ServeClassArchive.next();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        cmd.addAll(archive.options());
        cmd.addAll(List.of("-cp", archive.classPath(), "dev.allot.cli.AllotCommand", "serve",
                "--data-dir", dataDir.toString(), "--port", "0", "--backend", "slurm", "--tick", "200ms",
                "--grace", "2s", "--slurm-conf", slurm.conf.toString(), "--slurm-workdir",
                slurmConfig.workDir().toString(), "--slurm-timeout", slurmConfig.commandTimeout().toMillis() + "ms"));
        if (slurmConfig.binDir() != null) {
            cmd.addAll(List.of("--slurm-bin", slurmConfig.binDir().toString()));
        }
        writeRootAccounts();
        cmd.addAll(List.of("--accounts", accountsFile.toString()));
        if (dbUrl != null) {
            cmd.addAll(List.of("--db-url", dbUrl, "--db-user", dbUser, "--lease", "1500ms", "--lease-renew", "300ms"));
        }
        if (slurmConfig.rootWorkloads()) {
            cmd.add("--allow-root-workloads");
        }
        // Kept after the test (the data directory is not): target/it-logs/<instance>-<data dir>-<n>.log. The data
        // directory is in the name because a standby's story has its first's instance id: two services of one
        // instance, started together, must not write one file.
        Path logs = Files.createDirectories(Path.of("target", "it-logs"));
        Path log = logs.resolve(instance + "-" + dataDir.getFileName() + "-" + (++processes) + ".log")
                .toAbsolutePath();
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(serviceEnvironment);
        if (dbPassword != null) {
            pb.environment().put("ALLOT_DB_PASSWORD", dbPassword);
        }
        process = pb.start();
        long pid = process.pid();
        await("allot serve (pid " + pid + ") to write service.json; its log: " + log, Duration.ofSeconds(60), () -> {
            if (!process.isAlive()) {
                throw new AssertionError("allot serve exited " + process.exitValue() + "; its log: " + log);
            }
            try {
                JsonNode j = Files.exists(serviceJson) ? JSON.readTree(serviceJson.toFile()) : null;
                if (j != null && j.path("pid").asLong() == pid) {
                    url = j.path("url").asText();
                    return true;
                }
            } catch (IOException partial) {
                // written atomically, but read again to be sure
            }
            return false;
        });
        return this;
    }

    /**
     * Starts the stories' services ({@link #startProcess}) together, each on a thread of its own, and returns once all
     * have written {@code service.json}: a JVM's start is mostly waiting, and one after another they took twice as
     * long. A failure of any is thrown once all have finished.
     */
    static void startProcesses(Story... stories) throws Exception {
        List<CompletableFuture<Story>> starting = new ArrayList<>();
        for (Story story : stories) {
            CompletableFuture<Story> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    f.complete(story.startProcess());
                } catch (Exception | AssertionError e) {
                    f.completeExceptionally(e);
                }
            }, "start-" + story.dataDir.getFileName());
            t.setDaemon(true);
            t.start();
            starting.add(f);
        }
        Throwable failure = null;
        for (CompletableFuture<Story> f : starting) {
            try {
                f.join();
            } catch (CompletionException e) {
                if (failure == null) {
                    failure = e.getCause();
                } else {
                    failure.addSuppressed(e.getCause());
                }
            }
        }
        if (failure instanceof Exception e) {
            throw e;
        } else if (failure != null) {
            throw (Error) failure;
        }
    }

    /** SIGKILLs the {@link #startProcess} service: no shutdown at all. */
    void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
            process = null;
            ServeClassArchive.exited(archive, false);
        }
    }

    /** Stops the service; Slurm's jobs keep running. */
    void stop() {
        if (service != null) {
            service.close();
            service = null;
        }
        if (process != null) {
            process.destroy();
            boolean exited = false;
            try {
                exited = process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS);
                if (!exited) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
            ServeClassArchive.exited(archive, exited);
        }
    }

    Service service() {
        return service;
    }

    /** The pid of the {@link #startProcess} service. */
    long servicePid() {
        return process.pid();
    }

    @Override
    public void close() {
        stop();
    }

    // ------------------------------------------------------------------ the API

    /** A submission: {@code gpus} GPUs, a minimum runtime, resumability, a shell command. */
    String submit(String user, String allocation, int gpus, String minRuntime, boolean resumable, String shell)
            throws Exception {
        ObjectNode o = JSON.createObjectNode();
        o.put("allocation", allocation);
        o.put("gpus", gpus);
        o.put("minRuntime", minRuntime);
        o.put("resumable", resumable);
        o.put("priority", "normal");
        o.putArray("command").add("bash").add("-c").add(shell);
        JsonNode r = post("/v1/workloads", "tok-" + user, o.toString(), 201);
        return r.path("id").asText();
    }

    /**
     * A submission of an allocated (10 minutes), non-resumable workload of {@code gpus} GPUs running {@code shell}:
     * as a gang of {@code gpusPerNode} per node, or any packing when 0.
     */
    String submitShaped(String user, String allocation, int gpus, int gpusPerNode, String shell) throws Exception {
        ObjectNode o = JSON.createObjectNode();
        o.put("allocation", allocation);
        o.put("gpus", gpus);
        if (gpusPerNode > 0) {
            o.put("gpusPerNode", gpusPerNode);
        }
        o.put("minRuntime", "10m");
        o.put("resumable", false);
        o.put("priority", "normal");
        o.putArray("command").add("bash").add("-c").add(shell);
        return post("/v1/workloads", "tok-" + user, o.toString(), 201).path("id").asText();
    }

    /** A submission of an allocated (1 minute), non-resumable workload: its command and declared environment. */
    String submit(String user, String allocation, int gpus, List<String> command, Map<String, String> environment)
            throws Exception {
        ObjectNode o = JSON.createObjectNode();
        o.put("allocation", allocation);
        o.put("gpus", gpus);
        o.put("minRuntime", "1m");
        o.put("resumable", false);
        o.put("priority", "normal");
        command.forEach(o.putArray("command")::add);
        ObjectNode env = o.putObject("environment");
        environment.forEach(env::put);
        return post("/v1/workloads", "tok-" + user, o.toString(), 201).path("id").asText();
    }

    void cancel(String user, String id) throws Exception {
        post("/v1/workloads/" + id + "/cancel", "tok-" + user, null, 200);
    }

    /** {@code GET /v1/workloads/{id}}: {@code workload} and {@code attempts}. */
    JsonNode workload(String id) throws Exception {
        return get("/v1/workloads/" + id, "tok-root");
    }

    String state(String id) throws Exception {
        return workload(id).path("workload").path("state").asText();
    }

    List<JsonNode> attempts(String id) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        workload(id).path("attempts").forEach(out::add);
        return out;
    }

    /** The service's base URL, e.g. {@code http://127.0.0.1:41234}. */
    String url() {
        return url;
    }

    /** What Slurm shows of one attempt of this story's instance. */
    List<SlurmCluster.Job> jobs(String id, int attempt) {
        return slurm.jobsOf(instance, id, attempt);
    }

    /** Whether Slurm shows the attempt running. */
    boolean runningInSlurm(String id, int attempt) {
        return jobs(id, attempt).stream().anyMatch(j -> j.state().equals("RUNNING"));
    }

    void setHealth(String node, boolean healthy, String reason) throws Exception {
        ObjectNode o = JSON.createObjectNode();
        o.put("healthy", healthy);
        if (reason != null) {
            o.put("reason", reason);
        }
        post("/v1/nodes/" + node + "/health", "tok-root", o.toString(), 200);
    }

    JsonNode nodes() throws Exception {
        return get("/v1/nodes", "tok-root");
    }

    /** The Prometheus text of {@code /metrics}. */
    String metrics() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).timeout(Duration.ofSeconds(20)).GET()
                .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body();
    }

    JsonNode get(String path, String token) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + path))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    JsonNode post(String path, String token, String body, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(20))
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() != expected) {
            throw new AssertionError("POST " + path + " answered " + r.statusCode() + ", expected " + expected + ": "
                    + r.body());
        }
        return r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
    }

    /** Polls until the condition holds; fails naming {@code what} after {@code timeout}. Never asserts a timing. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for: " + what);
            }
            Thread.sleep(100);
        }
    }

    /** Polls for {@code period} that the condition holds all along; fails naming {@code what} the first time it does not. */
    static void during(String what, Duration period, Check condition) throws Exception {
        long end = System.nanoTime() + period.toNanos();
        while (System.nanoTime() < end) {
            if (!condition.holds()) {
                throw new AssertionError("did not hold all along: " + what);
            }
            Thread.sleep(100);
        }
    }

    /** Like {@link #await} for a condition that may throw (API calls). */
    static void until(String what, Duration timeout, Check condition) throws InterruptedException {
        await(what, timeout, () -> {
            try {
                return condition.holds();
            } catch (Exception e) {
                throw new AssertionError(what + ": " + e, e);
            }
        });
    }

    @FunctionalInterface
    interface Check {
        boolean holds() throws Exception;
    }
}
