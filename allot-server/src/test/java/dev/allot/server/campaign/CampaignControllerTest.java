package dev.allot.server.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.Backend;
import dev.allot.core.campaign.ShardBrakes;
import dev.allot.core.campaign.ShardPhase;
import dev.allot.core.model.Priority;
import dev.allot.server.store.AuditEntry;
import dev.allot.server.store.CampaignShard;
import dev.allot.server.store.CampaignSnapshot;
import dev.allot.server.store.NewCampaign;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's moves on waiting shards, against the store and a carrier that records what the loop is told: the
 * protected slot is re-chosen when the estimates change, the new holder's waiting workload becoming protected in
 * place and the old one's replaced by an unallocated workload (nothing ran in their wait); a stable plan makes no
 * move; a launch of a shard's workload resumes from its units done.
 */
class CampaignControllerTest {
    @TempDir
    Path dir;

    /** Says nothing of where workloads stand (the store's states stand) and records what it is told. */
    static final class RecordingCarrier implements ShardCarrier {
        final List<String> told = new ArrayList<>();
        /** The queue ranks given, in order, apart from the moves. */
        final List<String> ranks = new ArrayList<>();

        @Override
        public Optional<ShardPhase> phase(String workloadId) {
            return Optional.empty();
        }

        @Override
        public void retiered(String workloadId, Duration minRuntime, long nowSeconds) {
            told.add("retiered " + workloadId + " " + minRuntime.getSeconds());
        }

        @Override
        public Promotion promoted(String workloadId, Duration minRuntime, long nowSeconds) {
            told.add("promoted " + workloadId);
            return new Promotion(null, new Backend.Mirror(false, "not running"));
        }

        @Override
        public void ranked(String workloadId, long rank) {
            ranks.add(workloadId + "=" + rank);
        }

        @Override
        public void withdrawn(String workloadId) {
            told.add("withdrawn " + workloadId);
        }
    }

    @Test
    void givenTheEstimatesChangeWhileShardsWait_thenTheProtectedSlotMovesWithoutLosingAnything() {
        try (CampaignFixture f = new CampaignFixture(dir, 8)) {
            RecordingCarrier carrier = new RecordingCarrier();
            CampaignController controller = new CampaignController(f.store, carrier, f.clock);
            f.store.campaigns().create(new NewCampaign("waits", "alice", "lab/a", List.of("run", "{shard}"),
                    new TreeMap<>(), 1, 3600, 1, null, null, Priority.NORMAL, ShardBrakes.NONE, 0,
                    List.of(new NewCampaign.Shard(100, null), new NewCampaign.Shard(300, null))), "alice",
                    f.clock.millis());

            // the slot goes to the most units left (shard 1); shard 0 waits unallocated
            controller.step(now(f), f.clock.millis());
            CampaignSnapshot snap = f.store.campaigns().snapshot("waits", f.clock.millis());
            Workload w0 = snap.workloadOf(snap.shards().get(0)).orElseThrow();
            Workload w1 = snap.workloadOf(snap.shards().get(1)).orElseThrow();
            assertThat(w0.minRuntimeSeconds()).isZero();
            assertThat(w1.minRuntimeSeconds()).isEqualTo(3600);
            assertThat(w1.command()).containsExactly("run", "1");
            // and the shards stand longest remaining work first in the queue, as in the simulator
            assertThat(carrier.ranks).containsExactly(w1.id() + "=0", w0.id() + "=1");
            carrier.ranks.clear();

            // when shard 1 reports 250 of its 300 units while it waits (so it has 50 left, shard 0 100)
            f.store.workloads().reportProgress(w1.id(), 250, 300);
            controller.step(now(f), f.clock.millis());

            // then shard 0's waiting workload takes the slot in place; shard 1's is replaced by an unallocated one
            snap = f.store.campaigns().snapshot("waits", f.clock.millis());
            Workload now0 = snap.workloadOf(snap.shards().get(0)).orElseThrow();
            Workload now1 = snap.workloadOf(snap.shards().get(1)).orElseThrow();
            assertThat(now0.id()).isEqualTo(w0.id());
            assertThat(now0.minRuntimeSeconds()).isEqualTo(3600);
            assertThat(now1.id()).isNotEqualTo(w1.id());
            assertThat(now1.minRuntimeSeconds()).isZero();
            assertThat(now1.state()).isEqualTo(WorkloadState.PENDING);
            assertThat(f.store.workloads().workload(w1.id()).orElseThrow().state()).isEqualTo(WorkloadState.CANCELLED);
            assertThat(carrier.told).containsExactly("retiered " + w0.id() + " 3600", "withdrawn " + w1.id());
            assertThat(carrier.ranks).containsExactly(w0.id() + "=0", now1.id() + "=1");
            assertThat(f.store.campaigns().shardOf(w1.id()).orElseThrow().index()).as("still linked to its shard")
                    .isEqualTo(1);
            assertThat(snap.shards().get(1).unitsDone()).isEqualTo(250);
            List<AuditEntry> audit = f.store.allocations().audit(100);
            assertThat(audit.stream().map(AuditEntry::action).toList()).contains("campaign.retier", "campaign.queue");
            AuditEntry retier = audit.stream().filter(e -> e.action().equals("campaign.retier")).findFirst()
                    .orElseThrow();
            assertThat(retier.afterJson()).contains("\"tier\":\"protected\"", "longest remaining work");

            // and a launch of shard 1's workload resumes from its 250 units
            Map<String, String> env = controller.launchEnvironment(now1);
            assertThat(env).containsEntry("ALLOT_RESUME_FROM", "250").containsEntry("ALLOT_SHARD", "1")
                    .containsEntry("ALLOT_CAMPAIGN", "waits");

            // and a plan that holds makes no move
            carrier.told.clear();
            long workloads = f.store.workloads().workloads(dev.allot.server.store.WorkloadFilter.all()).size();
            controller.step(now(f), f.clock.millis());
            assertThat(carrier.told).isEmpty();
            assertThat(f.store.workloads().workloads(dev.allot.server.store.WorkloadFilter.all())).hasSize((int) workloads);
        }
    }

