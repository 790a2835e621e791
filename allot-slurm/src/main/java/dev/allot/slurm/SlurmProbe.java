package dev.allot.slurm;

import dev.allot.core.backend.BackendUnavailableException;
import java.util.List;
import java.util.Optional;

/**
 * Reads what Slurm knows: every job it still holds, one job by id, the nodes. Every method either answers from a
 * complete, well-formed answer or throws {@link BackendUnavailableException}: a failed, timed-out, empty or truncated
 * answer never reads as "no jobs" or "no such job".
 */
interface SlurmProbe {
    /** Every job slurmctld holds (running, pending, and ended within its {@code MinJobAge}). */
    List<SlurmJob> jobs();

    /**
     * One job by id: present, or empty when Slurm says for certain that it does not know it (purged).
     */
    Optional<SlurmJob> job(long id);

    List<SlurmNode> nodes();

    /** A name for logs: {@code scontrol} or {@code slurmrestd}. */
    String name();
}
