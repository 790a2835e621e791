package dev.allot.server.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.campaign.CampaignFixture.Response;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptReasons;
import dev.allot.server.store.AuditEntry;
import dev.allot.server.store.WorkloadState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Campaigns told as stories against the real API and a real scheduling loop, step by step on a clock the test moves
 * (a {@link ManualBackend} whose attempts end when the story says): the protected slot goes to the longest remaining
 * work by measured rates, and a shard already running on idle GPUs takes it in place; the brakes hold a shard and
 * release it only when a cap is raised above what it spent, and it resumes from its units done; a completed campaign
 * is done; a failed shard is held and never resubmitted.
 */
class CampaignStoryTest {
    @TempDir
    Path dir;

    static String campaign(String name, String protectedSlots, String shards, String extra) {
        return "{\"name\": \"" + name + "\", \"allocation\": \"lab/a\", \"command\": [\"eval\", \"--shard\", \"{shard}\"],"
                + " \"gpus\": 1, \"minRuntime\": \"1h\", " + protectedSlots + ", \"shards\": " + shards
                + (extra.isEmpty() ? "" : ", " + extra) + "}";
    }

    @Test
    void givenMeasuredRates_whenTheProtectedSlotFrees_thenTheLongestRemainingShardIsPromotedInPlaceNotTheOneWithMoreUnitsLeft() {
        try (CampaignFixture f = new CampaignFixture(dir, 4)) {
            // given a campaign of three shards, one protected slot, nothing measured yet
            Response created = f.post("/v1/campaigns", "alice", campaign("eval", "\"protectedShards\": 1",
                    "[{\"units\": 300}, {\"units\": 200}, {\"units\": 100}]", ""));
            assertThat(created.status()).as("%s", created.json()).isEqualTo(201);
            assertThat(created.json().path("protectedSlots").asText()).isEqualTo("1 shard");
            f.cycle();

            // then units stand for time: the slot goes to the most units (shard 0); the others run on idle GPUs
            JsonNode c = f.campaign("eval");
            assertThat(phasesAndTiers(c)).containsExactly("running protected", "running unallocated",
                    "running unallocated");
            String w0 = c.path("shards").get(0).path("workload").asText();
            String w1 = c.path("shards").get(1).path("workload").asText();
            String w2 = c.path("shards").get(2).path("workload").asText();
            assertThat(f.backend.lastEnvironment(w2)).containsEntry("ALLOT_CAMPAIGN", "eval")
                    .containsEntry("ALLOT_SHARD", "2").containsEntry("ALLOT_RESUME_FROM", "0");
            assertThat(f.backend.launches.stream().filter(l -> l.attempt().workloadId().equals(w2)).findFirst()
                    .orElseThrow().command()).containsExactly("eval", "--shard", "2");
            assertThat(c.path("shards").get(0).path("rateSource").asText()).isEqualTo("none");

            // when after 1000 s shard 0 reported 150 units, shard 1 100, shard 2 only 10 (a slow one)
            f.advance(Duration.ofSeconds(1000));
            f.progress("eval", 0, 150);
            f.progress("eval", 1, 100);
            f.progress("eval", 2, 10);
            f.cycle();
            c = f.campaign("eval");
            JsonNode s1 = c.path("shards").get(1);
            JsonNode s2 = c.path("shards").get(2);
            assertThat(s2.path("secondsPerUnit").asDouble()).isEqualTo(100.0);
            assertThat(s2.path("rateSource").asText()).isEqualTo("shard");
            assertThat(s2.path("remainingSeconds").asLong()).isEqualTo(9000);
            assertThat(s1.path("remainingSeconds").asLong()).isEqualTo(1000);
            assertThat(c.path("unitsDone").asLong()).isEqualTo(260);
            // and shard 1 has more units left than shard 2: ordering by units would pick it
            assertThat(s1.path("units").asLong() - s1.path("unitsDone").asLong())
                    .isGreaterThan(s2.path("units").asLong() - s2.path("unitsDone").asLong());

            // and shard 0 finishes its work and its workload ends
            f.advance(Duration.ofSeconds(1000));
            f.progress("eval", 0, 300);
            f.backend.exit(w0, 0);
            f.cycle();

            // then the freed slot goes to shard 2, the longest remaining work, promoted where it runs
            c = f.campaign("eval");
            assertThat(phasesAndTiers(c)).containsExactly("done protected", "running unallocated",
                    "running protected");
            s2 = c.path("shards").get(2);
            assertThat(s2.path("workload").asText()).isEqualTo(w2);
            assertThat(s2.path("promotedAt").asText()).isEqualTo("2026-03-01T09:33:20.000Z");
            assertThat(s2.path("promotionDetail").asText()).isEqualTo("the manual backend now shows " + w2
                    + "#1 as allocated");
            List<Attempt> attempts = f.store.attempts().attempts(w2);
            assertThat(attempts).as("the same attempt, not a restart").hasSize(1);
            assertThat(attempts.get(0).open()).isTrue();
            assertThat(attempts.get(0).chargedFromMillis()).isEqualTo(CampaignFixture.T0.toEpochMilli() + 2_000_000);
            assertThat(f.backend.promotions).containsExactly(w2 + "#1 allocated");
            assertThat(f.store.workloads().workload(w2).orElseThrow().minRuntimeSeconds()).isEqualTo(3600);
            assertThat(f.store.workloads().workload(w1).orElseThrow().minRuntimeSeconds()).isZero();
            assertThat(f.loop.inspect((state, now) -> state.job(w2).orElseThrow().isProtected(now)).orElseThrow())
                    .as("protected in the core from its promotion").isTrue();
            AuditEntry promote = audit(f, "campaign.promote").get(0);
            assertThat(promote.subject()).isEqualTo("campaign:eval");
            assertThat(promote.actor()).isEqualTo(CampaignController.ACTOR);
            assertThat(promote.afterJson()).contains("\"workload\":\"" + w2 + "\"", "\"attempt\":1", "\"mirrored\":true");

            // and it is charged from its promotion only: shard 0 for its 2000 s, shard 2 for the 360 s since
            f.advance(Duration.ofSeconds(360));
            assertThat(f.campaign("eval").path("gpuHoursCharged").asDouble())
                    .isEqualTo(Math.round((2000 + 360) / 0.36) / 10_000.0);
            assertThat(f.campaign("eval").path("etaAt").isNull()).isFalse();
        }
    }

