package dev.allot.server.campaign;

import dev.allot.core.campaign.CampaignEta;
import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.campaign.RateEstimator;
import dev.allot.core.campaign.ShardPhase;
import dev.allot.core.campaign.ShardView;
import dev.allot.core.campaign.SlotPlanner;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Campaign;
import dev.allot.server.store.CampaignShard;
import dev.allot.server.store.CampaignSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a campaign stands, from the store alone (so a restarted service shows the same): per shard its units, phase,
 * tier, rate and where the rate came from, remaining time and ETA, hold, runs and promotion; for the campaign its
 * units, GPU-hours used and charged and its ETA. The estimates are the core's ({@link SlotPlanner}'s rate estimates,
 * {@link CampaignEta} over the protected slots as they are now); what the API's {@code GET /v1/campaigns/{name}} and
 * {@code allot campaign status} show.
 *
 * @param etaAtMillis when the campaign should end, null when unknown (a held shard, no protected slot for waiting
 *                    shards) or when it has ended
 */
public record CampaignStatus(Campaign campaign, long unitsTotal, long unitsDone, double gpuHoursUsed,
                             double gpuHoursCharged, Long etaAtMillis, List<Shard> shards) {
    /**
     * One shard.
     *
     * @param phase            {@code unqueued}, {@code waiting}, {@code running}, {@code done} or {@code held}
     * @param tier             {@code protected} or {@code unallocated}: its current workload's contract; null without one
     * @param rateSource       {@code shard}, {@code family}, {@code campaign}, {@code declared} or {@code none}
     * @param etaAtMillis      when it should end, null when unknown or done
     * @param promotedAtMillis when its running attempt was promoted in place, null if it was not
     * @param failures         how many of its workloads failed (the campaign retries up to its failure retries)
     */
    public record Shard(int index, String workload, String family, long units, long unitsDone, String phase,
                        String tier, double secondsPerUnit, String rateSource, long remainingSeconds,
                        Long etaAtMillis, String heldReason, double gpuHoursUsed, int requeues,
                        Long promotedAtMillis, String promotionDetail, int failures) {
    }

    public static CampaignStatus of(CampaignSnapshot snap, long nowMillis) {
        Campaign c = snap.campaign();
        List<ShardView> views = ShardViews.of(snap);
        SlotPlanner.Plan plan = SlotPlanner.plan(views, c.slots(), CampaignStrategy.ALLOT, c.declaredSecondsPerUnit());
        long nowSeconds = Math.floorDiv(nowMillis, 1000);
        CampaignEta.Eta eta = CampaignEta.estimate(views, plan, c.slots(), nowSeconds);
        List<Shard> shards = new ArrayList<>();
        long total = 0;
        long done = 0;
        for (int i = 0; i < views.size(); i++) {
            ShardView v = views.get(i);
            CampaignShard s = snap.shards().get(i);
            RateEstimator.Estimate e = plan.estimates().get(v.index());
            CampaignSnapshot.ShardRuns runs = snap.runsOf(v.index());
            String phase = s.done() ? "done" : v.phase() == ShardPhase.BRAKED ? "held" : v.phase().label();
            Long end = s.done() ? null : eta.shardEndSeconds().get(v.index());
            String tier = snap.workloadOf(s).map(w -> w.allocated() ? "protected" : "unallocated").orElse(null);
            Optional<Attempt> last = snap.lastAttemptOf(s);
            Long promotedAt = last.filter(Attempt::promoted).map(Attempt::chargedFromMillis).orElse(null);
            shards.add(new Shard(v.index(), s.workloadId(), s.family(), s.unitsTotal(), v.unitsDone(), phase, tier,
                    e.secondsPerUnit(), e.source().label(), s.done() ? 0 : e.remainingSeconds(),
                    end == null ? null : end * 1000, s.heldReason(), runs.gpuMillis() / 3.6e6, runs.requeues(),
                    promotedAt, s.promotionDetail(), runs.failures()));
            total += s.unitsTotal();
            done += v.unitsDone();
        }
        Long campaignEta = c.state() != Campaign.State.RUNNING || eta.campaignEndSeconds() < 0 ? null
                : eta.campaignEndSeconds() * 1000;
        return new CampaignStatus(c, total, done, snap.gpuMillis() / 3.6e6, snap.chargedGpuMillis() / 3.6e6,
                campaignEta, List.copyOf(shards));
    }
}
