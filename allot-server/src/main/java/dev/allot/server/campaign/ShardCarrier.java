package dev.allot.server.campaign;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Backend;
import dev.allot.core.campaign.ShardPhase;
import java.time.Duration;
import java.util.Optional;

/**
 * What the {@link CampaignController} needs from the scheduling loop that carries its moves out: where the loop's core
 * holds a shard's workload now, and the changes of contract the store has already recorded, applied to the core (and,
 * for a promotion, told to the backend). The controller runs inside the loop's cycle, on its thread, so these never
 * race with the loop's own decisions.
 */
public interface ShardCarrier {
    /**
     * Where the core holds the workload: {@link ShardPhase#WAITING} (in its queue) or {@link ShardPhase#RUNNING}
     * (running, or its start decided and waiting for its GPUs to be freed); empty when the core does not hold it
     * (not taken in yet, held by a safety brake, ended).
     */
    Optional<ShardPhase> phase(String workloadId);

    /** A waiting workload became protected in the store (minimum runtime {@code minRuntime}): the core follows. */
    void retiered(String workloadId, Duration minRuntime, long nowSeconds);

    /**
     * A running workload became protected in the store, in place: the core charges and protects its running attempt
     * from {@code nowSeconds}, and the backend is told ({@link Backend#promote}).
     */
    Promotion promoted(String workloadId, Duration minRuntime, long nowSeconds);

    /**
     * The workload's place among its campaign's work in its allocation's queue ({@code ClusterState.rerank}: a
     * tie-break after priority and submission time): the core follows if it holds the workload.
     */
    void ranked(String workloadId, long rank);

    /** A waiting workload was cancelled in the store (its shard changed contract, or was held): the core lets it go. */
    void withdrawn(String workloadId);

    /**
     * What a promotion did: the attempt promoted (null when its start was still waiting for its GPUs: it starts under
     * the new contract) and what the backend shows of it.
     */
    record Promotion(AttemptKey attempt, Backend.Mirror mirror) {
    }
}
