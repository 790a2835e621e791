package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.Backend.Stop;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.slurm.SlurmAttempts.Tracked;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops attempts' Slurm jobs for {@link SlurmBackend#stopAll}: finds the job of each attempt asked to stop (adopting
 * it, or recording that it never started), notes why in its comment, {@code scancel}s it, and reads a failed
 * {@code scancel} back before calling it failed. Why a comment and a plain cancel, not a signal first, is in
 * {@link SlurmBackend}'s class comment. {@link SlurmObserver} cancels through {@link #sendKill} too (a job that did
 * not get the GPUs Allot placed), so what counts as a cancel sent is decided here once.
 *
 * <p>Not thread-safe: called only under {@link SlurmBackend}'s lock (its {@code synchronized} methods). The commands
 * of one {@link #stopAll} run at once in {@link CommandBatch} threads, which touch none of the books.
 */
final class SlurmStops {
    /** Logs under the backend's name, as before stopping had a class of its own. */
    private static final Logger LOG = LoggerFactory.getLogger(SlurmBackend.class);

    private final String instance;
    private final SlurmAttempts attempts;
    private final SlurmProbe probe;
    private final SlurmActions actions;
    private final CommandBatch commands;
    private final SlurmBackend.Counters counters;

    SlurmStops(String instance, SlurmAttempts attempts, SlurmProbe probe, SlurmActions actions,
            CommandBatch commands, SlurmBackend.Counters counters) {
        this.instance = instance;
        this.attempts = attempts;
        this.probe = probe;
        this.actions = actions;
        this.commands = commands;
        this.counters = counters;
    }

    /**
     * Stops the attempts as {@link SlurmBackend#stop(AttemptKey, java.time.Duration, String)} does each; the jobs'
     * comments and {@code scancel}s run at once ({@link CommandBatch}: per job its comment, then its cancel, after
     * {@code gate}), and what they answered is applied in the order given.
     */
    Map<AttemptKey, BackendException> stopAll(List<Stop> stops, Runnable gate) {
        Map<AttemptKey, BackendException> failed = new TreeMap<>();
        List<AttemptKey> cancelling = new ArrayList<>();
        List<String> whys = new ArrayList<>();
        List<Callable<Kill>> kills = new ArrayList<>();
        for (Stop s : stops) {
            AttemptKey key = s.attempt();
            try {
                Tracked t = stopping(key);
                if (t == null || cancelling.contains(key)) {
                    continue;
                }
                boolean first = !t.stopRequested;
                t.stopRequested = true;
                if ((t.last != null && t.last.ended()) || t.killSent) {
                    continue;
                }
                String comment = first && s.why() != null && !s.why().isBlank()
                        ? JobTag.comment(instance, s.why()) : null;
                long jobId = t.jobId;
                cancelling.add(key);
                whys.add(s.why());
                kills.add(() -> {
                    gate.run();
                    boolean commented = comment == null || actions.comment(jobId, comment);
                    return new Kill(commented, kill(jobId));
                });
            } catch (BackendException e) {
                failed.put(key, e);
            }
        }
        List<CommandBatch.Done<Kill>> answers = commands.run(kills);
        for (int i = 0; i < cancelling.size(); i++) {
            AttemptKey key = cancelling.get(i);
            Tracked t = attempts.tracked.get(key);
            String why = whys.get(i);
            try {
                Kill k = answers.get(i).get();
                if (!k.commented()) {
                    LOG.warn("could not note in Slurm job {}'s comment that it is {}; cancelling it all the same",
                            t.jobId, why);
                }
                if (k.outcome() == KillOutcome.CORRECTED) {
                    counters.commandClaimsCorrected++;
                }
                t.killSent = k.outcome() != KillOutcome.NOT_SENT;
            } catch (BackendException e) {
                LOG.warn("stopping Slurm job {} ({}) failed: {}", t.jobId, key, e.getMessage());
            }
            if (!t.killSent) {
                failed.put(key, new BackendUnavailableException("scancel " + t.jobId + " for " + key + " failed;"
                        + " will try again"));
                continue;
            }
            LOG.info("cancelled Slurm job {} ({}){}: Slurm sends SIGTERM now, SIGKILL after its KillWait", t.jobId,
                    key, why == null ? "" : ", " + why);
        }
        return failed;
    }

    /**
     * The job of an attempt asked to stop, found in a listing if not tracked yet; null if there is nothing to stop (it
     * ended, or never started: then it is reported {@link Phase#NEVER_STARTED}).
     */
    private Tracked stopping(AttemptKey key) {
        if (attempts.over(key)) {
            return null;
        }
        Tracked t = attempts.tracked.get(key);
        if (t == null) {
            Optional<SlurmJob> j = attempts.find(attempts.listJobs(), key);
            if (j.isEmpty()) {
                attempts.uncertainSince.remove(key);
                attempts.neverStarted.put(key, new AttemptStatus(key, Phase.NEVER_STARTED, null,
                        "Slurm has no job named " + JobTag.name(key) + ": it never started"));
                LOG.info("asked to stop {}, which Slurm never started", key);
                return null;
            }
            attempts.adopt(key, j.get(), null, "found while stopping it");
            t = attempts.tracked.get(key);
        }
        return t;
    }

    /** What became of one stop's commands: whether its comment was set, and its cancel's outcome. */
    private record Kill(boolean commented, KillOutcome outcome) {
    }

    /** A cancel sent; not sent (try again); or said to have failed, but the job is ending or gone. */
    private enum KillOutcome { SENT, NOT_SENT, CORRECTED }

    /** Cancels a job; a failed scancel is read back: an ended or ending job needs nothing more. Touches no state. */
    private KillOutcome kill(long jobId) {
        if (actions.cancel(jobId)) {
            return KillOutcome.SENT;
        }
        try {
            Optional<SlurmJob> j = probe.job(jobId);
            if (j.isEmpty() || j.get().ended() || j.get().state().equals("COMPLETING")
                    || j.get().state().equals("CANCELLED")) {
                return KillOutcome.CORRECTED;
            }
        } catch (BackendUnavailableException e) {
            // leave it for the next cycle
        }
        return KillOutcome.NOT_SENT;
    }

    /** Cancels a tracked attempt's job now, on this thread, and notes whether the cancel was sent. */
    void sendKill(Tracked t) {
        KillOutcome o = kill(t.jobId);
        if (o == KillOutcome.CORRECTED) {
            counters.commandClaimsCorrected++;
        }
        t.killSent = o != KillOutcome.NOT_SENT;
    }
}
