package dev.allot.server.service;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.server.sched.LoopObserver;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.AttemptOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.javalin.config.JavalinConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The service's Prometheus metrics (Micrometer), served at {@code GET /metrics} without authentication in the text
 * exposition format:
 *
 * <ul>
 *   <li>{@code allot_queue_pending{allocation}}: waiting workloads per leaf allocation;</li>
 *   <li>{@code allot_gpus{state="total|healthy|busy"}} and {@code allot_occupancy} (busy over healthy GPUs);</li>
 *   <li>{@code allot_wait_seconds{allocation}}: the wait of each start since submission or requeue (count, sum,
 *   max);</li>
 *   <li>{@code allot_preemptions_total{allocation,cause}} (cause: unallocated, fair_share, priority, host_drain),
 *   {@code allot_preempted_gpu_seconds_lost_total{allocation}};</li>
 *   <li>{@code allot_attempts_ended_total{outcome}};</li>
 *   <li>{@code allot_decision_seconds}: the policy's time per cycle that asked it, and {@code allot_cycles_total}:
 *   the cycles that asked it;</li>
 *   <li>{@code allot_cycle_seconds}: the time of every whole scheduling cycle (store reads, backend observation, the
 *   policy, carrying out), whether or not it asked the policy (count, sum, max);</li>
 *   <li>{@code allot_cycle_failures_total}: scheduling cycles that failed;</li>
 *   <li>{@code allot_leader}: 1 while this instance leads (schedules, talks to the backend), 0 while it stands by;
 *   {@code allot_leader_epoch}: the lease's epoch it leads at (0 standing by); {@code allot_leader_terms_total} and
 *   {@code allot_leader_step_downs_total}: the terms it began and the times it stepped down;</li>
 *   <li>{@code allot_forecast_snapshot_seconds} and {@code allot_forecast_seconds}: how long a forecast's copy of
 *   the core's state held the loop, and how long the forecast took off it (registered by
 *   {@link dev.allot.server.forecast.LiveForecaster#metrics}).</li>
 * </ul>
 *
 * The counters and timers are fed by the scheduling loop as its {@link LoopObserver} (cheap, on the loop's
 * thread); the gauges are read from the core's state ({@link SchedulerLoop#inspect}) when {@code /metrics} is
 * scraped, as the loop last published it (never waiting for a cycle that waits for the backend), and the backend's
 * counters from the backend, which answers them without waiting for its commands.
 */
public final class ServiceMetrics implements LoopObserver {
    /** Where the metrics are served. */
    public static final String PATH = "/metrics";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final SchedulerLoop loop;
    private final Timer decision;
    private final Counter cycles;
    private final Timer wholeCycle;
    private final Map<String, Integer> pending = new ConcurrentHashMap<>();
    private volatile Snapshot gpus = new Snapshot(0, 0, 0);

    private record Snapshot(int total, int healthy, int busy) {
    }

    public ServiceMetrics(SchedulerLoop loop) {
        this.loop = Objects.requireNonNull(loop, "loop");
        decision = Timer.builder("allot.decision").description("time the policy took to decide, per scheduling cycle")
                .register(registry);
        wholeCycle = Timer.builder("allot.cycle").description("time of each whole scheduling cycle: store reads,"
                + " backend observation, the policy, carrying out").register(registry);
        cycles = Counter.builder("allot.cycles").description("scheduling cycles that asked the policy")
                .register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("allot.cycle.failures", loop,
                        l -> l.health().failedTotal())
                .description("scheduling cycles that failed (the log has each failure)").register(registry);
        Gauge.builder("allot.leader", loop, l -> l.leadership().map(s -> s.leads() ? 1.0 : 0.0).orElse(1.0))
                .description("1 while this instance leads (schedules and talks to the backend), 0 while it stands by")
                .register(registry);
        Gauge.builder("allot.leader.epoch", loop, l -> l.leadership().map(s -> (double) s.epoch()).orElse(0.0))
                .description("the leader lease's epoch this instance leads at; 0 while it stands by")
                .register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("allot.leader.terms", loop,
                        l -> l.leadership().map(s -> (double) s.termsLed()).orElse(0.0))
                .description("terms of leadership this instance began").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("allot.leader.step.downs", loop,
                        l -> l.leadership().map(s -> (double) s.stepDowns()).orElse(0.0))
                .description("times this instance stepped down (its lease lost or taken over)").register(registry);
        Gauge.builder("allot.gpus", this, m -> m.gpus.total()).tag("state", "total")
                .description("GPUs of the nodes known to the scheduler, by state").register(registry);
        Gauge.builder("allot.gpus", this, m -> m.gpus.healthy()).tag("state", "healthy")
                .description("GPUs of the nodes known to the scheduler, by state").register(registry);
        Gauge.builder("allot.gpus", this, m -> m.gpus.busy()).tag("state", "busy")
                .description("GPUs of the nodes known to the scheduler, by state").register(registry);
        Gauge.builder("allot.occupancy", this, m -> m.gpus.healthy() == 0 ? 0.0
                        : (double) m.gpus.busy() / m.gpus.healthy())
                .description("busy GPUs over healthy GPUs").register(registry);
    }

    /**
     * Counts of what the backend has met ({@code allot_backend_events_total{backend="slurm",event="probe_failures"}}),
     * one counter per name the backend reports; nothing for a backend that counts nothing.
     */
    public void watchBackend(dev.allot.core.backend.Backend backend) {
        for (String event : backend.counters().keySet()) {
            io.micrometer.core.instrument.FunctionCounter.builder("allot.backend.events", backend,
                            b -> b.counters().getOrDefault(event, 0L))
                    .tag("backend", backend.name()).tag("event", event)
                    .description("what the backend has met: failed probes, adopted jobs, duplicates cancelled, ...")
                    .register(registry);
        }
    }

    /** The registry, for tests and for more meters. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The route for {@link dev.allot.server.api.ApiServer.Extras}: {@code GET /metrics} (and HEAD), no authentication. */
    public Consumer<JavalinConfig> route() {
        return config -> dev.allot.server.api.ApiServer.getAndHead(config, PATH, ctx -> ctx.status(200)
                .contentType("text/plain; version=0.0.4; charset=utf-8").result(scrape()));
    }

    /** Reads the gauges from the core's state, then renders every meter in the Prometheus text format. */
    public String scrape() {
        refresh();
        return registry.scrape();
    }

    /** Reads queue lengths and GPUs from the core's state (nothing before the loop's first cycle). */
    void refresh() {
        loop.inspect((state, now) -> {
            read(state);
            return Boolean.TRUE;
        });
    }

    private void read(ClusterState state) {
        Map<String, Integer> counts = new HashMap<>();
        for (int leaf = 0; leaf < state.tree().leafCount(); leaf++) {
            counts.put(state.tree().leafName(leaf),
                    state.pending().count(leaf, true) + state.pending().count(leaf, false));
        }
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (pending.put(e.getKey(), e.getValue()) == null) {
                String allocation = e.getKey();
                Gauge.builder("allot.queue.pending", pending, m -> m.getOrDefault(allocation, 0))
                        .tag("allocation", allocation).description("waiting workloads per allocation")
                        .register(registry);
            }
        }
        pending.replaceAll((k, v) -> counts.getOrDefault(k, 0));
        FreeIndex free = state.nodes().free();
        int total = 0;
        int busy = 0;
        for (int n = 0; n < state.nodes().count(); n++) {
            total += free.capacity(n);
        }
        for (var job : state.jobs()) {
            if (job.state() == dev.allot.core.state.JobState.RUNNING) {
                busy += job.gpus();
            }
        }
        gpus = new Snapshot(total, state.nodes().healthyGpus(), busy);
    }

    @Override
    public void cycle(long decisionNanos, int pendingCount, int running) {
        decision.record(decisionNanos, TimeUnit.NANOSECONDS);
        cycles.increment();
    }

    @Override
    public void cycleEnded(long cycleNanos) {
        wholeCycle.record(cycleNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void started(String workloadId, String allocation, long waitSeconds) {
        Timer.builder("allot.wait").tag("allocation", allocation)
                .description("wait of each start since the workload was submitted or requeued")
                .register(registry).record(Duration.ofSeconds(Math.max(0, waitSeconds)));
    }

    @Override
    public void preempted(String workloadId, String allocation, PreemptionCause cause, long lostGpuSeconds) {
        Counter.builder("allot.preemptions").tag("allocation", allocation)
                .tag("cause", cause == null ? "unknown" : cause.kind().name().toLowerCase(Locale.ROOT))
                .description("workloads preempted, by allocation and rule").register(registry).increment();
        Counter.builder("allot.preempted.gpu.seconds.lost").tag("allocation", allocation)
                .description("GPU-seconds of work lost to preemptions").register(registry).increment(lostGpuSeconds);
    }

    @Override
    public void ended(String workloadId, String allocation, AttemptOutcome outcome) {
        Counter.builder("allot.attempts.ended").tag("outcome", outcome.label())
                .description("attempts ended, by outcome").register(registry).increment();
    }
}
