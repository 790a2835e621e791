package dev.allot.server.store;

import java.util.Locale;
import java.util.Objects;

/**
 * One shard of a {@link Campaign} as stored: its units of work, how many are done (never fewer later: a unit reported
 * done is never scheduled again), the running time that produced them, its current workload and whether it is held.
 *
 * @param family            whose measured rate stands in for the shard's until it has its own; may be null
 * @param measuredMillis    the running time that produced {@code unitsDone}: each progress report that raised it added
 *                          the time since the later of its attempt's start and that attempt's previous raising report
 *                          ({@code measuredAttempt} at {@code measuredUntilMillis}); a completed workload adds its last
 *                          stretch
 * @param measuredAttempt   the attempt ({@code w-5#2}) the last measured stretch ended in; null before any
 * @param workloadId        its current workload, null while it has none (never queued, or held)
 * @param heldBy            why it gets no new workload ({@link HeldBy}), null when it is not held
 * @param heldReason        the reason in words, with the numbers; null when not held
 * @param promotionDetail   what the backend said when the shard was last promoted in place; null if never
 * @param doneAtMillis      when every unit was done (reported, or its workload completed); null before
 */
public record CampaignShard(
        String campaign,
        int index,
        String family,
        long unitsTotal,
        long unitsDone,
        long measuredMillis,
        String measuredAttempt,
        Long measuredUntilMillis,
        String workloadId,
        HeldBy heldBy,
        String heldReason,
        String promotionDetail,
        Long doneAtMillis) {

    /** Why a shard is held. */
    public enum HeldBy {
        /** A cap of the campaign's brakes: released when the cap is raised above what it spent. */
        BRAKES,
        /**
         * Its workload failed (beyond the campaign's failure retries) or was cancelled by a person: not resubmitted by
         * itself.
         */
        FAILURE,
        /** Its next workload could not be submitted (the owner may no longer submit there...): retried each cycle. */
        SUBMISSION;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static HeldBy parse(String label) {
            for (HeldBy h : values()) {
                if (h.label().equals(label)) {
                    return h;
                }
            }
            throw new IllegalArgumentException("unknown hold '" + label + "'");
        }
    }

    public CampaignShard {
        Objects.requireNonNull(campaign, "campaign");
        if ((heldBy == null) != (heldReason == null)) {
            throw new IllegalArgumentException("shard " + index + " of " + campaign + ": a hold needs both its kind and"
                    + " its reason");
        }
    }

    public boolean held() {
        return heldBy != null;
    }

    /** Every unit done. */
    public boolean done() {
        return unitsDone >= unitsTotal || doneAtMillis != null;
    }

    public long measuredSeconds() {
        return measuredMillis / 1000;
    }
}
