package dev.allot.server.bench;

import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.forecast.LiveForecast;
import dev.allot.server.forecast.LiveForecaster;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.sim.forecast.Forecast;
import dev.allot.sim.forecast.ForecastSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What a forecast costs on a big cluster (not a test: it prints numbers and asserts nothing): 1,024 nodes x 8 GPUs
 * fully busy (one 8-GPU gang per node, each declared to run 1 to 24 hours, half of them protected for 8 hours) and
 * 10,000 waiting workloads of 1 to 8 GPUs (half declaring a duration of 10 minutes to a day, half declaring none: the
 * stated default), on the service's own scheduling loop ({@link SchedulerLoop}, simulated backend, SQLite) and its
 * {@link LiveForecaster}. For each forecast setting it prints the time the snapshot held the loop (the only part on
 * the loop's monitor) and the forecast's time off it; then the scheduling cycles run while a forecast is in progress
 * on another thread, next to cycles without one (on a machine with few cores the two compete for CPU, not for the
 * loop); then the service's settings adapting, forecast after forecast, to the default interval's budget.
 *
 * <p>Run with {@code tools/bench-service.sh forecast [--rounds N] [--dir DIR]} (rounds per setting, default 3).
 */
public final class ForecastBench {
    private ForecastBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = 3;
        String dir = null;
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--rounds")) {
                rounds = Integer.parseInt(args[i + 1]);
            } else if (args[i].equals("--dir")) {
                dir = args[i + 1];
            }
        }
        run(Files.createTempDirectory(BenchDirs.root(dir), "forecast"), rounds);
    }

    static void run(Path data, int rounds) throws Exception {
        int nodes = 1024;
        Random random = new Random(11);
        List<String> leaves = new ArrayList<>();
        long t0 = System.nanoTime();
        try (Store store = Store.sqlite(data)) {
            long now = System.currentTimeMillis();
            store.access().putUser(new User("root", User.Role.ADMIN));
            store.access().putUser(new User("alice", User.Role.USER));
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of("alice")), "root", now);
            for (int g = 0; g < 8; g++) {
                store.allocations().putAllocation(new Allocation("lab/g" + g, 1 + random.nextInt(4), List.of(),
                        List.of("alice")), "root", now);
                for (int p = 0; p < 4; p++) {
                    String leaf = "lab/g" + g + "/p" + p;
                    store.allocations().putAllocation(new Allocation(leaf, 1 + random.nextInt(4), List.of(),
                            List.of("alice")), "root", now);
                    leaves.add(leaf);
                }
            }
            for (int i = 0; i < nodes; i++) {
                store.nodes().putNode(new Node(String.format("gpu-%04d", i), 8, true, null, now));
            }
            for (int i = 0; i < nodes; i++) {
                store.workloads().submit(NewWorkload.builder(leaves.get(i % leaves.size()), "alice").gpus(8)
                        .gpusPerNode(8).durationSeconds(3_600L + random.nextInt(23 * 3_600))
                        .minRuntimeSeconds(i % 2 == 0 ? 8 * 3_600 : 0).resumable(true)
                        .command(List.of("train")).submittedAtMillis(now - 3_600_000).build());
            }
        }
        System.out.printf("(f) store seeded with %d nodes in %.1f s%n", nodes, (System.nanoTime() - t0) / 1e9);
        Clock clock = Clock.systemUTC();
        ServicePolicy policy = ServicePolicy.defaults();
        try (Store store = Store.sqlite(data)) {
            SchedulerLoop loop = new SchedulerLoop(store, new SimulatedBackend(clock, 1.0), policy.create(),
                    policy.scheduler(), clock);
            loop.runOnce();
            System.out.printf("(f) first cycle started %d workloads (the cluster is full)%n", loop.counters().starts());
            int[] sizes = {1, 1, 1, 1, 2, 2, 4, 8};
            long now = System.currentTimeMillis();
            for (int i = 0; i < 10_000; i++) {
                int g = sizes[random.nextInt(sizes.length)];
                store.workloads().submit(NewWorkload.builder(leaves.get(random.nextInt(leaves.size())), "alice")
                        .gpus(g).gpusPerNode(g == 8 ? 8 : 0)
                        .durationSeconds(i % 2 == 0 ? Long.valueOf(600 + random.nextInt(86_400)) : null)
                        .minRuntimeSeconds(random.nextInt(10) == 0 ? 0 : 1800).resumable(random.nextBoolean())
                        .command(List.of("train")).submittedAtMillis(now).build());
            }
            loop.runOnce();
            System.out.printf("(f) 10,000 waiting workloads taken in; %d running%n",
                    loop.inspect((s, t) -> s.running().count()).orElse(-1));
            ForecastSettings service = LiveForecaster.serviceSettings();
            for (ForecastSettings s : List.of(service, service.withRuns(3), service.withHorizon(Duration.ofHours(12)),
                    service.withRuns(3).withHorizon(Duration.ofHours(12)))) {
                measure(store, loop, policy, s, rounds, clock);
            }
            cyclesDuringAForecast(store, loop, policy, leaves, random, clock);
            adapting(store, loop, policy, clock);
        }
    }

    /** The service's settings adapting to the default interval's budget (10 s), forecast after forecast. */
    private static void adapting(Store store, SchedulerLoop loop, ServicePolicy policy, Clock clock) {
        LiveForecaster f = new LiveForecaster(store, loop, () -> policy, LiveForecaster.serviceSettings(),
                LiveForecaster.DEFAULT_DURATION, clock);
        f.adaptTo(LiveForecaster.DEFAULT_INTERVAL);
        StringBuilder sb = new StringBuilder("(f) adapting to a budget of "
                + dev.allot.core.model.Durations.format(LiveForecaster.DEFAULT_INTERVAL) + ":");
        for (int i = 0; i < 6; i++) {
            LiveForecast last = f.forecastNow().orElseThrow();
            sb.append(String.format(" %d runs/%s %.1f s;", last.settings().runs(),
                    dev.allot.core.model.Durations.format(last.settings().horizon()), last.forecastNanos() / 1e9));
        }
        System.out.println(sb.append(" next: ").append(f.currentSettings().runs()).append(" runs/")
                .append(dev.allot.core.model.Durations.format(f.currentSettings().horizon())));
    }

    private static void measure(Store store, SchedulerLoop loop, ServicePolicy policy, ForecastSettings settings,
                                int rounds, Clock clock) {
        LiveForecaster f = new LiveForecaster(store, loop, () -> policy, settings, LiveForecaster.DEFAULT_DURATION,
                clock);
        long[] snapshot = new long[rounds];
        long[] forecast = new long[rounds];
        LiveForecast last = null;
        for (int i = 0; i < rounds; i++) {
            last = f.forecastNow().orElseThrow();
            snapshot[i] = last.snapshotNanos();
            forecast[i] = last.forecastNanos();
        }
        Arrays.sort(snapshot);
        Arrays.sort(forecast);
        long within = last.forecasts().byWorkload().values().stream().filter(Forecast::startsWithinHorizon).count();
        System.out.printf("(f) %2d runs, horizon %-4s: snapshot held the loop median %.1f ms (max %.1f ms);"
                        + " forecast median %.2f s (max %.2f s); %d waiting forecast, %d start within the horizon;"
                        + " %d policy decisions%n", settings.runs(), dev.allot.core.model.Durations.format(
                        settings.horizon()), snapshot[rounds / 2] / 1e6, snapshot[rounds - 1] / 1e6,
                forecast[rounds / 2] / 1e9, forecast[rounds - 1] / 1e9, last.forecasts().byWorkload().size(), within,
                last.forecasts().decisions());
    }

    private static void cyclesDuringAForecast(Store store, SchedulerLoop loop, ServicePolicy policy,
                                              List<String> leaves, Random random, Clock clock) throws Exception {
        int cycles = 10;
        long[] idle = cycles(store, loop, leaves, random, cycles);
        LiveForecaster f = new LiveForecaster(store, loop, () -> policy, LiveForecaster.serviceSettings(),
                LiveForecaster.DEFAULT_DURATION, clock);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> running = pool.submit(() -> f.forecastNow());
            Thread.sleep(500); // past the snapshot: the forecast is being played
            long[] during = cycles(store, loop, leaves, random, cycles);
            boolean stillForecasting = !running.isDone();
            running.get();
            System.out.printf("(f) scheduling cycles (one submission before each): without a forecast median %.1f ms"
                            + " (max %.1f ms); while a forecast runs on another thread median %.1f ms"
                            + " (max %.1f ms)%s%n",
                    idle[cycles / 2] / 1e6, idle[cycles - 1] / 1e6, during[cycles / 2] / 1e6, during[cycles - 1] / 1e6,
                    stillForecasting ? "" : " (the forecast ended before the last of them)");
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] cycles(Store store, SchedulerLoop loop, List<String> leaves, Random random, int n) {
        long[] wall = new long[n];
        for (int i = 0; i < n; i++) {
            store.workloads().submit(NewWorkload.builder(leaves.get(random.nextInt(leaves.size())), "alice")
                    .gpus(1).durationSeconds(3600L).minRuntimeSeconds(1800).resumable(true)
                    .command(List.of("train")).submittedAtMillis(System.currentTimeMillis()).build());
            long s = System.nanoTime();
            loop.runOnce();
            wall[i] = System.nanoTime() - s;
        }
        Arrays.sort(wall);
        return wall;
    }
}
