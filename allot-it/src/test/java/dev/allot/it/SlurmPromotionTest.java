package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend.Mirror;
import dev.allot.core.backend.Launch;
import dev.allot.slurm.SlurmBackend;
import dev.allot.slurm.SlurmConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Promotion in place on the real Slurm cluster: a campaign's shard running as unallocated work becomes allocated where
 * it runs. Allot alone decides preemption, so the promotion holds in Allot; what Slurm shows of it is checked against
 * Slurm's own commands: the same job keeps running (never requeued, never a second job, the process that started),
 * its comment says since when Allot protects it, and the backend's answer says what Slurm kept.
 *
 * <p>Slurm 22.05 changes neither the partition nor the QOS of a running job ("Job is no longer pending execution for
 * job N", exit 1, nothing changed), so on a running job only the comment follows; a job still pending moves. The
 * partition stories run on the cluster {@code .ci/slurm.sh} starts ({@code MODE=partition}); the QOS ones only on a
 * cluster with accounting ({@code tools/slurm-cluster.sh MODE=qos}), and are skipped on the other. (On that QOS
 * cluster Slurm preempts by QOS: a job it keeps in {@code allot-free} is still requeued for a job of QOS
 * {@code allot}, which the answer warns of.)
 */
class SlurmPromotionTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** How long the promoted job is watched: several of Slurm's scheduling passes (sched_interval=2, bf_interval=1). */
    private static final Duration WATCH = Duration.ofSeconds(6);
    private static final Launch.Terms FREE = new Launch.Terms(true, true);
    private static final Launch.Terms PROTECTED = new Launch.Terms(false, true);
    private static final String INSTANT = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ";

    private String instance;
    private SlurmBackend backend;

    @BeforeEach
    void instance() {
        // Unique per run: Slurm lists ended jobs for an hour.
        instance = "it-promote-" + Long.toHexString(System.nanoTime() & 0xffffffL);
    }

    @AfterEach
    void closeBackend() {
        if (backend != null) {
            backend.close();
        }
    }

    /** Whether the cluster has accounting (slurmdbd), without which Slurm ignores every QOS. */
    private boolean qosCluster() {
        return slurm.run(List.of("scontrol", "show", "config")).contains("accounting_storage/slurmdbd");
    }

    private SlurmConfig partitions() throws Exception {
        Files.createDirectories(dir.resolve("jobs"));
        return SlurmConfig.defaults(slurm.conf, dir.resolve("jobs"), instance).withCommandTimeout(Duration.ofSeconds(10))
                .withRootWorkloads(true);
    }

    /** As {@code MODE=qos} makes the cluster: one partition, QOS {@code allot} and the preemptible {@code allot-free}. */
    private SlurmConfig qos() throws Exception {
        return partitions().withPartitions("allot", null).withQos("allot", "allot-free");
    }

    private static Launch launch(AttemptKey key, String node, int gpus, String... command) {
        List<Integer> idx = java.util.stream.IntStream.range(0, gpus).boxed().toList();
        return new Launch(key, List.of(new Launch.NodeGpus(node, idx)), List.of(command), new TreeMap<>(),
                Duration.ofMinutes(10), FREE);
    }

    private AttemptStatus status(AttemptKey key) {
        return backend.observe().stream().filter(s -> s.attempt().equals(key)).findFirst().orElseThrow();
    }

    private SlurmCluster.Job only(AttemptKey key) {
        List<SlurmCluster.Job> jobs = slurm.jobsOf(instance, key.workloadId(), key.attempt());
        assertThat(jobs).as("Slurm jobs of %s", key).hasSize(1);
        return jobs.get(0);
    }

    /** A field of {@code scontrol -o show job ID}, e.g. its QOS. */
    private String scontrolField(long id, String field) {
        String line = slurm.run(List.of("scontrol", "-o", "show", "job", Long.toString(id)));
        java.util.regex.Matcher m = Pattern.compile("(?:^| )" + field + "=(\\S*)").matcher(line);
        assertThat(m.find()).as("%s in %s", field, line).isTrue();
        return m.group(1);
    }

    @Test
    void givenARunningFreeShardInThePreemptiblePartitionWhenPromotedThenTheSameJobRunsOnAndItsCommentSaysSo()
            throws Exception {
        assumeFalse(qosCluster(), "a partition story; this cluster has accounting (MODE=qos)");
        backend = SlurmBackend.connect(partitions(), Clock.systemUTC());

        promoteRunningShard("Slurm keeps job %d in partition allot-free: a running job's partition cannot change",
                "partition allot-free");

        assertThat(only(new AttemptKey("w-shard", 1)).partition()).isEqualTo("allot-free");
    }

    @Test
    void givenARunningFreeShardInThePreemptibleQosWhenPromotedThenSlurmKeepsItsQosAndTheSameJobRunsOn()
            throws Exception {
        assumeTrue(qosCluster(), "a QOS story; this cluster has no accounting (MODE=partition)");
        backend = SlurmBackend.connect(qos(), Clock.systemUTC());

        long id = promoteRunningShard("Slurm keeps QOS allot-free for job %d: asked for QOS allot, scontrol said"
                + " \"Job is no longer pending execution for job %1$d\" (exit 1)", "QOS allot-free");

        assertThat(scontrolField(id, "QOS")).isEqualTo("allot-free");
    }

    /**
     * Starts a free shard, lets it run, promotes it, and watches Slurm: the same job, running, with the note in its
     * comment; the backend's answer {@code keeps} (with the job id), what Slurm's preemption {@code stillSeen}, then
     * the note. Returns the job's id.
     */
    private long promoteRunningShard(String keeps, String stillSeen) throws Exception {
        AttemptKey key = new AttemptKey("w-shard", 1);
        backend.start(launch(key, "n1", 2, "sh", "-c", "echo started $SLURM_JOB_ID; sleep 600"));
        Story.await(key + " runs", WAIT, () -> status(key).phase() == AttemptStatus.Phase.RUNNING);
        SlurmCluster.Job before = only(key);

        Mirror m = backend.promote(key, PROTECTED);

        String note = "allot:" + instance + " protected since ";
        assertThat(m.mirrored()).isFalse();
        assertThat(m.detail()).matches(Pattern.quote(keeps.formatted(before.id()) + "; Allot protects it from now"
                + " (Slurm's own preemption, where enabled, still sees " + stillSeen + "); its comment reads '" + note)
                + INSTANT + "'");
        long until = System.nanoTime() + WATCH.toNanos();
        do {
            SlurmCluster.Job now = only(key);
            assertThat(now.id()).isEqualTo(before.id());
            assertThat(now.state()).isEqualTo("RUNNING");
            assertThat(now.restarts()).isZero();
            assertThat(now.startEpochSeconds()).isEqualTo(before.startEpochSeconds());
            assertThat(now.comment()).matches(Pattern.quote(note) + INSTANT);
            assertThat(status(key)).isEqualTo(new AttemptStatus(key, AttemptStatus.Phase.RUNNING, null,
                    "Slurm job " + before.id() + " is RUNNING on n1"));
            Thread.sleep(500);
        } while (System.nanoTime() < until);
        assertThat(slurm.completionState(before.id())).as("a completion line for job %d", before.id()).isNull();
        // The process that started is the one running: a restart would have written its output again.
        Path out = dir.resolve("jobs").resolve("allot-" + before.id() + ".out");
        assertThat(Files.readAllLines(out)).containsExactly("started " + before.id());
        assertThat(backend.counters()).containsEntry("submissions", 1L).containsEntry("promotions_not_mirrored", 1L)
                .containsEntry("slurm_requeues", 0L);
        return before.id();
    }

    @Test
    void givenAFreeShardStillPendingWhenPromotedThenSlurmMovesItToTheProtectedPartition() throws Exception {
        assumeFalse(qosCluster(), "a partition story; this cluster has accounting (MODE=qos)");
        backend = SlurmBackend.connect(partitions(), Clock.systemUTC());

        long id = promotePendingShard();

        assertThat(only(new AttemptKey("w-pending", 1)).partition()).isEqualTo("allot");
        assertThat(backend.promote(new AttemptKey("w-pending", 1), PROTECTED).detail()).startsWith("Slurm job " + id
                + " is already in partition allot");
    }

    @Test
    void givenAFreeShardStillPendingWhenPromotedThenSlurmMovesItToTheProtectedQos() throws Exception {
        assumeTrue(qosCluster(), "a QOS story; this cluster has no accounting (MODE=partition)");
        backend = SlurmBackend.connect(qos(), Clock.systemUTC());

        long id = promotePendingShard();

        assertThat(scontrolField(id, "QOS")).isEqualTo("allot");
    }

    /** A free shard placed on a node another job fills: pending in Slurm; promoted, mirrored; the same job. */
    private long promotePendingShard() throws Exception {
        slurm.run(List.of("sbatch", "--parsable", "--partition=allot", "--nodelist=n2", "--nodes=1", "--gres=gpu:8",
                "--chdir=/tmp", "--output=/dev/null", "--wrap=sleep 600"));
        AttemptKey key = new AttemptKey("w-pending", 1);
        backend.start(launch(key, "n2", 8, "sleep", "600"));
        Story.await(key + " pends in Slurm", WAIT, () -> slurm.jobsOf(instance, key.workloadId(), key.attempt())
                .stream().anyMatch(j -> j.state().equals("PENDING")));
        long id = only(key).id();

        Mirror m = backend.promote(key, PROTECTED);

        assertThat(m.mirrored()).as(m.detail()).isTrue();
        assertThat(m.detail()).matches("Slurm job " + id + " (moved to partition allot \\(was allot-free\\)|now has QOS"
                + " allot \\(was QOS allot-free\\)); its comment reads '" + Pattern.quote("allot:" + instance
                + " protected since ") + INSTANT + "'");
        SlurmCluster.Job now = only(key);
        assertThat(now.id()).isEqualTo(id);
        assertThat(now.state()).isEqualTo("PENDING");
        return id;
    }
}
