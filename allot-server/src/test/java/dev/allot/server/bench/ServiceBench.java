package dev.allot.server.bench;

import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.service.Service;
import dev.allot.server.service.ServiceConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service's benchmark (not a test: it prints numbers and asserts nothing). Run it with
 * {@code tools/bench-service.sh [submit|cycle|forecast|start|start-busy|memory|all] [options]}:
 *
 * <ul>
 *   <li>{@code submit}: submissions per second through the REST API into SQLite: {@code --submissions N} (20,000)
 *       from {@code --threads N} (16) clients over keep-alive HTTP/1.1, after {@code --warmup N} (2,000); the
 *       service runs its scheduling loop (simulated backend, one 8-GPU node, so it fills and the rest waits) unless
 *       {@code --no-loop}; {@code --batch N} sends N workloads per request to {@code POST /v1/workloads/batch};
 *       {@code --client-process} sends single submissions from a client in a JVM of its own ({@link SubmitClient}) and
 *       prints the CPU the service and the client used per submission.</li>
 *   <li>{@code cycle}: whole scheduling cycles on a full 1,024 x 8-GPU cluster with 10,000 waiting workloads, at
 *       one-second steps with arrivals, ends and preemptions, the loop's periodic reads included
 *       ({@link CycleBench}): {@code --steps N} (900) cycles at {@code --churn N} submissions a second (default:
 *       1, with the API's read latency measured meanwhile, then 10); {@code --repeat N} (1) runs it all N times in
 *       the one JVM, each on a new store (the first intake runs cold, the later ones warm).</li>
 *   <li>{@code forecast}: the same cluster fully busy with 10,000 waiting workloads, forecast by the service's
 *       {@link dev.allot.server.forecast.LiveForecaster}: the snapshot's hold of the loop and the forecast's time,
 *       {@code --rounds N} (3) per setting ({@link ForecastBench}).</li>
 *   <li>{@code start}: on an idle cluster with the local backend, from the POST returning to the process's first
 *       instruction (it writes a timestamp) and to the API saying running; {@code --samples N} (20).</li>
 *   <li>{@code start-busy}: the same for a 1-GPU allocated debug workload on one local node of {@code --gpus N}
 *       (32) GPUs all held by unallocated work, which it must preempt and wait for ({@link #startBusy});
 *       {@code --samples N} (100), {@code --grace D} (30s, the service's default),
 *       {@code --victims-ignore-term} (victims that ignore SIGTERM, so each start waits out the grace).</li>
 *   <li>{@code memory}: {@code --waiting N} (100,000) waiting workloads in the heap the JVM is given, the loop
 *       running {@code --seconds N} (40) after taking them in; {@code --histo} prints the live heap's top classes
 *       ({@link #memory}). Not part of {@code all}.</li>
 * </ul>
 *
 * {@code --dir DIR} puts the data directories there (default: a temp directory; the SQLite file's fsyncs make the
 * file system matter).
 */
public final class ServiceBench {
    private static final String BODY = "{\"allocation\":\"lab/a\",\"gpus\":1,\"minRuntime\":\"10m\",\"duration\":\"1h\","
            + "\"resumable\":true,\"priority\":\"normal\",\"command\":[\"true\"]}";

    private ServiceBench() {
    }

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 && !args[0].startsWith("--") ? args[0] : "all";
        int submissions = intOpt(args, "--submissions", 20_000);
        int threads = intOpt(args, "--threads", 16);
        int warmup = intOpt(args, "--warmup", 2_000);
        int samples = intOpt(args, "--samples", 20);
        boolean loop = !Arrays.asList(args).contains("--no-loop");
        int batch = intOpt(args, "--batch", 1);
        boolean clientProcess = Arrays.asList(args).contains("--client-process");
        String dirOpt = strOpt(args, "--dir", null);
        Path root = BenchDirs.root(dirOpt);
        System.out.printf("ServiceBench: %d processors, java %s, data under %s%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), root);
        if (what.equals("submit") || what.equals("all")) {
            if (clientProcess) {
                submitFromProcess(Files.createTempDirectory(root, "submit"), submissions, threads, warmup, loop);
            } else {
                submit(Files.createTempDirectory(root, "submit"), submissions, threads, warmup, loop, batch);
            }
        }
        if (what.equals("forecast") || what.equals("all")) {
            ForecastBench.run(Files.createTempDirectory(root, "forecast"), intOpt(args, "--rounds", 3));
        }
        if (what.equals("cycle") || what.equals("all")) {
            String churn = strOpt(args, "--churn", null);
            for (int round = 0; round < intOpt(args, "--repeat", 1); round++) { // later rounds: a warm JVM
                for (int c : churn == null ? new int[] {1, 10} : new int[] {Integer.parseInt(churn)}) {
                    // the API's latency is measured beside the first (the usual churn); each run on a store of its own
                    CycleBench.run(Files.createTempDirectory(root, "cycle"), intOpt(args, "--steps", 900), c,
                            c == 1 && round == 0);
                }
            }
        }
        if (what.equals("start") || what.equals("all")) {
            start(Files.createTempDirectory(root, "start"), samples);
        }
        if (what.equals("memory")) { // not in "all": it needs its own JVM of -Xmx512m (the script gives it one)
            memory(Files.createTempDirectory(root, "memory"), intOpt(args, "--waiting", 100_000),
                    intOpt(args, "--seconds", 40), Arrays.asList(args).contains("--histo"));
        }
        if (what.equals("start-busy") || what.equals("all")) {
            startBusy(Files.createTempDirectory(root, "busy"), intOpt(args, "--samples", 100),
                    intOpt(args, "--gpus", 32), Duration.parse("PT" + strOpt(args, "--grace", "30s").toUpperCase()),
                    Arrays.asList(args).contains("--victims-ignore-term"));
        }
        System.exit(0);
    }

    // ------------------------------------------------------------------ (a) submissions per second

    static void submit(Path data, int n, int threads, int warmup, boolean withLoop, int batch) throws Exception {
        try (Service service = submissionService(data, withLoop)) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            URI uri = URI.create(service.url() + (batch > 1 ? "/v1/workloads/batch" : "/v1/workloads"));
            String body = batch > 1 ? "{\"workloads\": [" + String.join(", ", java.util.Collections.nCopies(batch, BODY))
                    + "]}" : BODY;
            int requests = Math.max(1, n / batch);
            runSubmissionsTimed(http, uri, Math.max(1, warmup / batch), threads, new long[Math.max(1, warmup / batch)],
                    body);
            long[] latencies = new long[requests];
            long t0 = System.nanoTime();
            int errors = runSubmissionsTimed(http, uri, requests, threads, latencies, body);
            long elapsed = System.nanoTime() - t0;
            Arrays.sort(latencies);
            n = requests * batch;
            System.out.printf("(a) submissions through the API into SQLite%s%s: %d from %d threads in %.2f s ="
                            + " %.0f submissions/s; request latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms;"
                            + " %d errors; loop cycles %d%n", withLoop ? " (loop running, 1 node of 8 GPUs)" :
                            " (no nodes: the loop idles)", batch > 1 ? ", " + batch + " per request (batch)" : "",
                    n, threads, elapsed / 1e9, n / (elapsed / 1e9),
                    pct(latencies, 50) / 1e6, pct(latencies, 90) / 1e6, pct(latencies, 99) / 1e6,
                    latencies[requests - 1] / 1e6, errors, service.loop().counters().cycles());
        }
    }

    /**
     * The service the submission benchmarks measure: the users seeded, the simulated backend, and with {@code withLoop}
     * one node of 8 GPUs (so the loop schedules and the queue grows), else none (the loop idles).
     */
    private static Service submissionService(Path data, boolean withLoop) throws Exception {
        seedUsers(data, List.of("lab", "lab/a", "lab/b"));
        if (withLoop) {
            try (Store store = Store.sqlite(data)) {
                store.nodes().putNode(new Node("n1", 8, true, null, System.currentTimeMillis()));
            }
        }
        ServiceConfig config = ServiceConfig.defaults(data).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofSeconds(1));
        return Service.start(config, Clock.systemUTC());
    }

    /**
     * Single submissions from a client in a JVM of its own ({@link SubmitClient}, started on this class path), the
     * service here as {@link #submit} starts it; prints the client's line and the service's side (loop cycles, how
     * many workloads the store holds, which must be every acknowledged one).
     */
    static void submitFromProcess(Path data, int n, int threads, int warmup, boolean withLoop) throws Exception {
        try (Service service = submissionService(data, withLoop)) {
            String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(List.of(javaBin));
            String opts = System.getenv("BENCH_CLIENT_JAVA_OPTS");
            command.addAll(Arrays.asList((opts == null ? "-Xmx512m" : opts).trim().split("\\s+")));
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), SubmitClient.class.getName(),
                    service.url() + "/v1/workloads", "tok-alice", String.valueOf(n), String.valueOf(threads),
                    String.valueOf(warmup), BODY));
            Process client = new ProcessBuilder(command).redirectErrorStream(true).start();
            long cpu0 = 0;
            long cycles0 = 0;
            try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
                    client.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.equals(SubmitClient.WARM)) { // the measured submissions begin
                        cpu0 = processCpuNanos();
                        cycles0 = service.loop().counters().cycles();
                    } else {
                        System.out.println(line);
                    }
                }
            }
            int exit = client.waitFor();
            long cpu = processCpuNanos() - cpu0;
            int stored = service.store().workloads().workloads(WorkloadFilter.all()).size();
            int sent = Math.max(1, warmup) + n;
            System.out.printf("(a) the client process exited %d; while it measured, the service%s ran %d loop cycles"
                            + " and used %.0f us of CPU per submission (all its threads: the collector's and the"
                            + " compiler's too); the store holds %d workloads (%d sent)%n", exit, withLoop
                            ? " (loop running, 1 node of 8 GPUs)" : " (no nodes: the loop idles)",
                    service.loop().counters().cycles() - cycles0, cpu / 1e3 / n, stored, sent);
        }
    }

    private static int runSubmissionsTimed(HttpClient http, URI uri, int n, int threads, long[] latencies, String body)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(threads);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer tok-alice").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        long s = System.nanoTime();
                        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                        latencies[i] = System.nanoTime() - s;
                        if (r.statusCode() != 201) {
                            errors.incrementAndGet();
                        }
                    }
                } catch (IOException | InterruptedException e) {
                    errors.incrementAndGet();
                } finally {
                    done.countDown();
                }
            });
            th.start();
        }
        done.await();
        return errors.get();
    }

    // ------------------------------------------------------------------ (c) submit to start, local backend

    /** The workload whose start is timed: it writes the time its process ran (epoch nanoseconds), then exits. */
    private static String stampBody(Path out, String minRuntime) {
        return "{\"allocation\":\"lab/a\",\"gpus\":1,\"minRuntime\":\"" + minRuntime + "\",\"resumable\":true,"
                + "\"priority\":\"normal\",\"kind\":\"debug\",\"command\":[\"sh\",\"-c\","
                + "\"date +%s%N > \\\"$BENCH_OUT/$ALLOT_WORKLOAD_ID\\\"\"],"
                + "\"environment\":{\"BENCH_OUT\":\"" + out + "\"}}";
    }

    /** A service on the local backend of one node of {@code gpus} GPUs, for the start benchmarks. */
    private record LocalSetup(ServiceConfig config, Path out) {
        static LocalSetup of(Path data, int gpus, Duration grace) throws IOException {
            seedUsers(data, List.of("lab", "lab/a", "lab/b"));
            // The workloads run as nobody when the bench is root (never as root), and write where nobody may.
            Path out = Files.createDirectories(data.resolveSibling(data.getFileName() + "-out"));
            ServiceConfig.Security security = new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null,
                    null, true, false);
            if (dev.allot.server.identity.UnixAccounts.serviceUid() == 0) {
                Path accounts = Files.writeString(data.resolveSibling(data.getFileName() + "-accounts"), "*: nobody\n");
                security = new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null, accounts, false,
                        false);
                out.getParent().toFile().setExecutable(true, false); // the bench's directory: nobody passes to out/
                out.toFile().setExecutable(true, false);
                out.toFile().setWritable(true, false);
            }
            ServiceConfig config = ServiceConfig.defaults(data).withPort(0).withVirtualGpus(gpus)
                    .withTick(Duration.ofSeconds(1)).withGrace(grace).withSecurity(security);
            return new LocalSetup(config, out);
        }
    }

    /**
     * Submits {@code body} and times it from the POST being answered: to the process's first instruction (the
     * timestamp it writes) and to the API no longer saying pending; waits until it completed. Returns both in
     * nanoseconds.
     */
    private static long[] timeOneStart(HttpClient http, Service service, String body, Path out) throws Exception {
        HttpRequest post = HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads"))
                .header("Authorization", "Bearer tok-alice").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> r = http.send(post, HttpResponse.BodyHandlers.ofString());
        long returned = epochNanos();
        long returnedMono = System.nanoTime();
        if (r.statusCode() != 201) {
            throw new IllegalStateException("submission refused: " + r.statusCode() + " " + r.body());
        }
        String id = r.body().replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
        HttpRequest get = HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads/" + id))
                .header("Authorization", "Bearer tok-alice").GET().build();
        long running = -1;
        Path stamp = out.resolve(id);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            String state = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
            if (running < 0 && !state.contains("\"state\":\"pending\"")) {
                running = System.nanoTime() - returnedMono;
            }
            if (state.contains("\"state\":\"completed\"") && Files.exists(stamp)) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(id + " did not complete within 60 s: " + state);
            }
            Thread.sleep(2);
        }
        long started = Long.parseLong(Files.readString(stamp).trim());
        return new long[] {started - returned, running};
    }

    static void start(Path data, int samples) throws Exception {
        LocalSetup setup = LocalSetup.of(data, 4, Duration.ofSeconds(5));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long[] toProcess = new long[samples];
        long[] toRunning = new long[samples];
        try (Service service = Service.start(setup.config(), Clock.systemUTC())) {
            String body = stampBody(setup.out(), "1m");
            for (int i = -3; i < samples; i++) { // three warm-up samples
                long[] t = timeOneStart(http, service, body, setup.out());
                if (i >= 0) {
                    toProcess[i] = t[0];
                    toRunning[i] = t[1];
                }
            }
        }
        Arrays.sort(toProcess);
        Arrays.sort(toRunning);
        System.out.printf("(c) submit to start on an idle cluster, local backend, tick 1 s, %d samples:%n", samples);
        printStart("(c)", toProcess, toRunning);
    }

    /**
     * Debug start on a busy cluster: one local node of {@code gpus} GPUs, every GPU held by unallocated work (minimum
     * runtime 0, {@code victimCommand}); then {@code samples} allocated 1-GPU debug workloads (minimum runtime 5m), one
     * at a time, each of which must preempt a victim and wait for its process to end before it launches. Before each
     * sample the bench waits until the cluster is full again (the victim, requeued, started again on the GPU the
     * debug workload left) with nothing stopping or waiting for a launch.
     */
    static void startBusy(Path data, int samples, int gpus, Duration grace, boolean victimsTrapTerm)
            throws Exception {
        LocalSetup setup = LocalSetup.of(data, gpus, grace);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long[] toProcess = new long[samples];
        long[] toRunning = new long[samples];
        // A victim that ignores SIGTERM holds its GPU through the whole grace period (then SIGKILL).
        String victimScript = victimsTrapTerm ? "trap '' TERM; sleep 3600 & wait $!; sleep 3600" : "exec sleep 3600";
        String victim = "{\"allocation\":\"lab/b\",\"gpus\":1,\"minRuntime\":\"0\",\"resumable\":true,"
                + "\"priority\":\"normal\",\"command\":[\"sh\",\"-c\",\"" + victimScript + "\"]}";
        long preemptionsBefore;
        try (Service service = Service.start(setup.config(), Clock.systemUTC())) {
            HttpRequest post = HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads"))
                    .header("Authorization", "Bearer tok-alice").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(victim)).build();
            for (int i = 0; i < gpus; i++) {
                HttpResponse<String> r = http.send(post, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 201) {
                    throw new IllegalStateException("victim refused: " + r.statusCode() + " " + r.body());
                }
            }
            String body = stampBody(setup.out(), "5m");
            preemptionsBefore = service.loop().counters().preemptions();
            for (int i = -3; i < samples; i++) { // three warm-up samples
                awaitFullOfUnallocated(service, gpus);
                long[] t = timeOneStart(http, service, body, setup.out());
                if (i >= 0) {
                    toProcess[i] = t[0];
                    toRunning[i] = t[1];
                }
            }
            awaitFullOfUnallocated(service, gpus);
            preemptionsBefore = service.loop().counters().preemptions() - preemptionsBefore;
            cancelAllAndWait(http, service);
        }
        Arrays.sort(toProcess);
        Arrays.sort(toRunning);
        System.out.printf("(d) debug start on a busy cluster, local backend, 1 node x %d GPUs all held by unallocated"
                        + " work%s, grace %s, tick 1 s, %d samples (%d preemptions):%n", gpus,
                victimsTrapTerm ? " that ignores SIGTERM" : "", grace, samples, preemptionsBefore);
        printStart("(d)", toProcess, toRunning);
    }

    /** Waits until every GPU runs unallocated work, nothing is being stopped and no start waits for a launch. */
    private static void awaitFullOfUnallocated(Service service, int gpus) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!service.loop().inspect((s, now) -> s.running().unallocatedGpus() == gpus && s.stopPhase().stopping().isEmpty()
                && s.stopPhase().waiting().isEmpty()).orElse(false)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the cluster did not fill with unallocated work within 60 s");
            }
            Thread.sleep(5);
        }
        Thread.sleep(50); // the victims' processes past their shell's start
    }

    /**
     * Cancels every workload not ended and waits until they all have (the local backend's processes outlive the
     * service, to be adopted: the bench must not leave them behind).
     */
    private static void cancelAllAndWait(HttpClient http, Service service) throws Exception {
        URI list = URI.create(service.url() + "/v1/workloads?state=pending,running,requeued&limit=1000");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            String page = http.send(HttpRequest.newBuilder(list).header("Authorization", "Bearer tok-alice").GET()
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"id\":\"([^\"]+)\"").matcher(page);
            boolean any = false;
            while (m.find()) {
                any = true;
                http.send(HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads/" + m.group(1) + "/cancel"))
                        .header("Authorization", "Bearer tok-alice").POST(HttpRequest.BodyPublishers.noBody())
                        .build(), HttpResponse.BodyHandlers.discarding());
            }
            if (!any) {
                return;
            }
            Thread.sleep(200);
        }
        System.out.println("warning: some workloads had not ended 60 s after being cancelled");
    }

    private static void printStart(String tag, long[] toProcess, long[] toRunning) {
        int n = toProcess.length;
        System.out.printf("%s   POST returned -> process running  median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                tag, pct(toProcess, 50) / 1e6, pct(toProcess, 90) / 1e6, pct(toProcess, 99) / 1e6,
                toProcess[n - 1] / 1e6);
        System.out.printf("%s   POST returned -> API not pending  median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms"
                        + " (polled every ~2 ms)%n", tag, pct(toRunning, 50) / 1e6, pct(toRunning, 90) / 1e6,
                pct(toRunning, 99) / 1e6, toRunning[n - 1] / 1e6);
    }

    // ------------------------------------------------------------------ (e) memory with many waiting

    /**
     * {@code waiting} workloads waiting in the service's heap: SQLite, simulated backend, one node of 8 GPUs (so all
     * but 8 wait), submitted through {@code POST /v1/workloads/batch} 1,000 at a time; once the loop has taken them
     * all in, it runs {@code seconds} more (the 30-second full re-read and the forecasts included), then the heap
     * used after a full GC is printed, with whether the loop kept cycling (an OutOfMemoryError on its thread stops
     * it). Run it with the heap to check ({@code -Xmx512m} by default through the script).
     */
    static void memory(Path data, int waiting, int seconds, boolean histogram) throws Exception {
        seedUsers(data, List.of("lab", "lab/a", "lab/b"));
        try (Store store = Store.sqlite(data)) {
            store.nodes().putNode(new Node("n1", 8, true, null, System.currentTimeMillis()));
        }
        java.lang.management.MemoryMXBean memory = java.lang.management.ManagementFactory.getMemoryMXBean();
        long maxHeap = Runtime.getRuntime().maxMemory();
        ServiceConfig config = ServiceConfig.defaults(data).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofSeconds(1));
        String outcome;
        long cyclesDuring = -1;
        long heapAfterGc = -1;
        long submitNanos = -1;
        long intakeNanos = -1;
        try (Service service = Service.start(config, Clock.systemUTC())) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            int batch = 1_000;
            String body = "{\"workloads\": [" + String.join(", ", java.util.Collections.nCopies(batch, BODY)) + "]}";
            HttpRequest post = HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads/batch"))
                    .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer tok-alice")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
            long t0 = System.nanoTime();
            for (int sent = 0; sent < waiting; sent += batch) {
                HttpResponse<String> r = http.send(post, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 201) {
                    throw new IllegalStateException("batch refused at " + sent + ": " + r.statusCode() + " "
                            + r.body());
                }
            }
            submitNanos = System.nanoTime() - t0;
            long deadline = System.nanoTime() + 600_000_000_000L;
            while (service.loop().inspect((st, now) -> st.pending().total() + st.running().count()).orElse(0) < waiting) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the loop had not taken in " + waiting + " workloads in 10 minutes");
                }
                Thread.sleep(100);
            }
            intakeNanos = System.nanoTime() - t0;
            long cyclesBefore = service.loop().counters().cycles();
            Thread.sleep(seconds * 1000L);
            cyclesDuring = service.loop().counters().cycles() - cyclesBefore;
            System.gc();
            System.gc();
            heapAfterGc = memory.getHeapMemoryUsage().getUsed();
            if (histogram) {
                new ProcessBuilder("jmap", "-histo:live", Long.toString(ProcessHandle.current().pid()))
                        .redirectErrorStream(true).start().inputReader().lines().limit(25)
                        .forEach(System.out::println);
            }
            boolean failing = service.loop().health().failing().isPresent();
            outcome = cyclesDuring > 0 && !failing ? "survived (the loop kept cycling)"
                    : "the loop stopped or failed (" + cyclesDuring + " cycles; failing: " + failing + ")";
        } catch (OutOfMemoryError e) {
            outcome = "did not survive: " + e;
        }
        System.out.printf("(e) %,d waiting workloads (SQLite, simulated backend, 1 node x 8 GPUs), max heap %d MB:"
                        + " submitted in %.1f s, taken in by the loop %.1f s after the first batch; %d cycles in the"
                        + " next %d s; heap used after a full GC %.0f MB; %s%n", waiting, maxHeap >> 20,
                submitNanos / 1e9, intakeNanos / 1e9, cyclesDuring, seconds, heapAfterGc / 1048576.0, outcome);
    }

    // ------------------------------------------------------------------ helpers

    private static void seedUsers(Path data, List<String> allocations) {
        try (Store store = Store.sqlite(data)) {
            long t = System.currentTimeMillis();
            store.access().putUser(new User("root", User.Role.ADMIN));
            store.access().putUser(new User("alice", User.Role.USER));
            store.access().addToken("alice", "tok-alice", "bench", t);
            for (String a : allocations) {
                store.allocations().putAllocation(new Allocation(a, 1, List.of(), List.of("alice")), "root", t);
            }
        }
    }

    /** The CPU time this JVM has used, all its threads (the collector's and the compiler's too). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long epochNanos() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    static long pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    private static int intOpt(String[] args, String name, int def) {
        String v = strOpt(args, name, null);
        return v == null ? def : Integer.parseInt(v);
    }

    private static String strOpt(String[] args, String name, String def) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return def;
    }
}
