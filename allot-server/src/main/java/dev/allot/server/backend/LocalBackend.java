package dev.allot.server.backend;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import dev.allot.server.backend.AttemptFiles.PidRecord;
import dev.allot.server.identity.AccountMap;
import dev.allot.server.identity.UnixAccounts;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * <p><b>The wrapper.</b> The user's command is run without a shell interpreting it, under a fixed
 * {@code /bin/sh -c} script that receives the argv as positional parameters ({@code "$@"}) and, when the command
 * ends, writes its exit code to the attempt's {@code .exit} file (temp file, then rename; the file's path is a
 * positional parameter too, never in the workload's environment). The exit code of a process is only known to its
 * parent; the file is how a later scheduler, which is not the parent, learns it. The program is resolved to an
 * absolute path against the workload's {@code PATH} first: that turns a missing program into
 * {@code FAILED_TO_START} rather than an exit code 127, and keeps {@code "$@"} from running a shell builtin of the
 * same name ({@code exit}, {@code cd}) inside the wrapper. The wrapper's {@code $0} names the attempt
 * ({@link AttemptFiles#wrapperToken}), so the process table shows which attempt a wrapper runs.
 *
 * <p><b>Its own session.</b> The wrapper is started through util-linux's {@code setsid}, which makes it the leader
 * of a new session and process group and execs it (same pid, same start instant, same arguments in the process
 * table): a workload shares neither the service's process group nor its controlling terminal, so Ctrl-C (SIGINT to
 * the terminal's foreground group) or the terminal's hangup stops the service and leaves the workload running, to be
 * adopted at the next start. The JVM's child is never a group leader, so {@code setsid} never forks. On a machine
 * without {@code setsid} the attempt runs in the service's group, and its status says so.
 *
 * <p><b>Identity.</b> The wrapper runs as the service's user (root in production) with an environment of its own
 * (only a fixed {@code PATH}: a declared {@code LD_PRELOAD} must never reach a process of root), in the data
 * directory's 0700 {@code attempts/}. Inside it, {@code setpriv --reuid --regid --init-groups} (util-linux) becomes
 * the launch's account when that is not the service's user, then a small {@code sh} script run as that account
 * reads the workload's environment from descriptor 3 (a 0600 file the wrapper opened and deleted) and execs the
 * program: so the user's process is the wrapper's child, and stopping and adoption find it as before. The
 * environment is built ({@link #environment}), the working directory is the account's home ({@code /} if it has
 * none), the log is created 0600 and owned by the account. A launch is refused ({@link BackendException}) if its
 * account is unknown, is root, or is missing while the service is root, unless root workloads are allowed.
 *
 * <p><b>Stopping.</b> {@link #stop} sends SIGTERM to the wrapper's descendants (the user's process and whatever it
 * started), not to the wrapper, which stays to record the exit code; only if the wrapper has no descendant yet is it
 * signalled itself. Once the grace period has passed, SIGKILL goes to the descendants still alive and to the
 * wrapper. A {@code .stopped} marker, written before any signal and holding the kill deadline, makes the attempt
 * {@code STOPPED} rather than {@code EXITED} for a later adopter, which also re-arms the kill.
 *
 * <p><b>Adoption.</b> A pid file's process counts as the attempt's wrapper only if it is alive (not a zombie), started
 * at the recorded instant (within a second: the OS derives it from the boot time, which it may round) and, when the
 * OS shows its arguments, carries the attempt's token: a pid reused by another process is not mistaken for the
 * attempt. An attempt whose wrapper is gone and left no exit file is {@code EXITED} with an unknown exit code,
 * except a launch interrupted before its process ran (only its log exists, and no process carries its token): that
 * one is not adopted and is launched by the next {@link #start} of its key. A scheduler killed in the instant
 * between spawning the JVM's launch helper and its {@code exec} of the wrapper could in principle leave a helper
 * that execs the wrapper only after the restarted scheduler looked; the restart takes far longer than that instant.
 *
 * <p>Every method holds the object's lock; {@link #observe} reads small files and {@code /proc} and never waits for
 * a process. {@link #close} stops the grace timers but leaves the processes running, to be adopted.
 */
public final class LocalBackend implements Backend, AutoCloseable {

    /**
     * The wrapper, run as the service's user with {@code $0} the attempt's token, {@code $1} the exit file, {@code $2}
     * the environment file and the rest the command: opens the environment file on descriptor 3 and deletes it (the
     * declared values, secrets included, stay on disk no longer than the launch), runs "$@" (never interprets it),
     * records its exit code atomically, exits with it.
     */
    static final String WRAPPER_SCRIPT = "f=$1; e=$2; shift 2; { command -p rm -f \"$e\"; \"$@\"; } 3<\"$e\"; c=$?; "
            + "echo \"$c\" > \"$f.tmp\" && command -p mv -f \"$f.tmp\" \"$f\"; exit \"$c\"";

    /** The wrapper of earlier versions (exit file in its environment), still recognised when adopting. */
    static final String LEGACY_WRAPPER_SCRIPT = "\"$@\"; c=$?; "
            + "echo \"$c\" > \"$ALLOT_EXIT_FILE.tmp\" && command -p mv -f \"$ALLOT_EXIT_FILE.tmp\" \"$ALLOT_EXIT_FILE\"; "
            + "exit \"$c\"";

    /**
     * Run as the workload's account (after {@code setpriv}, or as the service's user): reads the environment from
     * descriptor 3 (lines {@code export NAME='value'}), closes it and execs the program with its arguments. The
     * descriptor is inherited, not reopened by path: the account may not open the service's files.
     */
    static final String ENVIRONMENT_SCRIPT = "eval \"$(command -p cat <&3)\" && exec 3<&- && exec \"$@\"";

    /** The PATH of a workload that declares none. */
    public static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

    /** The wrapper's own environment: nothing of the service's, nothing of the submitter's (it runs as root). */
    private static final Map<String, String> WRAPPER_ENVIRONMENT = Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");

    /** A name the environment script can export. */
    private static final java.util.regex.Pattern VARIABLE = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** How far the OS's start instant of a process may drift between two readings (it is derived from boot time). */
    private static final Duration START_INSTANT_TOLERANCE = Duration.ofSeconds(1);

    /** Graces beyond this are cut to it, so that the kill deadline stays a time a timer can wait for. */
    private static final Duration LONGEST_GRACE = Duration.ofDays(365);

    private final Path attemptsDir;
    private final String nodeName;
    private final UnixAccounts accounts;
    private final boolean allowRootWorkloads;
    private final long serviceUid;
    /** util-linux's setpriv, which starts the command as the workload's account; null if this machine has none. */
    private final Path setpriv;
    /** util-linux's setsid, which starts the wrapper in a session of its own; null if this machine has none. */
    private final Path setsid;
    private final ScheduledExecutorService timers;
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
        this.accounts = Objects.requireNonNull(accounts, "accounts");
        this.allowRootWorkloads = allowRootWorkloads;
        this.serviceUid = UnixAccounts.serviceUid();
        this.setpriv = Stream.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
        this.setsid = Stream.of("/usr/bin/setsid", "/bin/setsid", "/usr/sbin/setsid").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
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
        if (files.anyTrace() && !interruptedLaunch(files)) {
            // Launched (or tried) before: by an earlier scheduler, or before being forgotten. Never twice.
            try {
                Files.deleteIfExists(files.forgotten());
            } catch (IOException e) {
                throw new BackendException(key + ": cannot un-forget it: " + e.getMessage(), e);
            }
            attempts.put(key, adopt(files));
            return;
        }
        RunAs runAs = runAs(launch);
        Attempt attempt = new Attempt(files);
        attempts.put(key, attempt);
        launch(attempt, launch, gpus, runAs);
    }

    /**
     * As whom a launch runs: its account, switched to with setpriv when it is not the service's own user. Never root
     * unless allowed: neither an account of uid 0 nor a launch without an account on a service that is root.
     *
     * @param account the account (its home, shell and name make the workload's identity variables)
     * @param switchTo whether to switch to it (the service runs as another user)
     */
    private record RunAs(UnixAccounts.Account account, boolean switchTo) {
    }

    private RunAs runAs(Launch launch) {
        AttemptKey key = launch.attempt();
        String name = launch.account();
        if (name == null) {
            if (serviceUid == 0 && !allowRootWorkloads) {
                throw new BackendException(key + ": names no Unix account to run as, and the service runs as root;"
                        + " the local backend never starts a workload as root (unless the service was started with"
                        + " --allow-root-workloads)");
            }
            return new RunAs(serviceAccount(), false);
        }
        UnixAccounts.Account account;
        try {
            account = accounts.lookup(name).orElseThrow(() -> new BackendException(key + ": runs as the Unix"
                    + " account '" + name + "', which this machine does not know (getent passwd " + name + ")"));
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new BackendException(key + ": cannot find the Unix account '" + name + "': " + e.getMessage(), e);
        }
        if (account.root() && !allowRootWorkloads) {
            throw new BackendException(key + ": runs as the Unix account '" + name + "', which is root (uid 0); the"
                    + " local backend never starts a workload as root (unless the service was started with"
                    + " --allow-root-workloads)");
        }
        if (account.uid() == serviceUid) {
            return new RunAs(account, false);
        }
        if (serviceUid != 0) {
            throw new BackendException(key + ": runs as the Unix account '" + name + "' but the service runs as uid "
                    + serviceUid + ", not root, and cannot switch users");
        }
        if (setpriv == null) {
            throw new BackendException(key + ": runs as the Unix account '" + name + "' but setpriv (util-linux),"
                    + " which the local backend switches users with, is not installed");
        }
        return new RunAs(account, true);
    }

    /** The service's own account, for the identity variables of a workload that runs as it. */
    private UnixAccounts.Account serviceAccount() {
        String name = UnixAccounts.serviceUserName();
        try {
            Optional<UnixAccounts.Account> own = AccountMap.validAccountName(name) ? accounts.lookup(name) : Optional.empty();
            if (own.isPresent()) {
                return own.get();
            }
        } catch (RuntimeException unknown) {
            // described from the JVM's properties below
        }
        return new UnixAccounts.Account(name, serviceUid, -1, Path.of(System.getProperty("user.home", "/")),
                "/bin/sh");
    }

    private void launch(Attempt attempt, Launch launch, String gpus, RunAs runAs) {
        AttemptFiles files = attempt.files;
        if (launch.command().isEmpty()) {
            failToStart(attempt, "the command is empty");
            return;
        }
        UnixAccounts.Account account = runAs.account();
        SortedMap<String, String> environment;
        try {
            environment = environment(launch, gpus, account);
        } catch (IllegalArgumentException bad) {
            failToStart(attempt, bad.getMessage());
            return;
        }
        Path program;
        try {
            program = resolveProgram(launch.command().get(0), environment.get("PATH"));
        } catch (IOException notRunnable) {
            failToStart(attempt, notRunnable.getMessage());
            return;
        }
        List<String> argv = new ArrayList<>();
        if (setsid != null) {
            argv.add(setsid.toString()); // execs the wrapper as the leader of a new session: no fork, same pid
        }
        argv.addAll(List.of("/bin/sh", "-c", WRAPPER_SCRIPT, files.wrapperToken(),
                files.exit().toString(), files.environment().toString()));
        if (runAs.switchTo()) {
            argv.addAll(List.of(setpriv.toString(), "--reuid=" + account.uid(), "--regid=" + account.gid(),
                    "--init-groups", "--"));
        }
        argv.addAll(List.of("/bin/sh", "-c", ENVIRONMENT_SCRIPT, "allot-workload", program.toString()));
        argv.addAll(launch.command().subList(1, launch.command().size()));
        File cwd = Files.isDirectory(account.home()) ? account.home().toFile() : new File("/");
        try {
            writeEnvironment(files.environment(), environment);
            createLog(files.log(), runAs);
        } catch (IOException e) {
            deleteQuietly(files.environment());
            failToStart(attempt, "cannot prepare its files in " + attemptsDir + ": " + e.getMessage());
            return;
        }
        ProcessBuilder builder = new ProcessBuilder(argv)
                .directory(cwd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(files.log().toFile()))
                .redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(WRAPPER_ENVIRONMENT);
        Process process;
        try {
            process = builder.start();
        } catch (IOException | RuntimeException e) {
            deleteQuietly(files.environment());
            failToStart(attempt, "cannot start " + launch.command().get(0) + ": " + e.getMessage());
            return;
        }
        attempt.process = process;
        attempt.wrapper = process.toHandle();
        if (setsid == null) {
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

    /**
     * A workload's whole environment, built rather than inherited (nothing of the service's own): what the submitter
     * declared; {@code HOME}, {@code USER}, {@code LOGNAME} and {@code SHELL} of the account it runs as; {@code PATH}
     * as declared, else {@value #DEFAULT_PATH}; {@code CUDA_VISIBLE_DEVICES}, {@code ALLOT_WORKLOAD_ID} and
     * {@code ALLOT_ATTEMPT}.
     *
     * @throws IllegalArgumentException if a declared name cannot be a variable of a POSIX shell, or a value holds NUL
     */
    static SortedMap<String, String> environment(Launch launch, String gpus, UnixAccounts.Account account) {
        SortedMap<String, String> environment = new TreeMap<>();
        environment.put("PATH", DEFAULT_PATH);
        environment.putAll(launch.environment());
        environment.put("HOME", account.home().toString());
        environment.put("USER", account.name());
        environment.put("LOGNAME", account.name());
        environment.put("SHELL", account.shell());
        environment.put("CUDA_VISIBLE_DEVICES", gpus);
        environment.put("ALLOT_WORKLOAD_ID", launch.attempt().workloadId());
        environment.put("ALLOT_ATTEMPT", Integer.toString(launch.attempt().attempt()));
        for (Map.Entry<String, String> e : environment.entrySet()) {
            if (!VARIABLE.matcher(e.getKey()).matches()) {
                throw new IllegalArgumentException("the environment variable '" + e.getKey() + "' cannot be set:"
                        + " expected a name of letters, digits and '_' that does not start with a digit");
            }
            if (e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("the value of the environment variable " + e.getKey()
                        + " holds a NUL character, which no environment can carry");
            }
        }
        return environment;
    }

    /** The environment as {@link #ENVIRONMENT_SCRIPT} reads it, in a file only the service's user may read. */
    private static void writeEnvironment(Path file, SortedMap<String, String> environment) throws IOException {
        StringBuilder text = new StringBuilder();
        environment.forEach((name, value) -> text.append("export ").append(name).append("='")
                .append(value.replace("'", "'\\''")).append("'\n"));
        Files.deleteIfExists(file);
        Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                dev.allot.server.OwnerOnlyFiles.FILE));
        Files.writeString(file, text, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The (empty) log, 0600 and owned by the account the workload runs as. */
    private static void createLog(Path log, RunAs runAs) throws IOException {
        if (!Files.exists(log)) {
            Files.createFile(log, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    dev.allot.server.OwnerOnlyFiles.FILE));
        }
        if (runAs.switchTo()) {
            Files.setAttribute(log, "unix:uid", (int) runAs.account().uid());
            Files.setAttribute(log, "unix:gid", (int) runAs.account().gid());
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // in the service's own directory; overwritten by the next launch of the key
        }
    }

    private void failToStart(Attempt attempt, String why) {
        attempt.failure = why;
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

    /**
     * The absolute path of the program as {@code execvp} would find it.
     *
     * @throws IOException saying why it cannot be run, in the OS's words
     */
    static Path resolveProgram(String program, String path) throws IOException {
        if (program.isEmpty()) {
            throw new IOException("the program name is empty");
        }
        if (program.contains("/")) {
            Path candidate = Path.of(program).toAbsolutePath();
            if (!Files.exists(candidate)) {
                throw new IOException(program + ": No such file or directory");
            }
            if (Files.isDirectory(candidate)) {
                throw new IOException(program + ": Is a directory");
            }
            if (!Files.isExecutable(candidate)) {
                throw new IOException(program + ": Permission denied");
            }
            return candidate;
        }
        String searched = path == null ? "" : path;
        for (String dir : searched.split(":", -1)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, program).toAbsolutePath();
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new IOException(program + ": command not found (No such file or directory in PATH=" + searched + ")");
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
        List<ProcessHandle> descendants = attempt.wrapper.descendants().toList();
        if (descendants.isEmpty()) {
            attempt.wrapper.destroy(); // the user's command has not started yet (or has just ended)
        } else {
            descendants.forEach(ProcessHandle::destroy);
        }
        armKill(attempt);
    }

    private void armKill(Attempt attempt) {
        long delayMillis = Math.max(0, Duration.between(Instant.now(), attempt.killDeadline).toMillis());
        AttemptKey key = attempt.files.key();
        attempt.killTimer = timers.schedule(() -> killIfAlive(key), delayMillis, TimeUnit.MILLISECONDS);
    }

    private synchronized void killIfAlive(AttemptKey key) {
        Attempt attempt = attempts.get(key);
        if (attempt == null || attempt.wrapper == null || !alive(attempt)) {
            return;
        }
        attempt.killed = true;
        // The descendants first: once the wrapper is gone they are re-parented and no longer found from it.
        attempt.wrapper.descendants().forEach(ProcessHandle::destroyForcibly);
        attempt.wrapper.destroyForcibly();
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
        return status;
    }

    private static boolean alive(Attempt attempt) {
        if (attempt.process != null) {
            return attempt.process.isAlive(); // our child: the JVM reaps it, no zombie, no pid reuse
        }
        return attempt.wrapper.isAlive() && !isZombie(attempt.wrapper.pid());
    }

    /**
     * Whether a process has ended but was not reaped yet: an adopted wrapper's parent may not reap it (a container
     * whose first process is this JVM), and {@link ProcessHandle#isAlive} counts zombies as alive.
     */
    private static boolean isZombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            return close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
        } catch (IOException | RuntimeException noProc) {
            return false; // no /proc (not Linux) or already gone: isAlive decides
        }
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
            if (!Files.exists(files.forgotten()) && !interruptedLaunch(files)) {
                attempts.put(key, adopt(files));
            }
        }
    }

    /**
     * Whether an attempt's files show a launch that was interrupted before any process of it ran: the log (created
     * just before the process is spawned) and nothing else, no pid, no exit code, no failure, no stop, and no
     * process carrying its token. That is a scheduler killed between opening the log and spawning (or recording)
     * the wrapper, whose child never got to run: the wrapper, had it run, would be in the process table or would
     * have left its exit file. Such an attempt never ran, so it is not adopted (a restarted scheduler does not
     * know it and starts it, with the same key) and {@link #start} launches it rather than report it ended with
     * an unknown exit code, which would fail a workload that never ran.
     */
    private static boolean interruptedLaunch(AttemptFiles files) {
        if (!Files.exists(files.log()) || Files.exists(files.pid()) || Files.exists(files.exit())
                || Files.exists(files.failed()) || Files.exists(files.stopped())) {
            return false;
        }
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            return all.noneMatch(p -> isWrapperOf(p, files));
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
                attempt.wrapper = wrapperOf(PidRecord.parse(pidFile.get()), files).orElse(null);
            } else if (!Files.exists(files.exit())) {
                // Launched, but the scheduler stopped before recording the pid: look for the wrapper by its token.
                attempt.wrapper = ProcessHandle.allProcesses().filter(p -> isWrapperOf(p, files)).findFirst()
                        .orElse(null);
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

    /** The recorded wrapper if it is still that process: alive, started when recorded, carrying the token. */
    private static Optional<ProcessHandle> wrapperOf(PidRecord record, AttemptFiles files) {
        Optional<ProcessHandle> handle = ProcessHandle.of(record.pid());
        if (handle.isEmpty() || !handle.get().isAlive() || isZombie(record.pid())) {
            return Optional.empty();
        }
        Optional<Instant> started = handle.get().info().startInstant();
        if (record.startInstant() != null && started.isPresent() && Duration.between(record.startInstant(),
                started.get()).abs().compareTo(START_INSTANT_TOLERANCE) > 0) {
            return Optional.empty(); // the pid now belongs to another process
        }
        Optional<String[]> arguments = handle.get().info().arguments();
        if (arguments.isPresent() && !isWrapperArguments(arguments.get(), files)) {
            return Optional.empty();
        }
        return handle;
    }

    private static boolean isWrapperOf(ProcessHandle process, AttemptFiles files) {
        return process.info().arguments().map(arguments -> isWrapperArguments(arguments, files)).orElse(false);
    }

    /**
     * {@code -c <script> <token> ...}: the OS lists the arguments after the program. In the instant before
     * {@code setsid} execs the wrapper, the program is {@code setsid} and the arguments start with {@code /bin/sh}.
     */
    private static boolean isWrapperArguments(String[] arguments, AttemptFiles files) {
        int at = arguments.length > 0 && arguments[0].equals("/bin/sh") ? 1 : 0;
        return arguments.length >= at + 3 && arguments[at].equals("-c")
                && (arguments[at + 1].equals(WRAPPER_SCRIPT) || arguments[at + 1].equals(LEGACY_WRAPPER_SCRIPT))
                && arguments[at + 2].equals(files.wrapperToken());
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
        }
        if (ownsTimers) {
            timers.shutdownNow();
        }
    }
}
