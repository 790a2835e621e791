package dev.allot.server.backend;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;

/**
 * Everything {@link LocalBackend} knows in memory of one attempt, and what that, its files and the process table
 * say the attempt is now ({@link #status}). The files ({@link AttemptFiles}) hold what must outlive this object; the
 * {@code .stopped} marker's format ({@link #stopMarker}, {@link #killDeadlineIn}) is kept here so that the stop that
 * writes it and the adoption that reads it agree.
 *
 * <p>Not thread-safe: only {@link LocalBackend} touches it, under the backend's lock.
 */
final class LocalAttempt {
    final AttemptFiles files;
    /** The wrapper when this backend launched it (its exit status is then known too); null when adopted. */
    Process process;
    /** The wrapper; null when it never ran or is known to be gone. */
    ProcessHandle wrapper;
    /** Why it could not be started, when it could not. */
    String failure;
    /** Why its state cannot be told (a probe failed). */
    String unknown;
    /** Something worth telling about a running attempt (its pid file could not be written). */
    String warning;
    /** Why the exit code is unknown when the wrapper is gone without an exit file. */
    String goneDetail;
    boolean stopRequested;
    Instant killDeadline;
    ScheduledFuture<?> killTimer;
    /** The next follow-up of the stop (SIGTERM to children the wrapper forked since), null when none is due. */
    ScheduledFuture<?> followUp;
    /** The processes already sent SIGTERM by this stop: each gets it once. */
    private final Set<ProcessHandle> termSent = new HashSet<>();
    /** After the grace: when the wrapper was first seen with no descendant, -1 while it had some. */
    long aloneSinceNanos = -1;
    boolean killed;
    /** The status once ended: final, never probed again. */
    private AttemptStatus ended;

    LocalAttempt(AttemptFiles files) {
        this.files = files;
    }

    AttemptKey key() {
        return files.key();
    }

    /** Whether its wrapper still runs (not a zombie: an adopted wrapper is not our child and is not reaped by us). */
    boolean alive() {
        if (process != null) {
            return process.isAlive(); // our child: the JVM reaps it, no zombie, no pid reuse
        }
        return wrapper.isAlive() && !WrapperProcesses.isZombie(wrapper.pid());
    }

    /** SIGTERM to {@code p}, once per stop. */
    void term(ProcessHandle p) {
        if (termSent.add(p)) {
            p.destroy();
        }
    }

    /**
     * Whether a child of the wrapper is the wrapper's own, not the command: a copy of the wrapper not yet exec'd, or
     * its {@code rm} of the environment file or {@code mv} of the exit file (their arguments name the attempt's
     * files; the command's never do). Those get no SIGTERM (a killed {@code mv} would lose the exit code); a copy
     * about to become the command is signalled once it has exec'd, by a follow-up. One whose arguments cannot be read
     * (it is ending, or exec'ing) counts as the wrapper's until a follow-up reads them.
     */
    boolean wrappersOwn(ProcessHandle child) {
        String[] args = child.info().arguments().orElse(null);
        if (args == null) {
            return true;
        }
        String exit = files.exit().toString();
        String environment = files.environment().toString();
        for (String a : args) {
            if (a.startsWith(exit) || a.startsWith(environment)) { // the launch's own file: .env.N
                return true;
            }
        }
        return false;
    }

    /** Cancels its pending follow-up and kill timers (it ended, or the backend closes). */
    void cancelTimers() {
        if (killTimer != null) {
            killTimer.cancel(false);
            killTimer = null;
        }
        if (followUp != null) {
            followUp.cancel(false);
            followUp = null;
        }
    }

