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
 * {@code tools/bench-service.sh [submit|cycle|forecast|start|all] [options]}:
 *
 * <ul>
 *   <li>{@code submit}: submissions per second through the REST API into SQLite: {@code --submissions N} (20,000)
 *       from {@code --threads N} (16) clients over keep-alive HTTP/1.1, after {@code --warmup N} (2,000); the
 *       service runs its scheduling loop (simulated backend, one 8-GPU node, so it fills and the rest waits) unless
 *       {@code --no-loop}; {@code --batch N} sends N workloads per request to {@code POST /v1/workloads/batch}.</li>
 *   <li>{@code cycle}: whole scheduling cycles on a full 1,024 x 8-GPU cluster with 10,000 waiting workloads, at
 *       one-second steps with arrivals, ends and preemptions, the loop's periodic reads included
 *       ({@link CycleBench}): {@code --steps N} (900) cycles at {@code --churn N} submissions a second (default:
 *       1, with the API's read latency measured meanwhile, then 10).</li>
 *   <li>{@code forecast}: the same cluster fully busy with 10,000 waiting workloads, forecast by the service's
 *       {@link dev.allot.server.forecast.LiveForecaster}: the snapshot's hold of the loop and the forecast's time,
 *       {@code --rounds N} (3) per setting ({@link ForecastBench}).</li>
 *   <li>{@code start}: on an idle cluster with the local backend, from the POST returning to the process's first
 *       instruction (it writes a timestamp) and to the API saying running; {@code --samples N} (20).</li>
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
        String dirOpt = strOpt(args, "--dir", null);
        Path root = dirOpt == null ? Files.createTempDirectory("allot-bench") : Files.createDirectories(Path.of(dirOpt));
        System.out.printf("ServiceBench: %d processors, java %s, data under %s%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), root);
        if (what.equals("submit") || what.equals("all")) {
            submit(Files.createTempDirectory(root, "submit"), submissions, threads, warmup, loop, batch);
        }
        if (what.equals("forecast") || what.equals("all")) {
            ForecastBench.run(Files.createTempDirectory(root, "forecast"), intOpt(args, "--rounds", 3));
        }
        if (what.equals("cycle") || what.equals("all")) {
            String churn = strOpt(args, "--churn", null);
            for (int c : churn == null ? new int[] {1, 10} : new int[] {Integer.parseInt(churn)}) {
                // the API's latency is measured beside the first (the usual churn); each churn on a store of its own
                CycleBench.run(Files.createTempDirectory(root, "cycle"), intOpt(args, "--steps", 900), c, c == 1);
            }
        }
        if (what.equals("start") || what.equals("all")) {
            start(Files.createTempDirectory(root, "start"), samples);
        }
        System.exit(0);
    }

    // ------------------------------------------------------------------ (a) submissions per second

    static void submit(Path data, int n, int threads, int warmup, boolean withLoop, int batch) throws Exception {
        seedUsers(data, List.of("lab", "lab/a", "lab/b"));
        if (withLoop) {
            try (Store store = Store.sqlite(data)) {
                store.nodes().putNode(new Node("n1", 8, true, null, System.currentTimeMillis()));
            }
        }
        ServiceConfig config = ServiceConfig.defaults(data).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withTick(Duration.ofSeconds(1));
        try (Service service = Service.start(config, Clock.systemUTC())) {
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

    // ------------------------------------------------------------------ (c) submit to start, idle, local backend

    static void start(Path data, int samples) throws Exception {
        seedUsers(data, List.of("lab", "lab/a", "lab/b"));
        // The workloads run as nobody when the bench is root (never as root), and write where nobody may.
        Path out = Files.createDirectories(data.resolveSibling(data.getFileName() + "-out"));
        ServiceConfig.Security security = new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null,
                null, true, false);
        if (dev.allot.server.identity.UnixAccounts.serviceUid() == 0) {
            Path accounts = Files.writeString(data.resolveSibling(data.getFileName() + "-accounts"), "*: nobody\n");
            security = new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null, accounts, false, false);
            out.getParent().toFile().setExecutable(true, false); // the bench's directory: nobody passes to out/
            out.toFile().setExecutable(true, false);
            out.toFile().setWritable(true, false);
        }
        ServiceConfig config = ServiceConfig.defaults(data).withPort(0).withVirtualGpus(4)
                .withTick(Duration.ofSeconds(1)).withGrace(Duration.ofSeconds(5)).withSecurity(security);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long[] toProcess = new long[samples];
        long[] toRunning = new long[samples];
        try (Service service = Service.start(config, Clock.systemUTC())) {
            String body = "{\"allocation\":\"lab/a\",\"gpus\":1,\"minRuntime\":\"1m\",\"resumable\":true,"
                    + "\"priority\":\"normal\",\"command\":[\"sh\",\"-c\",\"date +%s%N > \\\"$BENCH_OUT/$ALLOT_WORKLOAD_ID\\\"\"],"
                    + "\"environment\":{\"BENCH_OUT\":\"" + out + "\"}}";
            for (int i = -3; i < samples; i++) { // three warm-up samples
                HttpRequest post = HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads"))
                        .header("Authorization", "Bearer tok-alice").header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                HttpResponse<String> r = http.send(post, HttpResponse.BodyHandlers.ofString());
                long returned = epochNanos();
                long returnedMono = System.nanoTime();
                String id = r.body().replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
                HttpRequest get = HttpRequest.newBuilder(URI.create(service.url() + "/v1/workloads/" + id))
                        .header("Authorization", "Bearer tok-alice").GET().build();
                long running = -1;
                Path stamp = out.resolve(id);
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (System.nanoTime() < deadline) {
                    String state = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
                    if (running < 0 && !state.contains("\"state\":\"pending\"")) {
                        running = System.nanoTime() - returnedMono;
                    }
                    if (state.contains("\"state\":\"completed\"") && Files.exists(stamp)) {
                        break;
                    }
                    Thread.sleep(2);
                }
                long started = Long.parseLong(Files.readString(stamp).trim());
                if (i >= 0) {
                    toProcess[i] = started - returned;
                    toRunning[i] = running;
                }
            }
        }
        Arrays.sort(toProcess);
        Arrays.sort(toRunning);
        System.out.printf("(c) submit to start on an idle cluster, local backend, tick 1 s, %d samples:%n", samples);
        System.out.printf("(c)   POST returned -> process running  median %.1f ms, p90 %.1f ms, max %.1f ms%n",
                pct(toProcess, 50) / 1e6, pct(toProcess, 90) / 1e6, toProcess[samples - 1] / 1e6);
        System.out.printf("(c)   POST returned -> API not pending  median %.1f ms, p90 %.1f ms, max %.1f ms"
                        + " (polled every ~2 ms)%n", pct(toRunning, 50) / 1e6, pct(toRunning, 90) / 1e6,
                toRunning[samples - 1] / 1e6);
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