    @Test
    void givenAShardCap_whenTheShardSpentIt_thenItIsHeldAndRunsAgainOnlyWhenTheCapIsRaisedAboveWhatItSpentFromItsUnitsDone() {
        try (CampaignFixture f = new CampaignFixture(dir, 2)) {
            // given a shard capped at 0.5 GPU-hours, running unallocated
            assertThat(f.post("/v1/campaigns", "alice", campaign("capped", "\"protectedShards\": 0",
                    "[{\"units\": 100}]", "\"brakes\": {\"shardGpuHours\": 0.5}")).status()).isEqualTo(201);
            f.cycle();
            String first = f.shard("capped", 0).path("workload").asText();
            assertThat(f.shard("capped", 0).path("phase").asText()).isEqualTo("running");

            // when it has run an hour (over its cap: a running shard is not stopped) and reported 40 units
            f.advance(Duration.ofHours(1));
            f.progress("capped", 0, 40);
            f.cycle();
            assertThat(f.shard("capped", 0).path("phase").asText()).isEqualTo("running");
            // and bob's protected work takes both GPUs: the shard goes back to the queue
            Response bob = f.post("/v1/workloads", "bob", "{\"allocation\": \"lab/b\", \"gpus\": 2, \"minRuntime\": \"1h\","
                    + " \"resumable\": false, \"priority\": \"normal\", \"command\": [\"train\"]}");
            assertThat(bob.status()).isEqualTo(201);
            f.cycle();
            f.cycle();

            // then it is held with the seed's words, its waiting workload cancelled
            JsonNode s = f.shard("capped", 0);
            assertThat(s.path("phase").asText()).isEqualTo("held");
            assertThat(s.path("heldReason").asText()).isEqualTo("held: the shard used 1.0 GPU-hours, its cap is 0.5;"
                    + " it runs again only when the cap is raised above what it spent");
            assertThat(s.path("workload").isNull()).isTrue();
            assertThat(s.path("unitsDone").asLong()).isEqualTo(40);
            assertThat(f.store.workloads().workload(first).orElseThrow().state()).isEqualTo(WorkloadState.CANCELLED);

            // when the cap is raised, but not above what it spent: still held
            for (String cap : List.of("0.8", "1.0")) {
                assertThat(f.put("/v1/campaigns/capped/brakes", "alice", "{\"shardGpuHours\": " + cap + "}").status())
                        .isEqualTo(200);
                f.cycle();
                assertThat(f.shard("capped", 0).path("phase").asText()).as("cap %s", cap).isEqualTo("held");
            }
            assertThat(f.shard("capped", 0).path("workload").isNull()).isTrue();

            // when it is raised above: released, and it queues a new workload, which waits for bob's GPUs
            JsonNode after = f.put("/v1/campaigns/capped/brakes", "alice", "{\"shardGpuHours\": 1.5}").json();
            assertThat(after.path("brakes").path("shardGpuHours").asDouble()).isEqualTo(1.5);
            f.cycle();
            s = f.shard("capped", 0);
            assertThat(s.path("phase").asText()).isEqualTo("waiting");
            String second = s.path("workload").asText();
            assertThat(second).isNotEqualTo(first);
            assertThat(s.path("heldReason").isNull()).isTrue();

            // then once bob's work ends it runs again from the 40 units it reported: never those again
            f.backend.exit(bob.json().path("id").asText(), 0);
            f.cycle();
            assertThat(f.shard("capped", 0).path("phase").asText()).isEqualTo("running");
            assertThat(f.backend.lastEnvironment(second)).containsEntry("ALLOT_RESUME_FROM", "40");
            assertThat(audit(f, "campaign.hold")).hasSize(1);
            assertThat(audit(f, "campaign.release")).hasSize(1);
            assertThat(audit(f, "campaign.brakes")).hasSize(3);
        }
    }