    /** What it is now: final once ended (never probed again); reads its exit file once the wrapper is gone. */
    AttemptStatus status() {
        if (ended != null) {
            return ended;
        }
        AttemptKey key = key();
        if (failure != null) {
            return end(new AttemptStatus(key, Phase.FAILED_TO_START, null, failure));
        }
        if (unknown != null) {
            return new AttemptStatus(key, Phase.UNKNOWN, null, unknown);
        }
        if (wrapper != null && alive()) {
            String pid = "pid " + wrapper.pid() + (process == null ? " (adopted)" : "");
            String warned = warning == null ? "" : "; " + warning;
            return stopRequested
                    ? new AttemptStatus(key, Phase.STOPPING, null, pid + ": SIGTERM sent, SIGKILL at "
                            + (killDeadline == null ? "the next stop" : killDeadline) + warned)
                    : new AttemptStatus(key, Phase.RUNNING, null, pid + warned);
        }
        if (wrapper != null && tookOverByClaimHolder()) {
            return status();
        }
        // Gone: the wrapper writes the exit file before it exits, so reading it now cannot miss it.
        Integer exitCode = null;
        String exitNote = null;
        Long endedAt = null;
        try {
            Optional<String> recorded = AttemptFiles.readIfExists(files.exit());
            if (recorded.isPresent()) {
                endedAt = exitFileTime();
                try {
                    exitCode = Integer.parseInt(recorded.get().trim());
                } catch (NumberFormatException e) {
                    exitNote = "the exit file holds '" + recorded.get().strip() + "', not an exit code";
                }
            }
        } catch (IOException e) {
            return new AttemptStatus(key, Phase.UNKNOWN, null, "ended, but its exit file cannot be read: " + e);
        }
        if (stopRequested) {
            String how = killed ? "killed with SIGKILL once the grace period had passed" : "stopped";
            return end(new AttemptStatus(key, Phase.STOPPED, null,
                    how + (exitCode == null ? "" : "; the command exited with code " + exitCode), endedAt));
        }
        if (exitCode != null) {
            return end(new AttemptStatus(key, Phase.EXITED, exitCode, "exited with code " + exitCode, endedAt));
        }
        if (exitNote == null) {
            exitNote = process != null
                    ? "the exit code is unknown: the wrapper ended with status " + process.exitValue()
                            + " without recording it (killed by a signal?)"
                    : goneDetail != null ? goneDetail
                    : "the exit code is unknown: the process is gone and left no exit file (killed together with "
                            + "its wrapper, e.g. SIGKILL to its process group, or the machine restarted)";
        }
        return end(new AttemptStatus(key, Phase.EXITED, null, exitNote, endedAt));
    }

    /**
     * When the command ended, as its exit file says: the wrapper writes the file as the command exits (a temporary
     * file renamed, which keeps its time), so an end found only after a restart is reported as when it happened, not
     * when the restarted service looked ({@link AttemptStatus#endedAtMillis}); null when the file's time cannot be
     * read (the end is then when it was observed).
     */
    private Long exitFileTime() {
        try {
            return java.nio.file.Files.getLastModifiedTime(files.exit()).toMillis();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Whether this attempt's wrapper, now gone, had lost the attempt's claim to another wrapper of it that still runs
     * (two launches of one attempt raced; see {@link WorkloadLauncher#WRAPPER_SCRIPT}): the winner becomes the
     * wrapper followed here, adopted, and the pid file names it. Not when the attempt's exit file exists (its end is
     * known) or the claim names this wrapper, nobody, or a process that is not a wrapper of this attempt.
     */
    private boolean tookOverByClaimHolder() {
        try {
            if (java.nio.file.Files.exists(files.exit())) {
                return false;
            }
            Optional<ProcessHandle> winner = WrapperProcesses.claimHolderOtherThan(wrapper.pid(), files);
            if (winner.isEmpty()) {
                return false;
            }
            wrapper = winner.get();
            process = null;
            AttemptFiles.writeAtomically(files.pid(), new AttemptFiles.PidRecord(wrapper.pid(),
                    wrapper.info().startInstant().orElse(null)).format());
            return true;
        } catch (IOException e) {
            return false; // read again at the next probe
        }
    }

    private AttemptStatus end(AttemptStatus status) {
        ended = status;
        cancelTimers();
        return status;
    }

    /** The {@code .stopped} marker's text: written before any signal, it holds the kill deadline. */
    static String stopMarker(Instant killDeadline) {
        return "kill-at=" + killDeadline + "\n";
    }

    /** The kill deadline a {@code .stopped} marker holds; null when it holds none readable (a later stop arms it). */
    static Instant killDeadlineIn(String marker) {
        for (String line : marker.split("\n")) {
            if (line.startsWith("kill-at=")) {
                try {
                    return Instant.parse(line.substring("kill-at=".length()).trim());
                } catch (DateTimeParseException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
