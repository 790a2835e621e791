package dev.allot.server.sched;

import dev.allot.server.testing.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.WorkloadState;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One store, backend, clock and loop, and the story they tell: the loop's scenario tests move the clock by hand, run
 * one cycle at a time and check what the backend was told, and after every cycle that no GPU was given twice and no
 * attempt started twice.
 */
final class Fixture implements AutoCloseable {
    final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
    final Store store;
    ScriptedBackend backend = new ScriptedBackend(clock);
    SchedulerLoop loop;
    final List<String> story = new ArrayList<>();
    private int cycle;
    private int launchesSeen;
    private int stopsSeen;

    Fixture(Path data, List<String> teams, int... nodeGpus) {
        store = Store.sqlite(data);
        long t = clock.millis();
        for (String team : teams) {
            store.allocations().putAllocation(new Allocation(team, 1, List.of(), List.of()), "root", t);
        }
        for (int i = 0; i < nodeGpus.length; i++) {
            store.nodes().putNode(new Node("n" + (i + 1), nodeGpus[i], true, null, t));
        }
        loop = newLoop();
    }

    private SchedulerLoop newLoop() {
        return newLoop(backend);
    }

    private SchedulerLoop newLoop(dev.allot.core.backend.Backend on) {
        PolicyFactory f = PolicyRegistry.standard().get("allocation");
        return new SchedulerLoop(store, on, f.create(Settings.defaults(f.settings())), SchedulerConfig.defaults(),
                clock);
    }

    /**
     * From now on the loop talks to the backend through a gate the test can close (a backend that stops answering,
     * {@link dev.allot.server.testing.GatedBackend}); a fresh loop, so call it before the first cycle.
     */
    dev.allot.server.testing.GatedBackend gateTheBackend() {
        dev.allot.server.testing.GatedBackend gated = new dev.allot.server.testing.GatedBackend(backend);
        loop = newLoop(gated);
        return gated;
    }

    /** The loop crashes (dropped without close) and a new one starts on the same store and backend. */
    void crash() {
        loop = newLoop();
        story.add((cycle + 1) + ": restart");
    }

    /** The loop crashes together with whatever ran the work: the new loop meets a backend that knows nothing. */
    void crashWithTheBackend() {
        backend = new ScriptedBackend(clock);
        launchesSeen = 0;
        stopsSeen = 0;
        crash();
    }

    String submit(String team, int gpus, long durationSeconds, long minRuntimeSeconds, boolean resumable) {
        return submit(team, gpus, 0, durationSeconds, minRuntimeSeconds, resumable);
    }

    String submit(String team, int gpus, int gpusPerNode, long durationSeconds, long minRuntimeSeconds,
                  boolean resumable) {
        return store.workloads().submit(NewWorkload.builder(team, "u").gpus(gpus).gpusPerNode(gpusPerNode)
                .durationSeconds(durationSeconds)
                .minRuntimeSeconds(minRuntimeSeconds).resumable(resumable).command(List.of("train.py"))
                .environment(Map.of("SEED", "1")).submittedAtMillis(clock.millis()).build()).id();
    }

    /** One cycle; adds what the backend was told to the story and checks no GPU is given twice. */
    void cycle() {
        loop.runOnce();
        cycle++;
        loop.checkBooks();
        List<Launch> ls = backend.launches;
        for (; launchesSeen < ls.size(); launchesSeen++) {
            Launch l = ls.get(launchesSeen);
            story.add(cycle + ": start " + l.attempt() + " " + l.placement().stream()
                    .map(p -> p.node() + p.gpus()).collect(Collectors.joining(" ")));
        }
        for (; stopsSeen < backend.stops.size(); stopsSeen++) {
            story.add(cycle + ": stop " + backend.stops.get(stopsSeen));
        }
        assertNoGpuGivenTwice();
        assertNoAttemptStartedTwice();
    }

    void assertNoAttemptStartedTwice() {
        Set<AttemptKey> keys = new HashSet<>();
        for (Launch l : backend.launches) {
            assertThat(keys.add(l.attempt())).as("attempt %s started twice (cycle %d)", l.attempt(), cycle).isTrue();
        }
    }

    void advance(long seconds) {
        clock.advance(Duration.ofSeconds(seconds));
    }

    void assertNoGpuGivenTwice() {
        Set<String> used = new HashSet<>();
        for (Launch l : backend.liveLaunches()) {
            for (Launch.NodeGpus p : l.placement()) {
                for (int g : p.gpus()) {
                    assertThat(used.add(p.node() + ":" + g))
                            .as("GPU %s:%d given to two live attempts (cycle %d)", p.node(), g, cycle).isTrue();
                }
            }
        }
    }

    /** Cancels through the store and tells the loop, as the API does. */
    void cancel(String id) {
        store.workloads().requestCancel(id);
        loop.nudge(); // as the API does; the next cycle reads the change
    }

    WorkloadState stateOf(String id) {
        return store.workloads().workload(id).orElseThrow().state();
    }

    List<Attempt> attempts(String id) {
        return store.attempts().attempts(id);
    }

    @Override
    public void close() {
        loop.close();
        store.close();
    }
}
