package dev.allot.core.policy.slurm;

import dev.allot.core.state.Job;

/**
 * The two QOS of the {@code slurm} policy's model, and which a job runs in: allocated work (minimum runtime &gt; 0)
 * in a protected QOS, unallocated work (minimum runtime 0) in a preemptible QOS that only the protected QOS may
 * preempt ({@code PreemptType=preempt/qos}, <a href="https://slurm.schedmd.com/preempt.html">preempt.html</a>).
 * Minimum runtimes mean nothing else to Slurm. The numbers index per-QOS arrays (association x 2 + QOS, shape x 2 +
 * QOS), the protected QOS first, as Slurm evaluates the jobs that can preempt first.
 */
final class Qos {
    static final int PROTECTED = 0;
    static final int PREEMPTIBLE = 1;

    private Qos() {
    }

    /** The QOS a job runs in. */
    static int of(Job j) {
        return j.allocated() ? PROTECTED : PREEMPTIBLE;
    }
}
