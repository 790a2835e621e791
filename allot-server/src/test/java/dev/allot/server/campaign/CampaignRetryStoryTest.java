package dev.allot.server.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.campaign.CampaignFixture.Response;
import dev.allot.server.store.AuditEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The babysitter's resubmission, told as stories: a shard whose workload failed is held and not resubmitted by
 * itself, but once its owner has fixed the cause, {@code POST /v1/campaigns/NAME/retry} queues it again from its units
 * done (the seed's script resubmitted failed shards, resuming past the rows already written; before this a researcher
 * had no way to run a failed shard again short of a new campaign starting from unit 0). Only shards held after a
 * failure are retried: a braked shard is released by raising its cap, a running one needs nothing. A campaign may
 * also ask for failure retries ({@code failureRetries}): its failed shards are then queued again by themselves that
 * many times before one is held.
 */
class CampaignRetryStoryTest {
    @TempDir
    Path dir;

    @Test
    void givenAShardThatFailedAfterFourUnits_whenItsOwnerRetriesIt_thenItRunsAgainFromUnitFourAndTheRetryIsAudited() {
        try (CampaignFixture f = new CampaignFixture(dir, 2)) {
            // given two shards running, and shard 1 failing after it reported 4 of its 10 units
            assertThat(f.post("/v1/campaigns", "alice", CampaignStoryTest.campaign("flaky", "\"protectedShards\": 1",
                    "[{\"units\": 10}, {\"units\": 10}]", "")).status()).isEqualTo(201);
            f.cycle();
            String failed = f.shard("flaky", 1).path("workload").asText();
            f.advance(Duration.ofMinutes(10));
            f.progress("flaky", 1, 4);
            f.backend.exit(failed, 3);
            f.cycle();
            f.cycle();
            JsonNode held = f.shard("flaky", 1);
            assertThat(held.path("phase").asText()).isEqualTo("held");
            assertThat(held.path("heldReason").asText()).contains("'allot campaign retry flaky'");

            // someone who may not manage it is refused; shard 0, which runs, is not retried
            assertThat(f.post("/v1/campaigns/flaky/retry", "bob", null).status()).isEqualTo(403);
            Response running = f.post("/v1/campaigns/flaky/retry", "alice", "{\"shards\": [0]}");
            assertThat(running.status()).isEqualTo(409);
            assertThat(running.error()).isEqualTo("shard 0 of campaign 'flaky' is not held after a failure: it is"
                    + " queued or runs; only such a shard is retried");
            Response none = f.post("/v1/campaigns/flaky/retry", "alice", "{\"shards\": [2]}");
            assertThat(none.status()).isEqualTo(400);
            assertThat(none.error()).isEqualTo("field 'shards': expected shards of campaign 'flaky', whole numbers from 0 to"
                    + " 1, got 2");

            // when alice retries every shard held after a failure
            Response r = f.post("/v1/campaigns/flaky/retry", "alice", null);
            assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
            assertThat(r.json().path("retried").toString()).isEqualTo("[1]");
            f.cycle();

            // then shard 1 runs again as a new workload, resuming from its 4 units done
            JsonNode again = f.shard("flaky", 1);
            assertThat(again.path("phase").asText()).isEqualTo("running");
            assertThat(again.path("heldReason").isNull()).isTrue();
            String next = again.path("workload").asText();
            assertThat(next).isNotEqualTo(failed);
            assertThat(f.backend.lastEnvironment(next)).containsEntry("ALLOT_RESUME_FROM", "4");
            List<AuditEntry> releases = f.store.allocations().audit(1000).stream()
                    .filter(e -> e.action().equals("campaign.release")).toList();
            assertThat(releases).hasSize(1);
            assertThat(releases.get(0).actor()).isEqualTo("alice");
            assertThat(releases.get(0).afterJson()).contains("retried by alice");

            // and a second retry finds nothing to retry
            Response nothing = f.post("/v1/campaigns/flaky/retry", "alice", null);
            assertThat(nothing.status()).isEqualTo(409);
            assertThat(nothing.error()).isEqualTo("no shard of campaign 'flaky' is held after its workload failed or"
                    + " was cancelled; there is nothing to retry");
        }
    }

