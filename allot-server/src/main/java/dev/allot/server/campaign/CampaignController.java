package dev.allot.server.campaign;

import dev.allot.core.campaign.CampaignMove;
import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.campaign.ShardPhase;
import dev.allot.core.campaign.ShardTier;
import dev.allot.core.campaign.ShardView;
import dev.allot.core.campaign.SlotPlanner;
import dev.allot.server.api.IdentityGate;
import dev.allot.server.api.WorkloadIntake;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Campaign;
import dev.allot.server.store.CampaignShard;
import dev.allot.server.store.CampaignSnapshot;
import dev.allot.server.store.ConflictException;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.NotFoundException;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the service's campaigns, one step per scheduling cycle, inside the loop's cycle (before it takes in new
 * submissions, so a shard queued now is scheduled in the same cycle). For each running campaign it reads the store
 * ({@link Store#campaigns()}: the campaign, its shards, their workloads and runs), brings each shard up to date with
 * its workload (completed: done; failed: queued again by itself while the campaign's failure retries last, then
 * held; cancelled by a person: held; a held shard runs again only when a person retries it,
 * {@code POST /v1/campaigns/NAME/retry}), applies the campaign's
 * brakes ({@link dev.allot.core.campaign.ShardBrakes}: a shard over a cap is held, a held one released once the cap is raised above what it
 * spent), asks the core's {@link SlotPlanner} with {@link CampaignStrategy#ALLOT} and carries out its moves:
 * <ul>
 *   <li>{@code Queue}: the shard's next workload is submitted for its owner through the API's own checks
 *       ({@link WorkloadIntake}: fields, identity, allocation, permission, shape) and stored linked to the shard in one
 *       transaction; a refusal holds the shard with the API's words, and it is tried again each cycle;</li>
 *   <li>{@code Retier} of a waiting workload: to protected, its minimum runtime is set in the store and the core; to
 *       unallocated, it is replaced by a new unallocated workload in one transaction (the core cannot lower a
 *       contract; nothing ran in its wait, so nothing is lost);</li>
 *   <li>{@code Promote}: the store first (minimum runtime, the running attempt charged from now), then the core and the
 *       backend ({@link ShardCarrier#promoted}); what the backend showed is kept with the shard and audited.</li>
 * </ul>
 * Everything it decides from is in the store, so a service killed and restarted plans the same. A campaign whose
 * shards are all done becomes done. One campaign's failure is logged and does not stop the others or the loop.
 *
 * <p>It also gives each launch of a shard's workload {@code ALLOT_RESUME_FROM}, the shard's units done at that
 * moment ({@link #launchEnvironment}).
 */
public final class CampaignController {
    private static final Logger LOG = LoggerFactory.getLogger(CampaignController.class);
    /** Who the audit trail names for what the controller does. */
    public static final String ACTOR = "system:campaigns";
    /** Why a failed shard is held, after the failure itself: the campaign retries none, or it used up its retries. */
    static String failedWords(Campaign c) {
        return c.failureRetries() == 0 ? "; a failed shard is not resubmitted by itself"
                : "; it was retried " + c.failureRetries() + (c.failureRetries() == 1 ? " time" : " times")
                        + " by itself (failureRetries) and is not resubmitted again";
    }

    /** How a shard of campaign {@code name} held after a failure runs again, said in its hold: a person retries it. */
    static String retryWords(String name) {
        return "; 'allot campaign retry " + name + "' (POST /v1/campaigns/" + name + "/retry) queues it again from its"
                + " units done";
    }
    /** How often the list of running campaigns is read when nothing said it changed. */
    static final long REREAD_SECONDS = 30;

    private final Store store;
    private final ShardCarrier carrier;
    private final Clock clock;
    private volatile WorkloadIntake intake;
    private List<String> running = List.of();
    private long seenChanges = -1;
    private long lastReadAt = Long.MIN_VALUE / 2;

    public CampaignController(Store store, ShardCarrier carrier, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.carrier = Objects.requireNonNull(carrier, "carrier");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.intake = WorkloadIntake.of(store, clock, IdentityGate.OPEN);
    }

    /** Submits shards through this identity gate (the service's: owners without a usable account are refused). */
    public void identity(IdentityGate gate) {
        this.intake = WorkloadIntake.of(store, clock, Objects.requireNonNull(gate, "gate"));
    }

    /** One step for every running campaign (see the class notes). */
    public void step(long nowSeconds, long nowMillis) {
        long changes = store.campaigns().changes();
        if (!running.isEmpty() || changes != seenChanges || nowSeconds - lastReadAt >= REREAD_SECONDS) {
            seenChanges = changes;
            lastReadAt = nowSeconds;
            running = store.campaigns().running();
        }
        for (String name : running) {
            try {
                stepCampaign(name, nowSeconds, nowMillis);
            } catch (dev.allot.server.store.FencedException e) {
                throw e; // this instance no longer leads: the loop steps down
            } catch (RuntimeException e) {
                LOG.error("campaign {}: its step failed; trying again next cycle", name, e);
            }
        }
    }

    /**
     * The environment of a launch of {@code w}: its own, and for a shard's workload {@code ALLOT_RESUME_FROM}, the
     * shard's units done now (what it resumes from: those are never done again).
     */
    public SortedMap<String, String> launchEnvironment(Workload w) {
        if (!w.environment().containsKey(ShardSubmissions.CAMPAIGN_VARIABLE)) {
            return w.environment();
        }
        Optional<dev.allot.server.store.Campaigns.ShardOfWorkload> shard = store.campaigns().shardOf(w.id());
        if (shard.isEmpty()) {
            return w.environment();
        }
        SortedMap<String, String> env = new TreeMap<>(w.environment());
        env.put(ShardSubmissions.RESUME_VARIABLE, Long.toString(shard.get().unitsDone()));
        return env;
    }

    private void stepCampaign(String name, long now, long nowMillis) {
        CampaignSnapshot snap = store.campaigns().snapshot(name, nowMillis);
        if (snap.campaign().state() != Campaign.State.RUNNING) {
            return;
        }
        if (settle(snap, nowMillis)) {
            snap = store.campaigns().snapshot(name, nowMillis);
        }
        Campaign c = snap.campaign();
        List<ShardView> views = new ArrayList<>(ShardViews.of(snap, carrier::phase));
        if (views.stream().allMatch(v -> v.phase() == ShardPhase.DONE)) {
            store.campaigns().finish(name, ACTOR, nowMillis);
            LOG.info("campaign {} is done: every shard's units are done", name);
            return;
        }
        applyBrakes(snap, views, now, nowMillis);
        SlotPlanner.Plan plan = SlotPlanner.plan(views, c.slots(), CampaignStrategy.ALLOT, c.declaredSecondsPerUnit());
        for (CampaignMove move : plan.moves()) {
            CampaignShard s = snap.shards().get(move.shard());
            try {
                carryOut(c, s, snap, move, plan, now, nowMillis);
            } catch (ConflictException | NotFoundException e) {
                // The store moved on since the snapshot (a cancellation, a start): planned again next cycle.
                LOG.info("campaign {} shard {}: {} not carried out: {}", name, s.index(), move, e.getMessage());
            }
        }
        rank(plan.moves().isEmpty() ? snap : store.campaigns().snapshot(name, nowMillis),
                SlotPlanner.queueOrder(views, plan, CampaignStrategy.ALLOT));
    }

    /**
     * Gives the shards' workloads their places among the campaign's waiting work, in the core's queue order for the
     * strategy ({@link SlotPlanner#queueOrder}: longest remaining work first), as the simulator does. The core's
     * queue rank is not stored: it is given again every cycle, so a rebuilt or restarted core has it at once.
     */
    private void rank(CampaignSnapshot snap, List<Integer> order) {
        long rank = 0;
        for (int shard : order) {
            Optional<Workload> w = snap.workloadOf(snap.shards().get(shard));
            if (w.isPresent() && !w.get().state().ended()) {
                carrier.ranked(w.get().id(), rank++);
            }
        }
    }

    /**
     * Brings shards up to date with their workloads: a completed workload makes its shard done; a failed or
     * cancelled one (by a person: the controller's own replacements are no longer current) holds it; a done shard's
     * waiting workload is cancelled. Held shards of the kind tried again each cycle are released when their submission
     * would now pass. True when the store changed.
     */
    private boolean settle(CampaignSnapshot snap, long nowMillis) {
        boolean changed = false;
        String name = snap.campaign().name();
        Boolean submissionsPass = null; // asked once a cycle: the shards' submissions differ only in their index
        for (CampaignShard s : snap.shards()) {
            Optional<Workload> w = snap.workloadOf(s);
            if (s.heldBy() == CampaignShard.HeldBy.SUBMISSION) {
                if (submissionsPass == null) {
                    submissionsPass = submissionRefusal(snap.campaign(), s, ShardTier.UNALLOCATED) == null;
                }
                if (submissionsPass) {
                    store.campaigns().release(name, s.index(), "its submission passes the checks again", ACTOR,
                            nowMillis);
                    changed = true;
                }
                continue;
            }
            if (w.isEmpty() || s.held()) {
                continue;
            }
            WorkloadState state = w.get().state();
            Optional<Attempt> last = snap.lastAttemptOf(s);
            if (state == WorkloadState.COMPLETED && last.isPresent()
                    && (s.unitsDone() < s.unitsTotal() || s.doneAtMillis() == null)) {
                store.campaigns().completed(name, s.index(), last.get());
                changed = true;
            } else if (state == WorkloadState.FAILED && !s.done()
                    && snap.runsOf(s.index()).failures() <= snap.campaign().failureRetries()) {
                // the campaign's failure retries: queued again from its units done, in this same step
                int failures = snap.runsOf(s.index()).failures();
                String why = "its workload " + w.get().id() + " failed; failure " + failures + " of the "
                        + snap.campaign().failureRetries() + " the campaign retries by itself (failureRetries)";
                if (store.campaigns().retryAfterFailure(name, s.index(), w.get().id(), why, ACTOR, nowMillis)) {
                    LOG.info("campaign {} shard {}: {}", name, s.index(), why);
                    changed = true;
                }
            } else if ((state == WorkloadState.FAILED || state == WorkloadState.CANCELLED) && !s.done()) {
                // The hold's reason is shown to every viewer of the campaign and kept in the audit trail: the
                // attempt's reason goes in without the backend's words (its workload shows them to those who may see).
                String failedWhy = last.map(a -> a.reasonFor(false)).orElse(null);
                String why = state == WorkloadState.FAILED
                        ? "its workload " + w.get().id() + " failed" + (failedWhy == null ? "" : " (" + failedWhy + ")")
                                + failedWords(snap.campaign()) + retryWords(name)
                        : "its workload " + w.get().id() + " was cancelled; a shard whose workload someone cancelled is"
                                + " not resubmitted by itself" + retryWords(name);
                store.campaigns().hold(name, s.index(), CampaignShard.HeldBy.FAILURE, why, ACTOR, nowMillis);
                changed = true;
            } else if (state.waiting() && s.done()) {
                store.workloads().requestCancel(w.get().id());
                carrier.withdrawn(w.get().id());
                changed = true;
            }
        }
        return changed;
    }

    /**
     * The campaign's caps, by the seed's rule ({@link dev.allot.core.campaign.ShardBrakes#heldReason}: spent at or
     * above a cap): a shard not running that is over one is held (its waiting workload cancelled), one held by them is
     * released once no cap trips any more (a cap raised above what it spent), and one running unallocated over a cap
     * is not promoted (for the plan it is braked). A running shard is never stopped by a brake.
     */
    private void applyBrakes(CampaignSnapshot snap, List<ShardView> views, long now, long nowMillis) {
        Campaign c = snap.campaign();
        long campaignSeconds = snap.gpuMillis() / 1000;
        for (int i = 0; i < views.size(); i++) {
            ShardView v = views.get(i);
            CampaignShard s = snap.shards().get(i);
            CampaignSnapshot.ShardRuns runs = snap.runsOf(s.index());
            String reason = c.brakes().heldReason(runs.gpuSeconds(), runs.requeues(), campaignSeconds);
            if (s.heldBy() == CampaignShard.HeldBy.BRAKES) {
                if (reason == null) {
                    store.campaigns().release(c.name(), s.index(), "the caps were raised above what it spent", ACTOR,
                            nowMillis);
                    LOG.info("campaign {} shard {} is released by its brakes", c.name(), s.index());
                    views.set(i, with(v, s.done() ? ShardPhase.DONE : ShardPhase.UNQUEUED));
                }
                continue;
            }
            if (reason == null || s.held() || v.phase() == ShardPhase.DONE) {
                continue;
            }
            if (v.phase() == ShardPhase.RUNNING) {
                if (v.tier() == ShardTier.UNALLOCATED) {
                    views.set(i, with(v, ShardPhase.BRAKED)); // not promoted; it finishes its attempt unallocated
                }
                continue;
            }
            String held = "held: " + reason;
            if (store.campaigns().hold(c.name(), s.index(), CampaignShard.HeldBy.BRAKES, held, ACTOR, nowMillis)) {
                LOG.warn("campaign {} shard {} is {}", c.name(), s.index(), held);
                if (s.workloadId() != null) {
                    carrier.withdrawn(s.workloadId());
                }
                views.set(i, with(v, ShardPhase.BRAKED));
            }
        }
    }

    private static ShardView with(ShardView v, ShardPhase phase) {
        return new ShardView(v.index(), v.family(), v.gpus(), v.unitsTotal(), v.unitsDone(), v.measuredSeconds(), phase,
                v.tier());
    }

    private void carryOut(Campaign c, CampaignShard s, CampaignSnapshot snap, CampaignMove move, SlotPlanner.Plan plan,
                          long now, long nowMillis) {
        Duration minRuntime = Duration.ofSeconds(c.minRuntimeSeconds());
        String why = ShardSubmissions.why(move, plan, s.index());
        if (move instanceof CampaignMove.Queue q) {
            queue(c, s, q.tier(), null, why, nowMillis);
        } else if (move instanceof CampaignMove.Retier r && r.tier() == ShardTier.PROTECTED) {
            if (store.attempts().promote(s.workloadId(), c.minRuntimeSeconds(), nowMillis)) {
                carrier.retiered(s.workloadId(), minRuntime, now);
                store.campaigns().audit(c.name(), "campaign.retier", Map.of("shard", s.index(), "workload",
                        s.workloadId(), "tier", "protected", "why", why), ACTOR, nowMillis);
                LOG.info("campaign {} shard {}: waiting workload {} takes a protected slot ({})", c.name(), s.index(),
                        s.workloadId(), why);
            }
        } else if (move instanceof CampaignMove.Retier) {
            String old = s.workloadId();
            if (queue(c, s, ShardTier.UNALLOCATED, old, why, nowMillis)) {
                carrier.withdrawn(old);
            }
        } else if (move instanceof CampaignMove.Promote) {
            promote(c, s, snap, minRuntime, why, now, nowMillis);
        } else {
            LOG.warn("campaign {} shard {}: the allot strategy never restarts a shard; {} ignored", c.name(), s.index(),
                    move);
        }
    }

    private void promote(Campaign c, CampaignShard s, CampaignSnapshot snap, Duration minRuntime, String why, long now,
                         long nowMillis) {
        String id = s.workloadId();
        if (!store.attempts().promote(id, c.minRuntimeSeconds(), nowMillis)) {
            return;
        }
        ShardCarrier.Promotion p = carrier.promoted(id, minRuntime, now);
        int attempt = p.attempt() != null ? p.attempt().attempt()
                : snap.lastAttemptOf(s).map(a -> a.key().attempt()).orElse(0);
        String detail = p.mirror().detail();
        store.campaigns().promoted(c.name(), s.index(), id, attempt, p.mirror().mirrored(), detail, why, ACTOR,
                nowMillis);
        LOG.atInfo().addKeyValue("campaign", c.name()).addKeyValue("shard", s.index()).addKeyValue("workload", id)
                .addKeyValue("mirrored", p.mirror().mirrored())
                .log("campaign {} shard {}: workload {} promoted in place, attempt {} ({}); backend: {}", c.name(),
                        s.index(), id, attempt, why, detail);
    }

    /**
     * Submits the shard's next workload under {@code tier} ({@code replacing} its waiting one when not null); a
     * refusal holds the shard. True when it was queued.
     */
    private boolean queue(Campaign c, CampaignShard s, ShardTier tier, String replacing, String why, long nowMillis) {
        NewWorkload w;
        try {
            w = intake.onBehalfOf(store, c.owner(), ShardSubmissions.body(c, s, tier), nowMillis);
        } catch (IllegalArgumentException e) {
            String held = "its workload could not be submitted: " + e.getMessage() + "; tried again each cycle";
            if (store.campaigns().hold(c.name(), s.index(), CampaignShard.HeldBy.SUBMISSION, held, ACTOR, nowMillis)
                    && replacing != null) {
                carrier.withdrawn(replacing);
            }
            LOG.warn("campaign {} shard {}: {}", c.name(), s.index(), held);
            return false;
        }
        Workload stored = store.campaigns().queue(c.name(), s.index(), w, replacing, ACTOR, nowMillis,
                tier.label() + ": " + why);
        LOG.info("campaign {} shard {}: queued {} {} ({})", c.name(), s.index(), stored.id(), tier.label(), why);
        return true;
    }

    /** Why a submission of the shard's workload would be refused now, or null when it would pass. */
    private String submissionRefusal(Campaign c, CampaignShard s, ShardTier tier) {
        try {
            intake.onBehalfOf(store, c.owner(), ShardSubmissions.body(c, s, tier), clock.millis());
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
