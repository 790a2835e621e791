package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.campaign.ShardBrakes;
import dev.allot.core.campaign.ShardTier;
import dev.allot.core.model.Durations;
import dev.allot.server.campaign.CampaignStatus;
import dev.allot.server.campaign.ShardSubmissions;
import dev.allot.server.policy.LivePolicy;
import dev.allot.server.store.Campaign;
import dev.allot.server.store.CampaignShard;
import dev.allot.server.store.NewCampaign;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Campaigns ({@link ApiServer} routes them here): many shards of one job submitted together to one allocation, each
 * shard run as an ordinary workload of its owner, a few of them protected and the rest on idle GPUs, the protected
 * slots going to the longest remaining work (the scheduling loop's {@code CampaignController} runs them).
 * <ul>
 *   <li>{@code POST /v1/campaigns}: a member of the allocation (or a manager above it, or an administrator) submits
 *   one, owned by itself: checked field by field ({@link CampaignRequest}) and its shards' workloads as the submissions
 *   they will be ({@link WorkloadIntake}); 201 with its view; audited ({@code campaign.create}).</li>
 *   <li>{@code GET /v1/campaigns}: the campaigns the caller may manage: its own, those in the allocations it manages
 *   (and below), every campaign for an administrator.</li>
 *   <li>{@code GET /v1/campaigns/{name}}: any signed-in user reads one (as for workloads: its command and environment
 *   only for those who may see the workloads' ones).</li>
 *   <li>{@code PUT /v1/campaigns/{name}/brakes}: its owner, a manager of its allocation or above, or an administrator
 *   sets its caps (the whole set; audited).</li>
 *   <li>{@code POST /v1/campaigns/{name}/retry}: the same people queue again the shards held because their workload
 *   failed or was cancelled ({@code {"shards": [1, 3]}}, or every such shard without a body), each from its units
 *   done: the babysitter's resubmission, by a person's decision (beyond the campaign's {@code failureRetries}, a
 *   failed shard is not resubmitted by itself).</li>
 *   <li>{@code DELETE /v1/campaigns/{name}}: the same people cancel it and its workloads.</li>
 * </ul>
 */
final class CampaignsApi {
    private final Store store;
    private final Clock clock;
    private final JsonIo io;
    private final WorkloadIntake intake;
    private final Runnable changed;
    private final Runnable cancelled;
    private final LivePolicy policy;

    CampaignsApi(Store store, Clock clock, JsonIo io, WorkloadIntake intake, LivePolicy policy, Runnable changed,
                 Runnable cancelled) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = Objects.requireNonNull(io, "io");
        this.intake = Objects.requireNonNull(intake, "intake");
        this.changed = Objects.requireNonNull(changed, "changed");
        this.cancelled = Objects.requireNonNull(cancelled, "cancelled");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    void create(Context ctx, User user) {
        CampaignRequest r = CampaignRequest.parse(io.body(ctx));
        NewCampaign c;
        try {
            c = r.toNew(user.name());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage(), null); // CampaignRequest checks all of it: a second line
        }
        long now = clock.millis();
        Permissions permissions = Permissions.of(store.allocations().allocations());
        Campaign planned = c.as(now);
        // Every shard's workload is a submission of the owner's: the first and the last (the longest index) are checked
        // as they will be submitted, so that the campaign is refused now rather than its shards later.
        for (int i : new TreeSet<>(List.of(0, c.shards().size() - 1))) {
            NewCampaign.Shard s = c.shards().get(i);
            CampaignShard shard = new CampaignShard(c.name(), i, s.family(), s.units(), 0, 0, null, null, null, null,
                    null, null, null);
            try {
                intake.checked(ShardSubmissions.body(planned, shard, ShardTier.PROTECTED), user, permissions);
            } catch (ApiException e) {
                throw e.field() != null && e.field().equals("duration") ? ApiException.badField("secondsPerUnit",
                        "shard " + i + "'s expected running time (its units x secondsPerUnit) is out of range: "
                                + e.getMessage(), "declare a smaller rate, or none") : e;
            }
        }
        store.campaigns().create(c, user.name(), now);
        changed.run();
        io.json(ctx, 201, view(c.name(), true));
    }

    void list(Context ctx, User user) {
        QueryParams.only(ctx, java.util.List.of(), "GET /v1/campaigns takes no parameters: it lists your campaigns"
                + " and those in allocations you manage (every campaign for an administrator)");
        Permissions permissions = Permissions.of(store.allocations().allocations());
        // who may manage a campaign sees it listed: a manager retried and cancelled the campaigns below it, but
        // found them in no list
        // (a user who manages nothing reads its own alone)
        boolean ownOnly = !permissions.mayReadAudit(user);
        List<Views.CampaignView> out = store.campaigns().campaigns(ownOnly ? user.name() : null).stream()
                .filter(c -> mayManage(permissions, user, c)).map(c -> view(c.name(), true)).toList();
        io.json(ctx, 200, new Views.CampaignList(out));
    }

    void show(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/campaigns/NAME");
        Campaign c = require(ctx.pathParam("name"));
        io.json(ctx, 200, view(c.name(), mayManage(Permissions.of(store.allocations().allocations()), user, c)));
    }

    void putBrakes(Context ctx, User user) {
        Campaign c = requireManaged(ctx.pathParam("name"), user, "change the brakes of");
        ShardBrakes brakes = CampaignRequest.parseBrakes(io.body(ctx));
        store.campaigns().putBrakes(c.name(), brakes, user.name(), clock.millis());
        changed.run();
        io.json(ctx, 200, view(c.name(), true));
    }

    void cancel(Context ctx, User user) {
        Campaign c = requireManaged(ctx.pathParam("name"), user, "cancel");
        if (c.state() == Campaign.State.DONE) {
            throw new ApiException(409, "campaign '" + c.name() + "' is done; there is nothing to cancel", null,
                    "GET /v1/campaigns/" + c.name() + " shows it");
        }
        store.campaigns().cancel(c.name(), user.name(), clock.millis());
        cancelled.run();
        io.json(ctx, 200, view(c.name(), true));
    }

    void retry(Context ctx, User user) {
        Campaign c = requireManaged(ctx.pathParam("name"), user, "retry shards of");
        if (c.state() != Campaign.State.RUNNING) {
            throw new ApiException(409, "campaign '" + c.name() + "' is " + c.state().label() + "; only a running"
                    + " campaign's shards are retried", null, c.state() == Campaign.State.DONE
                    ? "every unit of it is done" : "submit it again under another name to run it again");
        }
        List<CampaignShard> shards = store.campaigns().snapshot(c.name(), clock.millis()).shards();
        List<Integer> asked = retryShards(ctx, c.name(), shards.size());
        List<Integer> chosen = asked != null ? asked : shards.stream()
                .filter(s -> s.heldBy() == CampaignShard.HeldBy.FAILURE).map(CampaignShard::index).toList();
        if (chosen.isEmpty()) {
            throw new ApiException(409, "no shard of campaign '" + c.name() + "' is held after its workload failed or"
                    + " was cancelled; there is nothing to retry", null, "GET /v1/campaigns/" + c.name() + " shows it");
        }
        for (int i : chosen) {
            CampaignShard s = shards.get(i);
            if (s.heldBy() != CampaignShard.HeldBy.FAILURE) {
                throw new ApiException(409, "shard " + i + " of campaign '" + c.name() + "' is not held after a failure"
                        + (s.held() ? " (" + s.heldReason() + ")" : s.done() ? ": it is done" : ": it is queued or runs")
                        + "; only such a shard is retried", "shards",
                        s.heldBy() == CampaignShard.HeldBy.BRAKES ? "a shard its brakes hold runs again once its cap is"
                                + " raised above what it spent (PUT /v1/campaigns/" + c.name() + "/brakes)"
                                : "GET /v1/campaigns/" + c.name() + " shows it");
            }
        }
        long now = clock.millis();
        List<Integer> retried = chosen.stream().filter(i -> store.campaigns().release(c.name(), i,
                CampaignShard.HeldBy.FAILURE, "retried by " + user.name(), user.name(), now)).toList();
        changed.run();
        io.json(ctx, 200, new Views.CampaignRetry(retried, view(c.name(), true)));
    }

    /** The shards a retry names ({@code {"shards": [1, 3]}}), or null for every shard held after a failure. */
    private List<Integer> retryShards(Context ctx, String name, int count) {
        if (JsonIo.text(ctx).isBlank()) {
            return null;
        }
        JsonNode body = io.body(ctx);
        String hint = "send {\"shards\": [1, 3]}, or no body to retry every shard held after a failure";
        if (!body.isObject()) {
            throw ApiException.badRequest("expected a JSON object, got " + body.getNodeType().name().toLowerCase(
                    Locale.ROOT), hint);
        }
        Iterator<String> fields = body.fieldNames();
        while (fields.hasNext()) {
            String f = fields.next();
            if (!f.equals("shards")) {
                throw ApiException.badField(f, "not a field of a retry (it takes only 'shards')", hint);
            }
        }
        JsonNode list = body.path("shards");
        if (list.isMissingNode() || list.isNull()) {
            return null;
        }
        if (!list.isArray() || list.isEmpty()) {
            throw ApiException.badField("shards", "expected a non-empty list of shard indexes, got " + list, hint);
        }
        TreeSet<Integer> out = new TreeSet<>();
        for (JsonNode n : list) {
            if (!n.isIntegralNumber() || n.asLong() < 0 || n.asLong() >= count) {
                throw ApiException.badField("shards", "expected shards of campaign '" + name + "', whole numbers from 0"
                        + " to " + (count - 1) + ", got " + n, "GET /v1/campaigns/" + name + " shows it");
            }
            out.add(n.asInt());
        }
        return List.copyOf(out);
    }

    private Campaign requireManaged(String name, User user, String what) {
        Campaign c = require(name);
        if (!mayManage(Permissions.of(store.allocations().allocations()), user, c)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not " + what + " campaign '" + name + "'",
                    "its owner, a manager of allocation '" + c.allocationPath() + "' or above, or an administrator"
                            + " may");
        }
        return c;
    }

    /** Its owner, a manager of its allocation or above, an administrator: who may change it and see its command. */
    private static boolean mayManage(Permissions permissions, User user, Campaign c) {
        return permissions.ownerManagerOrAdmin(user, c.owner(), c.allocationPath());
    }

    private Campaign require(String name) {
        return store.campaigns().campaign(name).orElseThrow(() -> ApiException.notFound("no campaign '" + name + "'",
                "GET /v1/campaigns lists yours"));
    }

    private Views.CampaignView view(String name, boolean details) {
        long now = clock.millis();
        CampaignStatus s = CampaignStatus.of(store.campaigns().snapshot(name, now), now);
        Campaign c = s.campaign();
        ShardBrakes b = c.brakes();
        List<Views.ShardStatusView> shards = s.shards().stream().map(x -> new Views.ShardStatusView(x.index(),
                x.workload(), x.family(), x.units(), x.unitsDone(), x.phase(), x.tier(), round(x.secondsPerUnit()),
                x.rateSource(), x.remainingSeconds(), instant(x.etaAtMillis()), x.heldReason(),
                round(x.gpuHoursUsed()), x.requeues(), instant(x.promotedAtMillis()), x.promotionDetail(),
                x.failures())).toList();
        return new Views.CampaignView(c.name(), c.owner(), c.allocationPath(), c.state().label(),
                c.slots().describe(), "allot", c.gpus(), Durations.formatSeconds(c.minRuntimeSeconds()),
                // its shards are workloads: the cap cuts their minimum runtime as any other's, and the answer says so
                policy.current().scheduler().minRuntimeCapNote(c.minRuntimeSeconds()),
                c.priority().label(), c.secondsPerUnit(), details ? c.command() : null,
                details ? c.environment() : null, !details,
                new Views.CampaignBrakesView(b.shardGpuHours(), b.shardRequeues(), b.campaignGpuHours(),
                        b.campaignCost(), b.pricePerGpuHour()), c.failureRetries(),
                Views.instant(c.createdAtMillis()), s.unitsTotal(), s.unitsDone(), round(s.gpuHoursUsed()),
                round(s.gpuHoursCharged()), instant(s.etaAtMillis()), shards);
    }

    private static String instant(Long millis) {
        return millis == null ? null : Views.instant(millis);
    }

    private static double round(double x) {
        return Math.round(x * 10_000) / 10_000.0;
    }
}
