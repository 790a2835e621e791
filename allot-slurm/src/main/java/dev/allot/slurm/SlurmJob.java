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
 * @param hetJobId     the id of the heterogeneous job it is a component of (its leader's id), 0 when it is not one
 * @param hetOffset    its component's offset in that heterogeneous job (0 for the leader)
 * @param endTimeMillis Slurm's {@code EndTime} ({@code end_time}), epoch milliseconds; null when Slurm gave none. It
 *                     means when the job ended only once it has {@link #ended()} ({@link #endedAtMillis}); for a job
 *                     still running it is when its time limit runs out
 */
public record SlurmJob(long id, String name, String comment, String state, String reason, Integer exitStatus,
                       int restarts, List<String> nodes, String partition, long hetJobId, int hetOffset,
                       Long endTimeMillis) {
    /** A job whose end time is not known. */
    public SlurmJob(long id, String name, String comment, String state, String reason, Integer exitStatus,
                    int restarts, List<String> nodes, String partition, long hetJobId, int hetOffset) {
        this(id, name, comment, state, reason, exitStatus, restarts, nodes, partition, hetJobId, hetOffset, null);
    }

    /** A job that is not part of a heterogeneous job. */
    public SlurmJob(long id, String name, String comment, String state, String reason, Integer exitStatus,
                    int restarts, List<String> nodes, String partition) {
        this(id, name, comment, state, reason, exitStatus, restarts, nodes, partition, 0, 0);
    }

    public SlurmJob {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        nodes = List.copyOf(nodes);
        comment = comment == null ? "" : comment;
        reason = reason == null ? "" : reason;
        partition = partition == null ? "" : partition;
    }

    /** A component of a heterogeneous job other than its leader (which carries the job's id, state and script). */
    public boolean hetComponent() {
        return hetJobId != 0 && hetJobId != id;
    }

    /**
     * One job per heterogeneous job: Slurm lists each component of one as a job of its own (ids leader, leader+1,
     * ...; one name, one comment, one state), which would read as two jobs of one attempt. The leader stands for the
     * whole job, with the nodes of every component in offset order; the other components are dropped. A component
     * whose leader is not in the listing is dropped too (it ends with its leader).
     */
    public static List<SlurmJob> joinComponents(List<SlurmJob> jobs) {
        java.util.Map<Long, java.util.TreeMap<Integer, List<String>>> parts = new java.util.HashMap<>();
        boolean any = false;
        for (SlurmJob j : jobs) {
            if (j.hetJobId != 0) {
                any = true;
                parts.computeIfAbsent(j.hetJobId, k -> new java.util.TreeMap<>()).put(j.hetOffset, j.nodes);
            }
        }
        if (!any) {
            return jobs;
        }
        List<SlurmJob> out = new java.util.ArrayList<>(jobs.size());
        for (SlurmJob j : jobs) {
            if (j.hetJobId == 0) {
                out.add(j);
            } else if (!j.hetComponent()) {
                List<String> all = new java.util.ArrayList<>();
                parts.get(j.id).values().forEach(all::addAll);
                out.add(new SlurmJob(j.id, j.name, j.comment, j.state, j.reason, j.exitStatus, j.restarts, all,
                        j.partition, j.hetJobId, 0, j.endTimeMillis));
            }
        }
        return out;
    }

    /** Whether Slurm has ended it for good (its resources freed). COMPLETING still holds its nodes. */
    public boolean ended() {
        return switch (state) {
            case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
                 "OUT_OF_MEMORY", "REVOKED", "SPECIAL_EXIT" -> true;
            default -> false;
        };
    }

    /**
     * When Slurm says it ended (epoch milliseconds, whole seconds as Slurm keeps them), once it has {@link #ended()};
     * null while it has not, or when Slurm gave no end time (a zero or an {@code Unknown} one is none).
     */
    public Long endedAtMillis() {
        return ended() && endTimeMillis != null && endTimeMillis > 0 ? endTimeMillis : null;
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