    @Test
    void givenEveryShardCompletes_thenTheCampaignIsDoneWithAllItsUnitsAndMeasuredTime() {
        try (CampaignFixture f = new CampaignFixture(dir, 2)) {
            f.post("/v1/campaigns", "alice", campaign("short", "\"protectedShards\": 1",
                    "[{\"units\": 10}, {\"units\": 20}]", "\"secondsPerUnit\": 60"));
            f.cycle();
            JsonNode c = f.campaign("short");
            assertThat(c.path("shards").get(1).path("rateSource").asText()).isEqualTo("declared");
            assertThat(c.path("shards").get(1).path("remainingSeconds").asLong()).isEqualTo(1200);
            assertThat(c.path("etaAt").asText()).isEqualTo("2026-03-01T09:20:00.000Z");
            String w0 = c.path("shards").get(0).path("workload").asText();
            String w1 = c.path("shards").get(1).path("workload").asText();
            // a declared rate gives the shard's workload its expected duration
            assertThat(f.store.workloads().workload(w1).orElseThrow().durationSeconds()).isEqualTo(1200);

            f.advance(Duration.ofSeconds(600));
            f.progress("short", 1, 5); // 120 s a unit
            f.backend.exit(w0, 0); // shard 0 ends without having reported: its whole run measured its 10 units
            f.cycle();
            JsonNode s0 = f.shard("short", 0);
            assertThat(s0.path("phase").asText()).isEqualTo("done");
            assertThat(s0.path("unitsDone").asLong()).isEqualTo(10);
            assertThat(s0.path("secondsPerUnit").asDouble()).isEqualTo(60.0);
            assertThat(f.campaign("short").path("state").asText()).isEqualTo("running");

            f.advance(Duration.ofSeconds(600));
            f.backend.exit(w1, 0);
            f.cycle();
            c = f.campaign("short");
            assertThat(c.path("state").asText()).isEqualTo("done");
            assertThat(c.path("unitsDone").asLong()).isEqualTo(30);
            assertThat(c.path("etaAt").isNull()).isTrue();
            assertThat(c.path("shards").get(1).path("secondsPerUnit").asDouble()).isEqualTo(60.0); // 1200 s, 20 units
            assertThat(audit(f, "campaign.done")).hasSize(1);
        }
    }

