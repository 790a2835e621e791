package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch.NodeGpus;
import dev.allot.core.campaign.ShardBrakes;
import dev.allot.core.model.Priority;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every store must do with campaigns, whatever the database under it (SQLite always, PostgreSQL when configured,
 * as {@link StoreContract}): campaigns and their shards kept and read back, a shard's workloads linked in the
 * transaction that stores them, progress raising units and measured time by the documented rule, holds, cancellation,
 * and attempts charged from their promotion in place.
 */
abstract class CampaignStoreContract {
    private final List<Store> opened = new ArrayList<>();

    protected abstract Store openStore();

    protected final Store open() {
        Store s = openStore();
        opened.add(s);
        return s;
    }

    @AfterEach
    void closeStores() {
        for (Store s : opened) {
            s.close();
        }
    }

    static NewCampaign campaign(String name, ShardBrakes brakes) {
        return new NewCampaign(name, "alice", "lab/a", List.of("eval", "--shard", "{shard}"),
                new TreeMap<>(Map.of("DATA", "/d")), 1, 3600, 2, null, 30.0, Priority.HIGH, brakes, 0,
                List.of(new NewCampaign.Shard(64, "restore"), new NewCampaign.Shard(10, null)));
    }

    static NewWorkload shardWorkload(int index, long minRuntimeSeconds) {
        return NewWorkload.builder("lab/a", "alice").minRuntimeSeconds(minRuntimeSeconds).resumable(true)
                .kind("campaign").command(List.of("eval", "--shard", Integer.toString(index)))
                .submittedAtMillis(1_000).build();
    }

    static List<NodeGpus> gpu(int index) {
        return List.of(new NodeGpus("n1", List.of(index)));
    }

