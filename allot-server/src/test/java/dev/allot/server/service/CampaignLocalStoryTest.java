package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.await;
import static dev.allot.server.service.ServiceTestSupport.written;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.service.ServiceTestSupport.Answer;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Campaigns on the {@code local} backend with real processes (the service in this JVM, 100 ms ticks): a shard
 * running on idle GPUs that takes a freed protected slot keeps its attempt and its very process; a shard preempted
 * after reporting units runs again from them ({@code ALLOT_RESUME_FROM}).
 *
 * <p>Each shard's process writes {@code <shard>-<attempt>.pid} (its pid) and {@code <shard>-<attempt>.resume} (its
 * {@code ALLOT_RESUME_FROM}) in {@code out/}, then runs until the file {@code stop-<shard>} appears, and exits 0.
 */
class CampaignLocalStoryTest {
    static final String SHARD = "echo $$ > \"$OUT/{shard}-$ALLOT_ATTEMPT.pid\"; "
            + "echo \"$ALLOT_RESUME_FROM\" > \"$OUT/{shard}-$ALLOT_ATTEMPT.resume\"; "
            + "while [ ! -f \"$OUT/stop-{shard}\" ]; do sleep 0.1; done";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private Service service;
    private Path out;

    @AfterEach
    void cleanUp() throws Exception {
        if (service != null) {
            service.close();
        }
        List<Long> pids = ServiceTestSupport.launchedUnder(dir, out == null ? null : "OUT=" + out);
        pids.forEach(ServiceTestSupport::killTree);
        await("the test's processes to be gone", WAIT, () -> pids.stream().noneMatch(ServiceTestSupport::alive));
    }

