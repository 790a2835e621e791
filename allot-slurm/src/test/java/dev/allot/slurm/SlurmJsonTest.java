package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SlurmJsonTest {
    private static final String SQUEUE = Fixtures.read("squeue.json");
    private static final String SQUEUE_CANCELLED = Fixtures.read("squeue-after-cancel.json");
    private static final String SINFO = Fixtures.read("sinfo.json");

    private static SlurmJob job(List<SlurmJob> jobs, long id) {
        return jobs.stream().filter(j -> j.id() == id).findFirst().orElseThrow();
    }

    @Test
    void realSqueueAnswerReadsAsEveryJobWithItsTagStateAndNodes() throws Exception {
        List<SlurmJob> jobs = SlurmJson.jobs("squeue --json", SQUEUE);

        assertThat(jobs).extracting(SlurmJob::id).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        SlurmJob running = job(jobs, 6);
        assertThat(running.name()).isEqualTo("allot:w-1#1");
        assertThat(running.comment()).isEqualTo("allot:inst1");
        assertThat(running.state()).isEqualTo("RUNNING");
        assertThat(running.nodes()).containsExactly("n1", "n2");
        assertThat(running.partition()).isEqualTo("own");
        assertThat(running.restarts()).isZero();
        assertThat(running.ended()).isFalse();
        assertThat(running.pending()).isFalse();

        SlurmJob lock = job(jobs, 3);
        assertThat(lock.name()).isEqualTo(JobTag.LOCK_NAME);
        assertThat(lock.state()).isEqualTo("PENDING");
        assertThat(lock.reason()).isEqualTo("JobHeldUser");
        assertThat(lock.nodes()).isEmpty();
        assertThat(lock.pending()).isTrue();

        SlurmJob pending = job(jobs, 9);
        assertThat(pending.reason()).isEqualTo("BeginTime");
        assertThat(pending.nodes()).isEmpty();
    }

    @Test
    void exitStatusesAreWaitStatusesExitCodeInTheHighByte() throws Exception {
        List<SlurmJob> jobs = SlurmJson.jobs("squeue --json", SQUEUE);

        SlurmJob exited3 = job(jobs, 7);
        assertThat(exited3.state()).isEqualTo("FAILED");
        assertThat(exited3.exitStatus()).isEqualTo(768);
        assertThat(exited3.exitCode()).isEqualTo(3);
        assertThat(exited3.signal()).isZero();
        assertThat(exited3.ended()).isTrue();

        SlurmJob completed = job(jobs, 1);
        assertThat(completed.exitCode()).isZero();

        // sbatch said "Requested node configuration is not available", yet Slurm kept a FAILED job: status 1
        SlurmJob refused = job(jobs, 8);
        assertThat(refused.state()).isEqualTo("FAILED");
        assertThat(refused.reason()).isEqualTo("BadConstraints");
        assertThat(refused.exitCode()).isNull();
        assertThat(refused.signal()).isEqualTo(1);
    }

    @Test
    void anEndedJobCarriesTheEndSlurmRecordedAndARunningOneOnlyItsTimeLimit() throws Exception {
        List<SlurmJob> jobs = SlurmJson.jobs("squeue --json", SQUEUE);

        assertThat(job(jobs, 1).endedAtMillis()).isEqualTo(1796119312_000L); // COMPLETED
        assertThat(job(jobs, 7).endedAtMillis()).isEqualTo(1796119749_000L); // FAILED, exit 3
        SlurmJob running = job(jobs, 6);
        assertThat(running.endTimeMillis()).as("its time limit").isEqualTo(1827655749_000L);
        assertThat(running.endedAtMillis()).as("not an end").isNull();
        assertThat(job(jobs, 3).endTimeMillis()).as("pending: end_time 0").isNull();
        assertThat(job(SlurmJson.jobs("squeue --json", SQUEUE_CANCELLED), 6).endedAtMillis()).isNotNull();
    }

    @Test
    void laterDataFormatsGiveTheEndTimeAsAnObjectThatMayBeUnset() throws Exception {
        String job = "{\"job_id\": 5, \"name\": \"allot:w-1#1\", \"job_state\": \"COMPLETED\", \"end_time\": %s}";
        String set = "{\"set\": true, \"infinite\": false, \"number\": 1796119312}";
        String unset = "{\"set\": false, \"infinite\": false, \"number\": 0}";
        String infinite = "{\"set\": true, \"infinite\": true, \"number\": 0}";

        assertThat(SlurmJson.jobs("x", "{\"jobs\": [" + job.formatted(set) + "]}").get(0).endedAtMillis())
                .isEqualTo(1796119312_000L);
        for (String none : List.of(unset, infinite, "\"Unknown\"", "null")) {
            assertThat(SlurmJson.jobs("x", "{\"jobs\": [" + job.formatted(none) + "]}").get(0).endedAtMillis())
                    .as(none).isNull();
        }
    }

    @Test
    void cancelledJobsAreEndedAndCarrySlurmsStatus() throws Exception {
        List<SlurmJob> jobs = SlurmJson.jobs("squeue --json", SQUEUE_CANCELLED);

        SlurmJob wasRunning = job(jobs, 6);
        assertThat(wasRunning.state()).isEqualTo("CANCELLED");
        assertThat(wasRunning.ended()).isTrue();
        assertThat(wasRunning.exitStatus()).isEqualTo(36608); // what 22.05 reports for a cancelled batch script
        assertThat(wasRunning.nodes()).containsExactly("n1", "n2");
        assertThat(job(jobs, 9).state()).isEqualTo("CANCELLED");
    }

    @Test
    void realSinfoAnswerReadsAsNodesWithGpusFlagsAndReasons() throws Exception {
        List<SlurmNode> nodes = SlurmJson.nodes("sinfo --json", SINFO);

        assertThat(nodes).extracting(SlurmNode::name).containsExactly("n1", "n2", "n3", "n4");
        assertThat(nodes).allSatisfy(n -> assertThat(n.gpus()).isEqualTo(8));
        assertThat(nodes.get(0).state()).isEqualTo("MIXED");
        assertThat(nodes.get(2).state()).isEqualTo("IDLE");
        SlurmNode drained = nodes.get(3);
        assertThat(drained.flags()).containsExactly("DRAIN");
        assertThat(drained.drained()).isTrue();
        assertThat(drained.broken()).isFalse();
        assertThat(drained.reason()).isEqualTo("allot: test");
        assertThat(nodes.get(0).drained()).isFalse();
        assertThat(nodes.get(0).reason()).isEmpty();
    }

    @Test
    void gpusAreSummedOverTypesAndSocketsIgnored() {
        assertThat(SlurmJson.gpus("gpu:8")).isEqualTo(8);
        assertThat(SlurmJson.gpus("gpu:a100:4(S:0-1),gpu:v100:2")).isEqualTo(6);
        assertThat(SlurmJson.gpus("gpu:a100:4(S:0,1),gpu:v100:2(S:1)")).isEqualTo(6);
        assertThat(SlurmJson.gpus("gpu:2,mps:100")).isEqualTo(2);
        assertThat(SlurmJson.gpus("(null)")).isZero();
        assertThat(SlurmJson.gpus("")).isZero();
        assertThat(SlurmJson.gpus("gpu")).isZero();
    }

    @Test
    void answersThatAreNotCompleteDocumentsAreMalformedNamingSourceAndReason() {
        assertMalformed("", "empty answer");
        assertMalformed("   \n", "empty answer");
        assertMalformed("[]", "expected a JSON object");
        assertMalformed("{}", "no \"jobs\" list");
        assertMalformed("{\"jobs\": 3}", "no \"jobs\" list");
        assertMalformed("{\"jobs\": [], \"errors\": [{\"error\": \"Unable to contact slurm controller\"}]}",
                "Slurm reported errors", "Unable to contact slurm controller");
        assertMalformed("{\"jobs\": [{\"name\": \"a\", \"job_state\": \"RUNNING\"}]}", "jobs[0]", "\"job_id\"");
        assertMalformed("{\"jobs\": [{\"job_id\": 4, \"job_state\": \"RUNNING\"}]}", "jobs[0]", "\"name\"");
        assertMalformed("{\"jobs\": [{\"job_id\": 4, \"name\": \"a\", \"job_state\": \"RUNNING\", \"nodes\": \"n[1-\"}]}",
                "jobs[0]", "n[1-");
        assertMalformed("{\"jobs\": [{\"job_id\": 4, \"name\": \"a\", \"job_state\": \"RUNNING\", \"nodes\": \"n]1[\"}]}",
                "jobs[0]", "n]1[");
        assertMalformed("{\"jobs\": [", "not complete JSON");
        assertThatThrownBy(() -> SlurmJson.jobs("squeue --json", null)).isInstanceOf(SlurmJson.Malformed.class);
        assertThatThrownBy(() -> SlurmJson.nodes("sinfo --json", "{\"nodes\": [{\"name\": \"n1\"}]}"))
                .isInstanceOf(SlurmJson.Malformed.class).hasMessageContaining("sinfo --json: nodes[0]")
                .hasMessageContaining("\"state\"");
    }

    @Test
    void anEmptyButCompleteListingIsNoJobs() throws Exception {
        assertThat(SlurmJson.jobs("squeue --json", "{\"errors\": [], \"jobs\": []}")).isEmpty();
    }

    private static void assertMalformed(String text, String... words) {
        assertThatThrownBy(() -> SlurmJson.jobs("squeue --json", text)).isInstanceOf(SlurmJson.Malformed.class)
                .hasMessageStartingWith("squeue --json")
                .satisfies(e -> assertThat(e.getMessage()).contains(words));
    }

    /** Every length near both ends and a few hundred cut points in between (fixed seed), ascending. */
    private static java.util.SortedSet<Integer> cutPoints(String text, long seed) {
        java.util.SortedSet<Integer> cuts = new java.util.TreeSet<>();
        for (int k = 0; k <= 150; k++) {
            cuts.add(Math.min(k, text.length()));
            cuts.add(Math.max(0, text.length() - k));
        }
        Random random = new Random(seed);
        for (int k = 0; k < 200; k++) {
            cuts.add(random.nextInt(text.length() + 1));
        }
        return cuts;
    }

    @Test
    void aTruncatedSqueueAnswerNeverReadsAsFewerJobs() throws Exception {
        List<SlurmJob> full = SlurmJson.jobs("squeue --json", SQUEUE);
        int complete = 0;
        for (int len : cutPoints(SQUEUE, 42)) {
            List<SlurmJob> got;
            try {
                got = SlurmJson.jobs("squeue --json", SQUEUE.substring(0, len));
            } catch (SlurmJson.Malformed e) {
                continue;
            }
            assertThat(got).as("prefix of %d of %d characters", len, SQUEUE.length()).isEqualTo(full);
            complete++;
        }
        assertThat(complete).isBetween(1, 2); // the whole answer, with or without its final newline
    }

    @Test
    void aTruncatedSinfoAnswerNeverReadsAsFewerNodes() throws Exception {
        List<SlurmNode> full = SlurmJson.nodes("sinfo --json", SINFO);
        for (int len : cutPoints(SINFO, 7)) {
            List<SlurmNode> got;
            try {
                got = SlurmJson.nodes("sinfo --json", SINFO.substring(0, len));
            } catch (SlurmJson.Malformed e) {
                continue;
            }
            assertThat(got).as("prefix of %d of %d characters", len, SINFO.length()).isEqualTo(full);
        }
    }

    @Test
    void randomByteFlipsAreEitherMalformedOrTheSameNumberOfJobs() throws Exception {
        byte[] bytes = SQUEUE.getBytes(StandardCharsets.UTF_8);
        int fullSize = SlurmJson.jobs("squeue --json", SQUEUE).size();
        Random random = new Random(20261201L);
        for (int round = 0; round < 600; round++) {
            byte[] b = bytes.clone();
            int flips = 1 + random.nextInt(3);
            for (int k = 0; k < flips; k++) {
                b[random.nextInt(b.length)] ^= (byte) (1 + random.nextInt(255));
            }
            String text = new String(b, StandardCharsets.UTF_8);
            try {
                List<SlurmJob> got = SlurmJson.jobs("squeue --json", text);
                if (flips == 1) {
                    assertThat(got).as("round %d", round).hasSize(fullSize);
                }
            } catch (SlurmJson.Malformed expected) {
                // fine
            } catch (RuntimeException e) {
                fail("round " + round + ": " + e + " instead of Malformed", e);
            }
        }
    }
}
