package dev.allot.slurm;

import java.util.List;
import java.util.Objects;

/**
 * One node as Slurm reports it.
 *
 * @param name   the node name
 * @param gpus   GPUs configured ({@code gpu:N} in its gres, summed over types)
 * @param state  the base state in upper case: IDLE, MIXED, ALLOCATED, DOWN, ERROR, FUTURE, UNKNOWN, ...
 * @param flags  the state flags in upper case: DRAIN, NOT_RESPONDING, FAIL, MAINTENANCE, ...
 * @param reason why it is down or drained ({@code Reason=}), may be empty
 */
public record SlurmNode(String name, int gpus, String state, List<String> flags, String reason) {
    public SlurmNode {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        flags = List.copyOf(flags);
        reason = reason == null ? "" : reason;
    }

    public boolean drained() {
        return flags.contains("DRAIN");
    }

    /**
     * Down, failed or not answering: no work runs there, whoever drained it. A node {@link #unheard()} is not: Slurm
     * does not know yet.
     */
    public boolean broken() {
        return state.equals("DOWN") || state.equals("ERROR") || state.equals("FUTURE")
                || flags.contains("NOT_RESPONDING") || flags.contains("FAIL") || flags.contains("POWERED_DOWN");
    }

    /**
     * State UNKNOWN and not (yet) failing a ping: slurmctld has just started and its slurmd has not registered again
     * (seen for a few seconds after a restart of slurmctld, on every node at once). What Slurm says of it is no
     * answer, as a failed probe is none; a slurmd that never answers becomes NOT_RESPONDING, then DOWN.
     */
    public boolean unheard() {
        return state.equals("UNKNOWN") && !flags.contains("NOT_RESPONDING") && !flags.contains("FAIL");
    }

    /**
     * Not answering Slurm's pings, and nothing worse: not down, failed, drained or powered down. What Slurm shows of a
     * node right after {@code scontrol update state=resume} until its slurmd answers the ping the resume sends.
     */
    public boolean onlyNotResponding() {
        return flags.contains("NOT_RESPONDING") && !flags.contains("FAIL") && !flags.contains("DRAIN")
                && !flags.contains("POWERED_DOWN") && !state.equals("DOWN") && !state.equals("ERROR")
                && !state.equals("FUTURE");
    }
}
