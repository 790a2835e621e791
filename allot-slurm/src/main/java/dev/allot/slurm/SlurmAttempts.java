package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link SlurmBackend} knows of its attempts' jobs: the attempts it knows the job of ({@link Tracked}), those it
 * has forgotten, those that never started, those whose submission had an unknown outcome, and the last listing of
 * Slurm's jobs with the last failed probe. Starting, stopping ({@link SlurmStops}) and observing
 * ({@link SlurmObserver}) all read and change these books, and a job is found by its attempt's name ({@link #find})
 * and adopted ({@link #adopt}) the same way whichever of them meets it first: so the books and those two rules live
 * here, once.
 *
 * <p>Not thread-safe: used only under {@link SlurmBackend}'s lock (its {@code synchronized} methods), directly or
 * through the classes it hands these books to.
 */
final class SlurmAttempts {
    /** Logs under the backend's name, as before these books had a class of their own. */
    private static final Logger LOG = LoggerFactory.getLogger(SlurmBackend.class);
    /** How old a listing {@link SlurmBackend#start} may rely on to say that no job has an attempt's name. */
    static final long LISTING_FRESH_MILLIS = 2_000;
    /** How long after a failed probe {@link SlurmBackend#start} fails at once rather than probing again. */
    static final long FAIL_FAST_MILLIS = 500;

    private final String instance;
    private final SlurmProbe probe;
    private final Clock clock;
    private final SlurmBackend.Counters counters;

    /** Attempts Allot knows the job of: started here, or found by name. */
    final Map<AttemptKey, Tracked> tracked = new TreeMap<>();
    private final Set<AttemptKey> forgotten = new TreeSet<>();
    /**
     * Attempts asked to stop that Slurm has no job for: they never started ({@link Phase#NEVER_STARTED}), whether their
     * sbatch failed here or they were launched by an Allot process that died before its sbatch (a restart).
     */
    final Map<AttemptKey, AttemptStatus> neverStarted = new TreeMap<>();
    /** Attempts whose submission had an unknown outcome, and when: only a later listing can say. */
    final Map<AttemptKey, Long> uncertainSince = new TreeMap<>();
    private List<SlurmJob> lastListing;
    private long lastListingAt = Long.MIN_VALUE / 2;
    private long lastProbeFailureAt = Long.MIN_VALUE / 2;
    private String lastProbeFailure;

    /** One attempt's job and what Allot asked of it. */
    static final class Tracked {
        final long jobId;
        /** The placement it was launched with; null for a job found in a listing (nothing to compare with). */
        final List<Launch.NodeGpus> placement;
        SlurmJob last;
        boolean stopRequested;
        boolean killSent;
        boolean requeueCancelled;
        /** Slurm's allocation was found to be the placement. */
        boolean verified;
        /** How Slurm's allocation differs from the placement; the job is being cancelled. */
        String mismatch;

        Tracked(long jobId, List<Launch.NodeGpus> placement) {
            this.jobId = jobId;
            this.placement = placement;
        }
    }

    SlurmAttempts(String instance, SlurmProbe probe, Clock clock, SlurmBackend.Counters counters) {
        this.instance = instance;
        this.probe = probe;
        this.clock = clock;
        this.counters = counters;
    }

    /** Allot counts the attempt ended (it was forgotten) or it never started: it has no job to drive. */
    boolean over(AttemptKey key) {
        return forgotten.contains(key) || neverStarted.containsKey(key);
    }

    void forget(AttemptKey key) {
        tracked.remove(key);
        neverStarted.remove(key);
        uncertainSince.remove(key);
        forgotten.add(key);
    }

    List<SlurmJob> listJobs() {
        try {
            List<SlurmJob> jobs = SlurmJob.joinComponents(probe.jobs());
            lastListing = jobs;
            lastListingAt = clock.millis();
            return jobs;
        } catch (BackendUnavailableException e) {
            probeFailed(e);
            throw e;
        }
    }

    void probeFailed(BackendUnavailableException e) {
        counters.probeFailures++;
        lastProbeFailureAt = clock.millis();
        lastProbeFailure = e.getMessage();
        LOG.warn("Slurm probe failed, nothing concluded from it: {}", e.getMessage());
    }

    /** A listing recent enough to say whether an attempt's job exists: fresh if a submission of it went unanswered. */
    List<SlurmJob> listingFor(AttemptKey key) {
        long now = clock.millis();
        Long uncertain = uncertainSince.get(key);
        boolean fresh = lastListing != null && now - lastListingAt < LISTING_FRESH_MILLIS
                && (uncertain == null || lastListingAt > uncertain);
        if (fresh) {
            return lastListing;
        }
        if (now - lastProbeFailureAt < FAIL_FAST_MILLIS) {
            throw new BackendUnavailableException("Slurm could not be read a moment ago (" + lastProbeFailure
                    + "); cannot tell whether " + key + " was submitted");
        }
        return listJobs();
    }

    Optional<SlurmJob> find(List<SlurmJob> listing, AttemptKey key) {
        String name = JobTag.name(key);
        SlurmJob ours = null;
        for (SlurmJob j : listing) {
            if (!j.name().equals(name)) {
                continue;
            }
            Optional<String> inst = JobTag.instance(j.comment());
            if (inst.isPresent() && !inst.get().equals(instance)) {
                if (!j.ended()) {
                    throw new BackendException("attempt " + key + " is already Slurm job " + j.id() + " of another"
                            + " Allot instance '" + inst.get() + "'; two Allot instances must not drive one Slurm"
                            + " cluster (this one is '" + instance + "')");
                }
                continue;
            }
            if (ours == null || j.id() < ours.id()) {
                ours = j;
            }
        }
        return Optional.ofNullable(ours);
    }

    void adopt(AttemptKey key, SlurmJob job, List<Launch.NodeGpus> placement, String why) {
        Tracked t = new Tracked(job.id(), placement);
        t.last = job;
        tracked.put(key, t);
        uncertainSince.remove(key);
        counters.adoptions++;
        LOG.info("attempt {} is Slurm job {} ({}): {}", key, job.id(), job.state(), why);
    }
}
