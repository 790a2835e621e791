package dev.allot.server.bench;

import dev.allot.core.model.Priority;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.api.ApiServer;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import dev.allot.server.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The scheduling loop's whole cycle on a realistic, full cluster (issue 21), measured with the loop's own
 * {@code runOnce()} on SQLite and the simulated backend, the clock moved by hand one second per cycle:
 *
 * <ul>
 *   <li>1,024 nodes x 8 GPUs, every GPU busy: a third held by protected work (started half an hour ago, 8-hour
 *   minimum runtime), a third by allocated work past its minimum runtime (started 4 hours ago, 1 hour), a fifth by
 *   unallocated work, the rest protected again; 15 allocations (3 groups x 5) whose running work, and so whose usage
 *   over the lookback window, differs (leaf i holds about i+1 parts of it);</li>
 *   <li>10,000 waiting workloads of 1-64 GPUs (8 and more are whole-node gangs), a tenth unallocated, minimum
 *   runtimes 5 minutes to an hour, durations 10 minutes to 2 hours (both divided by {@code churn});</li>
 *   <li>the cycle that takes them in is measured; then the cluster settles unmeasured (unallocated and over-served
 *   work gives way to the new work, one second at a time, until a cycle moves nothing);</li>
 *   <li>then {@code steps} cycles, one per second of the loop's clock, each after {@code churn} new submissions,
 *   while running work ends (the first running work's remaining durations are spread so that about {@code churn}
 *   ends per second, the new work's are short); preemptions come from the policy; the loop's periodic reads (the
 *   tree and the nodes every 5 s of its clock, the brakes' limits every 30 s) are among the cycles measured (it
 *   reads every workload not ended only when it loads; each cycle reads the workloads changed since the last).</li>
 * </ul>
 * It prints the intake cycle, and the whole cycle's median, p90, p99 and max, with the starts, preemptions and ends
 * the measured cycles carried out. With {@code api}, an {@link ApiServer} on the same store
 * answers {@code GET /v1/workloads/ID} for random ids from a client thread throughout, and the latencies are printed
 * beside the cycles': what a user sees while the loop works; first, as a control, the same client for 15 s with the
 * loop idle (same store, JVM and machine; after 5 s unmeasured), which tells what the loop adds from what the machine's load costs anyway.
 */
final class CycleBench {
    private static final int NODES = 1024;
    private static final int GPUS_PER_NODE = 8;

    private CycleBench() {
    }

    static void run(Path data, int steps, int churn, boolean api) throws Exception {
        Random random = new Random(21);
        List<String> leaves = seed(data);
        Instant realNow = Instant.now();
        MutableClock clock = new MutableClock(realNow.minus(Duration.ofHours(4)));
        try (Store store = Store.sqlite(data)) {
            PolicyFactory f = PolicyRegistry.standard().get("allocation");
            SchedulerLoop loop = new SchedulerLoop(store, new SimulatedBackend(clock, 1.0),
                    f.create(Settings.defaults(f.settings())), SchedulerConfig.defaults(), clock);
            int total = NODES * GPUS_PER_NODE;
            // Remaining durations of unprotected work spread so that about `churn` of it ends per second.
            int unprotectedJobsGuess = (total / 3 + total / 5) / 3;
            long spreadSeconds = Math.max(60, unprotectedJobsGuess / Math.max(1, churn));
            long t0 = System.nanoTime();
            // 4 hours ago: allocated work with a 1-hour minimum runtime (a third), and unallocated work (a fifth).
            fill(store, leaves, random, total / 3, 3600, 4 * 3600, spreadSeconds, clock);
            fill(store, leaves, random, total / 5, 0, 4 * 3600, spreadSeconds, clock);
            runUntilQuiet(loop);
            // Half an hour ago: protected work fills the rest.
            clock.advance(Duration.ofMinutes(210));
            fill(store, leaves, random, total - running(loop), 8 * 3600, 2 * 86_400, 0, clock);
            runUntilQuiet(loop);
            clock.advance(Duration.ofMinutes(30));
            loop.runOnce();
            System.out.printf("(b) a full cluster in %.1f s: %d of %d GPUs busy, %d workloads running%n",
                    (System.nanoTime() - t0) / 1e9, running(loop), total,
                    loop.inspect((s, t) -> s.running().count()).orElse(-1));

            long t1 = System.nanoTime();
            List<NewWorkload> waiting = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                waiting.add(waitingWork(leaves, random, churn, clock));
            }
            List<Workload> stored = new ArrayList<>();
            for (int i = 0; i < waiting.size(); i += 1_000) {
                stored.addAll(store.workloads().submitAll(waiting.subList(i, Math.min(waiting.size(), i + 1_000))));
            }
            System.out.printf("(b) 10,000 waiting workloads stored in %.1f s%n", (System.nanoTime() - t1) / 1e9);
            clock.advance(Duration.ofSeconds(1));
            SchedulerLoop.Counters b = loop.counters();
            ThreadCost cost = ThreadCost.start(store);
            long intake = System.nanoTime();
            loop.runOnce();
            long intakeNanos = System.nanoTime() - intake;
            ThreadCost.Spent spent = cost.spent();
            SchedulerLoop.Counters a = loop.counters();
            System.out.printf("(b) the cycle that takes in the 10,000: %.1f ms (its decision %.1f ms; it started %d and"
                            + " preempted %d)%n", intakeNanos / 1e6, a.lastDecisionNanos() / 1e6,
                    a.starts() - b.starts(), a.preemptions() - b.preemptions());
            System.out.printf("(b)   its thread: CPU %.1f ms, allocated %.1f MB; %d SQL statements; open attempts"
                            + " digest %s; %d collections meanwhile (%d ms); the JVM's CPU %.1f ms%n",
                    spent.cpuNanos() / 1e6, spent.allocatedBytes() / 1048576.0, spent.statements(),
                    openAttemptsDigest(store), spent.collections(), spent.collectionMillis(),
                    spent.processCpuNanos() / 1e6);
            // The cluster settles (unallocated and over-served work gives way), one second at a time, unmeasured.
            long settle = System.nanoTime();
            int settled = 0;
            for (long moves = -1; settled < 120 && moves != 0; settled++) {
                SchedulerLoop.Counters x = loop.counters();
                clock.advance(Duration.ofSeconds(1));
                loop.runOnce();
                moves = loop.counters().starts() + loop.counters().preemptions() - x.starts() - x.preemptions();
            }
            System.out.printf("(b) settled in %d more cycles (%.1f s): %d started, %d preempted since the intake%n",
                    settled, (System.nanoTime() - settle) / 1e9, loop.counters().starts() - a.starts(),
                    loop.counters().preemptions() - a.preemptions());

            AtomicBoolean stop = new AtomicBoolean();
            long[][] apiLatencies = new long[1][];
            Thread client = null;
            ApiServer server = null;
            if (api) {
                seedToken(store);
                server = ApiServer.start(store, 0, Clock.systemUTC());
                String base = "http://127.0.0.1:" + server.port();
                List<String> ids = stored.stream().map(Workload::id).toList();
                // The control: the same client for as long, the loop not cycling (same store, JVM and machine
                // load), so that what the loop adds can be told from what the machine costs anyway.
                // A warm-up first (unmeasured), so that the control does not measure the JIT compiling the GETs.
                readFor(base, ids, API_CONTROL_MILLIS / 3);
                print("GET /v1/workloads/ID with the loop idle", readFor(base, ids, API_CONTROL_MILLIS));
                client = new Thread(() -> apiLatencies[0] = readWhile(base, ids, stop), "bench-api-client");
                client.start();
            }
            for (int i = 0; i < 60; i++) { // warm-up, not measured
                step(store, loop, leaves, random, churn, clock);
            }
            long[] wall = new long[steps];
            SchedulerLoop.Counters c0 = loop.counters();
            for (int i = 0; i < steps; i++) {
                wall[i] = step(store, loop, leaves, random, churn, clock);
            }
            SchedulerLoop.Counters c1 = loop.counters();
            stop.set(true);
            if (client != null) {
                client.join();
                server.close();
            }
            Arrays.sort(wall);
            System.out.printf("(b) %d cycles at 1 s steps, %d submission(s) per step: starts %d, preemptions %d,"
                            + " ends %d; %d waiting at the end%n", steps, churn,
                    c1.starts() - c0.starts(), c1.preemptions() - c0.preemptions(),
                    (c1.completions() + c1.failures()) - (c0.completions() + c0.failures()),
                    loop.inspect((s, t) -> s.pending().total()).orElse(-1));
            System.out.printf("(b)   whole cycle (runOnce)  median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                    ServiceBench.pct(wall, 50) / 1e6, ServiceBench.pct(wall, 90) / 1e6,
                    ServiceBench.pct(wall, 99) / 1e6, wall[steps - 1] / 1e6);
            if (apiLatencies[0] != null) {
                print("GET /v1/workloads/ID meanwhile", apiLatencies[0]);
            }
            loop.close();
        }
    }

    /** One cycle a second later, after {@code churn} submissions: the cycle's wall time in nanoseconds. */
    private static long step(Store store, SchedulerLoop loop, List<String> leaves, Random random, int churn,
                             MutableClock clock) {
        clock.advance(Duration.ofSeconds(1));
        List<NewWorkload> arrivals = new ArrayList<>();
        for (int i = 0; i < churn; i++) {
            arrivals.add(waitingWork(leaves, random, churn, clock));
        }
        store.workloads().submitAll(arrivals);
        long s = System.nanoTime();
        loop.runOnce();
        return System.nanoTime() - s;
    }

    /**
     * The open attempts (workload, nodes and GPU lanes) after the intake, hashed: the same decisions give the same
     * digest (workload ids are {@code w-<seq>}, in submission order, so a run is reproducible), which is how a
     * change that should only make the intake faster is checked not to change what it decided.
     */
    private static String openAttemptsDigest(Store store) {
        List<String> lines = new ArrayList<>();
        for (Attempt at : store.attempts().openAttempts()) {
            lines.add(at.key().workloadId() + " " + at.phase() + " " + at.placement());
        }
        java.util.Collections.sort(lines);
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(String.join("\n", lines).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return lines.size() + "/" + java.util.HexFormat.of().formatHex(d, 0, 6);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> seed(Path data) {
        List<String> leaves = new ArrayList<>();
        Random random = new Random(3);
        try (Store store = Store.sqlite(data)) {
            long now = System.currentTimeMillis();
            store.access().putUser(new User("root", User.Role.ADMIN));
            store.access().putUser(new User("alice", User.Role.USER));
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of("alice")), "root", now);
            for (int g = 0; g < 3; g++) {
                store.allocations().putAllocation(new Allocation("lab/g" + g, 1 + random.nextInt(3), List.of(),
                        List.of()), "root", now);
                for (int p = 0; p < 5; p++) {
                    String leaf = "lab/g" + g + "/p" + p;
                    store.allocations().putAllocation(new Allocation(leaf, 1 + random.nextInt(4), List.of(),
                            List.of()), "root", now);
                    leaves.add(leaf);
                }
            }
            for (int i = 0; i < NODES; i++) {
                store.nodes().putNode(new Node(String.format("gpu-%04d", i), GPUS_PER_NODE, true, null, now));
            }
        }
        return leaves;
    }

    private static void seedToken(Store store) {
        store.access().addToken("alice", "tok-alice", "bench", System.currentTimeMillis());
    }

    /**
     * Submits work of about {@code gpus} GPUs in all, started by the next cycles: leaf i gets about i+1 parts (so
     * usage differs), sizes 1-8 (8 as a whole node), durations {@code base} plus up to {@code spread} seconds.
     */
    private static void fill(Store store, List<String> leaves, Random random, int gpus, long minRuntime, long base,
                             long spread, Clock clock) {
        int[] sizes = {1, 2, 4, 8, 8};
        int weights = leaves.size() * (leaves.size() + 1) / 2;
        List<NewWorkload> ws = new ArrayList<>();
        for (int left = gpus; left > 0; ) {
            int g = Math.min(left, sizes[random.nextInt(sizes.length)]);
            int pick = random.nextInt(weights);
            int leaf = 0;
            for (int acc = 1; pick >= acc; acc += leaf + 2) {
                leaf++;
            }
            ws.add(NewWorkload.builder(leaves.get(Math.min(leaf, leaves.size() - 1)), "alice").gpus(g)
                    .gpusPerNode(g == 8 ? 8 : 0).durationSeconds(base + (spread == 0 ? 0 : random.nextLong(spread)))
                    .minRuntimeSeconds(minRuntime).resumable(random.nextBoolean()).command(List.of("train"))
                    .submittedAtMillis(clock.millis()).build());
            left -= g;
        }
        store.workloads().submitAll(ws);
    }

    /**
     * A waiting workload: 1-64 GPUs (8 and more as whole-node gangs), a tenth unallocated, else a minimum runtime of
     * 5 minutes to an hour, running 10 minutes to 2 hours 10 minutes; both divided by {@code churn}, so that ten times
     * the churn also ends ten times as much work.
     */
    private static NewWorkload waitingWork(List<String> leaves, Random random, int churn, Clock clock) {
        int[] sizes = {1, 1, 1, 2, 2, 4, 4, 8, 8, 16, 32, 64};
        int g = sizes[random.nextInt(sizes.length)];
        long minRuntime = random.nextInt(10) == 0 ? 0 : 300L * (1 + random.nextInt(12)) / churn;
        Priority[] priorities = Priority.values();
        return NewWorkload.builder(leaves.get(random.nextInt(leaves.size())), "alice").gpus(g)
                .gpusPerNode(g >= 8 ? 8 : 0).durationSeconds((600L + random.nextInt(7_200)) / churn)
                .minRuntimeSeconds(minRuntime).resumable(random.nextBoolean())
                .priority(priorities[random.nextInt(priorities.length)]).command(List.of("train"))
                .submittedAtMillis(clock.millis()).build();
    }

    private static void runUntilQuiet(SchedulerLoop loop) {
        long starts = -1;
        for (int i = 0; i < 20 && loop.counters().starts() != starts; i++) {
            starts = loop.counters().starts();
            loop.runOnce();
        }
    }

    private static int running(SchedulerLoop loop) {
        return loop.inspect((s, t) -> s.nodes().healthyGpus() - s.nodes().free().totalFree()).orElse(0);
    }

    /** How long the API's latency is measured with the loop idle, before the cycles. */
    private static final long API_CONTROL_MILLIS = 15_000;

    private static void print(String what, long[] l) {
        if (l == null || l.length == 0) {
            System.out.println("(b)   " + what + ": no requests answered");
            return;
        }
        Arrays.sort(l);
        System.out.printf("(b)   %s (%d requests, one client): median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                what, l.length, ServiceBench.pct(l, 50) / 1e6, ServiceBench.pct(l, 90) / 1e6,
                ServiceBench.pct(l, 99) / 1e6, l[l.length - 1] / 1e6);
    }

    /** GETs from one client thread for {@code millis}: their latencies. */
    private static long[] readFor(String base, List<String> ids, long millis) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        long[][] out = new long[1][];
        Thread client = new Thread(() -> out[0] = readWhile(base, ids, stop), "bench-api-idle");
        client.start();
        Thread.sleep(millis);
        stop.set(true);
        client.join();
        return out[0];
    }

    private static long[] readWhile(String base, List<String> ids, AtomicBoolean stop) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        Random random = new Random(5);
        long[] out = new long[1 << 16];
        int n = 0;
        try {
            while (!stop.get()) {
                HttpRequest get = HttpRequest.newBuilder(URI.create(base + "/v1/workloads/"
                                + ids.get(random.nextInt(ids.size()))))
                        .header("Authorization", "Bearer tok-alice").GET().build();
                long s = System.nanoTime();
                HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
                long took = System.nanoTime() - s;
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("GET answered " + r.statusCode() + ": " + r.body());
                }
                if (n == out.length) {
                    out = Arrays.copyOf(out, n * 2);
                }
                out[n++] = took;
            }
        } catch (Exception e) {
            System.out.println("(b) the API client stopped: " + e);
        }
        return Arrays.copyOf(out, n);
    }
}