    /** A campaign body: alice's, in lab/a, the shard script above with {@code OUT}. */
    static String campaign(String name, int protectedShards, String shards, Path out) {
        var o = ServiceTestSupport.JSON.createObjectNode();
        o.put("name", name);
        o.put("allocation", "lab/a");
        o.putArray("command").add("sh").add("-c").add(SHARD).add("shard");
        o.putObject("environment").put("OUT", out.toString());
        o.put("gpus", 1);
        o.put("minRuntime", "1h");
        o.put("protectedShards", protectedShards);
        try {
            o.set("shards", ServiceTestSupport.JSON.readTree(shards));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return o.toString();
    }

    private Service start(Path data, int gpus) {
        return Service.start(ServiceConfig.defaults(data).withPort(0).withVirtualGpus(gpus)
                .withTick(Duration.ofMillis(100)).withGrace(Duration.ofMillis(1000))
                .withSecurity(ServiceTestSupport.workloadSecurity(dir)), Clock.systemUTC());
    }

    @Test
    void givenAProtectedSlotFrees_thenTheLongestShardRunningUnallocatedTakesItInPlaceSameAttemptSameProcess()
            throws Exception {
        Path data = dir.resolve("data");
        out = ServiceTestSupport.sharedDirectory(dir.resolve("out"));
        ServiceTestSupport.seed(data);
        service = start(data, 4);
        Client http = new Client(service.url());
        Answer created = http.post("/v1/campaigns", "tok-alice", campaign("inplace", 1,
                "[{\"units\": 30}, {\"units\": 20}, {\"units\": 10}]", out));
        assertThat(created.status()).as("%s", created.json()).isEqualTo(201);
        for (int shard = 0; shard < 3; shard++) {
            Path pid = out.resolve(shard + "-1.pid");
            await("shard " + pid + " runs", WAIT, () -> written(pid));
        }
        JsonNode c = http.get("/v1/campaigns/inplace", "tok-alice").json();
        assertThat(c.path("shards").get(0).path("tier").asText()).isEqualTo("protected");
        assertThat(c.path("shards").get(1).path("tier").asText()).isEqualTo("unallocated");
        String w1 = c.path("shards").get(1).path("workload").asText();
        long pid1 = pid(1, 1);

        // when shard 0, holding the protected slot, ends
        Files.createFile(out.resolve("stop-0"));

        // then shard 1 (more work left than shard 2) becomes protected where it runs: same attempt, same process
        // (two transactions: the promotion, made durable before the backend hears of it, then the backend's answer;
        // a read between them sees the tier without the answer, so the story waits for both)
        await("shard 1 is promoted and the backend's answer recorded", WAIT, () -> tier(http, "inplace", 1)
                .equals("protected") && !shard(http, "inplace", 1).path("promotionDetail").isNull());
        JsonNode s1 = http.get("/v1/campaigns/inplace", "tok-alice").json().path("shards").get(1);
        assertThat(s1.path("workload").asText()).isEqualTo(w1);
        assertThat(s1.path("promotedAt").isNull()).isFalse();
        assertThat(s1.path("promotionDetail").asText()).isEqualTo("the local backend shows no contract");
        assertThat(tier(http, "inplace", 2)).isEqualTo("unallocated");
        List<Attempt> attempts = service.store().attempts().attempts(w1);
        assertThat(attempts).as("not restarted").hasSize(1);
        assertThat(service.store().workloads().workload(w1).orElseThrow().submittedAtMillis())
                .as("submitted no later than its start in the same cycle")
                .isLessThanOrEqualTo(attempts.get(0).startedAtMillis());
        assertThat(attempts.get(0).open()).isTrue();
        assertThat(attempts.get(0).promoted()).isTrue();
        assertThat(ServiceTestSupport.alive(pid1)).as("its process %d still runs", pid1).isTrue();
        assertThat(pid(1, 1)).isEqualTo(pid1);
        assertThat(Files.exists(out.resolve("1-2.pid"))).isFalse();
        assertThat(service.store().workloads().workload(w1).orElseThrow().minRuntimeSeconds()).isEqualTo(3600);
        assertThat(service.loop().inspect((state, now) -> state.job(w1).orElseThrow().isProtected(now)).orElseThrow())
                .isTrue();

        // and a restarted service adopts it protected from its promotion, not from its start, and charged from then
        long promotedAt = attempts.get(0).chargedFromMillis();
        service.close();
        service = start(data, 4);
        await("the restarted service adopts " + w1, WAIT, () -> service.loop().inspect((state, now) ->
                state.job(w1).isPresent()).orElse(false));
        assertThat(service.loop().inspect((state, now) -> state.job(w1).orElseThrow().protectedUntilSeconds())
                .orElseThrow()).isEqualTo(promotedAt / 1000 + 3600);
        assertThat(service.store().attempts().chargedRuns(0, System.currentTimeMillis()).stream()
                .filter(r -> r.startedAtMillis() == promotedAt)).hasSize(1);
        assertThat(ServiceTestSupport.alive(pid1)).isTrue();
        assertThat(service.store().attempts().attempts(w1)).hasSize(1);
        Client again = new Client(service.url());
        for (int shard = 1; shard < 3; shard++) {
            Files.createFile(out.resolve("stop-" + shard));
        }
        await("the campaign is done", WAIT, () -> state(again, "inplace").equals("done"));
        // a process that exits 0 is told once, not "exited with code 0 (exited with code 0)"
        assertThat(service.store().attempts().attempts(w1).get(0).reason()).isEqualTo("exited with code 0");
    }

    @Test
    void givenAShardPreemptedAfterReportingUnits_thenItRunsAgainFromThemNeverRedoingOne() throws Exception {
        Path data = dir.resolve("data");
        out = ServiceTestSupport.sharedDirectory(dir.resolve("out"));
        ServiceTestSupport.seed(data);
        service = start(data, 1);
        Client http = new Client(service.url());
        assertThat(http.post("/v1/campaigns", "tok-alice", campaign("resume", 0, "[{\"units\": 50}]", out)).status())
                .isEqualTo(201);
        // the shell creates the file before it writes the line: wait for the line, not only the file
        await("the shard runs", WAIT, () -> written(out.resolve("0-1.resume")));
        assertThat(Files.readString(out.resolve("0-1.resume")).trim()).isEqualTo("0");
        String w = http.get("/v1/campaigns/resume", "tok-alice").json().path("shards").get(0).path("workload").asText();
        assertThat(http.post("/v1/workloads/" + w + "/progress", "tok-alice", "{\"done\": 17, \"total\": 50}").status())
                .isEqualTo(200);

        // when bob's allocated work needs the only GPU: the unallocated shard is preempted
        Answer bob = http.post("/v1/workloads", "tok-bob", ServiceTestSupport.submission("lab/b", "1h", false,
                List.of("sh", "-c", "while [ ! -f \"$OUT/stop-bob\" ]; do sleep 0.1; done", "bob"),
                Map.of("OUT", out.toString()), null));
        assertThat(bob.status()).isEqualTo(201);
        await("the shard's attempt 1 ends", WAIT, () -> !service.store().attempts().attempts(w).get(0).open());
        assertThat(service.store().attempts().attempts(w).get(0).outcome()).isIn(AttemptOutcome.REQUEUED,
                AttemptOutcome.PREEMPTED);
        Files.createFile(out.resolve("stop-bob"));

        // then it runs again, told to resume from the 17 units it reported
        await("the shard runs again", WAIT, () -> written(out.resolve("0-2.resume")));
        assertThat(Files.readString(out.resolve("0-2.resume")).trim()).isEqualTo("17");
        JsonNode s = http.get("/v1/campaigns/resume", "tok-alice").json().path("shards").get(0);
        assertThat(s.path("workload").asText()).isEqualTo(w);
        assertThat(s.path("unitsDone").asLong()).isEqualTo(17);
        assertThat(s.path("requeues").asInt()).isEqualTo(1);
        Files.createFile(out.resolve("stop-0"));
        await("the campaign is done", WAIT, () -> state(http, "resume").equals("done"));
    }

    private long pid(int shard, int attempt) throws java.io.IOException {
        return Long.parseLong(Files.readString(out.resolve(shard + "-" + attempt + ".pid")).trim());
    }

    private static String tier(Client http, String campaign, int shard) {
        return shard(http, campaign, shard).path("tier").asText();
    }

    private static JsonNode shard(Client http, String campaign, int shard) {
        try {
            return http.get("/v1/campaigns/" + campaign, "tok-alice").json().path("shards").get(shard);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String state(Client http, String campaign) {
        try {
            return http.get("/v1/campaigns/" + campaign, "tok-alice").json().path("state").asText();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
