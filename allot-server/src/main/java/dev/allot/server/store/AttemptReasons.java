package dev.allot.server.store;

/**
 * What a viewer reads of an attempt's reason. A reason has two parts ({@link Attempt#reason},
 * {@link Attempt#reasonDetail}): the scheduler's own words, which name the kind of end ("failed to start", "exited
 * with code 1", "preempted by w-7 ..."), and the backend's words, which may repeat what only the workload's command
 * and environment hold (a missing program's path, the declared {@code PATH}, an sbatch error naming a script). Whoever
 * may see the workload's details (the API's {@code Permissions.maySeeDetails}, decided by the caller) reads both, the
 * backend's in parentheses: {@code failed to start (train.sh: command not found ...)}. Everyone else reads the
 * scheduler's words and {@link #DETAIL_WITHHELD} in place of the backend's; the backend's words are never shown in
 * part. A reason stored before the split (schema version 11) is all detail: it is withheld whole
 * ({@link #REASON_WITHHELD}).
 */
public final class AttemptReasons {
    /** Said, in parentheses, in place of the backend's words to a viewer who may not see the workload's details. */
    public static final String DETAIL_WITHHELD = "the backend's words are shown only to the workload's owner, the"
            + " managers of its allocation and administrators";
    /** The whole reason of a viewer who may not see the workload's details, when all of it is the backend's words. */
    public static final String REASON_WITHHELD = "the reason is shown only to the workload's owner, the managers of its"
            + " allocation and administrators";

    private AttemptReasons() {
    }

    /**
     * The reason as a viewer reads it: {@code reason} and {@code detail} in full when {@code maySeeDetails}, else
     * {@code reason} with the detail withheld; null when there is neither.
     *
     * @param reason the scheduler's own words; may be null
     * @param detail the backend's words; may be null
     */
    public static String shown(String reason, String detail, boolean maySeeDetails) {
        if (detail == null) {
            return reason;
        }
        if (reason == null) {
            return maySeeDetails ? detail : REASON_WITHHELD;
        }
        return reason + " (" + (maySeeDetails ? detail : DETAIL_WITHHELD) + ")";
    }
}
