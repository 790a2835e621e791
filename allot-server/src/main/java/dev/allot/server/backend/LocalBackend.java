package dev.allot.server.backend;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
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
 * {@link LocalAttempt#wrappersOwn}; and the command's own later children are its business: a checkpoint helper it
 * starts on SIGTERM is not signalled). Once the grace period has passed, SIGKILL goes to the descendants still alive, again
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
    private final SortedMap<AttemptKey, LocalAttempt> attempts = new TreeMap<>();
    private boolean closed;

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

    /**
     * The end of an attempt's log: read from its file as far as it is written (not {@code synchronized}: a read of a
     * growing file waits for no launch or stop).
     */
    @Override
    public java.util.Optional<dev.allot.core.backend.AttemptOutput> output(AttemptKey attempt, int maxBytes) {
        return java.util.Optional.of(OutputTail.read(files(attempt).log(), maxBytes));
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
        LocalAttempt attempt = new LocalAttempt(files);
        attempts.put(key, attempt);
        launch(attempt, launch, gpus, runAs);
    }

    private void launch(LocalAttempt attempt, Launch launch, String gpus, WorkloadLauncher.RunAs runAs) {
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
    private void watch(LocalAttempt attempt) {
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

    private void failToStart(LocalAttempt attempt, String why) {
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
        LocalAttempt attempt = attempts.get(key);
        if (attempt == null || attempt.wrapper == null || attempt.status().ended()) {
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
            AttemptFiles.writeAtomically(attempt.files.stopped(), LocalAttempt.stopMarker(deadline));
        } catch (IOException e) {
            attempt.warning = "stop marker not written (" + e.getMessage()
                    + "): after a restart this attempt would be reported EXITED, not STOPPED";
        }
        long wrapperPid = attempt.wrapper.pid();
        for (ProcessHandle p : attempt.wrapper.descendants().toList()) {
            boolean child = p.parent().map(ProcessHandle::pid).orElse(-1L) == wrapperPid;
            if (!child || !attempt.wrappersOwn(p)) {
                attempt.term(p);
            }
        }
        armKill(attempt);
        armFollowUp(attempt, FOLLOW_UP_FIRST_MILLIS);
    }

    private void armFollowUp(LocalAttempt attempt, long delayMillis) {
        AttemptKey key = attempt.files.key();
        attempt.followUp = timers.schedule(() -> followUp(key, delayMillis), delayMillis, TimeUnit.MILLISECONDS);
    }

    /** SIGTERM to the wrapper's direct children not signalled yet; again later while it runs, until the kill. */
    private synchronized void followUp(AttemptKey key, long lastDelayMillis) {
        LocalAttempt attempt = attempts.get(key);
        if (closed || attempt == null || attempt.wrapper == null || attempt.killed || !attempt.alive()) {
            return;
        }
        attempt.followUp = null;
        attempt.wrapper.children().filter(p -> !attempt.wrappersOwn(p)).forEach(attempt::term);
        armFollowUp(attempt, Math.min(FOLLOW_UP_MAX_MILLIS, lastDelayMillis * 2));
    }

    private void armKill(LocalAttempt attempt) {
        long delayMillis = Math.max(0, Duration.between(Instant.now(), attempt.killDeadline).toMillis());
        AttemptKey key = attempt.files.key();
        attempt.killTimer = timers.schedule(() -> killIfAlive(key), delayMillis, TimeUnit.MILLISECONDS);
    }

    /** SIGKILL to the descendants, again every follow-up until the wrapper has ended (see Stopping). */
    private synchronized void killIfAlive(AttemptKey key) {
        LocalAttempt attempt = attempts.get(key);
        if (closed || attempt == null || attempt.wrapper == null || !attempt.alive()) {
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
        for (LocalAttempt attempt : attempts.values()) {
            statuses.add(attempt.status());
        }
        return statuses;
    }

    // --------------------------------------------------------------------------------------------- forget

    @Override
    public synchronized void forget(AttemptKey key) {
        LocalAttempt attempt = attempts.get(key);
        if (attempt == null) {
            return;
        }
        AttemptStatus status = attempt.status();
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
    private LocalAttempt adopt(AttemptFiles files) {
        LocalAttempt attempt = new LocalAttempt(files);
        try {
            Optional<String> failed = AttemptFiles.readIfExists(files.failed());
            if (failed.isPresent()) {
                attempt.failure = failed.get().strip();
                return attempt;
            }
            Optional<String> stopped = AttemptFiles.readIfExists(files.stopped());
            if (stopped.isPresent()) {
                attempt.stopRequested = true;
                attempt.killDeadline = LocalAttempt.killDeadlineIn(stopped.get());
            }
            Optional<String> pidFile = AttemptFiles.readIfExists(files.pid());
            if (pidFile.isPresent()) {
                PidRecord recorded = PidRecord.parse(pidFile.get());
                attempt.wrapper = WrapperProcesses.wrapperOf(recorded, files)
                        .or(() -> WrapperProcesses.claimHolderOtherThan(recorded.pid(), files)).orElse(null);
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
        if (attempt.stopRequested && attempt.wrapper != null && attempt.killDeadline != null && attempt.alive()) {
            armKill(attempt);
        }
        watch(attempt);
        return attempt;
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
        for (LocalAttempt attempt : attempts.values()) {
            attempt.cancelTimers();
        }
        if (ownsTimers) {
            timers.shutdownNow();
        }
    }
}
