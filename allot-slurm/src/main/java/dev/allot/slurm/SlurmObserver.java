package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.slurm.SlurmAttempts.Tracked;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Slurm's listing into the statuses of this instance's attempts for {@link SlurmBackend#observe}: one job per
 * attempt (a duplicate is cancelled), each job's state read as a {@link Phase} with a message saying why, a running
 * job's allocation compared once with its placement ({@link #verify}), and a tracked job missing from the listing
 * looked up by id before it counts as gone ({@link #confirmMissing}). What it must act on while reading, it does:
 * it cancels a live job of an attempt Allot counts ended, a job Slurm requeued, and one that did not get the GPUs
 * Allot placed ({@link SlurmStops#sendKill}). The rules themselves are in {@link SlurmBackend}'s class comment; this
 * class is where reading Slurm's states lives, apart from starting and stopping.
 *
 * <p>Not thread-safe: called only under {@link SlurmBackend}'s lock (its {@code synchronized} methods).
 */
final class SlurmObserver {
    /** Logs under the backend's name, as before observing had a class of its own. */
    private static final Logger LOG = LoggerFactory.getLogger(SlurmBackend.class);

    private final String instance;
    private final SlurmAttempts attempts;
    private final SlurmStops stops;
    private final SlurmProbe probe;
    private final SlurmActions actions;
    private final InstanceLock lock;
    private final SlurmBackend.Counters counters;
    /** Duplicate jobs already counted in {@link SlurmBackend.Counters#duplicatesCancelled}. */
    private final Set<Long> duplicatesSeen = new TreeSet<>();

    SlurmObserver(String instance, SlurmAttempts attempts, SlurmStops stops, SlurmProbe probe, SlurmActions actions,
            InstanceLock lock, SlurmBackend.Counters counters) {
        this.instance = instance;
        this.attempts = attempts;
        this.stops = stops;
        this.probe = probe;
        this.actions = actions;
        this.lock = lock;
        this.counters = counters;
    }

    /**
     * The statuses of this instance's attempts: those in a complete listing, the tracked ones missing from it, and
     * those that never started, in attempt order.
     *
     * @throws BackendUnavailableException if Slurm could not be listed: nothing is concluded
     */
    List<AttemptStatus> observe() {
        List<SlurmJob> jobs = attempts.listJobs();
        lock.check(jobs);
        Map<AttemptKey, List<SlurmJob>> mine = new TreeMap<>();
        for (SlurmJob j : jobs) {
            Optional<AttemptKey> key = JobTag.parse(j.name());
            if (key.isPresent() && JobTag.instance(j.comment()).filter(instance::equals).isPresent()) {
                mine.computeIfAbsent(key.get(), k -> new ArrayList<>()).add(j);
            }
        }
        List<AttemptStatus> out = new ArrayList<>();
        for (Map.Entry<AttemptKey, List<SlurmJob>> e : mine.entrySet()) {
            AttemptKey key = e.getKey();
            if (attempts.over(key)) {
                // Allot counts this attempt ended (or never started): a live job of it runs unseen on GPUs Allot
                // thinks are free (an sbatch whose answer was lost reached Slurm after all). It must not run.
                for (SlurmJob j : e.getValue()) {
                    if (!j.ended()) {
                        LOG.error("Slurm job {} belongs to attempt {}, which Allot counts as ended; cancelling it",
                                j.id(), key);
                        actions.cancel(j.id());
                    }
                }
                continue;
            }
            SlurmJob job = oneJob(key, e.getValue());
            Tracked t = attempts.tracked.get(key);
            if (t == null && job.ended()) {
                // Ended before this backend knew it (jobs stay listed for MinJobAge; after a restart most are
                // attempts the store has long ended): reported, not tracked, so nothing is looked up once Slurm
                // forgets it.
                Tracked once = new Tracked(job.id(), null);
                once.last = job;
                out.add(status(key, once, job));
                continue;
            }
            if (t == null) {
                attempts.adopt(key, job, null, "found in Slurm's listing");
                t = attempts.tracked.get(key);
            }
            t.last = job;
            out.add(status(key, t, job));
        }
        for (Map.Entry<AttemptKey, Tracked> e : attempts.tracked.entrySet()) {
            if (mine.containsKey(e.getKey())) {
                continue;
            }
            out.add(confirmMissing(e.getKey(), e.getValue()));
        }
        out.addAll(attempts.neverStarted.values());
        out.sort(Comparator.comparing(AttemptStatus::attempt));
        return out;
    }

    /**
     * The one job of an attempt: the oldest (lowest id) of those with its name. Any later one is a second submission
     * (an old leader's sbatch that landed after the lease moved, an unanswered sbatch that reached slurmctld after
     * the retry's read-back) and is cancelled at once: while the oldest is pending or running, Slurm holds a later
     * one of a uniform job ({@code --dependency=singleton}, see {@link SlurmActions#SINGLETON}), so it is cancelled
     * before it ever ran. The oldest is the one Slurm runs, so it stands for the attempt even when this backend
     * tracked a later one (its own submission): the attempt follows it, and a stop asked of the attempt is sent to it.
     */
    private SlurmJob oneJob(AttemptKey key, List<SlurmJob> jobs) {
        SlurmJob keep = jobs.stream().min(Comparator.comparingLong(SlurmJob::id)).orElseThrow();
        Tracked t = attempts.tracked.get(key);
        if (t != null && t.jobId != keep.id()) {
            Tracked older = new Tracked(keep.id(), t.placement);
            older.stopRequested = t.stopRequested;
            older.last = keep;
            attempts.tracked.put(key, older);
            LOG.warn("attempt {} was submitted twice: Slurm job {} is older than {}, which this backend submitted or"
                    + " found; the attempt is job {} from now on", key, keep.id(), t.jobId, keep.id());
            if (older.stopRequested && !keep.ended()) {
                stops.sendKill(older);
            }
        }
        for (SlurmJob j : jobs) {
            if (j.id() != keep.id() && !j.ended()) {
                if (duplicatesSeen.add(j.id())) {
                    counters.duplicatesCancelled++; // once per job: scancel is repeated until Slurm shows it ended
                }
                LOG.error("attempt {} has two Slurm jobs, {} and {} ({}); cancelling {} (an attempt runs once)", key,
                        keep.id(), j.id(), j.state(), j.id());
                actions.cancel(j.id());
            }
        }
        return keep;
    }

    /**
     * The status of an attempt whose job Slurm shows as {@code j}; once ended, with the end Slurm recorded
     * ({@link SlurmJob#endedAtMillis}), so that an end seen late (after a restart, or a probe outage) is recorded as
     * when it happened.
     */
    private AttemptStatus status(AttemptKey key, Tracked t, SlurmJob j) {
        AttemptStatus s = read(key, t, j);
        return s.ended() ? s.endedAt(j.endedAtMillis()) : s;
    }

    private AttemptStatus read(AttemptKey key, Tracked t, SlurmJob j) {
        String where = "Slurm job " + j.id();
        if (t.mismatch != null) {
            if (j.ended()) {
                return new AttemptStatus(key, Phase.FAILED_TO_START, null, where + " did not get the GPUs Allot placed"
                        + " it on: " + t.mismatch + "; Allot cancelled it");
            }
            if (!t.killSent) {
                stops.sendKill(t);
            }
            return new AttemptStatus(key, Phase.STARTING, null, where + " did not get the GPUs Allot placed it on ("
                    + t.mismatch + "); cancelling it");
        }
        if (j.ended()) {
            if (j.restarts() > 0 && t.requeueCancelled) {
                return new AttemptStatus(key, Phase.STOPPED, null, where + " was requeued by Slurm (a node failed or"
                        + " Slurm preempted it); Allot cancelled the requeued job, the next attempt is Allot's to"
                        + " place");
            }
            return switch (j.state()) {
                case "COMPLETED" -> new AttemptStatus(key, Phase.EXITED, j.exitCode() == null ? 0 : j.exitCode(),
                        where + " completed");
                case "FAILED" -> j.nodes().isEmpty()
                        ? new AttemptStatus(key, Phase.FAILED_TO_START, null, where + " never ran: " + j.reason())
                        : new AttemptStatus(key, Phase.EXITED, j.exitCode(), where + " ended FAILED"
                                + (j.signal() != 0 ? " (signal " + j.signal() + ")" : "")
                                + (j.reason().isEmpty() || j.reason().equals("None") ? "" : ": " + j.reason()));
                case "OUT_OF_MEMORY", "TIMEOUT", "DEADLINE", "SPECIAL_EXIT" ->
                        new AttemptStatus(key, Phase.EXITED, j.exitCode(), where + " ended " + j.state()
                                + (j.signal() != 0 ? " (signal " + j.signal() + ")" : "")
                                + (j.reason().isEmpty() || j.reason().equals("None") ? "" : ": " + j.reason()));
                case "BOOT_FAIL" -> new AttemptStatus(key, Phase.FAILED_TO_START, null, where + " failed to boot");
                case "CANCELLED" -> new AttemptStatus(key, Phase.STOPPED, null, where + " was cancelled"
                        + (t.stopRequested ? "" : " outside Allot"));
                case "NODE_FAIL" -> new AttemptStatus(key, Phase.STOPPED, null, where + " lost its node");
                case "PREEMPTED" -> new AttemptStatus(key, Phase.STOPPED, null, where + " was preempted by Slurm");
                default -> new AttemptStatus(key, Phase.EXITED, null, where + " ended " + j.state());
            };
        }
        if (j.restarts() > 0) {
            // Slurm requeued it (node failure, or its own preemption): it must not run again on Slurm's say-so.
            if (!t.requeueCancelled) {
                counters.slurmRequeues++;
                LOG.warn("{} ({}) was requeued by Slurm ({}, {}); cancelling it", where, key, j.state(), j.reason());
                if (actions.cancel(j.id())) {
                    t.requeueCancelled = true;
                }
            }
            return new AttemptStatus(key, Phase.STOPPING, null, where + " was requeued by Slurm; cancelling it");
        }
        if (t.stopRequested) {
            return new AttemptStatus(key, Phase.STOPPING, null, where + " is " + j.state() + ", asked to stop");
        }
        if (j.state().equals("RUNNING") && t.placement != null && !t.verified) {
            Optional<AttemptStatus> unverified = verify(key, t, j);
            if (unverified.isPresent()) {
                return unverified.get();
            }
        }
        return switch (j.state()) {
            case "RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING" ->
                    new AttemptStatus(key, Phase.RUNNING, null, where + " is " + j.state() + " on "
                            + String.join(",", j.nodes()));
            default -> new AttemptStatus(key, Phase.STARTING, null, where + " is " + j.state()
                    + (j.reason().isEmpty() || j.reason().equals("None") ? "" : " (" + j.reason() + ")"));
        };
    }

    /**
     * Compares what Slurm allocated to a job now running with the attempt's placement: empty when they agree (the
     * attempt runs), else the status to report (starting while unverified or being cancelled for a mismatch).
     */
    private Optional<AttemptStatus> verify(AttemptKey key, Tracked t, SlurmJob j) {
        String where = "Slurm job " + j.id();
        SlurmAllocation got;
        try {
            got = actions.allocation(j.id());
        } catch (BackendUnavailableException e) {
            return Optional.of(new AttemptStatus(key, Phase.STARTING, null, where + " is RUNNING; what Slurm"
                    + " allocated to it could not be read yet: " + e.getMessage()));
        }
        Optional<String> mismatch = got.mismatch(t.placement);
        if (mismatch.isEmpty()) {
            t.verified = true;
            Optional<String> other = got.indexDifference(t.placement);
            if (other.isPresent()) {
                // Not a failure: the counts decide what else fits on the node (see SlurmAllocation).
                counters.allocationIndexDifferences++;
                LOG.info("{} ({}) runs with Allot's GPU counts on other GPU indexes: {}", where, key, other.get());
            }
            return Optional.empty();
        }
        t.mismatch = mismatch.get();
        counters.allocationMismatches++;
        LOG.error("{} ({}) did not get the GPUs Allot placed it on: {}; cancelling it, the attempt failed to start",
                where, key, t.mismatch);
        actions.comment(j.id(), JobTag.comment(instance, "cancelled: not the GPUs Allot placed"));
        stops.sendKill(t);
        return Optional.of(new AttemptStatus(key, Phase.STARTING, null, where + " did not get the GPUs Allot placed"
                + " it on (" + t.mismatch + "); cancelling it"));
    }

    /** A tracked job missing from a complete listing: looked up by id before it counts as gone. */
    private AttemptStatus confirmMissing(AttemptKey key, Tracked t) {
        try {
            Optional<SlurmJob> j = probe.job(t.jobId);
            if (j.isPresent()) {
                t.last = j.get();
                return status(key, t, j.get());
            }
            counters.missingConfirmed++;
            return new AttemptStatus(key, Phase.STOPPED, null, "Slurm no longer knows job " + t.jobId
                    + " (confirmed by id); how it ended is not known");
        } catch (BackendUnavailableException e) {
            return new AttemptStatus(key, Phase.UNKNOWN, null, "Slurm job " + t.jobId + " is missing from the"
                    + " listing and could not be looked up: " + e.getMessage());
        }
    }
}
