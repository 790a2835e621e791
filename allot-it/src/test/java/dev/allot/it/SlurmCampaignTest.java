package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A campaign through the real service on the real Slurm cluster (issue 17's acceptance: promotion in place keeps the
 * same Slurm job). Alice submits three one-GPU shards with one protected slot: nothing is measured yet, so units stand
 * for time and the slot goes to shard 0 (the most units), the others run unallocated in {@code allot-free}. Shard 0 is
 * of the fast family and ends first; its slot then goes to the running shard with the longest remaining work, shard 1,
 * where it runs: the same Slurm job keeps running (never requeued, the same start, one process), its comment says
 * since when Allot protects it, the API shows the same attempt, now protected, and the audit trail's
 * {@code campaign.promote} carries what the backend said. No unit runs twice.
 *
 * <p>Each shard runs {@code shard.sh}: from {@code ALLOT_RESUME_FROM} to {@code ALLOT_UNITS} it sleeps a unit (its
 * family's pace: {@code fast} 0.4 s, {@code slow} 1.5 s; shard 0 is fast, 1 and 2 slow), appends {@code <unit> <job> <attempt>} to {@code out/<shard>.units} and reports the unit with
 * {@code POST /v1/workloads/$ALLOT_WORKLOAD_ID/progress} (curl, alice's token from the campaign's environment), as a
 * lab's script would; every start appends to {@code out/<shard>.starts}. Works on any cluster with three free GPUs
 * (the CI's has 32); shard 1, the longest, runs about 15 s.
 */
class SlurmCampaignTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How long the promoted job is watched: several of Slurm's scheduling passes (sched_interval=2, bf_interval=1). */
    private static final Duration WATCH = Duration.ofSeconds(5);
    private static final String INSTANT = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ";
    /**
     * Units per shard: shard 0 has the most (the first protected slot) but is fast (about 5 s); once it ends, shard 1
     * (15 s) has more work left than shard 2 (9 s), which still runs, and runs on for the {@link #WATCH} after its
     * promotion (which comes a tick or two after shard 0 ends) with seconds to spare.
     */
    private static final List<Integer> UNITS = List.of(12, 10, 6);
    private static final List<String> FAMILIES = List.of("fast", "slow", "slow");
    private static final String SHARD_SCRIPT = """
            case "$ALLOT_FAMILY" in fast) pace=0.4 ;; *) pace=1.5 ;; esac
            echo "$SLURM_JOB_ID $ALLOT_ATTEMPT from ${ALLOT_RESUME_FROM:-?}" >> "$OUT/$ALLOT_SHARD.starts"
            i=${ALLOT_RESUME_FROM:-0}
            while [ "$i" -lt "$ALLOT_UNITS" ]; do
              sleep "$pace"
              i=$((i + 1))
              echo "$i $SLURM_JOB_ID $ALLOT_ATTEMPT" >> "$OUT/$ALLOT_SHARD.units"
              curl -sS -f -o /dev/null --max-time 10 -H "Authorization: Bearer $ALLOT_TOKEN" \\
                -H 'Content-Type: application/json' -d "{\\"done\\": $i, \\"total\\": $ALLOT_UNITS}" \\
                "$ALLOT_SERVER/v1/workloads/$ALLOT_WORKLOAD_ID/progress" 2>> "$OUT/$ALLOT_SHARD.errors" \\
                || echo "unit $i not reported" >> "$OUT/$ALLOT_SHARD.errors"
            done
            """;

    @Test
    void whenTheProtectedShardEndsThenTheLongestRunningUnallocatedShardIsPromotedInItsSameSlurmJob() throws Exception {
        story = new Story(slurm, dir.resolve("data"), "it-campaign").seed().start();
        Path out = Files.createDirectories(dir.resolve("out"));
        Path script = dir.resolve("shard.sh");
        Files.writeString(script, SHARD_SCRIPT);

        story.post("/v1/campaigns", "tok-alice", campaign(script, out), 201);

        // Shard 0 protected in allot, the others unallocated in allot-free; shard 1's job seen before any promotion.
        List<String> workloads = new ArrayList<>();
        Story.until("the three shards to be queued", WAIT, () -> {
            workloads.clear();
            shards().forEach(s -> workloads.add(s.path("workload").asText("")));
            return workloads.stream().noneMatch(String::isEmpty);
        });
        assertThat(tiers()).containsExactly("protected", "unallocated", "unallocated");
        Map<Integer, SlurmCluster.Job> seen = new TreeMap<>();
        Story.await("the three shards' Slurm jobs to run", WAIT, () -> {
            for (int i = 0; i < workloads.size(); i++) {
                int shard = i;
                story.jobs(workloads.get(i), 1).stream().filter(j -> j.state().equals("RUNNING")).findFirst()
                        .ifPresent(j -> seen.putIfAbsent(shard, j));
            }
            return seen.size() == workloads.size();
        });
        SlurmCluster.Job before = seen.get(1);
        assertThat(tiers()).as("shard 1's job was read before its promotion").element(1).isEqualTo("unallocated");
        assertThat(seen.get(0).partition()).isEqualTo("allot");
        assertThat(before.partition()).isEqualTo("allot-free");
        assertThat(seen.get(2).partition()).isEqualTo("allot-free");
        assertThat(before.comment()).isEqualTo("allot:" + story.instance);
        String w1 = workloads.get(1);

        // when shard 0, holding the protected slot, ends
        Story.until("shard 0 to be done", WAIT, () -> shards().get(0).path("phase").asText().equals("done"));

        // then shard 1 (more work left than shard 2) is promoted where it runs. The store shows the promotion (its tier)
        // before the backend's answer (its detail), which is recorded once Slurm was asked and read back: wait for both.
        Story.until("shard 1 to be promoted and the backend's answer recorded", WAIT, () -> {
            JsonNode s = shards().get(1);
            return s.path("tier").asText().equals("protected") && !s.path("promotionDetail").isNull();
        });
        JsonNode s1 = shards().get(1);
        assertThat(s1.path("workload").asText()).isEqualTo(w1);
        assertThat(s1.path("phase").asText()).isEqualTo("running");
        assertThat(s1.path("promotedAt").asText()).isNotEmpty();
        assertThat(shards().get(2).path("tier").asText()).isEqualTo("unallocated");
        String note = "allot:" + story.instance + " protected since ";
        String detail = s1.path("promotionDetail").asText();
        assertThat(detail).matches(Pattern.quote("Slurm keeps job " + before.id() + " in partition allot-free: a"
                + " running job's partition cannot change; Allot protects it from now (Slurm's own preemption, where"
                + " enabled, still sees partition allot-free); its comment reads '" + note) + INSTANT + "'");
        JsonNode promote = auditEntry("campaign.promote");
        assertThat(promote.path("subject").asText()).isEqualTo("campaign:eval");
        assertThat(promote.path("actor").asText()).isEqualTo("system:campaigns");
        assertThat(promote.path("after").path("workload").asText()).isEqualTo(w1);
        assertThat(promote.path("after").path("attempt").asInt()).isEqualTo(1);
        assertThat(promote.path("after").path("mirrored").asBoolean()).isFalse();
        assertThat(promote.path("after").path("detail").asText()).isEqualTo(detail);

        // Slurm: the same job runs on, never requeued, with the comment the detail quotes; the API: the same attempt
        String comment = detail.substring(detail.indexOf(note), detail.length() - 1);
        long until = System.nanoTime() + WATCH.toNanos();
        do {
            SlurmCluster.Job now = only(w1, 1);
            assertThat(now.id()).isEqualTo(before.id());
            assertThat(now.state()).isEqualTo("RUNNING");
            assertThat(now.restarts()).isZero();
            assertThat(now.startEpochSeconds()).isEqualTo(before.startEpochSeconds());
            assertThat(now.partition()).isEqualTo("allot-free");
            assertThat(now.comment()).isEqualTo(comment);
            List<JsonNode> attempts = story.attempts(w1);
            assertThat(attempts).hasSize(1);
            assertThat(attempts.get(0).path("attempt").asInt()).isEqualTo(1);
            assertThat(attempts.get(0).path("endedAt").isNull()).as("attempt 1 is open: %s", attempts.get(0)).isTrue();
            Thread.sleep(500);
        } while (System.nanoTime() < until);
        assertThat(slurm.completionState(before.id())).as("a completion line for job %d", before.id()).isNull();
        JsonNode w = story.workload(w1).path("workload");
        assertThat(w.path("state").asText()).isEqualTo("running");
        assertThat(w.path("allocated").asBoolean()).isTrue();

        // and the campaign ends with every unit run once, each shard by the one process it started as
        Story.until("the campaign to be done", WAIT, () -> campaignState().equals("done"));
        assertThat(only(w1, 1).state()).isEqualTo("COMPLETED");
        assertThat(slurm.completionState(before.id())).isEqualTo("COMPLETED");
        assertThat(story.attempts(w1)).hasSize(1);
        for (int shard = 0; shard < UNITS.size(); shard++) {
            long job = seen.get(shard).id();
            assertThat(Files.readAllLines(out.resolve(shard + ".starts"))).as("shard %d's starts", shard)
                    .containsExactly(job + " 1 from 0");
            assertThat(Files.readAllLines(out.resolve(shard + ".units"))).as("shard %d's units", shard)
                    .containsExactlyElementsOf(IntStream.rangeClosed(1, UNITS.get(shard))
                            .mapToObj(u -> u + " " + job + " 1").toList());
            assertThat(out.resolve(shard + ".errors")).as("shard %d's reports", shard).satisfiesAnyOf(
                    p -> assertThat(p).doesNotExist(), p -> assertThat(p).isEmptyFile());
            assertThat(shards().get(shard).path("unitsDone").asLong()).isEqualTo((long) UNITS.get(shard));
            assertThat(story.workload(workloads.get(shard)).path("workload").path("progress").path("done").asLong())
                    .as("shard %d's last report", shard).isEqualTo((long) UNITS.get(shard));
        }
    }

    /** Alice's campaign {@code eval} in lab/a: one GPU a shard, one protected slot, {@code shard.sh} as its command. */
    private String campaign(Path script, Path out) {
        ObjectNode o = Story.JSON.createObjectNode();
        o.put("name", "eval");
        o.put("allocation", "lab/a");
        o.putArray("command").add("sh").add(script.toString()).add("{shard}");
        ObjectNode env = o.putObject("environment");
        env.put("OUT", out.toString());
        env.put("ALLOT_SERVER", story.service().url());
        env.put("ALLOT_TOKEN", "tok-alice");
        o.put("gpus", 1);
        o.put("minRuntime", "1h");
        o.put("protectedShards", 1);
        var shards = o.putArray("shards");
        for (int i = 0; i < UNITS.size(); i++) {
            shards.addObject().put("units", UNITS.get(i)).put("family", FAMILIES.get(i));
        }
        return o.toString();
    }

    private JsonNode campaignView() throws Exception {
        return story.get("/v1/campaigns/eval", "tok-alice");
    }

    private String campaignState() throws Exception {
        return campaignView().path("state").asText();
    }

    private List<JsonNode> shards() throws Exception {
        List<JsonNode> out = new ArrayList<>();
        campaignView().path("shards").forEach(out::add);
        return out;
    }

    private List<String> tiers() throws Exception {
        return shards().stream().map(s -> s.path("tier").asText()).toList();
    }

    /** The only Slurm job of the attempt (ended jobs stay listed). */
    private SlurmCluster.Job only(String workload, int attempt) {
        List<SlurmCluster.Job> jobs = story.jobs(workload, attempt);
        assertThat(jobs).as("Slurm jobs of %s#%d", workload, attempt).hasSize(1);
        return jobs.get(0);
    }

    /** The one audit entry of {@code action} (an administrator reads the trail). */
    private JsonNode auditEntry(String action) throws Exception {
        List<JsonNode> found = new ArrayList<>();
        story.get("/v1/audit?limit=500", "tok-root").path("entries").forEach(e -> {
            if (e.path("action").asText().equals(action)) {
                found.add(e);
            }
        });
        assertThat(found).as("audit entries %s", action).hasSize(1);
        return found.get(0);
    }
}