    @Test
    void givenAShardWhoseWorkloadFails_thenItIsHeldSayingWhyAndNeverResubmitted() {
        try (CampaignFixture f = new CampaignFixture(dir, 2)) {
            f.post("/v1/campaigns", "alice", campaign("flaky", "\"protectedShards\": 1", "[{\"units\": 10}]", ""));
            f.cycle();
            String w = f.shard("flaky", 0).path("workload").asText();
            f.backend.exit(w, 3);
            f.cycle();
            f.cycle();
            JsonNode s = f.shard("flaky", 0);
            assertThat(s.path("phase").asText()).isEqualTo("held");
            assertThat(s.path("heldReason").asText()).startsWith("its workload " + w + " failed (exited with code 3")
                    .endsWith("a failed shard is not resubmitted by itself; 'allot campaign retry flaky'"
                            + " (POST /v1/campaigns/flaky/retry) queues it again from its units done");
            assertThat(f.store.campaigns().snapshot("flaky", f.clock.millis()).workloads()).isEmpty();
            assertThat(f.backend.launches).hasSize(1);
            assertThat(f.campaign("flaky").path("etaAt").isNull()).isTrue();
        }
    }

    @Test
    void givenAShardWhoseWorkloadFailsToStart_thenItsHoldSaysSoWithoutTheBackendsWords() {
        try (CampaignFixture f = new CampaignFixture(dir, 2)) {
            f.post("/v1/campaigns", "alice", campaign("missing", "\"protectedShards\": 1", "[{\"units\": 10}]", ""));
            f.cycle();
            String w = f.shard("missing", 0).path("workload").asText();
            f.backend.failToStart(w, "/home/alice/project-x/run.sh: No such file or directory");
            f.cycle();
            f.cycle();
            // the hold's reason is shown to every viewer of the campaign: the kind of failure, not the backend's words
            JsonNode s = f.shard("missing", 0);
            assertThat(s.path("phase").asText()).isEqualTo("held");
            assertThat(s.path("heldReason").asText()).isEqualTo("its workload " + w + " failed (failed to start ("
                    + AttemptReasons.DETAIL_WITHHELD + ")); a failed shard is not resubmitted by itself;"
                    + " 'allot campaign retry missing' (POST /v1/campaigns/missing/retry) queues it again from its"
                    + " units done");
            assertThat(f.get("/v1/campaigns/missing", "bob").json().toString()).doesNotContain("/home/alice");
            // and its workload tells them to its owner
            assertThat(f.get("/v1/workloads/" + w, "alice").json().path("attempts").get(0).path("reason").asText())
                    .isEqualTo("failed to start (/home/alice/project-x/run.sh: No such file or directory)");
        }
    }

    @Test
    void givenACancelledCampaign_thenItsWorkloadsAreCancelledAndNothingIsQueuedAgain() {
        try (CampaignFixture f = new CampaignFixture(dir, 1)) {
            f.post("/v1/campaigns", "alice", campaign("gone", "\"protectedShards\": 1",
                    "[{\"units\": 10}, {\"units\": 10}]", ""));
            f.cycle();
            List<String> ids = new ArrayList<>();
            f.campaign("gone").path("shards").forEach(s -> ids.add(s.path("workload").asText()));
            assertThat(f.store.workloads().workload(ids.get(0)).orElseThrow().state()).isEqualTo(WorkloadState.RUNNING);
            Response r = f.delete("/v1/campaigns/gone", "alice");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().path("state").asText()).isEqualTo("cancelled");
            f.cycle();
            f.cycle();
            for (String id : ids) {
                assertThat(f.store.workloads().workload(id).orElseThrow().state()).as(id)
                        .isEqualTo(WorkloadState.CANCELLED);
            }
            assertThat(f.backend.launches).hasSize(1);
            assertThat(f.delete("/v1/campaigns/gone", "alice").status()).as("twice: harmless").isEqualTo(200);
        }
    }

    private static List<String> phasesAndTiers(JsonNode c) {
        List<String> out = new ArrayList<>();
        c.path("shards").forEach(s -> out.add(s.path("phase").asText() + " " + s.path("tier").asText()));
        return out;
    }

    private static List<AuditEntry> audit(CampaignFixture f, String action) {
        return f.store.allocations().audit(1000).stream().filter(e -> e.action().equals(action)).toList();
    }
}
