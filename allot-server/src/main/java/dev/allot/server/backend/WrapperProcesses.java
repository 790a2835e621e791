package dev.allot.server.backend;

import dev.allot.server.backend.AttemptFiles.PidRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds an attempt's wrapper in the process table, for the {@link LocalBackend} adopting attempts after a restart.
 * A pid file's process counts as the attempt's wrapper only if it is alive (not a zombie), started at the recorded
 * instant (within a second: the OS derives it from the boot time, which it may round) and, when the OS shows its
 * arguments, carries the attempt's token: a pid reused by another process is not mistaken for the attempt. Without
 * a pid file, the wrapper is looked for by its token alone.
 */
final class WrapperProcesses {

    /** The wrapper of earlier versions (exit file in its environment), still recognised when adopting. */
    static final String LEGACY_WRAPPER_SCRIPT = "\"$@\"; c=$?; "
            + "echo \"$c\" > \"$ALLOT_EXIT_FILE.tmp\" && command -p mv -f \"$ALLOT_EXIT_FILE.tmp\" \"$ALLOT_EXIT_FILE\"; "
            + "exit \"$c\"";

    /**
     * The wrapper before it claimed its attempt ({@link WorkloadLauncher#WRAPPER_SCRIPT}), still recognised when
     * adopting: a wrapper started by that version runs on after an upgrade.
     */
    static final String UNCLAIMED_WRAPPER_SCRIPT = "f=$1; e=$2; shift 2; { command -p rm -f \"$e\"; \"$@\"; } 3<\"$e\"; "
            + "c=$?; echo \"$c\" > \"$f.tmp\" && command -p mv -f \"$f.tmp\" \"$f\"; exit \"$c\"";

    /**
     * The wrapper before each launch had an environment file of its own (a wrapper that lost the claim left its
     * launch's file), still recognised when adopting.
     */
    static final String SHARED_ENVIRONMENT_WRAPPER_SCRIPT = "f=$1; e=$2; shift 2; "
            + "( set -C; echo $$ > \"${f%.exit}.claim\" ) 2>/dev/null || exit " + WorkloadLauncher.LOST_CLAIM_STATUS
            + "; { command -p rm -f \"$e\"; \"$@\"; } 3<\"$e\"; c=$?; "
            + "echo \"$c\" > \"$f.tmp\" && command -p mv -f \"$f.tmp\" \"$f\"; exit \"$c\"";

    /** How far the OS's start instant of a process may drift between two readings (it is derived from boot time). */
    private static final Duration START_INSTANT_TOLERANCE = Duration.ofSeconds(1);

    private WrapperProcesses() {
    }

    /**
     * The wrapper of {@code files}' attempt found by its token in the process table, if one runs: not a process whose
     * parent carries the token too (the wrapper's shell forks for each command it runs, and the child has the same
     * arguments until it execs, a moment that lasts under load).
     */
    static Optional<ProcessHandle> find(AttemptFiles files) {
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            return all.filter(p -> isWrapperOf(p, files))
                    .filter(p -> p.parent().filter(parent -> isWrapperOf(parent, files)).isEmpty())
                    .findFirst();
        }
    }

    /**
     * Whether an attempt's files show a launch that was interrupted before any process of it ran: the log (created
     * just before the process is spawned) and nothing else, no pid, no exit code, no failure, no stop, and no
     * process carrying its token. That is a scheduler killed between opening the log and spawning (or recording)
     * the wrapper, whose child never got to run: the wrapper, had it run, would be in the process table or would
     * have left its exit file. Such an attempt never ran, so it is not adopted (a restarted scheduler does not
     * know it and starts it, with the same key) and {@link LocalBackend#start} launches it rather than report it ended with
     * an unknown exit code, which would fail a workload that never ran.
     */
    static boolean interruptedLaunch(AttemptFiles files) {
        if (!Files.exists(files.log()) || Files.exists(files.pid()) || Files.exists(files.exit())
                || Files.exists(files.failed()) || Files.exists(files.stopped()) || Files.exists(files.claim())) {
            return false;
        }
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            return all.noneMatch(p -> isWrapperOf(p, files));
        }
    }

    /**
     * The wrapper that holds the attempt's claim, if it is not {@code pid} and still runs: a wrapper that lost the
     * claim to another launch of the same attempt (two launches raced; see {@link WorkloadLauncher#WRAPPER_SCRIPT})
     * ran nothing, and the attempt is the holder's. Empty when the claim is absent, names {@code pid}, cannot be
     * read yet, or names a process that is not a wrapper of this attempt.
     */
    static Optional<ProcessHandle> claimHolderOtherThan(long pid, AttemptFiles files) {
        try {
            java.util.OptionalLong holder = files.claimant();
            return holder.isEmpty() || holder.getAsLong() == pid ? Optional.empty()
                    : wrapperOf(new PidRecord(holder.getAsLong(), null), files);
        } catch (IOException e) {
            return Optional.empty(); // read again at the next probe
        }
    }

    /** The recorded wrapper if it is still that process: alive, started when recorded, carrying the token. */
    static Optional<ProcessHandle> wrapperOf(PidRecord record, AttemptFiles files) {
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
                && (arguments[at + 1].equals(WorkloadLauncher.WRAPPER_SCRIPT)
                        || arguments[at + 1].equals(SHARED_ENVIRONMENT_WRAPPER_SCRIPT)
                        || arguments[at + 1].equals(UNCLAIMED_WRAPPER_SCRIPT)
                        || arguments[at + 1].equals(LEGACY_WRAPPER_SCRIPT))
                && arguments[at + 2].equals(files.wrapperToken());
    }

    /**
     * Whether a process has ended but was not reaped yet: an adopted wrapper's parent may not reap it (a container
     * whose first process is this JVM), and {@link ProcessHandle#isAlive} counts zombies as alive.
     */
    static boolean isZombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            return close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
        } catch (IOException | RuntimeException noProc) {
            return false; // no /proc (not Linux) or already gone: isAlive decides
        }
    }
}
