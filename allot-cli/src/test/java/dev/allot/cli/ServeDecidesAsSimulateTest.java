package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Durations;
import dev.allot.core.policy.Plan;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance test of {@code serve} with a {@code policy.yaml}: the live scheduling loop decides exactly as
 * {@code allot simulate} does with the same settings on the same submissions. A small scenario (2 nodes x 8 GPUs,
 * three allocations, 20 submissions with minimum runtimes, gangs, unallocated work, preemptions) is run by
 * {@code allot simulate} (its {@code --events-out} story) and replayed through the service's {@link SchedulerLoop}
 * on a SQLite store with the {@link SimulatedBackend} and a clock the test moves from event to event (a submission,
 * an attempt's end, a wake-up the policy asked for, a protection running out); the policy the loop runs is read from
 * the same {@code policy.yaml} by {@code serve}'s reader ({@link ServePolicy}). Every start is compared: workload,
 * time, GPUs per node.
 *
 * <p>The one difference in the submissions: the service never learns of checkpoints, so a preempted resumable
 * workload loses its attempt's work; the scenario gives its resumable workloads a checkpoint interval longer than
 * any run ({@code 30d}), which means the same.
 */
class ServeDecidesAsSimulateTest {
    private static final Instant T0 = Instant.parse("2025-01-06T00:00:00Z");
    private static final String POLICY = """
            lookback: 3d
            max-min-runtime: 1h
            allocation:
              reclaim-margin: 0.2
              fairshare-recheck: 2m
            """;
    /** id, submit (s), allocation, gpus, gpus per node, duration, min runtime, resumable. */
    private static final String[] WORKLOADS = {
        "a1,0,a,8,8,3h,30m,false",
        "a2,0,a,4,0,2h,20m,true",
        "a3,60,a,4,0,4h,3h,true",
        "u1,120,a,2,0,1h,0s,false",
        "b1,300,b,4,0,2h,30m,false",
        "c1,600,c,4,0,90m,30m,false",
        "b2,900,b,2,0,1h,15m,true",
        "c2,1200,c,8,8,1h,30m,false",
        "a4,1800,a,2,0,30m,10m,false",
        "u2,2400,c,1,0,2h,0s,true",
        "b3,3000,b,4,0,45m,15m,true",
        "a5,3600,a,8,8,2h,1h,false",
        "c3,4200,c,2,0,1h,20m,true",
        "b4,5400,b,1,0,3h,30m,false",
        "a6,6000,a,4,0,1h,30m,true",
        "c4,7200,c,4,0,30m,10m,false",
        "b5,7800,b,8,8,1h,30m,false",
        "a7,9000,a,2,0,20m,5m,false",
        "u3,9600,b,4,0,1h,0s,false",
        "c5,10800,c,2,0,40m,15m,false",
    };

    @TempDir
    Path dir;
    private Path scenario;

    /** One start: when (seconds from time 0), which workload, and how many GPUs on which node. */
    record Start(long atSeconds, String workload, String where) {
        @Override
        public String toString() {
            return Durations.formatSeconds(atSeconds) + " " + workload + " on " + where;
        }
    }

    @BeforeEach
    void writeTheScenario() throws Exception {
        scenario = Files.createDirectories(dir.resolve("scenario"));
        Files.writeString(scenario.resolve("cluster.yaml"), """
                node-groups:
                  - name-prefix: node
                    count: 2
                    gpus: 8
                """);
        Files.writeString(scenario.resolve("allocations.yaml"), """
                name: lab
                children:
                  - name: a
                    share: 2
                  - name: b
                    share: 1
                  - name: c
                    share: 1
                """);
        StringBuilder csv = new StringBuilder("id,submit,allocation,user,gpus,gpus_per_node,duration,min_runtime,"
                + "resumable,priority,checkpoint_every,kind\n");
        for (String w : WORKLOADS) {
            String[] f = w.split(",");
            csv.append(String.join(",", f[0], f[1], f[2], "u", f[3], f[4], f[5], f[6], f[7], "normal",
                    f[7].equals("true") ? "30d" : "", "train")).append('\n');
        }
        Files.writeString(scenario.resolve("workloads.csv"), csv);
        Files.writeString(scenario.resolve("policy.yaml"), POLICY);
    }

    @Test
    void theServiceStartsEveryWorkloadWhenWhereAndAsSimulateDoesWithTheSamePolicyYaml() throws Exception {
        List<Start> simulated = simulate();
        ServicePolicy policy = ServePolicy.options(scenario.resolve("policy.yaml"), dir).given();

        List<Start> served = serve(policy, "same");

        assertThat(simulated).as("the story has preemptions and restarts: more starts than workloads")
                .hasSizeGreaterThan(WORKLOADS.length);
        assertThat(served).as("the service's starts, in order of time").containsExactlyElementsOf(simulated);
    }

    @Test
    void theComparisonTellsTheDefaultsFromTheFile() throws Exception {
        // The test above could not pass by accident: run with the defaults, the service decides otherwise.
        List<Start> simulated = simulate();

        List<Start> served = serve(ServicePolicy.defaults(), "defaults");

        assertThat(served).isNotEqualTo(simulated);
    }

    /** {@code allot simulate DIR --policy allocation --events-out F}: its starts. */
    private List<Start> simulate() throws Exception {
        Path events = dir.resolve("events.txt");
        Cli.Result r = Cli.run("simulate", scenario.toString(), "--policy", "allocation", "--events-out",
                events.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        String story = Files.readString(events);
        assertThat(story).as("the scenario has preemptions").contains(" preempt ");
        Pattern start = Pattern.compile("^(\\S+) start (\\S+) on (\\S+)", Pattern.MULTILINE);
        List<Start> starts = new ArrayList<>();
        Matcher m = start.matcher(story);
        while (m.find()) {
            starts.add(new Start(Durations.parse(m.group(1)).toSeconds(), m.group(2), sorted(m.group(3))));
        }
        starts.sort(ORDER);
        return starts;
    }

    private static final Comparator<Start> ORDER = Comparator.comparingLong(Start::atSeconds)
            .thenComparing(Start::workload).thenComparing(Start::where);

    private static String sorted(String where) {
        return java.util.Arrays.stream(where.split(",")).sorted().collect(Collectors.joining(","));
    }

    /**
     * Replays the submissions through the service's loop running {@code policy}: submissions stored when they come,
     * one cycle at each instant something happens, until nothing is left to happen.
     */
    private List<Start> serve(ServicePolicy policy, String name) {
        StepClock clock = new StepClock(T0);
        long t0 = T0.getEpochSecond();
        Map<String, String> idOf = new java.util.HashMap<>();
        try (Store store = Store.sqlite(Files.createDirectories(dir.resolve("store-" + name)))) {
            store.allocations().putAllocation(new Allocation("a", 2, List.of(), List.of()), "root", clock.millis());
            store.allocations().putAllocation(new Allocation("b", 1, List.of(), List.of()), "root", clock.millis());
            store.allocations().putAllocation(new Allocation("c", 1, List.of(), List.of()), "root", clock.millis());
            store.nodes().putNode(new Node("node-01", 8, true, null, clock.millis()));
            store.nodes().putNode(new Node("node-02", 8, true, null, clock.millis()));
            SimulatedBackend backend = new SimulatedBackend(clock);
            SchedulerLoop loop = new SchedulerLoop(store, backend, policy.create(), policy.scheduler(), clock);
            int next = 0;
            long now = 0;
            long lastSubmit = Long.parseLong(WORKLOADS[WORKLOADS.length - 1].split(",")[1]);
            while (true) {
                for (; next < WORKLOADS.length && submitOf(next) == now; next++) {
                    String[] f = WORKLOADS[next].split(",");
                    Workload w = store.workloads().submit(NewWorkload.builder(f[2], "u").gpus(Integer.parseInt(f[3]))
                            .gpusPerNode(Integer.parseInt(f[4])).durationSeconds(Durations.parse(f[5]).toSeconds())
                            .minRuntimeSeconds(Durations.parse(f[6]).toSeconds()).resumable(Boolean.parseBoolean(f[7]))
                            .command(List.of("train.py")).submittedAtMillis(clock.millis()).build());
                    idOf.put(w.id(), f[0]);
                }
                loop.runOnce();
                long at = Long.MAX_VALUE;
                if (next < WORKLOADS.length) {
                    at = submitOf(next);
                }
                at = Math.min(at, backend.nextEnd().map(i -> i.getEpochSecond() - t0).orElse(Long.MAX_VALUE));
                long wake = loop.nextWakeUpSeconds();
                if (wake != Plan.NO_WAKE_UP) {
                    at = Math.min(at, wake - t0);
                }
                long protection = loop.inspect((state, t) -> state.protections().nextEndSeconds()).orElse(Long.MAX_VALUE);
                if (protection != Long.MAX_VALUE && protection - t0 > now) {
                    at = Math.min(at, protection - t0);
                }
                if (at == Long.MAX_VALUE || at > lastSubmit + 86_400) {
                    break;
                }
                assertThat(at).as("time moves on").isGreaterThan(now);
                now = at;
                clock.set(T0.plusSeconds(now));
            }
            assertThat(store.attempts().openAttempts()).as("everything ran to its end").isEmpty();
            List<Start> starts = new ArrayList<>();
            for (Workload w : store.workloads().workloads(WorkloadFilter.all())) {
                for (Attempt a : store.attempts().attempts(w.id())) {
                    String where = a.placement().stream().map(p -> p.node() + ":" + p.gpus().size()).sorted()
                            .collect(Collectors.joining(","));
                    starts.add(new Start(a.startedAtMillis() / 1000 - t0, idOf.get(w.id()), where));
                }
            }
            starts.sort(ORDER);
            return starts;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long submitOf(int i) {
        return Long.parseLong(WORKLOADS[i].split(",")[1]);
    }

    /** A clock the test sets. */
    private static final class StepClock extends Clock {
        private volatile Instant now;

        StepClock(Instant start) {
            this.now = start;
        }

        void set(Instant to) {
            now = to;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
