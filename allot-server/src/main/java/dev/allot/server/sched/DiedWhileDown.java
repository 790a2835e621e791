package dev.allot.server.sched;

import dev.allot.core.backend.AttemptStatus;
import java.util.Optional;

/**
 * The rule for an attempt the service adopted at a restart and found already ended, before it ever saw it alive,
 * with no account of its own of how: its process is gone and left no exit code (killed together with its wrapper, by
 * SIGKILL to its group or a reboot), or was killed by a signal (the exit code 128+N a shell reports) while no stop
 * had been asked for. Such an attempt did not end of its own accord; it died with the service (Ctrl-C in the
 * service's terminal reached it in versions before workloads had a session of their own) or while the service was
 * down. It ends as {@code LOST}, so that the store's rule for lost work applies: a resumable workload goes back to
 * the queue, a workload that is not resumable fails, with a reason that says it died while the service was down, not
 * that it failed. An exit code below 129 is the command's own answer, and the usual rules apply (0 completed, other
 * codes failed); an attempt the service saw running and that dies later is not covered either: it ended on the
 * service's watch. It applies to backends whose work may die with the service
 * ({@link dev.allot.core.backend.Backend#workMayDieWithTheService}: the local one), not to Slurm, which runs and
 * accounts for its jobs whether the service is up or not.
 */
final class DiedWhileDown {
    /** The highest signal number Linux has (real-time signals included); 128+N above it is a plain exit code. */
    private static final int LAST_SIGNAL = 64;

    private DiedWhileDown() {
    }

    /**
     * Why an adopted attempt, ended when first observed after the restart, counts as lost; empty if it ended of its
     * own accord (an exit code it reported, a failed start, a stop).
     */
    static Optional<String> lostReason(AttemptStatus status) {
        if (status.phase() != AttemptStatus.Phase.EXITED) {
            return Optional.empty();
        }
        Integer code = status.exitCode();
        if (code == null) {
            return Optional.of("its process died while the service was down, without recording an exit code");
        }
        if (code > 128 && code <= 128 + LAST_SIGNAL) {
            return Optional.of("its process died while the service was down, killed by " + signalName(code - 128)
                    + " (exit code " + code + ") without a stop being asked for");
        }
        return Optional.empty();
    }

    private static String signalName(int signal) {
        return switch (signal) {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 3 -> "SIGQUIT";
            case 6 -> "SIGABRT";
            case 9 -> "SIGKILL";
            case 13 -> "SIGPIPE";
            case 15 -> "SIGTERM";
            default -> "signal " + signal;
        };
    }
}
