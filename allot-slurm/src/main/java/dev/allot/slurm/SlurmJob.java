package dev.allot.slurm;

import java.util.List;
import java.util.Objects;

/**
 * One job as Slurm reports it, the fields Allot reads.
 *
 * @param id           the job id
 * @param name         the job name (Allot's tag, see {@link JobTag})
 * @param comment      the comment (the Allot instance)
 * @param state        the base state: PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, ...
 * @param reason       Slurm's reason for the state (why pending, why it failed), may be empty
 * @param exitStatus   the wait status: exit code in bits 8-15, the signal in bits 0-7; null when not known
 * @param restarts     how many times Slurm requeued it
 * @param nodes        the nodes it runs or ran on (expanded host list), empty while pending
 * @param partition    its partition
 */
public record SlurmJob(long id, String name, String comment, String state, String reason, Integer exitStatus,
                       int restarts, List<String> nodes, String partition) {
    public SlurmJob {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        nodes = List.copyOf(nodes);
        comment = comment == null ? "" : comment;
        reason = reason == null ? "" : reason;
        partition = partition == null ? "" : partition;
    }

    /** Whether Slurm has ended it for good (its resources freed). COMPLETING still holds its nodes. */
    public boolean ended() {
        return switch (state) {
            case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
                 "OUT_OF_MEMORY", "REVOKED", "SPECIAL_EXIT" -> true;
            default -> false;
        };
    }

    /** Waiting to run (possibly again, after a requeue). */
    public boolean pending() {
        return state.equals("PENDING") || state.equals("REQUEUED") || state.equals("REQUEUE_HOLD")
                || state.equals("REQUEUE_FED");
    }

    /** The exit code when it exited on its own, null if it was killed by a signal or is not known. */
    public Integer exitCode() {
        if (exitStatus == null) {
            return null;
        }
        int signal = exitStatus & 0x7f;
        return signal != 0 ? null : (exitStatus >> 8) & 0xff;
    }

    /** The signal that killed it, 0 if none. */
    public int signal() {
        return exitStatus == null ? 0 : exitStatus & 0x7f;
    }
}
