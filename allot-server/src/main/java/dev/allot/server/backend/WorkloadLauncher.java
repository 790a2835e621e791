package dev.allot.server.backend;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import dev.allot.server.identity.AccountMap;
import dev.allot.server.identity.UnixAccounts;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Builds and starts the process chain of one attempt of the {@link LocalBackend}: who it runs as, its argv, its
 * environment, its files. The backend coordinates (start, stop, observe, adopt); this class only launches.
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
 */
final class WorkloadLauncher {

    /** Names each launch's environment file, after {@link #LAUNCH_PREFIX} ({@link AttemptFiles#environment(String)}). */
    private static final java.util.concurrent.atomic.AtomicLong LAUNCHES = new java.util.concurrent.atomic.AtomicLong();

    /**
     * This process's pid and start time: a service restarted with the same pid (pid 1 in a container) and its count
     * of launches started again at 1 would otherwise name a file a wrapper of the previous process may still open.
     */
    private static final String LAUNCH_PREFIX = ProcessHandle.current().pid() + "-" + System.currentTimeMillis() + "-";

    /** How a wrapper that found its attempt claimed by another wrapper exits (it ran nothing). */
    static final int LOST_CLAIM_STATUS = 125;

    /**
     * The wrapper, run as the service's user with {@code $0} the attempt's token, {@code $1} the exit file, {@code $2}
     * the environment file and the rest the command. First it claims the attempt: it creates the {@code .claim} file
     * holding its pid, exclusively ({@code set -C}: the create fails if the file exists), and when another wrapper of
     * the same attempt holds the claim it deletes its own environment file and exits with {@value #LOST_CLAIM_STATUS}
     * having run nothing. So
     * the command never runs twice, even when two launches of one attempt race: a scheduler paused inside a launch
     * (past every lease check) that resumes after a standby took over and launched the attempt again. Then it opens
     * the environment file on descriptor 3 and deletes it (the declared values, secrets included, stay on disk no
     * longer than the launch), runs "$@" (never interprets it), records its exit code atomically, exits with it.
     */
    static final String WRAPPER_SCRIPT = "f=$1; e=$2; shift 2; "
            + "( set -C; echo $$ > \"${f%.exit}.claim\" ) 2>/dev/null || { command -p rm -f \"$e\"; exit "
            + LOST_CLAIM_STATUS + "; }; "
            + "{ command -p rm -f \"$e\"; \"$@\"; } 3<\"$e\"; c=$?; "
            + "echo \"$c\" > \"$f.tmp\" && command -p mv -f \"$f.tmp\" \"$f\"; exit \"$c\"";

    /**
     * Run as the workload's account (after {@code setpriv}, or as the service's user): reads the environment from
     * descriptor 3 (lines {@code export NAME='value'}), closes it and execs the program with its arguments. The
     * descriptor is inherited, not reopened by path: the account may not open the service's files.
     */
    static final String ENVIRONMENT_SCRIPT = "eval \"$(command -p cat <&3)\" && exec 3<&- && exec \"$@\"";

    /** The wrapper's own environment: nothing of the service's, nothing of the submitter's (it runs as root). */
    private static final Map<String, String> WRAPPER_ENVIRONMENT = Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");

    /** A name the environment script can export. */
    private static final java.util.regex.Pattern VARIABLE = dev.allot.core.rules.WorkloadRules.VARIABLE_NAME;


    private final UnixAccounts accounts;
    private final boolean allowRootWorkloads;
    private final long serviceUid;
    /** util-linux's setpriv, which starts the command as the workload's account; null if this machine has none. */
    private final Path setpriv;
    /** util-linux's setsid, which starts the wrapper in a session of its own; null if this machine has none. */
    private final Path setsid;

    /** Why a launch could not be started, in the words its {@code FAILED_TO_START} status gives. */
    static final class NotStarted extends Exception {
        private static final long serialVersionUID = 1L;

        NotStarted(String why) {
            super(why);
        }
    }

    WorkloadLauncher(UnixAccounts accounts, boolean allowRootWorkloads) {
        this.accounts = Objects.requireNonNull(accounts, "accounts");
        this.allowRootWorkloads = allowRootWorkloads;
        this.serviceUid = UnixAccounts.serviceUid();
        this.setpriv = Stream.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
        this.setsid = Stream.of("/usr/bin/setsid", "/bin/setsid", "/usr/sbin/setsid").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
    }

    /** Whether wrappers start in a session of their own (this machine has {@code setsid}). */
    boolean ownSession() {
        return setsid != null;
    }

    /**
     * As whom a launch runs: its account, switched to with setpriv when it is not the service's own user. Never root
     * unless allowed: neither an account of uid 0 nor a launch without an account on a service that is root.
     *
     * @param account the account (its home, shell and name make the workload's identity variables)
     * @param switchTo whether to switch to it (the service runs as another user)
     */
    record RunAs(UnixAccounts.Account account, boolean switchTo) {
    }

