package dev.allot.server.store;

import java.util.Locale;

/**
 * How an attempt ended, and the state it leaves its workload in ({@link #workloadState}).
 *
 * <p>{@link #LOST} means the scheduler lost the attempt without it ending on its own or being stopped: its node
 * died or the backend forgot it. A resumable workload resumes from its last checkpoint, so it is requeued; a
 * workload that is not resumable would start again from nothing, and Allot does not repeat non-resumable work
 * behind its owner's back, so it fails (the owner may resubmit).
 */
public enum AttemptOutcome {
    COMPLETED, FAILED, PREEMPTED, REQUEUED, CANCELLED, LOST;

    public String label() {
        return label;
    }

    /** Whether the attempt was preempted: requeued to run again, or ended for good (it could not resume). */
    public boolean preempted() {
        return this == PREEMPTED || this == REQUEUED;
    }

    /** The labels of the outcomes that are {@link #preempted}, as an SQL list: {@code ('preempted', 'requeued')}. */
    static String preemptedLabelsSql() {
        return java.util.Arrays.stream(values()).filter(AttemptOutcome::preempted).map(o -> "'" + o.label() + "'")
                .collect(java.util.stream.Collectors.joining(", ", "(", ")"));
    }

    /**
     * {@link #label} computed once: the store parses and writes labels for every row the scheduling loop reads or
     * ends (issue 21's intake: 10,000 rows read, a thousand attempts ended), and lower-casing each time was a copy per
     * value per row.
     */
    private final String label = name().toLowerCase(Locale.ROOT);

    public static AttemptOutcome parse(String label) {
        for (AttemptOutcome o : values()) {
            if (o.label().equals(label)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown attempt outcome '" + label + "'");
    }

    /**
     * The state of the workload once an attempt ended this way.
     * <ul>
     *   <li>completed, failed, cancelled, preempted, requeued: the state of the same name;</li>
     *   <li>lost: requeued if the workload is resumable, failed otherwise;</li>
     *   <li>whatever the outcome, when the workload's cancellation was requested it does not go back to the
     *       queue: an outcome that would make it wait again (requeued, lost-and-requeued) or end it because it was
     *       stopped (preempted) makes it cancelled instead. Completed and failed stay as they are: that is what
     *       happened.</li>
     * </ul>
     */
    public WorkloadState workloadState(boolean resumable, boolean cancelRequested) {
        WorkloadState s = switch (this) {
            case COMPLETED -> WorkloadState.COMPLETED;
            case FAILED -> WorkloadState.FAILED;
            case CANCELLED -> WorkloadState.CANCELLED;
            case PREEMPTED -> WorkloadState.PREEMPTED;
            case REQUEUED -> WorkloadState.REQUEUED;
            case LOST -> resumable ? WorkloadState.REQUEUED : WorkloadState.FAILED;
        };
        return cancelRequested && (s.waiting() || s == WorkloadState.PREEMPTED) ? WorkloadState.CANCELLED : s;
    }
}
