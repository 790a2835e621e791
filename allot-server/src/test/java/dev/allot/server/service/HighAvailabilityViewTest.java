package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.JSON;
import static dev.allot.server.service.ServiceTestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.service.HaCluster.Instance;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.WorkloadState;
import dev.allot.server.testing.SecondLane;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * High availability on PostgreSQL (issue 20) as users see it beside the failover stories of
 * {@link HighAvailabilityTest}: two real {@code allot serve} processes on one database ({@link HaCluster}). A standby
 * explains waiting work as the leader does (from its view of the scheduler, which follows the store:
 * {@code sched.Follower}); and with the simulated backend, work running when the leader is killed keeps running under
 * the new leader and ends as it would have.
 *
 * <p>It runs beside the module's other tests, one at a time with the other stories of service processes
 * ({@code @Execution(CONCURRENT)} under {@link SecondLane#LOCK}, see
 * {@code junit-platform.properties}): it mostly waits on its processes.
 */
@ExtendWith(HaCluster.class)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class HighAvailabilityViewTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenAWaitingWorkloadThenTheStandbyExplainsItWithTheReasonTheLeaderGivesSaysItIsAStandbysViewAndForecastsIt(
            HaCluster cluster) throws Exception {
        List<Instance> both = List.of(cluster.start("a"), cluster.start("b"));
        Instance leader = cluster.awaitLeader(both);
        Instance standby = both.get(0) == leader ? both.get(1) : both.get(0);
        Client toLeader = new Client(leader.url());
        Client toStandby = new Client(standby.url());
        // All 8 GPUs to alice's work, protected for an hour; bob's then waits for that protection to end.
        String running = submit(toStandby, "alice", "lab/a", 8, "1h");
        await(running + " runs", WAIT, () -> "running".equals(HaCluster.state(toLeader, running)));
        String waiting = submit(toStandby, "bob", "lab/b", 4, "10m");

        JsonNode[] fromLeader = new JsonNode[1];
        await("the leader explains " + waiting, WAIT, () -> {
            fromLeader[0] = explain(toLeader, waiting);
            return fromLeader[0].path("data").path("seenByScheduler").asBoolean();
        });
        JsonNode[] fromStandby = new JsonNode[1];
        await("the standby explains " + waiting, WAIT, () -> {
            fromStandby[0] = explain(toStandby, waiting);
            return fromStandby[0].path("data").path("seenByScheduler").asBoolean();
        });
        System.out.printf("HighAvailabilityViewTest: the leader says %s%n  the standby says %s%n",
                fromLeader[0].path("summary"), fromStandby[0].path("summary"));
        assertThat(fromLeader[0].path("scheduler").path("role").asText()).isEqualTo("leader");
        assertThat(fromStandby[0].path("scheduler").path("role").asText()).isEqualTo("standby");
        assertThat(fromStandby[0].path("scheduler").path("ageMillis").isIntegralNumber()).isTrue();
        JsonNode reason = fromLeader[0].path("data").path("waitsFor");
        assertThat(reason.path("kind").asText()).as("the leader's reason").isEqualTo("protected-until");
        assertThat(fromStandby[0].path("data").path("waitsFor")).as("the standby's reason").isEqualTo(reason);
        assertThat(fromStandby[0].path("data").path("queue")).isEqualTo(fromLeader[0].path("data").path("queue"));
        assertThat(fromStandby[0].path("summary").toString()).contains("a standby's view of the scheduler");

        JsonNode queue = toStandby.get("/v1/queue", "tok-root").json();
        assertThat(queue.path("seenByScheduler").asBoolean()).isTrue();
        assertThat(queue.path("scheduler").path("role").asText()).isEqualTo("standby");
        assertThat(queue.path("entries").get(0).path("position").asInt()).isEqualTo(1);
        assertThat(toStandby.get("/v1/health", "tok-root").json().path("leader").path("role").asText())
                .isEqualTo("standby");
        await("the standby forecasts " + waiting + "'s start", WAIT, () -> {
            try {
                JsonNode f = toStandby.get("/v1/forecasts", "tok-root").json();
                return f.path("forecasts").size() == 1 && f.path("forecasts").get(0).path("id").asText().equals(waiting);
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void givenTheSimulatedBackendWhenTheLeaderIsKilledWhileWorkRunsThenTheNewLeaderKeepsItRunningAndItCompletesAtItsDuration(
            HaCluster cluster) throws Exception {
        try (Store store = cluster.open()) {
            store.nodes().putNode(new Node("sim-1", 8, true, null, System.currentTimeMillis()), "root");
        }
        List<String> simulated = List.of("--backend", "simulated");
        List<Instance> both = List.of(cluster.start("a", simulated), cluster.start("b", simulated));
        Instance leader = cluster.awaitLeader(both);
        Instance standby = both.get(0) == leader ? both.get(1) : both.get(0);
        Client http = new Client(standby.url());
        long durationSeconds = 10;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(submit(http, i % 2 == 0 ? "alice" : "bob", i % 2 == 0 ? "lab/a" : "lab/b", 2, "1m",
                    durationSeconds + "s", false));
        }
        await("all three run", WAIT, () -> ids.stream().allMatch(id -> "running".equals(HaCluster.state(http, id))));
        Thread.sleep(1500);
        leader.process().destroyForcibly();
        leader.process().waitFor();
        assertThat(cluster.awaitLeader(List.of(standby))).isSameAs(standby);
        long newTermAtMillis = cluster.leaseTakenAtMillis();
        ServiceTestSupport.awaitAllEnded(http, WAIT);

        HaCluster.Snapshot s = cluster.snapshot();
        for (String id : ids) {
            assertThat(s.workloads().get(id).state()).as("%s after the change of leader", id)
                    .isEqualTo(WorkloadState.COMPLETED);
            List<Attempt> attempts = s.attempts().get(id);
            assertThat(attempts).as("%s ran once, never started again", id).hasSize(1);
            Attempt a = attempts.get(0);
            assertThat(a.outcome()).isEqualTo(AttemptOutcome.COMPLETED);
            long ranMillis = a.endedAtMillis() - a.startedAtMillis();
            System.out.printf("HighAvailabilityViewTest: %s ran %d ms (duration %d s) across the change of leader%n",
                    id, ranMillis, durationSeconds);
            assertThat(newTermAtMillis).as("the new leader took over while %s still ran", id)
                    .isLessThan(a.startedAtMillis() + durationSeconds * 1000);
            // it ends when the simulated run does, seen by the new leader's next cycle (a margin for a loaded machine)
            assertThat(ranMillis).as("%s's run", id).isBetween(durationSeconds * 1000,
                    durationSeconds * 1000 + 5_000);
        }
        assertThat(cluster.logLines(standby, "did not know it")).as("nothing lost at the change of term").isEmpty();
    }

    private static String submit(Client http, String user, String allocation, int gpus, String minRuntime)
            throws IOException, InterruptedException {
        return submit(http, user, allocation, gpus, minRuntime, null, true);
    }

    private static String submit(Client http, String user, String allocation, int gpus, String minRuntime,
                                 String duration, boolean resumable) throws IOException, InterruptedException {
        var o = JSON.createObjectNode();
        o.put("allocation", allocation);
        o.put("gpus", gpus);
        o.put("minRuntime", minRuntime);
        o.put("resumable", resumable);
        o.put("priority", "normal");
        if (duration != null) {
            o.put("duration", duration);
        }
        o.putArray("command").add("sleep").add("600");
        ServiceTestSupport.Answer a = http.post("/v1/workloads", "tok-" + user, o.toString());
        assertThat(a.status()).as("submission: %s", a.json()).isEqualTo(201);
        return a.json().path("id").asText();
    }

    private static JsonNode explain(Client http, String id) {
        try {
            return http.get("/v1/workloads/" + id + "/explain", "tok-root").json();
        } catch (IOException e) {
            return JSON.createObjectNode();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return JSON.createObjectNode();
        }
    }
}
