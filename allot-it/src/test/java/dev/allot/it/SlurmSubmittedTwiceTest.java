package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.slurm.SlurmBackend;
import dev.allot.slurm.SlurmConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One attempt submitted twice to the real Slurm cluster runs its command once. Two backends of one instance stand for
 * two services' terms of leadership (as in high availability: one instance id, one Slurm). The old leader's
 * {@code sbatch} is held in flight by a stand-in that waits for a go (a leader paused inside its launch, past every
 * lease check), and the new leader submits the same attempt meanwhile; or one service's sbatch gives up while
 * slurmctld takes its request in only later, after the retry's read-back found nothing. The command appends its job
 * id to a ledger: the ledger is the proof.
 *
 * <p>Where the first job must still run while Slurm and the backend deal with the later one, its command runs until the
 * story releases it (the file {@code release}), once the later job has ended, instead of for a fixed 8 s: the same
 * order of events, guaranteed rather than hoped for, and about 5 s less per story.
 */
class SlurmSubmittedTwiceTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(40);
    /** The workload whose placement is uneven (2 + 1 GPUs): a heterogeneous job, which carries no singleton. */
    private static final String UNEVEN = "w-twice-uneven";

    private String instance;
    private final List<SlurmBackend> backends = new ArrayList<>();
    private Path bin;
    private Path ledger;

    @BeforeEach
    void instance() throws Exception {
        // Unique per run: Slurm lists ended jobs for an hour.
        instance = "it-twice-" + Long.toHexString(System.nanoTime() & 0xffffffL);
        bin = Files.createDirectories(dir.resolve("bin"));
        ledger = dir.resolve("ledger");
        Files.createDirectories(dir.resolve("jobs"));
        for (String program : List.of("squeue", "scancel", "scontrol", "sinfo")) {
            Files.createSymbolicLink(bin.resolve(program), which(program));
        }
        // sbatch, held while the file "hold" exists; if "late-once" exists, it answers a timeout at once and
        // submits once the file "land" exists (with a copy of the environment file, which Allot deletes when sbatch
        // returns), or never if it does not within a minute.
        Path sbatch = bin.resolve("sbatch");
        Files.writeString(sbatch, """
                #!/bin/bash
                d=$(dirname "$0")
                if [ -e "$d/hold" ]; then
                  touch "$d/held"
                  while [ -e "$d/hold" ]; do sleep 0.05; done
                fi
                if [ -e "$d/late-once" ]; then
                  rm -f "$d/late-once"
                  a=()
                  for x in "$@"; do
                    case $x in
                      --export-file=*) cp "${x#--export-file=}" "$d/late.env"; a+=("--export-file=$d/late.env") ;;
                      *) a+=("$x") ;;
                    esac
                  done
                  ( for _ in $(seq 1 1200); do [ -e "$d/land" ] && break; sleep 0.05; done
                    [ -e "$d/land" ] && exec %s "${a[@]}" ) >/dev/null 2>&1 &
                  echo "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation" >&2
                  exit 1
                fi
                exec %s "$@"
                """.formatted(which("sbatch"), which("sbatch")), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(sbatch, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void closeBackends() throws Exception {
        if (bin != null) { // null when the story was skipped (no Slurm cluster configured) before it began
            Files.deleteIfExists(bin.resolve("hold"));
        }
        backends.forEach(SlurmBackend::close);
    }

    private static Path which(String program) {
        for (String d : System.getenv("PATH").split(":")) {
            Path p = Path.of(d, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new AssertionError(program + " is not on the PATH");
    }

    /** A backend of the story's instance; with the stand-in sbatch ({@code bin}) or Slurm's own. */
    private SlurmBackend backend(boolean standIn) {
        SlurmConfig c = SlurmConfig.defaults(slurm.conf, dir.resolve("jobs"), instance)
                .withCommandTimeout(Duration.ofSeconds(20)).withRootWorkloads(true);
        if (standIn) {
            c = c.withBinDir(bin);
        }
        SlurmBackend b = SlurmBackend.connect(c, Clock.systemUTC());
        backends.add(b);
        return b;
    }

    /**
     * The attempt: appends its job id to the ledger, then, if {@code held}, runs until the story {@link #release}s it
     * (a minute at most); on n1 (and n2 if uneven).
     */
    private Launch launch(AttemptKey key, boolean held) {
        String cmd = "echo $SLURM_JOB_ID >> " + ledger + (held ? "; for _ in $(seq 600); do [ -e "
                + dir.resolve("release") + " ] && break; sleep 0.1; done" : "");
        List<Launch.NodeGpus> placement = key.workloadId().equals(UNEVEN)
                ? List.of(new Launch.NodeGpus("n1", List.of(0, 1)), new Launch.NodeGpus("n2", List.of(0)))
                : List.of(new Launch.NodeGpus("n1", List.of(0, 1)));
        return new Launch(key, placement, List.of("sh", "-c", cmd), new TreeMap<>(), Duration.ofMinutes(10),
                new Launch.Terms(false, true));
    }

    /** Lets a held attempt's command end. */
    private void release() throws Exception {
        Files.writeString(dir.resolve("release"), "");
    }

    private List<String> ledger() throws Exception {
        return Files.exists(ledger) ? Files.readAllLines(ledger, StandardCharsets.UTF_8) : List.of();
    }

    private List<SlurmCluster.Job> jobsOf(AttemptKey key) {
        return slurm.jobsOf(instance, key.workloadId(), key.attempt()).stream()
                .sorted(Comparator.comparingLong(SlurmCluster.Job::id)).toList();
    }

    private AttemptStatus status(SlurmBackend b, AttemptKey key) {
        return b.observe().stream().filter(s -> s.attempt().equals(key)).findFirst().orElseThrow();
    }

    /** The old leader's sbatch held in flight while the new leader submits; then it lands. Returns the jobs. */
    private List<SlurmCluster.Job> submittedByBoth(AttemptKey key, boolean held, SlurmBackend oldLeader,
                                                   SlurmBackend newLeader) throws Exception {
        Files.writeString(bin.resolve("hold"), "");
        CompletableFuture<Void> late = CompletableFuture.runAsync(() -> oldLeader.start(launch(key, held)));
        Story.await("the old leader's sbatch to be in flight", WAIT, () -> Files.exists(bin.resolve("held")));
        CompletableFuture<Void> now = CompletableFuture.runAsync(() -> newLeader.start(launch(key, held)));
        Story.await("the new leader's job", WAIT, () -> jobsOf(key).size() == 1);
        Files.delete(bin.resolve("hold"));
        late.get();
        now.get();
        Story.await("both jobs", WAIT, () -> jobsOf(key).size() == 2);
        return jobsOf(key);
    }

    /**
     * Waits, observing nothing, until Slurm has decided about the later job: started it, or holds it for its
     * dependency. (The service observes once a cycle; a story that observed at once would cancel it first.)
     */
    private void slurmDecidedAbout(AttemptKey key) throws InterruptedException {
        Story.await("Slurm to start or hold the later job", WAIT, () -> {
            SlurmCluster.Job later = jobsOf(key).get(1);
            return !later.state().equals("PENDING") || later.reason().equals("Dependency");
        });
    }

    @Test
    void anOldLeadersSbatchLandingAfterTheNewLeaderSubmittedWaitsForTheFirstAndIsCancelledNeverRunning()
            throws Exception {
        SlurmBackend oldLeader = backend(true);
        SlurmBackend newLeader = backend(false);
        AttemptKey key = new AttemptKey("w-twice", 1);

        List<SlurmCluster.Job> jobs = submittedByBoth(key, true, oldLeader, newLeader);
        long first = jobs.get(0).id();
        long late = jobs.get(1).id();
        slurmDecidedAbout(key);
        Story.await("the first job to run", WAIT, () -> status(newLeader, key).phase() == AttemptStatus.Phase.RUNNING);
        // the backend, observing as the service does every cycle, cancels the later job while the first still runs
        Story.await("the later job to end while the first runs", WAIT, () -> status(newLeader, key) != null
                && SlurmCluster.ended(jobsOf(key).get(1).state()));
        release();
        Story.await("the attempt to end", WAIT, () -> status(newLeader, key).phase() == AttemptStatus.Phase.EXITED);

        assertThat(ledger()).containsExactly(Long.toString(first));
        assertThat(jobsOf(key).get(1).state()).isEqualTo("CANCELLED");
        assertThat(status(newLeader, key).detail()).isEqualTo("Slurm job " + first + " completed");
        assertThat(newLeader.counters()).containsEntry("duplicates_cancelled", 1L);
        assertThat(late).isGreaterThan(first);
    }

    @Test
    void aLateJobSlurmStartsAfterTheFirstEndedUnseenRunsNothing() throws Exception {
        SlurmBackend oldLeader = backend(true);
        SlurmBackend newLeader = backend(false);
        AttemptKey key = new AttemptKey("w-twice", 2);

        List<SlurmCluster.Job> jobs = submittedByBoth(key, false, oldLeader, newLeader);
        long first = jobs.get(0).id();
        long late = jobs.get(1).id();
        // nobody observes until Slurm has ended both: the singleton let the late one start once the first ended
        Story.await("both jobs to end", WAIT, () -> jobsOf(key).stream().allMatch(j -> SlurmCluster.ended(j.state())));

        assertThat(ledger()).containsExactly(Long.toString(first));
        assertThat(jobsOf(key).get(1).state()).isEqualTo("FAILED");
        assertThat(Files.readString(dir.resolve("jobs/allot-" + late + ".out"), StandardCharsets.UTF_8))
                .contains("Slurm job " + first + " of attempt w-twice#2 is older than this one (" + late + ");"
                        + " running nothing");
        AttemptStatus seen = status(newLeader, key);
        assertThat(seen.endedAt(null)).isEqualTo(new AttemptStatus(key, AttemptStatus.Phase.EXITED, 0,
                "Slurm job " + first + " completed"));
        assertThat(seen.endedAtMillis()).as("the first job's EndTime").isNotNull();
    }

    @Test
    void aHeterogeneousJobSubmittedByBothLeadersRunsItsCommandOnceThoughBothJobsStart() throws Exception {
        SlurmBackend oldLeader = backend(true);
        SlurmBackend newLeader = backend(false);
        AttemptKey key = new AttemptKey(UNEVEN, 1);

        List<SlurmCluster.Job> jobs = submittedByBoth(key, true, oldLeader, newLeader);
        long first = jobs.get(0).id();
        long late = jobs.get(1).id();
        // no singleton holds it: Slurm starts the later job beside the first, and its script runs nothing
        Story.await("Slurm to start the later job", WAIT, () -> !jobsOf(key).get(1).state().equals("PENDING"));
        Story.await("the later job to end while the first runs", WAIT,
                () -> SlurmCluster.ended(jobsOf(key).get(1).state()));
        release();
        Story.await("the attempt to end", WAIT, () -> status(newLeader, key).phase() == AttemptStatus.Phase.EXITED);

        assertThat(ledger()).containsExactly(Long.toString(first));
        assertThat(Files.readString(dir.resolve("jobs/allot-" + late + ".out"), StandardCharsets.UTF_8))
                .contains("Slurm job " + first + " of attempt " + UNEVEN + "#1 is older than this one");
        assertThat(status(newLeader, key).detail()).isEqualTo("Slurm job " + first + " completed");
    }

    @Test
    void anUnansweredSbatchThatSlurmTakesInAfterTheRetrySubmittedRunsNothing() throws Exception {
        SlurmBackend b = backend(true);
        AttemptKey key = new AttemptKey("w-twice", 3);
        Files.writeString(bin.resolve("late-once"), "");

        try {
            b.start(launch(key, true));
            throw new AssertionError("the held sbatch answered");
        } catch (BackendUnavailableException expected) {
            // whether it submitted is unknown
        }
        Thread.sleep(1000);
        b.start(launch(key, true)); // the read-back finds nothing yet: submitted again
        Files.writeString(bin.resolve("land"), ""); // slurmctld takes in the first request only now
        Story.await("the late request to land too", WAIT, () -> jobsOf(key).size() == 2);
        long retried = jobsOf(key).get(0).id();
        slurmDecidedAbout(key);
        Story.await("the late job to end while the first runs", WAIT, () -> status(b, key) != null
                && SlurmCluster.ended(jobsOf(key).get(1).state()));
        release();
        Story.await("the attempt to end", WAIT, () -> status(b, key).phase() == AttemptStatus.Phase.EXITED);

        assertThat(ledger()).containsExactly(Long.toString(retried));
        assertThat(jobsOf(key).get(1).state()).isIn("CANCELLED", "FAILED");
        assertThat(b.counters()).containsEntry("duplicates_cancelled", 1L);
    }
}
