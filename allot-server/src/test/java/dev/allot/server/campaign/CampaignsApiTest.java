package dev.allot.server.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.campaign.CampaignFixture.Response;
import dev.allot.server.store.Allocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaigns' API: what a bad campaign is told (each wrong field named, with what was expected), who may submit,
 * read, change and cancel one, and that the shard's progress counts the shard's units. Never a 5xx.
 */
class CampaignsApiTest {
    @TempDir
    static Path dir;

    static CampaignFixture f;

    @BeforeAll
    static void start() {
        f = new CampaignFixture(dir, 4);
        Response r = f.post("/v1/campaigns", "alice", CampaignStoryTest.campaign("mine", "\"protectedGpus\": 2",
                "[{\"units\": 8, \"family\": \"fast\"}, {\"units\": 9}]", "\"environment\": {\"DATA\": \"/d\"},"
                        + " \"priority\": \"high\", \"brakes\": {\"campaignCost\": 50, \"pricePerGpuHour\": 2.5}"));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        f.cycle();
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static Response create(String user, String body) {
        Response r = f.post("/v1/campaigns", user, body);
        assertThat(r.status()).as("no 5xx: %s", r.json()).isLessThan(500);
        return r;
    }

    @Test
    void aCampaignIsAnsweredWithWhatItWasSubmittedWith() {
        JsonNode c = f.campaign("mine");
        assertThat(c.path("owner").asText()).isEqualTo("alice");
        assertThat(c.path("allocation").asText()).isEqualTo("lab/a");
        assertThat(c.path("protectedSlots").asText()).isEqualTo("2 GPUs");
        assertThat(c.path("strategy").asText()).isEqualTo("allot");
        assertThat(c.path("minRuntime").asText()).isEqualTo("1h");
        assertThat(c.path("priority").asText()).isEqualTo("high");
        assertThat(c.path("command").toString()).isEqualTo("[\"eval\",\"--shard\",\"{shard}\"]");
        assertThat(c.path("environment").toString()).isEqualTo("{\"DATA\":\"/d\"}");
        assertThat(c.path("brakes").toString()).isEqualTo("{\"shardGpuHours\":null,\"shardRequeues\":null,"
                + "\"campaignGpuHours\":null,\"campaignCost\":50.0,\"pricePerGpuHour\":2.5}");
        assertThat(c.path("unitsTotal").asLong()).isEqualTo(17);
        assertThat(c.path("shards").get(0).path("family").asText()).isEqualTo("fast");
        // its shards are workloads of its owner, with the campaign's environment and priority
        String w = c.path("shards").get(1).path("workload").asText();
        JsonNode workload = f.get("/v1/workloads/" + w, "alice").json().path("workload");
        assertThat(workload.path("user").asText()).isEqualTo("alice");
        assertThat(workload.path("kind").asText()).isEqualTo("campaign");
        assertThat(workload.path("priority").asText()).isEqualTo("high");
        assertThat(workload.path("resumable").asBoolean()).isTrue();
        assertThat(workload.path("environment").toString())
                .isEqualTo("{\"ALLOT_CAMPAIGN\":\"mine\",\"ALLOT_SHARD\":\"1\",\"ALLOT_UNITS\":\"9\",\"DATA\":\"/d\"}");
        String first = c.path("shards").get(0).path("workload").asText();
        assertThat(f.get("/v1/workloads/" + first, "alice").json().path("workload").path("environment").toString())
                .isEqualTo("{\"ALLOT_CAMPAIGN\":\"mine\",\"ALLOT_FAMILY\":\"fast\",\"ALLOT_SHARD\":\"0\","
                        + "\"ALLOT_UNITS\":\"8\",\"DATA\":\"/d\"}");
    }

    @Test
    void badCampaignsNameEachWrongFieldAndWhatWasExpected() {
        Response r = create("alice", "{\"name\": \"-bad\", \"allocation\": \"lab/a\", \"command\": [],"
                + " \"gpus\": 0, \"minRuntime\": \"0\", \"protectedShards\": 1, \"protectedGpus\": 1,"
                + " \"shards\": [{\"units\": 0}, {\"rows\": 3}], \"brakes\": {\"campaignCost\": 5, \"x\": 1},"
                + " \"environment\": {\"ALLOT_SHARD\": \"1\"}, \"surprise\": true}");
        assertThat(r.status()).isEqualTo(400);
        List<String> fields = new ArrayList<>();
        r.json().path("violations").forEach(v -> fields.add(v.path("field").asText()));
        assertThat(fields).containsExactly("surprise", "name", "command", "environment", "gpus", "minRuntime",
                "protectedShards", "shards[0].units", "shards[1].rows", "shards[1].units", "brakes.x",
                "brakes.campaignCost");
        assertThat(r.field()).isEqualTo("surprise");
        assertThat(r.error()).contains("field 'name': expected 1 to 64 letters, digits");
        assertThat(r.error()).contains("field 'brakes.campaignCost': expected pricePerGpuHour beside it");
        assertThat(r.error()).contains("field 'environment': expected no variable Allot sets itself");

        // a shard's family is printed by 'allot campaign status' to anyone: no escape sequence or line break in it
        Response escape = create("alice", "{\"name\": \"esc\", \"allocation\": \"lab/a\", \"command\": [\"true\"],"
                + " \"gpus\": 1, \"minRuntime\": \"1h\", \"protectedShards\": 1,"
                + " \"shards\": [{\"units\": 1, \"family\": \"f\\u001b[2J\\nx\"}]}");
        assertThat(escape.status()).isEqualTo(400);
        assertThat(escape.error()).isEqualTo("field 'shards[0].family': expected text without control characters"
                + " (line breaks, tabs, escapes), got 'f\\u001b[2J\\nx'");

        // a unit given twice is told so, as a workload's minRuntime is (it was told only what a duration looks like)
        Response twice = create("alice", "{\"name\": \"twice\", \"allocation\": \"lab/a\", \"command\": [\"true\"],"
                + " \"gpus\": 1, \"minRuntime\": \"5m5m\", \"protectedShards\": 1, \"shards\": [{\"units\": 1}]}");
        assertThat(twice.status()).isEqualTo(400);
        assertThat(twice.error()).isEqualTo("field 'minRuntime': expected each of d, h, m and s at most once, e.g."
                + " 1h30m, got a string (\"5m5m\"): the unit 'm' is given twice");

        Response notObject = create("alice", "[1]");
        assertThat(notObject.status()).isEqualTo(400);
        assertThat(notObject.error()).isEqualTo("the body must be a JSON object, got an array");
        Response malformed = create("alice", "{\"name\": ");
        assertThat(malformed.status()).isEqualTo(400);
    }

    @Test
    void givenTextFieldsTooLong_whenACampaignIsSubmitted_thenEachErrorNamesTheFieldTheLimitAndTheLength() {
        Response r = create("alice", "{\"name\": \"" + "n".repeat(300) + "\", \"allocation\": \"lab/" + "a".repeat(300)
                + "\", \"command\": [\"true\"], \"gpus\": 1, \"minRuntime\": \"1h\", \"protectedShards\": 1,"
                + " \"shards\": [{\"units\": 1, \"family\": \"" + "f".repeat(257) + "\"}]}");
        assertThat(r.status()).isEqualTo(400);
        // each said "got a string", which read as a wrong type
        assertThat(r.error()).doesNotContain("got a string")
                .contains("field 'name': expected 1 to 64 letters", "of at most 64 characters, got 'nnn",
                        "...' (300 characters)")
                .contains("field 'allocation': expected an allocation path such as \"lab/nlp/eval\", of at most 256"
                        + " characters, got 'lab/aaa", "...' (304 characters)")
                .contains("field 'shards[0].family': expected a short name of the shards that run at one speed,"
                        + " e.g. \"restore\", of at most 256 characters, got 'fff", "...' (257 characters)");
    }

    @Test
    void theShardsWorkloadsAreCheckedAsTheSubmissionsTheyWillBe() {
        String ok = CampaignStoryTest.campaign("c2", "\"protectedShards\": 1", "[{\"units\": 4}]", "");
        Response unknown = create("alice", ok.replace("lab/a", "lab/zzz"));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.field()).isEqualTo("allocation");
        Response notLeaf = create("root", ok.replace("lab/a", "lab"));
        assertThat(notLeaf.status()).isEqualTo(400);
        assertThat(notLeaf.error()).contains("not a leaf");
        Response tooBig = create("alice", ok.replace("\"gpus\": 1", "\"gpus\": 64"));
        assertThat(tooBig.status()).isEqualTo(400);
        assertThat(tooBig.error()).contains("64");
        Response forbidden = create("carol", ok);
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.error()).isEqualTo("user 'carol' may not submit to allocation 'lab/a'");
        Response taken = create("alice", ok.replace("\"c2\"", "\"mine\""));
        assertThat(taken.status()).isEqualTo(409);
        assertThat(taken.error()).contains("'mine' exists already");
    }

    @Test
    void ownersSeeTheirCampaignsAdministratorsAllAndOthersReadOneWithoutItsCommand() {
        assertThat(names(f.get("/v1/campaigns", "alice").json())).contains("mine");
        assertThat(names(f.get("/v1/campaigns", "bob").json())).isEmpty();
        assertThat(names(f.get("/v1/campaigns", "root").json())).contains("mine");
        JsonNode seenByBob = f.get("/v1/campaigns/mine", "bob").json();
        assertThat(seenByBob.path("redacted").asBoolean()).isTrue();
        assertThat(seenByBob.path("command").isNull()).isTrue();
        assertThat(seenByBob.path("environment").isNull()).isTrue();
        assertThat(seenByBob.path("shards")).hasSize(2);
        Response missing = f.get("/v1/campaigns/nope", "alice");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.error()).isEqualTo("no campaign 'nope'");
        assertThat(f.get("/v1/campaigns?x=1", "alice").status()).isEqualTo(400);
        assertThat(f.get("/v1/campaigns", null).status()).isEqualTo(401);
    }

    @Test
    void givenAManagerOfTheLab_whenCampaignsAreListed_thenItSeesThoseInItsSubtreeAndAManagerBesideItNone() {
        // a manager could retry or cancel a campaign below it, but GET /v1/campaigns listed only its own
        long t = CampaignFixture.T0.toEpochMilli();
        f.store.allocations().putAllocation(new Allocation("lab", 1, List.of("carol"), List.of()), "root", t);
        f.store.allocations().putAllocation(new Allocation("lab/b", 1, List.of("bob"), List.of("bob")), "root", t);
        try {
            Response carol = f.get("/v1/campaigns", "carol");
            assertThat(carol.status()).isEqualTo(200);
            assertThat(names(carol.json())).contains("mine");
            JsonNode mine = carol.json().path("campaigns").get(names(carol.json()).indexOf("mine"));
            assertThat(mine.path("owner").asText()).isEqualTo("alice");
            assertThat(mine.path("redacted").asBoolean()).as("a manager above it sees its command").isFalse();
            assertThat(names(f.get("/v1/campaigns", "bob").json())).as("lab/b's manager: not lab/a's").isEmpty();
        } finally {
            f.store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            f.store.allocations().putAllocation(new Allocation("lab/b", 1, List.of(), List.of("bob")), "root", t);
        }
    }

    @Test
    void onlyItsOwnerManagersAboveAndAdministratorsChangeOrCancelIt() {
        Response bob = f.put("/v1/campaigns/mine/brakes", "bob", "{\"shardGpuHours\": 1}");
        assertThat(bob.status()).isEqualTo(403);
        assertThat(bob.error()).isEqualTo("user 'bob' may not change the brakes of campaign 'mine'");
        assertThat(f.delete("/v1/campaigns/mine", "bob").status()).isEqualTo(403);
        Response bad = f.put("/v1/campaigns/mine/brakes", "alice", "{\"shardRequeues\": -1, \"campaignCost\": 5}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("violations").get(0).path("field").asText()).isEqualTo("shardRequeues");
        assertThat(bad.json().path("violations").get(1).path("field").asText()).isEqualTo("campaignCost");
        // and the hint is about brakes, not the campaign's own fields
        assertThat(bad.json().path("hint").asText()).isEqualTo("the body is the whole set of caps, e.g."
                + " {\"shardGpuHours\": 40, \"campaignGpuHours\": 2000}; a cap left out or null is none");
        Response root = f.put("/v1/campaigns/mine/brakes", "root", "{\"campaignCost\": 80, \"pricePerGpuHour\": 2.5}");
        assertThat(root.status()).isEqualTo(200);
        assertThat(root.json().path("brakes").path("campaignCost").asDouble()).isEqualTo(80.0);
    }

    @Test
    void aShardsProgressCountsTheShardsUnitsAndNeverGoesBack() {
        JsonNode shard = f.shard("mine", 0);
        String w = shard.path("workload").asText();
        Response wrongTotal = f.post("/v1/workloads/" + w + "/progress", "alice", "{\"done\": 2, \"total\": 100}");
        assertThat(wrongTotal.status()).isEqualTo(400);
        assertThat(wrongTotal.field()).isEqualTo("total");
        assertThat(wrongTotal.error()).isEqualTo("field 'total': expected 8, the units of shard 0 of campaign mine,"
                + " got 100");
        assertThat(f.post("/v1/workloads/" + w + "/progress", "alice", "{\"done\": 5, \"total\": 8}").status())
                .isEqualTo(200);
        assertThat(f.post("/v1/workloads/" + w + "/progress", "alice", "{\"done\": 3, \"total\": 8}").status())
                .isEqualTo(200);
        assertThat(f.shard("mine", 0).path("unitsDone").asLong()).as("a unit done stays done").isEqualTo(5);
    }

    private static List<String> names(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.path("campaigns").forEach(c -> out.add(c.path("name").asText()));
        return out;
    }
}