    @Test
    void aShardWhoseSubmissionIsRefusedIsHeldWithTheApisWordsAndReleasedWhenItWouldPass() {
        try (CampaignFixture f = new CampaignFixture(dir, 8)) {
            RecordingCarrier carrier = new RecordingCarrier();
            CampaignController controller = new CampaignController(f.store, carrier, f.clock);
            f.store.campaigns().create(new NewCampaign("refused", "alice", "lab/a", List.of("run"), new TreeMap<>(),
                    1, 3600, 1, null, null, Priority.NORMAL, ShardBrakes.NONE, 0,
                    List.of(new NewCampaign.Shard(10, null))), "alice", f.clock.millis());
            long t = f.clock.millis();
            // alice is no longer a member of lab/a
            f.store.allocations().putAllocation(new dev.allot.server.store.Allocation("lab/a", 1, List.of(), List.of()),
                    "root", t);
            controller.step(now(f), t);
            CampaignShard s = f.store.campaigns().snapshot("refused", t).shards().get(0);
            assertThat(s.heldBy()).isEqualTo(CampaignShard.HeldBy.SUBMISSION);
            assertThat(s.heldReason()).isEqualTo("its workload could not be submitted: user 'alice' may not submit to"
                    + " allocation 'lab/a' (ask a manager of the allocation to add you to its members); tried again"
                    + " each cycle");
            controller.step(now(f), t);
            assertThat(f.store.allocations().audit(100).stream().filter(e -> e.action().equals("campaign.hold")))
                    .as("held once, not again every cycle").hasSize(1);

            f.store.allocations().putAllocation(new dev.allot.server.store.Allocation("lab/a", 1, List.of(),
                    List.of("alice")), "root", t);
            controller.step(now(f), t);
            s = f.store.campaigns().snapshot("refused", t).shards().get(0);
            assertThat(s.held()).isFalse();
            assertThat(s.workloadId()).isNotNull();
        }
    }

    private static long now(CampaignFixture f) {
        return f.clock.millis() / 1000;
    }
}
