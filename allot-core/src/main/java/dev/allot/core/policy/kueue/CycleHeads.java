package dev.allot.core.policy.kueue;

/**
 * One cycle of a {@code kueue} pass: each ClusterQueue's head as the {@link AdmissionTournament} reads it (whether it
 * has one, its GPUs, priority, submission second and id) and its cursor. One per policy, reused from cycle to cycle
 * (a pass made these arrays anew, and the policy runs a pass at every event).
 */
final class CycleHeads {
    final boolean[] present;
    final long[] gpus;
    final int[] prio;
    final long[] submit;
    final String[] ids;
    final ClusterQueueHeads.Cursor[] heads;

    CycleHeads(int cqCount) {
        present = new boolean[cqCount];
        gpus = new long[cqCount];
        prio = new int[cqCount];
        submit = new long[cqCount];
        ids = new String[cqCount];
        heads = new ClusterQueueHeads.Cursor[cqCount];
    }
}
