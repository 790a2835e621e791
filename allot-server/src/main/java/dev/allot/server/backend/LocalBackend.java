package dev.allot.server.backend;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import dev.allot.server.backend.AttemptFiles.PidRecord;
import dev.allot.server.identity.UnixAccounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs each attempt as a process on this machine, on the GPUs of its placement ({@code CUDA_VISIBLE_DEVICES}), and
 * keeps enough on disk ({@link AttemptFiles}) that a scheduler restarted on the same data directory adopts the
 * attempts still running and learns how the others ended, without ever launching an attempt twice.
 *
 * <p>How one attempt's process chain is built and started (the wrapper that records the exit code, its own
 * session, the account it runs as, its environment and files) is {@link WorkloadLauncher}'s; this class coordinates
 * starting, stopping, observing and adopting attempts.
 *
 * <p><b>Stopping.</b> {@link #stop} sends SIGTERM to the wrapper's descendants (the user's process and whatever it
 * started), never to the wrapper, which stays to record the exit code. A stop that comes just after the start can
 * find the wrapper before it forked the command, or running its first helper ({@code rm} of the environment file):
 * signalling only what exists then lost the SIGTERM (the command started after it and ran until the SIGKILL at the
 * end of the grace period), and signalling the wrapper itself in that instant left the command running without it
 * (orphaned, its GPUs taken as free). So the stop <em>follows up</em>: every few milliseconds, then every
 * {@link #FOLLOW_UP_MAX_MILLIS} ms, until the attempt ends or its grace runs out, each direct child of the wrapper
 * that runs the command and was not signalled yet gets its SIGTERM (never the wrapper's own helpers, see
 * {@code wrappersOwn}; and the command's own later children are its business: a checkpoint helper it starts on
 * SIGTERM is not signalled). Once the grace period has passed, SIGKILL goes to the descendants still alive, again
 * until the wrapper has ended; the wrapper itself is killed only once it has had no descendant for
 * {@link #WRAPPER_ALONE_MILLIS} ms (a wrapper between its command's end and its own exit needs no signal, and one
 * about to fork must not lose its child). A {@code .stopped} marker, written before any signal and holding the kill
 * deadline, makes the attempt {@code STOPPED} rather than {@code EXITED} for a later adopter, which also re-arms the
 * kill.
 *
 * <p><b>Adoption.</b> An attempt's wrapper is found again from its pid file, or by its token in the process table,
 * never mistaking a reused pid for it ({@link WrapperProcesses}). An attempt whose wrapper is gone and left no exit
 * file is {@code EXITED} with an unknown exit code, except a launch interrupted before its process ran (only its log
 * exists, and no process carries its token): that one is not adopted and is launched by the next {@link #start} of its key. A scheduler killed in the instant
 * between spawning the JVM's launch helper and its {@code exec} of the wrapper could in principle leave a helper
 * that execs the wrapper only after the restarted scheduler looked; the restart takes far longer than that instant.
 *
 * <p>Every method holds the object's lock; {@link #observe} reads small files and {@code /proc} and never waits for
 * a process. {@link #close} stops the grace timers but leaves the processes running, to be adopted.
 */
public final class LocalBackend implements Backend, AutoCloseable {

    /** The PATH of a workload that declares none. */
    public static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

    /** The longest pause between two follow-ups of a stop (see Stopping in the class notes). */
    static final long FOLLOW_UP_MAX_MILLIS = 50;
    /** The first pause of a stop's follow-ups, doubled each time up to {@link #FOLLOW_UP_MAX_MILLIS}. */
    private static final long FOLLOW_UP_FIRST_MILLIS = 2;
    /** After the grace: how long a wrapper may go without any descendant before it is killed itself. */
    static final long WRAPPER_ALONE_MILLIS = 1_000;

    /** Graces beyond this are cut to it, so that the kill deadline stays a time a timer can wait for. */
    private static final Duration LONGEST_GRACE = Duration.ofDays(365);

    private final Path attemptsDir;
    private final String nodeName;
    private final WorkloadLauncher launcher;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LocalBackend.class);

    private final ScheduledExecutorService timers;
    /** Told when a wrapper exits ({@link #onEnd}); nothing until the scheduler asks. */
    private volatile Runnable endListener = () -> { };
    private final boolean ownsTimers;
    private final SortedMap<AttemptKey, Attempt> attempts = new TreeMap<>();
    private boolean closed;

    /** Everything known in memory of one attempt; the files hold what must outlive this object. */
    private static final class Attempt {
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
        final java.util.Set<ProcessHandle> termSent = new java.util.HashSet<>();
        /** After the grace: when the wrapper was first seen with no descendant, -1 while it had some. */
        long aloneSinceNanos = -1;
        boolean killed;
        /** The status once ended: final, never probed again. */
        AttemptStatus ended;

        Attempt(AttemptFiles files) {
            this.files = files;
        }
    }

    /**
     * A backend with its own daemon thread for grace timers, shut down by {@link #close}.
     *
     * @param dataDir  where attempts' files live ({@code <dataDir>/attempts}), created if missing
     * @param nodeName the node this machine is in the cluster; launches placed elsewhere are refused
     * @throws BackendException if the data directory cannot be used
     */
    public LocalBackend(Path dataDir, String nodeName) {
        this(dataDir, nodeName, new UnixAccounts(), false);
    }

    /**
     * A backend with its own timer thread that runs each launch as its account, looked up in {@code accounts}.
     *
     * @param allowRootWorkloads whether a launch may run as root (an account of uid 0, or no account while the
     *                           service is root); refused otherwise
     */
    public LocalBackend(Path dataDir, String nodeName, UnixAccounts accounts, boolean allowRootWorkloads) {
        this(dataDir, nodeName, dev.allot.server.Daemons.single("allot-local-backend-timers"), true, accounts,
                allowRootWorkloads);
    }

    /** A backend whose grace timers run on {@code timers}, which the caller owns and shuts down. */
    public LocalBackend(Path dataDir, String nodeName, ScheduledExecutorService timers) {
        this(dataDir, nodeName, Objects.requireNonNull(timers, "timers"), false, new UnixAccounts(), false);
    }

    private LocalBackend(Path dataDir, String nodeName, ScheduledExecutorService timers, boolean ownsTimers,
                         UnixAccounts accounts, boolean allowRootWorkloads) {
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
        this.timers = timers;
        this.ownsTimers = ownsTimers;
        this.launcher = new WorkloadLauncher(accounts, allowRootWorkloads);
        this.attemptsDir = dataDir.toAbsolutePath().resolve("attempts");
        try {
            dev.allot.server.OwnerOnlyFiles.directory(attemptsDir);
            adoptAll();
        } catch (IOException | RuntimeException e) {
            if (ownsTimers) {
                timers.shutdownNow();
            }
            throw e instanceof BackendException be ? be
                    : new BackendException("cannot use " + attemptsDir + " for attempts: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "local";
    }

    /** Its processes run on the service's machine: a reboot, or signals meant for the service, can end them too. */
    @Override
    public boolean workMayDieWithTheService() {
        return true;
    }

    /** Where an attempt's output goes (stdout and stderr, merged). */
    public Path logFile(AttemptKey attempt) {
        return files(attempt).log();
    }

    private AttemptFiles files(AttemptKey key) {
        return new AttemptFiles(attemptsDir, key);
    }

    // ---------------------------------------------------------------------------------------------- start

    @Override
    public synchronized void start(Launch launch) {
        requireOpen();
        AttemptKey key = launch.attempt();
        if (attempts.containsKey(key)) {
            return;
        }
        requireFileSafe(key);
        String gpus = gpusOnThisNode(launch);
        AttemptFiles files = files(key);
        if (files.anyTrace() && !WrapperProcesses.interruptedLaunch(files)) {
            // Launched (or tried) before: by an earlier scheduler, or before being forgotten. Never twice.
            try {
                Files.deleteIfExists(files.forgotten());
            } catch (IOException e) {
                throw new BackendException(key + ": cannot un-forget it: " + e.getMessage(), e);
            }
            attempts.put(key, adopt(files));
            return;
        }
        WorkloadLauncher.RunAs runAs = launcher.runAs(launch);
        Attempt attempt = new Attempt(files);
        attempts.put(key, attempt);
        launch(attempt, launch, gpus, runAs);
    }

    private void launch(Attempt attempt, Launch launch, String gpus, WorkloadLauncher.RunAs runAs) {
        AttemptFiles files = attempt.files;
        Process process;
        try {
            process = launcher.start(launch, gpus, runAs, files);
        } catch (WorkloadLauncher.NotStarted notStarted) {
            failToStart(attempt, notStarted.getMessage());
            return;
        }
        attempt.process = process;
        attempt.wrapper = process.toHandle();
        watch(attempt);
        if (!launcher.ownSession()) {
            attempt.warning = "setsid (util-linux) is not installed: it runs in the service's process group, and"
                    + " Ctrl-C in the service's terminal stops it too";
        }
        try {
            AttemptFiles.writeAtomically(files.pid(),
                    new PidRecord(process.pid(), process.info().startInstant().orElse(null)).format());
        } catch (IOException e) {
            attempt.warning = "pid file not written (" + e.getMessage() + "): a restarted scheduler will find it by "
                    + "its token in the process table";
        }
    }

    @Override
    public void onEnd(Runnable wake) {
        endListener = Objects.requireNonNull(wake, "wake");
    }

    /** Calls the {@link #onEnd} listener when the attempt's wrapper exits (it has then recorded the exit code). */
    private void watch(Attempt attempt) {
        if (attempt.wrapper != null) {
            attempt.wrapper.onExit().thenRun(this::endNoticed);
        }
    }

    private void endNoticed() {
        try {
            endListener.run();
        } catch (RuntimeException e) {
            LOG.warn("the listener of ended attempts failed: {}", e.toString());
        }
    }

    private void failToStart(Attempt attempt, String why) {
        attempt.failure = why;
        endNoticed();
        try {
            AttemptFiles.writeAtomically(attempt.files.failed(), why + "\n");
        } catch (IOException e) {
            // Only a restarted scheduler would miss it, and it would then simply try this launch again.
        }
    }

    /** The comma-joined GPU indexes if the launch is placed on this node alone. */
    private String gpusOnThisNode(Launch launch) {
        List<Launch.NodeGpus> placement = launch.placement();
        if (placement.size() != 1) {
            throw new BackendException(launch.attempt() + ": the local backend runs one node (" + nodeName
                    + ") but the placement spans " + placement.size() + " nodes: "
                    + placement.stream().map(Launch.NodeGpus::node).collect(Collectors.joining(", ")));
        }
        Launch.NodeGpus only = placement.get(0);
        if (!only.node().equals(nodeName)) {
            throw new BackendException(launch.attempt() + ": placed on node " + only.node()
                    + " but this local backend runs node " + nodeName);
        }
        return only.gpus().stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** Workload ids become file names: refuse the ones that would escape or hide in the attempts directory. */
    private static void requireFileSafe(AttemptKey key) {
        String id = key.workloadId();
        if (id.isEmpty() || id.startsWith(".") || id.contains("/") || id.contains("\0") || id.length() > 200) {
            throw new BackendException(key + ": the local backend names files after workload ids, and '" + id
                    + "' cannot be one (empty, starts with '.', contains '/' or NUL, or longer than 200)");
        }
    }

    // ----------------------------------------------------------------------------------------------- stop

    @Override
    public synchronized void stop(AttemptKey key, Duration grace) {
        Objects.requireNonNull(grace, "grace");
        requireOpen();
        Attempt attempt = attempts.get(key);
        if (attempt == null || attempt.wrapper == null || status(attempt).ended()) {
            return; // unknown here, never ran, or already over
        }
        if (attempt.stopRequested && attempt.killTimer != null) {
            return; // already stopping, the kill is armed
        }
        Duration boundedGrace = grace.isNegative() ? Duration.ZERO
                : grace.compareTo(LONGEST_GRACE) > 0 ? LONGEST_GRACE : grace;
        Instant deadline = Instant.now().plus(boundedGrace);
        attempt.stopRequested = true;
        attempt.killDeadline = deadline;
        try {
            AttemptFiles.writeAtomically(attempt.files.stopped(), "kill-at=" + deadline + "\n");
        } catch (IOException e) {
            attempt.warning = "stop marker not written (" + e.getMessage()
                    + "): after a restart this attempt would be reported EXITED, not STOPPED";
        }
        long wrapperPid = attempt.wrapper.pid();
        for (ProcessHandle p : attempt.wrapper.descendants().toList()) {
            boolean child = p.parent().map(ProcessHandle::pid).orElse(-1L) == wrapperPid;
            if (!child || !wrappersOwn(attempt, p)) {
                term(attempt, p);
            }
        }
        armKill(attempt);
        armFollowUp(attempt, FOLLOW_UP_FIRST_MILLIS);
    }

    private static void term(Attempt attempt, ProcessHandle p) {
        if (attempt.termSent.add(p)) {
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
    private static boolean wrappersOwn(Attempt attempt, ProcessHandle child) {
        String[] args = child.info().arguments().orElse(null);
        if (args == null) {
            return true;
        }
        String exit = attempt.files.exit().toString();
        String environment = attempt.files.environment().toString();
        for (String a : args) {
            if (a.startsWith(exit) || a.equals(environment)) {
                return true;
            }
        }
        return false;
    }

    private void armFollowUp(Attempt attempt, long delayMillis) {
        AttemptKey key = attempt.files.key();
        attempt.followUp = timers.schedule(() -> followUp(key, delayMillis), delayMillis, TimeUnit.MILLISECONDS);
    }

    /** SIGTERM to the wrapper's direct children not signalled yet; again later while it runs, until the kill. */
    private synchronized void followUp(AttemptKey key, long lastDelayMillis) {
        Attempt attempt = attempts.get(key);
        if (closed || attempt == null || attempt.wrapper == null || attempt.killed || !alive(attempt)) {
            return;
        }
        attempt.followUp = null;
        attempt.wrapper.children().filter(p -> !wrappersOwn(attempt, p)).forEach(p -> term(attempt, p));
        armFollowUp(attempt, Math.min(FOLLOW_UP_MAX_MILLIS, lastDelayMillis * 2));
    }

    private void armKill(Attempt attempt) {
        long delayMillis = Math.max(0, Duration.between(Instant.now(), attempt.killDeadline).toMillis());
        AttemptKey key = attempt.files.key();
        attempt.killTimer = timers.schedule(() -> killIfAlive(key), delayMillis, TimeUnit.MILLISECONDS);
    }

    /** SIGKILL to the descendants, again every follow-up until the wrapper has ended (see Stopping). */
    private synchronized void killIfAlive(AttemptKey key) {
        Attempt attempt = attempts.get(key);
        if (closed || attempt == null || attempt.wrapper == null || !alive(attempt)) {
            return;
        }
        attempt.killed = true;
        if (attempt.followUp != null) {
            attempt.followUp.cancel(false);
            attempt.followUp = null;
        }
        List<ProcessHandle> descendants = attempt.wrapper.descendants().toList();
        if (!descendants.isEmpty()) {
            attempt.aloneSinceNanos = -1;
            descendants.forEach(ProcessHandle::destroyForcibly);
        } else if (attempt.aloneSinceNanos < 0) {
            attempt.aloneSinceNanos = System.nanoTime();
        } else if (System.nanoTime() - attempt.aloneSinceNanos >= WRAPPER_ALONE_MILLIS * 1_000_000L) {
            attempt.wrapper.destroyForcibly(); // stuck without a command (it would have exited): killed itself
        }
        attempt.killTimer = timers.schedule(() -> killIfAlive(key), FOLLOW_UP_MAX_MILLIS, TimeUnit.MILLISECONDS);
    }

    // -------------------------------------------------------------------------------------------- observe

    @Override
    public synchronized List<AttemptStatus> observe() {
        List<AttemptStatus> statuses = new ArrayList<>(attempts.size());
        for (Attempt attempt : attempts.values()) {
            statuses.add(status(attempt));
        }
        return statuses;
    }

    private AttemptStatus status(Attempt attempt) {
        if (attempt.ended != null) {
            return attempt.ended;
        }
        AttemptKey key = attempt.files.key();
        if (attempt.failure != null) {
            return end(attempt, new AttemptStatus(key, Phase.FAILED_TO_START, null, attempt.failure));
        }
        if (attempt.unknown != null) {
            return new AttemptStatus(key, Phase.UNKNOWN, null, attempt.unknown);
        }
        if (attempt.wrapper != null && alive(attempt)) {
            String pid = "pid " + attempt.wrapper.pid() + (attempt.process == null ? " (adopted)" : "");
            String warning = attempt.warning == null ? "" : "; " + attempt.warning;
            return attempt.stopRequested
                    ? new AttemptStatus(key, Phase.STOPPING, null, pid + ": SIGTERM sent, SIGKILL at "
                            + (attempt.killDeadline == null ? "the next stop" : attempt.killDeadline) + warning)
                    : new AttemptStatus(key, Phase.RUNNING, null, pid + warning);
        }
        // Gone: the wrapper writes the exit file before it exits, so reading it now cannot miss it.
        Integer exitCode = null;
        String exitNote = null;
        try {
            Optional<String> recorded = AttemptFiles.readIfExists(attempt.files.exit());
            if (recorded.isPresent()) {
                try {
                    exitCode = Integer.parseInt(recorded.get().trim());
                } catch (NumberFormatException e) {
                    exitNote = "the exit file holds '" + recorded.get().strip() + "', not an exit code";
                }
            }
        } catch (IOException e) {
            return new AttemptStatus(key, Phase.UNKNOWN, null, "ended, but its exit file cannot be read: " + e);
        }
        if (attempt.stopRequested) {
            String how = attempt.killed ? "killed with SIGKILL once the grace period had passed" : "stopped";
            return end(attempt, new AttemptStatus(key, Phase.STOPPED, null,
                    how + (exitCode == null ? "" : "; the command exited with code " + exitCode)));
        }
        if (exitCode != null) {
            return end(attempt, new AttemptStatus(key, Phase.EXITED, exitCode, "exited with code " + exitCode));
        }
        if (exitNote == null) {
            exitNote = attempt.process != null
                    ? "the exit code is unknown: the wrapper ended with status " + attempt.process.exitValue()
                            + " without recording it (killed by a signal?)"
                    : attempt.goneDetail != null ? attempt.goneDetail
                    : "the exit code is unknown: the process is gone and left no exit file (killed together with "
                            + "its wrapper, e.g. SIGKILL to its process group, or the machine restarted)";
        }
        return end(attempt, new AttemptStatus(key, Phase.EXITED, null, exitNote));
    }

    private static AttemptStatus end(Attempt attempt, AttemptStatus status) {
        attempt.ended = status;
        if (attempt.killTimer != null) {
            attempt.killTimer.cancel(false);
            attempt.killTimer = null;
        }
        if (attempt.followUp != null) {
            attempt.followUp.cancel(false);
            attempt.followUp = null;
        }
        return status;
    }

    private static boolean alive(Attempt attempt) {
        if (attempt.process != null) {
            return attempt.process.isAlive(); // our child: the JVM reaps it, no zombie, no pid reuse
        }
        return attempt.wrapper.isAlive() && !WrapperProcesses.isZombie(attempt.wrapper.pid());
    }

    // --------------------------------------------------------------------------------------------- forget

    @Override
    public synchronized void forget(AttemptKey key) {
        Attempt attempt = attempts.get(key);
        if (attempt == null) {
            return;
        }
        AttemptStatus status = status(attempt);
        if (!status.ended()) {
            throw new IllegalStateException("cannot forget " + key + ": it is " + status.phase()
                    + ", not ended; stop it and wait until observe reports it ended");
        }
        try {
            AttemptFiles.writeAtomically(attempt.files.forgotten(), status.phase() + "\n");
        } catch (IOException e) {
            throw new BackendException(key + ": cannot record that it is forgotten: " + e.getMessage(), e);
        }
        attempts.remove(key);
    }

    // ------------------------------------------------------------------------------------------- adoption

    /** Finds every attempt with files in the attempts directory that was not forgotten. */
    private void adoptAll() throws IOException {
        TreeSet<AttemptKey> keys = new TreeSet<>();
        try (Stream<Path> entries = Files.list(attemptsDir)) {
            entries.forEach(p -> AttemptFiles.keyOf(p.getFileName().toString()).ifPresent(keys::add));
        }
        for (AttemptKey key : keys) {
            AttemptFiles files = files(key);
            if (!Files.exists(files.forgotten()) && !WrapperProcesses.interruptedLaunch(files)) {
                attempts.put(key, adopt(files));
            }
        }
    }

    /** What the files (and the process table) say of an attempt launched before. */
    private Attempt adopt(AttemptFiles files) {
        Attempt attempt = new Attempt(files);
        try {
            Optional<String> failed = AttemptFiles.readIfExists(files.failed());
            if (failed.isPresent()) {
                attempt.failure = failed.get().strip();
                return attempt;
            }
            Optional<String> stopped = AttemptFiles.readIfExists(files.stopped());
            if (stopped.isPresent()) {
                attempt.stopRequested = true;
                attempt.killDeadline = killDeadlineIn(stopped.get());
            }
            Optional<String> pidFile = AttemptFiles.readIfExists(files.pid());
            if (pidFile.isPresent()) {
                attempt.wrapper = WrapperProcesses.wrapperOf(PidRecord.parse(pidFile.get()), files).orElse(null);
            } else if (!Files.exists(files.exit())) {
                // Launched, but the scheduler stopped before recording the pid: look for the wrapper by its token.
                attempt.wrapper = WrapperProcesses.find(files).orElse(null);
                if (attempt.wrapper != null) {
                    AttemptFiles.writeAtomically(files.pid(), new PidRecord(attempt.wrapper.pid(),
                            attempt.wrapper.info().startInstant().orElse(null)).format());
                } else {
                    attempt.goneDetail = "the exit code is unknown: the launch was interrupted before its pid was "
                            + "recorded and no process of it runs (it may never have started)";
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            attempt.unknown = "its files in " + attemptsDir + " cannot be read: " + e.getMessage();
            return attempt;
        }
        if (attempt.stopRequested && attempt.wrapper != null && attempt.killDeadline != null && alive(attempt)) {
            armKill(attempt);
        }
        watch(attempt);
        return attempt;
    }

    private static Instant killDeadlineIn(String marker) {
        for (String line : marker.split("\n")) {
            if (line.startsWith("kill-at=")) {
                try {
                    return Instant.parse(line.substring("kill-at=".length()).trim());
                } catch (DateTimeParseException e) {
                    return null; // a later stop() arms the kill
                }
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------- close

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this local backend is closed");
        }
    }

    /** Stops the grace timers; running attempts keep running, for a later backend on the same directory to adopt. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Attempt attempt : attempts.values()) {
            if (attempt.killTimer != null) {
                attempt.killTimer.cancel(false);
                attempt.killTimer = null;
            }
            if (attempt.followUp != null) {
                attempt.followUp.cancel(false);
                attempt.followUp = null;
            }
        }
        if (ownsTimers) {
            timers.shutdownNow();
        }
    }
}