    /**
     * As whom {@code launch} runs.
     *
     * @throws BackendException if it may not run at all here (unknown account, root, no way to switch users)
     */
    RunAs runAs(Launch launch) {
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

    /**
     * Starts the wrapper of {@code launch} on {@code gpus} as {@code runAs}, its output appended to the attempt's
     * log; the environment file is written first and deleted by the wrapper (here, if the start fails).
     *
     * @throws NotStarted saying why it could not be started (empty command, bad environment, program not runnable,
     *                    files not writable, process not started)
     */
    Process start(Launch launch, String gpus, RunAs runAs, AttemptFiles files) throws NotStarted {
        if (launch.command().isEmpty()) {
            throw new NotStarted("the command is empty");
        }
        UnixAccounts.Account account = runAs.account();
        SortedMap<String, String> environment;
        try {
            environment = environment(launch, gpus, account);
        } catch (IllegalArgumentException bad) {
            throw new NotStarted(bad.getMessage());
        }
        Path program;
        try {
            program = resolveProgram(launch.command().get(0), environment.get("PATH"));
        } catch (IOException notRunnable) {
            throw new NotStarted(notRunnable.getMessage());
        }
        Path environmentFile = files.environment(LAUNCH_PREFIX + LAUNCHES.incrementAndGet());
        List<String> argv = argv(files, environmentFile, runAs, program,
                launch.command().subList(1, launch.command().size()));
        File cwd = Files.isDirectory(account.home()) ? account.home().toFile() : new File("/");
        try {
            writeEnvironment(environmentFile, environment);
            createLog(files.log(), runAs);
        } catch (IOException e) {
            deleteQuietly(environmentFile);
            throw new NotStarted("cannot prepare its files in " + files.dir() + ": " + e.getMessage());
        }
        ProcessBuilder builder = new ProcessBuilder(argv)
                .directory(cwd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(files.log().toFile()))
                .redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(WRAPPER_ENVIRONMENT);
        try {
            return builder.start();
        } catch (IOException | RuntimeException e) {
            deleteQuietly(environmentFile);
            throw new NotStarted("cannot start " + launch.command().get(0) + ": " + e.getMessage());
        }
    }

    /**
     * The wrapper's argv: {@code setsid} (if any), the wrapper script with the attempt's token, exit file and
     * environment file, {@code setpriv} to the account (if switching), the environment script, the resolved program
     * and the command's {@code arguments}.
     */
    List<String> argv(AttemptFiles files, Path environmentFile, RunAs runAs, Path program, List<String> arguments) {
        List<String> argv = new ArrayList<>();
        if (setsid != null) {
            argv.add(setsid.toString()); // execs the wrapper as the leader of a new session: no fork, same pid
        }
        argv.addAll(List.of("/bin/sh", "-c", WRAPPER_SCRIPT, files.wrapperToken(),
                files.exit().toString(), environmentFile.toString()));
        if (runAs.switchTo()) {
            UnixAccounts.Account account = runAs.account();
            argv.addAll(List.of(setpriv.toString(), "--reuid=" + account.uid(), "--regid=" + account.gid(),
                    "--init-groups", "--"));
        }
        argv.addAll(List.of("/bin/sh", "-c", ENVIRONMENT_SCRIPT, "allot-workload", program.toString()));
        argv.addAll(arguments);
        return argv;
    }

    /**
     * A workload's whole environment, built rather than inherited (nothing of the service's own): what the submitter
     * declared; {@code HOME}, {@code USER}, {@code LOGNAME} and {@code SHELL} of the account it runs as; {@code PATH}
     * as declared, else {@value LocalBackend#DEFAULT_PATH}; {@code CUDA_VISIBLE_DEVICES}, {@code ALLOT_WORKLOAD_ID},
     * {@code ALLOT_ATTEMPT} and, when the launch has a stored start, {@code ALLOT_ATTEMPT_STARTED_AT}
     * ({@link Launch#STARTED_AT_VARIABLE}).
     *
     * @throws IllegalArgumentException if a declared name cannot be a variable of a POSIX shell, or a value holds NUL
     */
    static SortedMap<String, String> environment(Launch launch, String gpus, UnixAccounts.Account account) {
        SortedMap<String, String> environment = new TreeMap<>();
        environment.put("PATH", LocalBackend.DEFAULT_PATH);
        environment.putAll(launch.environment());
        environment.put("HOME", account.home().toString());
        environment.put("USER", account.name());
        environment.put("LOGNAME", account.name());
        environment.put("SHELL", account.shell());
        environment.put("CUDA_VISIBLE_DEVICES", gpus);
        environment.put("ALLOT_WORKLOAD_ID", launch.attempt().workloadId());
        environment.put("ALLOT_ATTEMPT", Integer.toString(launch.attempt().attempt()));
        if (launch.startedAtMillis() != null) {
            environment.put(Launch.STARTED_AT_VARIABLE, Long.toString(launch.startedAtMillis()));
        }
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
}