    @Test
    void aCampaignIsKeptWithItsShardsAndReadBackAfterAReopen() {
        Store store = open();
        ShardBrakes brakes = new ShardBrakes(40.0, 3, null, 500.0, 2.5);
        Campaign c = store.campaigns().create(campaign("eval", brakes), "alice", 5_000);
        assertThat(c.state()).isEqualTo(Campaign.State.RUNNING);
        assertThatThrownBy(() -> store.campaigns().create(campaign("eval", ShardBrakes.NONE), "bob", 6_000))
                .isInstanceOf(ConflictException.class).hasMessageContaining("'eval' exists already");

        Store again = open();
        Campaign read = again.campaigns().campaign("eval").orElseThrow();
        assertThat(read).isEqualTo(c);
        assertThat(read.commandOf(7)).containsExactly("eval", "--shard", "7");
        assertThat(read.slots().describe()).isEqualTo("2 shards");
        assertThat(again.campaigns().campaigns("alice")).containsExactly(read);
        assertThat(again.campaigns().campaigns("bob")).isEmpty();
        assertThat(again.campaigns().running()).containsExactly("eval");
        CampaignSnapshot snap = again.campaigns().snapshot("eval", 6_000);
        assertThat(snap.shards()).extracting(CampaignShard::index, CampaignShard::unitsTotal, CampaignShard::family)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, 64L, "restore"),
                        org.assertj.core.groups.Tuple.tuple(1, 10L, null));
        assertThat(snap.workloads()).isEmpty();
        assertThat(again.allocations().audit(10).get(0).action()).isEqualTo("campaign.create");
        assertThatThrownBy(() -> again.campaigns().snapshot("nope", 1)).isInstanceOf(NotFoundException.class);

        again.campaigns().putBrakes("eval", ShardBrakes.NONE, "alice", 7_000);
        assertThat(open().campaigns().campaign("eval").orElseThrow().brakes()).isEqualTo(ShardBrakes.NONE);
    }

    @Test
    void aShardsWorkloadIsStoredLinkedAndCurrentTogetherAndReplacedOnlyWhileItWaits() {
        Store store = open();
        store.campaigns().create(campaign("eval", ShardBrakes.NONE), "alice", 1_000);
        Workload w = store.campaigns().queue("eval", 0, shardWorkload(0, 0), null, "system:campaigns", 2_000, "why");
        assertThat(store.campaigns().shardOf(w.id()).orElseThrow())
                .isEqualTo(new Campaigns.ShardOfWorkload("eval", 0, 64, 0));
        assertThat(store.campaigns().snapshot("eval", 2_000).shards().get(0).workloadId()).isEqualTo(w.id());
        assertThatThrownBy(() -> store.campaigns().queue("eval", 0, shardWorkload(0, 0), null, "x", 2_000, "again"))
                .isInstanceOf(ConflictException.class);

        Workload replacement = store.campaigns().queue("eval", 0, shardWorkload(0, 3600), w.id(), "x", 3_000, "tier");
        assertThat(store.workloads().workload(w.id()).orElseThrow().state()).isEqualTo(WorkloadState.CANCELLED);
        assertThat(store.campaigns().shardOf(w.id()).orElseThrow().index()).isZero();
        assertThat(store.campaigns().snapshot("eval", 3_000).workloads()).containsOnlyKeys(replacement.id());

        // a running workload is not replaced, and nothing is stored when the replacement is refused
        store.attempts().beginAttempt(replacement.id(), gpu(0), 4_000);
        int before = store.workloads().workloads(WorkloadFilter.all()).size();
        assertThatThrownBy(() -> store.campaigns().queue("eval", 0, shardWorkload(0, 0), replacement.id(), "x", 5_000,
                "no")).isInstanceOf(ConflictException.class);
        assertThat(store.workloads().workloads(WorkloadFilter.all())).hasSize(before);
    }

    @Test
    void progressRaisesUnitsAndMeasuresTheRunningTimeThatProducedThem() {
        Store store = open();
        store.campaigns().create(campaign("eval", ShardBrakes.NONE), "alice", 0);
        Workload w = store.campaigns().queue("eval", 0, shardWorkload(0, 0), null, "x", 0, "q");
        store.attempts().beginAttempt(w.id(), gpu(0), 1_000);

        store.workloads().reportProgress(w.id(), 10, 64, 11_000L); // 10 s since the attempt's start
        assertThat(shard(store)).extracting(CampaignShard::unitsDone, CampaignShard::measuredMillis)
                .containsExactly(10L, 10_000L);
        store.workloads().reportProgress(w.id(), 10, 64, 16_000L); // no new unit: nothing measured
        store.workloads().reportProgress(w.id(), 15, 64, 21_000L); // since the last raising report
        assertThat(shard(store).measuredMillis()).isEqualTo(20_000L);
        store.workloads().reportProgress(w.id(), 12, 64, 22_000L); // never fewer
        assertThat(shard(store).unitsDone()).isEqualTo(15);

        // a new attempt measures from its own start; the time between the last report and the preemption is lost
        store.attempts().endAttempt(new AttemptKey(w.id(), 1), AttemptOutcome.REQUEUED, "preempted", null, null, 25_000);
        store.attempts().beginAttempt(w.id(), gpu(1), 30_000);
        store.workloads().reportProgress(w.id(), 20, 64, 35_000L);
        assertThat(shard(store)).extracting(CampaignShard::unitsDone, CampaignShard::measuredMillis,
                CampaignShard::measuredAttempt).containsExactly(20L, 25_000L, w.id() + "#2");
        store.workloads().reportProgress(w.id(), 22, 64); // no time known: units only
        assertThat(shard(store)).extracting(CampaignShard::unitsDone, CampaignShard::measuredMillis)
                .containsExactly(22L, 25_000L);

        // completing measures its last stretch and does every unit
        store.attempts().endAttempt(new AttemptKey(w.id(), 2), AttemptOutcome.COMPLETED, "exit 0", null, null, 45_000);
        store.campaigns().completed("eval", 0, store.attempts().attempts(w.id()).get(1));
        assertThat(shard(store)).extracting(CampaignShard::unitsDone, CampaignShard::measuredMillis,
                CampaignShard::doneAtMillis).containsExactly(64L, 35_000L, 45_000L);
        assertThat(shard(open()).done()).isTrue();
    }

    @Test
    void holdingCancelsAWaitingWorkloadNeverARunningOneAndCancellingTheCampaignCancelsItsWorkloads() {
        Store store = open();
        store.campaigns().create(campaign("eval", ShardBrakes.NONE), "alice", 0);
        Workload waiting = store.campaigns().queue("eval", 0, shardWorkload(0, 0), null, "x", 0, "q");
        Workload running = store.campaigns().queue("eval", 1, shardWorkload(1, 3600), null, "x", 0, "q");
        store.attempts().beginAttempt(running.id(), gpu(0), 1_000);

        assertThat(store.campaigns().hold("eval", 1, CampaignShard.HeldBy.BRAKES, "held: cap", "x", 2_000)).isFalse();
        assertThat(store.campaigns().hold("eval", 0, CampaignShard.HeldBy.BRAKES, "held: cap", "x", 2_000)).isTrue();
        CampaignSnapshot snap = store.campaigns().snapshot("eval", 2_000);
        assertThat(snap.shards().get(0)).extracting(CampaignShard::heldBy, CampaignShard::heldReason,
                CampaignShard::workloadId).containsExactly(CampaignShard.HeldBy.BRAKES, "held: cap", null);
        assertThat(store.workloads().workload(waiting.id()).orElseThrow().state()).isEqualTo(WorkloadState.CANCELLED);
        assertThat(snap.shards().get(1).held()).isFalse();
        assertThatThrownBy(() -> store.campaigns().queue("eval", 0, shardWorkload(0, 0), null, "x", 3_000, "held"))
                .isInstanceOf(ConflictException.class);
        store.campaigns().release("eval", 0, "cap raised", "x", 3_000);
        assertThat(store.campaigns().snapshot("eval", 3_000).shards().get(0).held()).isFalse();
        Workload again = store.campaigns().queue("eval", 0, shardWorkload(0, 0), null, "x", 3_000, "released");

        Campaign cancelled = store.campaigns().cancel("eval", "alice", 4_000);
        assertThat(cancelled.state()).isEqualTo(Campaign.State.CANCELLED);
        assertThat(store.workloads().workload(again.id()).orElseThrow().state()).isEqualTo(WorkloadState.CANCELLED);
        Workload stopping = store.workloads().workload(running.id()).orElseThrow();
        assertThat(stopping.state()).isEqualTo(WorkloadState.RUNNING);
        assertThat(stopping.cancelRequested()).isTrue();
        assertThat(store.campaigns().running()).isEmpty();
        List<String> actions = store.allocations().audit(20).stream().map(AuditEntry::action).toList();
        assertThat(actions).contains("campaign.cancel", "campaign.release", "campaign.hold", "campaign.queue");
    }

    @Test
    void aPromotedAttemptIsChargedFromItsPromotionOnlyAndItsRunsAddUpPerShard() {
        Store store = open();
        store.campaigns().create(campaign("eval", ShardBrakes.NONE), "alice", 0);
        Workload free = store.campaigns().queue("eval", 0, shardWorkload(0, 0), null, "x", 0, "q");
        Workload paid = store.campaigns().queue("eval", 1, shardWorkload(1, 3600), null, "x", 0, "q");
        store.attempts().beginAttempt(free.id(), gpu(0), 1_000);
        store.attempts().beginAttempt(paid.id(), gpu(1), 1_000);
        assertThat(store.attempts().attempts(paid.id()).get(0).chargedFromMillis()).isEqualTo(1_000L);
        assertThat(store.attempts().attempts(free.id()).get(0).chargedFromMillis()).isNull();

        assertThat(store.attempts().promote(free.id(), 7200, 11_000)).isTrue();
        assertThat(store.attempts().promote(free.id(), 7200, 12_000)).as("once").isFalse();
        Attempt promoted = open().attempts().attempts(free.id()).get(0);
        assertThat(promoted.chargedFromMillis()).isEqualTo(11_000L);
        assertThat(promoted.promoted()).isTrue();
        assertThat(promoted.contractStartMillis()).isEqualTo(11_000L);
        assertThat(store.workloads().workload(free.id()).orElseThrow().minRuntimeSeconds()).isEqualTo(7200);

        assertThat(store.attempts().chargedRuns(0, 21_000)).containsExactly(
                new Attempts.ChargedRun("lab/a", 1, 11_000, null), new Attempts.ChargedRun("lab/a", 1, 1_000, null));
        assertThat(store.attempts().unallocatedRuns(0, 21_000)).containsExactly(
                new Attempts.ChargedRun("lab/a", 1, 1_000, 11_000L));
        assertThat(store.attempts().usageSince(0, 21_000)).containsExactly(Map.entry("lab/a", 30.0));

        store.attempts().endAttempt(new AttemptKey(paid.id(), 1), AttemptOutcome.PREEMPTED, "p", null, null, 6_000);
        CampaignSnapshot snap = store.campaigns().snapshot("eval", 21_000);
        assertThat(snap.runsOf(0)).isEqualTo(new CampaignSnapshot.ShardRuns(0, 20_000, 10_000, 0));
        assertThat(snap.runsOf(1)).isEqualTo(new CampaignSnapshot.ShardRuns(1, 5_000, 5_000, 0));
        assertThat(snap.gpuMillis()).isEqualTo(25_000);
        assertThat(snap.chargedGpuMillis()).isEqualTo(15_000);
        assertThat(snap.lastAttemptOf(snap.shards().get(0)).orElseThrow().promoted()).isTrue();

        store.campaigns().finish("eval", "system:campaigns", 22_000);
        assertThat(store.campaigns().campaign("eval").orElseThrow().state()).isEqualTo(Campaign.State.DONE);
    }

    private static CampaignShard shard(Store store) {
        return store.campaigns().snapshot("eval", 0).shards().get(0);
    }
}
