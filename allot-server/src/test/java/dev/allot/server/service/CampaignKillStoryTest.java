package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.await;
import static dev.allot.server.service.ServiceTestSupport.written;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.testing.SecondLane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A campaign survives a {@code kill -9} of the service: {@link ServiceMain} runs as a separate process with the
 * {@code local} backend and 3 GPUs; a campaign of four shards (one protected slot) runs three of them, which report
 * progress; the service is killed with SIGKILL and started again on the same data directory. Then the campaign shows
 * the same slots (the same workloads, tiers and phases), the same progress and the same estimates (rates, remaining
 * time), its processes were adopted (the same pids, no second attempt), and it goes on: when the protected shard ends,
 * the longest shard by its measured rate takes the slot in place.
 *
 * <p>The shards' processes are {@link CampaignLocalStoryTest#SHARD}'s.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class CampaignKillStoryTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Path data;
    private Path out;
    private Process service;

    @AfterEach
    void cleanUp() throws Exception {
        if (service != null && service.isAlive()) {
            service.destroyForcibly();
            service.waitFor();
        }
        List<Long> pids = ServiceTestSupport.launchedUnder(dir, out == null ? null : "OUT=" + out);
        pids.forEach(ServiceTestSupport::killTree);
        await("the test's processes to be gone", WAIT, () -> pids.stream().noneMatch(ServiceTestSupport::alive));
    }

    @Test
    void givenARunningCampaign_whenTheServiceIsKilledAndRestarted_thenItsSlotsProgressAndEstimatesAreAsBeforeAndItGoesOn()
            throws Exception {
        data = dir.resolve("data");
        out = ServiceTestSupport.sharedDirectory(dir.resolve("out"));
        ServiceTestSupport.seed(data);
        Client http = new Client(startService());
        assertThat(http.post("/v1/campaigns", "tok-alice", CampaignLocalStoryTest.campaign("survive", 1,
                "[{\"units\": 30}, {\"units\": 20, \"family\": \"f\"}, {\"units\": 40, \"family\": \"f\"},"
                        + " {\"units\": 10, \"family\": \"f\"}]", out)).status()).isEqualTo(201);
        for (int shard = 0; shard < 3; shard++) {
            Path pid = out.resolve(shard + "-1.pid");
            await("shard " + shard + " runs", WAIT, () -> written(pid));
        }
        Thread.sleep(1500); // so the measured times are not zero
        JsonNode before = campaign(http);
        assertThat(phasesAndTiers(before)).containsExactly("running unallocated", "running unallocated",
                "running protected", "waiting unallocated");
        report(http, before, 0, 1); // slow: 29 units left at about 1.5 s each
        report(http, before, 1, 10);
        report(http, before, 2, 10);
        before = campaign(http);
        assertThat(before.path("shards").get(3).path("rateSource").asText()).isEqualTo("family");
        List<Long> pids = List.of(pid(0), pid(1), pid(2));

        // when the service is killed with SIGKILL and started again on the same data directory
        service.destroyForcibly();
        assertThat(service.waitFor()).isEqualTo(137);
        http.base(startService());

        // then the campaign is as it was: slots, progress, estimates; its processes adopted, not started again
        JsonNode after = campaign(http);
        assertThat(stable(after)).isEqualTo(stable(before));
        assertThat(after.path("etaAt").isNull()).isFalse();
        for (int shard = 0; shard < 3; shard++) {
            assertThat(ServiceTestSupport.alive(pids.get(shard))).as("shard %d's process", shard).isTrue();
            assertThat(Files.exists(out.resolve(shard + "-2.pid"))).as("shard %d not started again", shard).isFalse();
        }

        // and it goes on: the protected shard ends, and the longest by its measured rate (shard 0) takes the slot in
        // place; the waiting shard starts on the freed GPU
        Files.createFile(out.resolve("stop-2"));
        await("shard 0 is promoted", WAIT, () -> tier(http, 0).equals("protected"));
        JsonNode s0 = campaign(http).path("shards").get(0);
        assertThat(s0.path("promotedAt").isNull()).isFalse();
        assertThat(pid(0)).isEqualTo(pids.get(0));
        assertThat(ServiceTestSupport.alive(pids.get(0))).isTrue();
        assertThat(tier(http, 1)).isEqualTo("unallocated");
        await("shard 3 runs", WAIT, () -> written(out.resolve("3-1.pid")));
        for (int shard : List.of(0, 1, 3)) {
            Files.createFile(out.resolve("stop-" + shard));
        }
        await("the campaign is done", WAIT, () -> campaign(http).path("state").asText().equals("done"));
        assertThat(campaign(http).path("unitsDone").asLong()).isEqualTo(100);
    }

    /** What must not change across a restart: per shard its workload, phase, tier, units, rate and remaining time. */
    private static List<String> stable(JsonNode c) {
        List<String> out = new ArrayList<>();
        out.add(c.path("state").asText() + " " + c.path("unitsDone").asLong() + "/" + c.path("unitsTotal").asLong()
                + " " + c.path("protectedSlots").asText());
        for (JsonNode s : c.path("shards")) {
            out.add(s.path("index").asInt() + " " + s.path("workload").asText() + " " + s.path("phase").asText() + " "
                    + s.path("tier").asText() + " " + s.path("unitsDone").asLong() + " "
                    + s.path("secondsPerUnit").asDouble() + " " + s.path("rateSource").asText() + " "
                    + s.path("remainingSeconds").asLong() + " " + s.path("promotedAt").asText());
        }
        return out;
    }

    private static List<String> phasesAndTiers(JsonNode c) {
        List<String> out = new ArrayList<>();
        c.path("shards").forEach(s -> out.add(s.path("phase").asText() + " " + s.path("tier").asText()));
        return out;
    }

    private static void report(Client http, JsonNode c, int shard, long done) throws Exception {
        JsonNode s = c.path("shards").get(shard);
        assertThat(http.post("/v1/workloads/" + s.path("workload").asText() + "/progress", "tok-alice",
                "{\"done\": " + done + ", \"total\": " + s.path("units").asLong() + "}").status()).isEqualTo(200);
    }

    private static JsonNode campaign(Client http) {
        try {
            ServiceTestSupport.Answer a = http.get("/v1/campaigns/survive", "tok-alice");
            assertThat(a.status()).as("%s", a.json()).isEqualTo(200);
            return a.json();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String tier(Client http, int shard) {
        return campaign(http).path("shards").get(shard).path("tier").asText();
    }

    private long pid(int shard) throws IOException {
        return Long.parseLong(Files.readString(out.resolve(shard + "-1.pid")).trim());
    }

    /** Starts {@link ServiceMain} on the data directory (3 GPUs) and returns its URL once it listens. */
    private String startService() throws IOException, InterruptedException {
        ServiceTestSupport.ServiceProcess started = ServiceTestSupport.startServiceProcess(dir, data, 3);
        service = started.process();
        return started.url();
    }
}