    @Test
    void givenACampaignThatRetriesFailuresTwice_whenAShardFailsThreeTimes_thenItRunsAgainByItselfTwiceFromItsUnitsDoneAndIsHeldAtTheThird() {
        try (CampaignFixture f = new CampaignFixture(dir, 1)) {
            // given a campaign of one shard whose failures are retried twice (the babysitter's resubmission, bounded)
            Response created = f.post("/v1/campaigns", "alice", CampaignStoryTest.campaign("retrying",
                    "\"protectedShards\": 1", "[{\"units\": 10}]", "\"failureRetries\": 2"));
            assertThat(created.status()).as("%s", created.json()).isEqualTo(201);
            assertThat(created.json().path("failureRetries").asInt()).isEqualTo(2);
            f.cycle();
            String first = f.shard("retrying", 0).path("workload").asText();

            // when its workload fails after 3 units
            f.advance(Duration.ofMinutes(10));
            f.progress("retrying", 0, 3);
            f.backend.exit(first, 1);
            f.cycle();
            f.cycle();

            // then the shard runs again by itself as a new workload, resuming from unit 3, and the retry is audited
            JsonNode again = f.shard("retrying", 0);
            assertThat(again.path("phase").asText()).isEqualTo("running");
            assertThat(again.path("heldReason").isNull()).isTrue();
            assertThat(again.path("failures").asInt()).isEqualTo(1);
            String second = again.path("workload").asText();
            assertThat(second).isNotEqualTo(first);
            assertThat(f.backend.lastEnvironment(second)).containsEntry("ALLOT_RESUME_FROM", "3");
            List<AuditEntry> retries = f.store.allocations().audit(1000).stream()
                    .filter(e -> e.action().equals("campaign.retry")).toList();
            assertThat(retries).hasSize(1);
            assertThat(retries.get(0).actor()).isEqualTo(CampaignController.ACTOR);
            assertThat(retries.get(0).afterJson()).contains("its workload " + first + " failed; failure 1 of the 2");

            // and once more after a second failure
            f.advance(Duration.ofMinutes(10));
            f.backend.exit(second, 1);
            f.cycle();
            f.cycle();
            JsonNode third = f.shard("retrying", 0);
            assertThat(third.path("phase").asText()).isEqualTo("running");
            assertThat(third.path("failures").asInt()).isEqualTo(2);
            String thirdWorkload = third.path("workload").asText();
            assertThat(thirdWorkload).isNotIn(first, second);

            // but the third failure holds it, saying so, until a person retries it
            f.advance(Duration.ofMinutes(10));
            f.backend.exit(thirdWorkload, 1);
            f.cycle();
            f.cycle();
            JsonNode held = f.shard("retrying", 0);
            assertThat(held.path("phase").asText()).isEqualTo("held");
            assertThat(held.path("failures").asInt()).isEqualTo(3);
            assertThat(held.path("heldReason").asText()).contains("it was retried 2 times by itself (failureRetries)"
                    + " and is not resubmitted again", "'allot campaign retry retrying'");
            assertThat(f.store.allocations().audit(1000).stream().filter(e -> e.action().equals("campaign.retry")))
                    .hasSize(2);
        }
    }

    @Test
    void givenFailureRetriesOutOfRange_whenACampaignIsSubmitted_thenTheFieldIsNamedWithWhatIsExpected() {
        try (CampaignFixture f = new CampaignFixture(dir, 1)) {
            for (String value : List.of("-1", "101", "\"two\"", "1.5")) {
                Response r = f.post("/v1/campaigns", "alice", CampaignStoryTest.campaign("bad", "\"protectedShards\": 1",
                        "[{\"units\": 10}]", "\"failureRetries\": " + value));
                assertThat(r.status()).as(value).isEqualTo(400);
                assertThat(r.error()).as(value).contains("failureRetries").contains("0 to 100");
            }
            assertThat(f.get("/v1/campaigns", "alice").json().path("campaigns")).isEmpty();
        }
    }

    @Test
    void givenAShardHeldByItsBrakes_whenSomeoneRetriesIt_thenTheyAreToldToRaiseTheCap() {
        try (CampaignFixture f = new CampaignFixture(dir, 2)) {
            // given a shard capped at 0.5 GPU-hours that spent an hour and went back to the queue: held by its brakes
            assertThat(f.post("/v1/campaigns", "alice", CampaignStoryTest.campaign("capped", "\"protectedShards\": 0",
                    "[{\"units\": 100}]", "\"brakes\": {\"shardGpuHours\": 0.5}")).status()).isEqualTo(201);
            f.cycle();
            f.advance(Duration.ofHours(1));
            f.progress("capped", 0, 40);
            assertThat(f.post("/v1/workloads", "bob", "{\"allocation\": \"lab/b\", \"gpus\": 2, \"minRuntime\": \"1h\","
                    + " \"resumable\": false, \"priority\": \"normal\", \"command\": [\"train\"]}").status())
                    .isEqualTo(201);
            f.cycle();
            f.cycle();
            assertThat(f.shard("capped", 0).path("phase").asText()).isEqualTo("held");

            Response r = f.post("/v1/campaigns/capped/retry", "alice", "{\"shards\": [0]}");
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.error()).startsWith("shard 0 of campaign 'capped' is not held after a failure (held: the shard"
                    + " used 1.0 GPU-hours, its cap is 0.5");
            assertThat(r.json().path("hint").asText()).isEqualTo("a shard its brakes hold runs again once its cap is"
                    + " raised above what it spent (PUT /v1/campaigns/capped/brakes)");
            assertThat(f.shard("capped", 0).path("phase").asText()).isEqualTo("held");
        }
    }

    @Test
    void givenACancelledCampaign_whenSomeoneRetriesIt_thenItIsRefusedSayingItRunsNoMore() {
        try (CampaignFixture f = new CampaignFixture(dir, 1)) {
            assertThat(f.post("/v1/campaigns", "alice", CampaignStoryTest.campaign("gone", "\"protectedShards\": 1",
                    "[{\"units\": 10}]", "")).status()).isEqualTo(201);
            f.cycle();
            assertThat(f.delete("/v1/campaigns/gone", "alice").status()).isEqualTo(200);
            Response r = f.post("/v1/campaigns/gone/retry", "alice", null);
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.error()).isEqualTo("campaign 'gone' is cancelled; only a running campaign's shards are"
                    + " retried");
        }
    }
}
