package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.await;
import static dev.allot.server.service.ServiceTestSupport.submission;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.server.service.ServiceTestSupport.Answer;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.testing.SecondLane;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 21's preemption ping-pong, with the {@code local} backend and real processes: 4 virtual GPUs, {@code lab} >
 * {@code a}, {@code b} with equal shares; Alice and Bob each submit one 4-GPU resumable workload with a minimum runtime
 * of 3 s whose process, on SIGTERM, takes 3 s to exit. Bob's start waits for Alice's process to stop; before the
 * stopping phase was modelled, his protection counted from the decision, was spent by the time he launched, and he
 * was preempted as he started (attempts of a few milliseconds, over and over). The story checked: while Alice's
 * process stops, Bob's start waits in the core (protected, not charged); he launches only once her process has
 * exited, his protection ends his minimum runtime after that launch, and he runs at least that long before anything
 * stops him; no workload goes through a burst of attempts.
 *
 * <p>Every process writes a record file {@code <workload>-<attempt>} in {@code out/}: {@code start <epoch ms>}, then
 * {@code term <epoch ms>} on SIGTERM and {@code stopped <epoch ms>} just before it exits, 3 s later.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class SlowStopPingPongTest {
    /** Records its start; on SIGTERM records it, takes 3 s to wind down, records that and exits. */
    private static final String SLOW_TO_STOP = "f=\"$E2E_OUT/$ALLOT_WORKLOAD_ID-$ALLOT_ATTEMPT\"; "
            + "ms() { echo $(( $(date +%s%N) / 1000000 )); }; "
            + "trap 'echo \"term $(ms)\" >> \"$f\"; sleep 3; echo \"stopped $(ms)\" >> \"$f\"; exit 143' TERM; "
            + "echo \"start $(ms)\" >> \"$f\"; "
            + "while :; do sleep 0.1; done";
    private static final long MIN_RUNTIME_MILLIS = 3000;
    /**
     * The least run before a preemption that still proves the protection counted from the launch: the loop counts
     * whole seconds, so a 3 s protection may end up to a second early by the wall clock; the fault gave runs of
     * milliseconds.
     */
    private static final long LEAST_RUN_MILLIS = MIN_RUNTIME_MILLIS - 1000;
    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Service service;
    private Path out;

    @AfterEach
    void cleanUp() throws Exception {
        try {
            if (service != null) {
                ServiceTestSupport.cancelNotEnded(service.url());
            }
        } finally {
            if (service != null) {
                service.close();
            }
            if (out != null && Files.isDirectory(out)) {
                List<Long> pids = new ArrayList<>(ServiceTestSupport.launchedUnder(dir, "E2E_OUT=" + out));
                pids.forEach(ServiceTestSupport::killTree);
                await("the test's processes to be gone", WAIT, () -> pids.stream().noneMatch(ServiceTestSupport::alive));
            }
        }
    }

    @Test
    void givenAVictimTakingThreeSecondsToStopThenTheWorkWaitingForItRunsItsMinimumRuntimeFromItsLaunch()
            throws Exception {
        Path data = dir.resolve("data");
        out = ServiceTestSupport.sharedDirectory(dir.resolve("out"));
        ServiceTestSupport.seed(data);
        service = Service.start(ServiceConfig.defaults(data).withPort(0).withVirtualGpus(4)
                .withTick(Duration.ofMillis(100)).withGrace(Duration.ofSeconds(20))
                .withSecurity(ServiceTestSupport.workloadSecurity(dir)), Clock.systemUTC());
        Client http = new Client(service.url());

        // given Alice's 4-GPU workload runs past its minimum runtime
        String alice = submit(http, "tok-alice", "lab/a");
        await("Alice's process starts", WAIT, () -> at(record(alice, 1), "start") > 0);
        Thread.sleep(MIN_RUNTIME_MILLIS + 500);

        // when Bob submits a 4-GPU workload: Alice is asked to stop, and takes 3 s to do it
        String bob = submit(http, "tok-bob", "lab/b");
        await("Alice's process gets SIGTERM", WAIT, () -> at(record(alice, 1), "term") > 0);
        // while she stops, Bob's start waits in the core: it holds the GPUs and is protected, its minimum runtime not
        // begun, not charged
        await("Bob's start waits in the core for Alice's stop", WAIT, () -> waitsInCore(bob));
        assertThat(at(record(bob, 1), "start")).as("Bob's process has not started while he waits").isNegative();
        await("Bob's process starts", WAIT, () -> at(record(bob, 1), "start") > 0);
        long aliceStopped = at(record(alice, 1), "stopped");
        long bobLaunched = at(record(bob, 1), "start");
        assertThat(aliceStopped).as("Alice's process had stopped (3 s after SIGTERM) when Bob's launched")
                .isPositive().isLessThanOrEqualTo(bobLaunched);
        assertThat(aliceStopped - at(record(alice, 1), "term")).isGreaterThanOrEqualTo(2900);
        // and his protection counts from that launch (the loop's whole seconds), not from the decision 3 s before
        long protectedUntil = service.loop().inspect((s, now) -> s.job(bob).orElseThrow().protectedUntilSeconds())
                .orElseThrow();
        assertThat(protectedUntil).as("Bob's protection ends 3 s after his launch (Alice stopped at %d ms)",
                aliceStopped).isGreaterThanOrEqualTo(Math.floorDiv(aliceStopped, 1000) + MIN_RUNTIME_MILLIS / 1000);

        // then Bob is not stopped as he starts: whatever happens next, his run lasts his minimum runtime from launch
        Thread.sleep(MIN_RUNTIME_MILLIS + 2000);
        long bobTermed = at(record(bob, 1), "term");
        assertThat(bobTermed < 0 || bobTermed - bobLaunched >= LEAST_RUN_MILLIS)
                .as("Bob's attempt 1 launched at %d was stopped at %d, %d ms into its 3 s minimum runtime", bobLaunched,
                        bobTermed, bobTermed - bobLaunched).isTrue();
        // and in the store: his attempt began when it launched, not when it was decided, and ran its minimum runtime
        JsonNode b1 = attempts(http, bob).get(0);
        long storedStart = Instant.parse(b1.path("startedAt").asText()).toEpochMilli();
        assertThat(storedStart).as("Bob's stored attempt begins at its launch, after Alice's stop")
                .isGreaterThanOrEqualTo(aliceStopped - 1000);
        if (!b1.path("endedAt").isMissingNode() && !b1.path("endedAt").isNull()) {
            assertThat(Instant.parse(b1.path("endedAt").asText()).toEpochMilli() - storedStart)
                    .isGreaterThanOrEqualTo(LEAST_RUN_MILLIS);
        }

        // and nobody goes through a burst of attempts (the fault: dozens within seconds)
        for (String id : List.of(alice, bob)) {
            assertThat(attempts(http, id).size()).as("attempts of %s", id).isLessThanOrEqualTo(2);
            for (JsonNode a : attempts(http, id)) {
                if (a.path("endedAt").isTextual() && "requeued".equals(a.path("outcome").asText())) {
                    long ran = Instant.parse(a.path("endedAt").asText()).toEpochMilli()
                            - Instant.parse(a.path("startedAt").asText()).toEpochMilli();
                    assertThat(ran).as("attempt %s of %s, preempted", a.path("attempt"), id)
                            .isGreaterThanOrEqualTo(LEAST_RUN_MILLIS);
                }
            }
        }
    }

    /** Whether the scheduling core sees the workload's start waiting for a stop, protected and not yet launched. */
    private boolean waitsInCore(String id) {
        return service.loop().inspect((s, now) -> s.job(id).map(j -> j.state() == dev.allot.core.state.JobState.RUNNING
                && j.awaitingLaunch() && j.isProtected(now) && s.totalChargedGpuSeconds(j.leaf()) == 0).orElse(false))
                .orElse(false);
    }

    private String submit(Client http, String token, String allocation) throws Exception {
        ObjectNode body = (ObjectNode) JSON.readTree(submission(allocation, "3s", true,
                List.of("sh", "-c", SLOW_TO_STOP, "slow-to-stop"), Map.of("E2E_OUT", out.toString()), null));
        body.put("gpus", 4);
        Answer a = http.post("/v1/workloads", token, body.toString());
        assertThat(a.status()).as("submission to %s: %s", allocation, a.json()).isEqualTo(201);
        return a.json().path("id").asText();
    }

    private static JsonNode attempts(Client http, String id) {
        try {
            return http.get("/v1/workloads/" + id, "tok-root").json().path("attempts");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Path record(String workload, int attempt) {
        return out.resolve(workload + "-" + attempt);
    }

    /** The epoch millis of a record file's first line of this kind, -1 if none yet. */
    private static long at(Path f, String kind) {
        try {
            if (!Files.exists(f)) {
                return -1;
            }
            try (Stream<String> lines = Files.lines(f)) {
                return lines.map(l -> l.split(" ")).filter(p -> p.length == 2 && p[0].equals(kind))
                        .mapToLong(p -> Long.parseLong(p[1])).findFirst().orElse(-1);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
