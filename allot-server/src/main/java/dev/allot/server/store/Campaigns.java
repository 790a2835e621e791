package dev.allot.server.store;

import dev.allot.core.campaign.ShardBrakes;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;

/**
 * The campaigns part of the {@link Store} ({@link Store#campaigns()}): campaigns, their shards, and the link from each
 * shard to every workload it had. A shard's workload is an ordinary workload of the campaign's owner, inserted by
 * {@link #queue} in the same transaction that makes it the shard's, so a crash never leaves a workload no shard knows
 * of, nor a shard pointing at nothing. Progress reported by a shard's workload raises the shard's units done and its
 * measured time in the transaction that records the report ({@link Workloads#reportProgress(String, long, long, Long)}).
 * Every change a person or the scheduler makes to a campaign is written to the audit trail (subject
 * {@code campaign:NAME}) in the same transaction.
 */
public final class Campaigns {
    private static final String CAMPAIGN_COLUMNS = "name, owner, allocation_path, command, environment, gpus,"
            + " min_runtime_seconds, protected_shards, protected_gpus, seconds_per_unit, priority, shard_gpu_hours,"
            + " shard_requeues, campaign_gpu_hours, campaign_cost, price_per_gpu_hour, failure_retries, state, created_at_ms";
    private static final String SHARD_COLUMNS = "campaign_name, shard_index, family, units_total, units_done,"
            + " measured_ms, measured_attempt, measured_until_ms, workload_id, held_by, held_reason, promotion_detail,"
            + " done_at_ms";
    private static final String WAITING = "('pending', 'requeued')";

    private final Transactions transactions;
    private final Workloads workloads;
    /** Counts the changes made through this part, so the scheduler can tell cheaply that something changed. */
    private final AtomicLong changes = new AtomicLong();

    Campaigns(Transactions transactions, Workloads workloads) {
        this.transactions = transactions;
        this.workloads = workloads;
    }

    /** How many changes this store made to campaigns since it opened (any change: a new campaign, a move, progress). */
    public long changes() {
        return changes.get();
    }

    void changed() {
        changes.incrementAndGet();
    }

    /**
     * Stores a new campaign, running, with its shards (none queued yet: the scheduler queues them), and audits it
     * ({@code campaign.create}).
     *
     * @throws ConflictException when a campaign of that name exists
     */
    public Campaign create(NewCampaign c, String actor, long nowMillis) {
        Objects.requireNonNull(c, "campaign");
        Campaign campaign = c.as(nowMillis);
        Campaign stored = transactions.tx("create campaign " + c.name(), h -> {
            if (find(h, c.name()).isPresent()) {
                throw new ConflictException("a campaign named '" + c.name() + "' exists already; campaign names are"
                        + " unique, pick another");
            }
            ShardBrakes b = campaign.brakes();
            h.createUpdate("INSERT INTO campaigns (" + CAMPAIGN_COLUMNS + ") VALUES (:name, :owner, :allocation,"
                            + " :command, :environment, :gpus, :minRuntime, :protectedShards, :protectedGpus,"
                            + " :secondsPerUnit, :priority, :shardGpuHours, :shardRequeues, :campaignGpuHours,"
                            + " :campaignCost, :price, :failureRetries, 'running', :created)")
                    .bind("name", campaign.name()).bind("owner", campaign.owner())
                    .bind("allocation", campaign.allocationPath())
                    .bind("command", Rows.toJson(campaign.command()))
                    .bind("environment", Rows.toJson(campaign.environment()))
                    .bind("gpus", campaign.gpus()).bind("minRuntime", campaign.minRuntimeSeconds())
                    .bind("protectedShards", campaign.protectedShards()).bind("protectedGpus", campaign.protectedGpus())
                    .bind("secondsPerUnit", campaign.secondsPerUnit()).bind("priority", campaign.priority().label())
                    .bind("shardGpuHours", b.shardGpuHours()).bind("shardRequeues", b.shardRequeues())
                    .bind("campaignGpuHours", b.campaignGpuHours()).bind("campaignCost", b.campaignCost())
                    .bind("price", b.pricePerGpuHour()).bind("failureRetries", campaign.failureRetries())
                    .bind("created", nowMillis)
                    .execute();
            var batch = h.prepareBatch("INSERT INTO campaign_shards (campaign_name, shard_index, family, units_total)"
                    + " VALUES (:name, :index, :family, :units)");
            for (int i = 0; i < c.shards().size(); i++) {
                NewCampaign.Shard s = c.shards().get(i);
                batch.bind("name", c.name()).bind("index", i).bind("family", s.family()).bind("units", s.units()).add();
            }
            batch.execute();
            Allocations.audit(h, nowMillis, actor, "campaign.create", subject(c.name()), null,
                    Rows.toJson(Map.of("allocation", c.allocationPath(), "shards", c.shards().size(),
                            "protected", campaign.slots().describe(), "owner", c.owner())));
            return campaign;
        });
        changed();
        return stored;
    }

    /** The campaign of that name, if there is one. */
    public Optional<Campaign> campaign(String name) {
        Objects.requireNonNull(name, "name");
        return transactions.read("read campaign " + name, h -> find(h, name));
    }

    /** Every campaign of {@code owner} (every campaign when null), newest first. */
    public List<Campaign> campaigns(String owner) {
        return transactions.read("list campaigns", h -> {
            var q = h.createQuery("SELECT " + CAMPAIGN_COLUMNS + " FROM campaigns"
                    + (owner == null ? "" : " WHERE owner = :owner") + " ORDER BY created_at_ms DESC, name");
            if (owner != null) {
                q.bind("owner", owner);
            }
            return q.map((rs, ctx) -> CampaignRows.campaign(rs)).list();
        });
    }

    /** The names of the running campaigns, oldest first: what the scheduler plans for every cycle. */
    public List<String> running() {
        return transactions.read("list running campaigns", h -> h.createQuery("SELECT name FROM campaigns"
                + " WHERE state = 'running' ORDER BY created_at_ms, name").mapTo(String.class).list());
    }

    /**
     * The campaign, its shards, their current workloads, what their runs add up to (open attempts counting to
     * {@code nowMillis}) and the last attempts of their current workloads, read together.
     *
     * @throws NotFoundException when there is no such campaign
     */
    public CampaignSnapshot snapshot(String name, long nowMillis) {
        Objects.requireNonNull(name, "name");
        return transactions.read("read campaign " + name, h -> {
            Campaign c = require(h, name);
            List<CampaignShard> shards = shards(h, name);
            Map<String, Workload> current = new HashMap<>();
            h.createQuery("SELECT " + Workloads.WORKLOAD_COLUMNS_OF_W + " FROM workloads w JOIN campaign_shards s"
                            + " ON s.workload_id = w.id WHERE s.campaign_name = :name")
                    .bind("name", name).map((rs, ctx) -> Rows.workload(rs))
                    .forEach(w -> current.put(w.id(), w));
            Map<Integer, CampaignSnapshot.ShardRuns> runs = new HashMap<>();
            h.createQuery("SELECT cw.shard_index,"
                            + " SUM(CASE WHEN a.outcome IN ('preempted', 'requeued', 'lost') THEN 1 ELSE 0 END),"
                            + " SUM(CASE WHEN COALESCE(a.ended_at_ms, :now) > a.started_at_ms"
                            + " THEN w.gpus * (COALESCE(a.ended_at_ms, :now) - a.started_at_ms) ELSE 0 END),"
                            + " SUM(CASE WHEN a.charged_from_ms IS NOT NULL AND COALESCE(a.ended_at_ms, :now) >"
                            + " a.charged_from_ms THEN w.gpus * (COALESCE(a.ended_at_ms, :now) - a.charged_from_ms)"
                            + " ELSE 0 END)"
                            + " FROM campaign_workloads cw JOIN attempts a ON a.workload_id = cw.workload_id"
                            + " JOIN workloads w ON w.id = cw.workload_id"
                            + " WHERE cw.campaign_name = :name GROUP BY cw.shard_index")
                    .bind("name", name).bind("now", nowMillis)
                    .map((rs, ctx) -> Map.entry(rs.getInt(1), new CampaignSnapshot.ShardRuns(rs.getInt(2),
                            rs.getLong(3), rs.getLong(4), 0)))
                    .forEach(e -> runs.put(e.getKey(), e.getValue()));
            h.createQuery("SELECT cw.shard_index, COUNT(*) FROM campaign_workloads cw JOIN workloads w"
                            + " ON w.id = cw.workload_id WHERE cw.campaign_name = :name AND w.state = :failed"
                            + " GROUP BY cw.shard_index")
                    .bind("name", name).bind("failed", WorkloadState.FAILED.label())
                    .map((rs, ctx) -> Map.entry(rs.getInt(1), rs.getInt(2)))
                    .forEach(e -> runs.merge(e.getKey(), new CampaignSnapshot.ShardRuns(0, 0, 0, e.getValue()),
                            (r, f) -> new CampaignSnapshot.ShardRuns(r.requeues(), r.gpuMillis(),
                                    r.chargedGpuMillis(), f.failures())));
            Map<String, Attempt> last = new HashMap<>();
            h.createQuery("SELECT " + Attempts.ATTEMPT_COLUMNS + " FROM attempts a JOIN campaign_shards s"
                            + " ON s.workload_id = a.workload_id WHERE s.campaign_name = :name AND a.attempt ="
                            + " (SELECT MAX(b.attempt) FROM attempts b WHERE b.workload_id = a.workload_id)")
                    .bind("name", name).map((rs, ctx) -> Rows.attempt(rs))
                    .forEach(a -> last.put(a.key().workloadId(), a));
            return new CampaignSnapshot(c, shards, current, runs, last);
        });
    }

    /**
     * Gives shard {@code index} a new workload: stores {@code w} (pending, the campaign owner's), links it to the shard
     * and makes it the shard's current workload, together; audited ({@code campaign.queue}, with {@code note}). When
     * {@code replacing} is not null the shard's current workload must be that one, waiting, and it is cancelled in the
     * same transaction (a waiting shard changing contract); otherwise the shard must have none.
     *
     * @throws ConflictException when the campaign does not run, the shard is held or done, or its current workload is
     *                           not what the caller expected (or no longer waits)
     */
    public Workload queue(String name, int index, NewWorkload w, String replacing, String actor, long nowMillis,
                          String note) {
        Objects.requireNonNull(w, "workload");
        Workload stored = transactions.tx("queue shard " + index + " of campaign " + name, h -> {
            Campaign c = require(h, name);
            CampaignShard s = requireShard(h, name, index);
            if (c.state() != Campaign.State.RUNNING || s.held() || s.done()
                    || !Objects.equals(s.workloadId(), replacing)) {
                throw new ConflictException("shard " + index + " of campaign " + name + " cannot be queued: campaign "
                        + c.state().label() + ", shard " + (s.held() ? "held" : s.done() ? "done" : "with workload "
                        + s.workloadId()) + (replacing == null ? "" : ", expected workload " + replacing));
            }
            if (replacing != null && cancelIfWaiting(h, replacing) == 0) {
                throw new ConflictException("workload " + replacing + " of shard " + index + " of campaign " + name
                        + " no longer waits; it is not replaced");
            }
            Workload inserted = workloads.insert(h, w);
            h.createUpdate("INSERT INTO campaign_workloads (workload_id, campaign_name, shard_index)"
                    + " VALUES (:id, :name, :index)").bind("id", inserted.id()).bind("name", name)
                    .bind("index", index).execute();
            h.createUpdate("UPDATE campaign_shards SET workload_id = :id WHERE campaign_name = :name"
                    + " AND shard_index = :index").bind("id", inserted.id()).bind("name", name)
                    .bind("index", index).execute();
            Allocations.audit(h, nowMillis, actor, "campaign.queue", subject(name),
                    replacing == null ? null : Rows.toJson(Map.of("shard", index, "workload", replacing)),
                    Rows.toJson(shardEvent(index, inserted.id(), note)));
            return inserted;
        });
        changed();
        return stored;
    }

    /**
     * Holds shard {@code index} with this reason: it gets no new workload until {@link #release}d. A current workload
     * that waits is cancelled (and the shard left without one); one that runs is left running, and then nothing is held
     * (false): a running shard finishes its attempt, the caller holds it once it waits. Audited ({@code campaign.hold})
     * when the hold or its reason changed.
     */
    public boolean hold(String name, int index, CampaignShard.HeldBy by, String reason, String actor, long nowMillis) {
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(reason, "reason");
        boolean held = transactions.tx("hold shard " + index + " of campaign " + name, h -> {
            CampaignShard s = requireShard(h, name, index);
            if (s.workloadId() != null) {
                Workload w = Workloads.require(h, s.workloadId());
                if (w.state() == WorkloadState.RUNNING) {
                    return false;
                }
                cancelIfWaiting(h, w.id());
            }
            if (by == s.heldBy() && reason.equals(s.heldReason()) && s.workloadId() == null) {
                return true;
            }
            h.createUpdate("UPDATE campaign_shards SET held_by = :by, held_reason = :reason, workload_id = NULL"
                            + " WHERE campaign_name = :name AND shard_index = :index")
                    .bind("by", by.label()).bind("reason", reason).bind("name", name).bind("index", index).execute();
            Allocations.audit(h, nowMillis, actor, "campaign.hold", subject(name), null, Rows.toJson(Map.of(
                    "shard", index, "by", by.label(), "reason", reason)));
            return true;
        });
        changed();
        return held;
    }

    /**
     * Lets shard {@code index}, whose current workload {@code failedWorkloadId} failed, be queued again by itself (the
     * campaign's failure retries): the shard keeps no current workload, so the scheduler queues it from its units
     * done, in one transaction with its audit ({@code campaign.retry}, with {@code why}). False, and nothing changed,
     * when the shard's current workload is another by now or the shard is held.
     */
    public boolean retryAfterFailure(String name, int index, String failedWorkloadId, String why, String actor,
                                     long nowMillis) {
        boolean retried = transactions.tx("retry shard " + index + " of campaign " + name, h -> {
            CampaignShard s = requireShard(h, name, index);
            if (s.held() || !failedWorkloadId.equals(s.workloadId())) {
                return false;
            }
            h.createUpdate("UPDATE campaign_shards SET workload_id = NULL WHERE campaign_name = :name"
                    + " AND shard_index = :index").bind("name", name).bind("index", index).execute();
            Allocations.audit(h, nowMillis, actor, "campaign.retry", subject(name),
                    Rows.toJson(Map.of("shard", index, "workload", failedWorkloadId)),
                    Rows.toJson(Map.of("shard", index, "why", why)));
            return true;
        });
        changed();
        return retried;
    }

    /** Releases a held shard (audited, {@code campaign.release}): the scheduler queues it again. */
    public void release(String name, int index, String why, String actor, long nowMillis) {
        release(name, index, null, why, actor, nowMillis);
    }

    /**
     * Releases shard {@code index} if it is held, and by {@code by} unless that is null (audited, {@code
     * campaign.release}): the scheduler queues it again, from its units done. True when it was released.
     */
    public boolean release(String name, int index, CampaignShard.HeldBy by, String why, String actor, long nowMillis) {
        boolean released = transactions.tx("release shard " + index + " of campaign " + name, h -> {
            CampaignShard s = requireShard(h, name, index);
            if (!s.held() || (by != null && s.heldBy() != by)) {
                return false;
            }
            h.createUpdate("UPDATE campaign_shards SET held_by = NULL, held_reason = NULL WHERE campaign_name = :name"
                    + " AND shard_index = :index").bind("name", name).bind("index", index).execute();
            Allocations.audit(h, nowMillis, actor, "campaign.release", subject(name),
                    Rows.toJson(Map.of("shard", index, "reason", s.heldReason())),
                    Rows.toJson(Map.of("shard", index, "why", why)));
            return true;
        });
        changed();
        return released;
    }

    /**
     * The shard's workload completed ({@code last}, its last attempt, ended completed): every unit is done, and the
     * stretch of that attempt after its last measured report is measured time too.
     */
    public void completed(String name, int index, Attempt last) {
        Objects.requireNonNull(last, "last");
        transactions.tx("complete shard " + index + " of campaign " + name, h -> {
            CampaignShard s = requireShard(h, name, index);
            if (s.doneAtMillis() != null && s.unitsDone() == s.unitsTotal()) {
                return null;
            }
            long end = last.endedAtMillis() == null ? last.startedAtMillis() : last.endedAtMillis();
            long added = s.unitsDone() >= s.unitsTotal() ? 0 : Math.max(0, end - since(s, last));
            h.createUpdate("UPDATE campaign_shards SET units_done = units_total, measured_ms = measured_ms + :added,"
                            + " done_at_ms = COALESCE(done_at_ms, :end) WHERE campaign_name = :name"
                            + " AND shard_index = :index")
                    .bind("added", added).bind("end", end).bind("name", name).bind("index", index).execute();
            return null;
        });
        changed();
    }

    /**
     * Records that shard {@code index}'s workload was promoted in place and what the backend showed of it (audited,
     * {@code campaign.promote}).
     */
    public void promoted(String name, int index, String workloadId, int attempt, boolean mirrored, String detail,
                         String why, String actor, long nowMillis) {
        transactions.tx("record the promotion of shard " + index + " of campaign " + name, h -> {
            requireShard(h, name, index);
            h.createUpdate("UPDATE campaign_shards SET promotion_detail = :detail WHERE campaign_name = :name"
                    + " AND shard_index = :index").bind("detail", detail).bind("name", name).bind("index", index)
                    .execute();
            Map<String, Object> after = new LinkedHashMap<>();
            after.put("shard", index);
            after.put("workload", workloadId);
            after.put("attempt", attempt);
            after.put("mirrored", mirrored);
            after.put("detail", detail);
            after.put("why", why);
            Allocations.audit(h, nowMillis, actor, "campaign.promote", subject(name), null, Rows.toJson(after));
            return null;
        });
        changed();
    }

    /**
     * Sets a campaign's caps (audited, {@code campaign.brakes}); the scheduler applies them at its next cycle.
     *
     * @throws NotFoundException when there is no such campaign
     */
    public Campaign putBrakes(String name, ShardBrakes brakes, String actor, long nowMillis) {
        Objects.requireNonNull(brakes, "brakes");
        Campaign after = transactions.tx("set the brakes of campaign " + name, h -> {
            Campaign before = require(h, name);
            h.createUpdate("UPDATE campaigns SET shard_gpu_hours = :shardGpuHours, shard_requeues = :shardRequeues,"
                            + " campaign_gpu_hours = :campaignGpuHours, campaign_cost = :campaignCost,"
                            + " price_per_gpu_hour = :price WHERE name = :name")
                    .bind("shardGpuHours", brakes.shardGpuHours()).bind("shardRequeues", brakes.shardRequeues())
                    .bind("campaignGpuHours", brakes.campaignGpuHours()).bind("campaignCost", brakes.campaignCost())
                    .bind("price", brakes.pricePerGpuHour()).bind("name", name).execute();
            Allocations.audit(h, nowMillis, actor, "campaign.brakes", subject(name), Rows.toJson(before.brakes()),
                    Rows.toJson(brakes));
            return require(h, name);
        });
        changed();
        return after;
    }

    /**
     * Cancels a running campaign (audited, {@code campaign.cancel}): it becomes cancelled, and each shard's current
     * workload is cancelled as {@link Workloads#requestCancel} does (a waiting one at once, a running one once the
     * scheduler has stopped it). A campaign that is not running is left as it is.
     *
     * @throws NotFoundException when there is no such campaign
     */
    public Campaign cancel(String name, String actor, long nowMillis) {
        Campaign after = transactions.tx("cancel campaign " + name, h -> {
            Campaign c = require(h, name);
            if (c.state() != Campaign.State.RUNNING) {
                return c;
            }
            h.createUpdate("UPDATE campaigns SET state = 'cancelled' WHERE name = :name").bind("name", name).execute();
            for (CampaignShard s : shards(h, name)) {
                if (s.workloadId() != null && cancelIfWaiting(h, s.workloadId()) == 0) {
                    h.createUpdate("UPDATE workloads SET cancel_requested = :yes WHERE id = :id AND state = 'running'")
                            .bind("yes", true).bind("id", s.workloadId()).execute();
                }
            }
            Allocations.audit(h, nowMillis, actor, "campaign.cancel", subject(name), Rows.toJson(Map.of("state",
                    c.state().label())), Rows.toJson(Map.of("state", "cancelled")));
            return require(h, name);
        });
        changed();
        return after;
    }

    /** Marks a running campaign done (every shard done), audited ({@code campaign.done}). */
    public void finish(String name, String actor, long nowMillis) {
        transactions.tx("finish campaign " + name, h -> {
            int n = h.createUpdate("UPDATE campaigns SET state = 'done' WHERE name = :name AND state = 'running'")
                    .bind("name", name).execute();
            if (n == 1) {
                Allocations.audit(h, nowMillis, actor, "campaign.done", subject(name), null, null);
            }
            return null;
        });
        changed();
    }

    /** Writes an entry about campaign {@code name} to the audit trail (a move of the scheduler's: a change of tier). */
    public void audit(String name, String action, Map<String, Object> after, String actor, long nowMillis) {
        transactions.tx("audit campaign " + name, h -> {
            Allocations.audit(h, nowMillis, actor, action, subject(name), null, Rows.toJson(new java.util.TreeMap<>(after)));
            return null;
        });
    }

    /** Which shard a workload runs (or ran), with the shard's units: for progress reports and launches. */
    public record ShardOfWorkload(String campaign, int index, long unitsTotal, long unitsDone) {
    }

    /** The shard a workload belongs to, if it was ever one's. */
    public Optional<ShardOfWorkload> shardOf(String workloadId) {
        Objects.requireNonNull(workloadId, "workloadId");
        return transactions.read("find the shard of workload " + workloadId, h -> h.createQuery("SELECT s.campaign_name,"
                        + " s.shard_index, s.units_total, s.units_done FROM campaign_workloads cw JOIN campaign_shards s"
                        + " ON s.campaign_name = cw.campaign_name AND s.shard_index = cw.shard_index"
                        + " WHERE cw.workload_id = :id")
                .bind("id", workloadId)
                .map((rs, ctx) -> new ShardOfWorkload(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4)))
                .findOne());
    }

    /**
     * Progress reported by workload {@code workloadId}, in the transaction that records it: when the workload is (or
     * was) a shard's, the shard's units done become {@code done} if that is more (never fewer: a unit reported done is
     * never scheduled again), and, when {@code nowMillis} is known and the workload runs, the time since the later of
     * its attempt's start and that attempt's previous raising report is added to the shard's measured time.
     */
    static void progress(Handle h, String workloadId, long done, Long nowMillis) {
        Optional<CampaignShard> shard = h.createQuery("SELECT " + CampaignRows.prefixed(SHARD_COLUMNS, "s") + " FROM campaign_shards s"
                        + " JOIN campaign_workloads cw ON cw.campaign_name = s.campaign_name"
                        + " AND cw.shard_index = s.shard_index WHERE cw.workload_id = :id")
                .bind("id", workloadId).map((rs, ctx) -> CampaignRows.shard(rs)).findOne();
        if (shard.isEmpty()) {
            return;
        }
        CampaignShard s = shard.get();
        long units = Math.min(done, s.unitsTotal());
        if (units <= s.unitsDone()) {
            return;
        }
        long measured = s.measuredMillis();
        String attempt = s.measuredAttempt();
        Long until = s.measuredUntilMillis();
        Optional<Attempt> open = nowMillis == null ? Optional.empty()
                : h.createQuery("SELECT " + Attempts.ATTEMPT_COLUMNS + " FROM attempts a WHERE a.workload_id = :id"
                        + " AND a.phase <> 'ended'").bind("id", workloadId).map((rs, ctx) -> Rows.attempt(rs)).findOne();
        if (open.isPresent()) {
            measured += Math.max(0, nowMillis - since(s, open.get()));
            attempt = attemptLabel(open.get());
            until = nowMillis;
        }
        h.createUpdate("UPDATE campaign_shards SET units_done = :units, measured_ms = :measured,"
                        + " measured_attempt = :attempt, measured_until_ms = :until,"
                        + " done_at_ms = CASE WHEN :units = units_total THEN COALESCE(done_at_ms, :at) ELSE done_at_ms END"
                        + " WHERE campaign_name = :name AND shard_index = :index")
                .bind("units", units).bind("measured", measured).bind("attempt", attempt).bind("until", until)
                .bind("at", nowMillis == null ? Long.valueOf(0) : nowMillis)
                .bind("name", s.campaign()).bind("index", s.index()).execute();
    }

    /** Where the next measured stretch of attempt {@code a} starts: its start, or its last measured report. */
    private static long since(CampaignShard s, Attempt a) {
        long since = a.startedAtMillis();
        if (attemptLabel(a).equals(s.measuredAttempt()) && s.measuredUntilMillis() != null) {
            since = Math.max(since, s.measuredUntilMillis());
        }
        return since;
    }

    private static String attemptLabel(Attempt a) {
        return a.key().toString();
    }

    private static Map<String, Object> shardEvent(int index, String workloadId, String note) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("shard", index);
        m.put("workload", workloadId);
        m.put("note", note);
        return m;
    }

    /** Cancels a waiting workload (as {@link Workloads#requestCancel} does for one): 1 if it waited, else 0. */
    private static int cancelIfWaiting(Handle h, String workloadId) {
        return h.createUpdate("UPDATE workloads SET state = 'cancelled', cancel_requested = :yes, held_reason = NULL"
                + " WHERE id = :id AND state IN " + WAITING).bind("yes", true).bind("id", workloadId).execute();
    }

    static String subject(String name) {
        return "campaign:" + name;
    }

    private static Optional<Campaign> find(Handle h, String name) {
        return h.createQuery("SELECT " + CAMPAIGN_COLUMNS + " FROM campaigns WHERE name = :name").bind("name", name)
                .map((rs, ctx) -> CampaignRows.campaign(rs)).findOne();
    }

    private static Campaign require(Handle h, String name) {
        return find(h, name).orElseThrow(() -> new NotFoundException("no campaign " + name));
    }

    private static List<CampaignShard> shards(Handle h, String name) {
        return h.createQuery("SELECT " + SHARD_COLUMNS + " FROM campaign_shards WHERE campaign_name = :name"
                + " ORDER BY shard_index").bind("name", name).map((rs, ctx) -> CampaignRows.shard(rs)).list();
    }

    private static CampaignShard requireShard(Handle h, String name, int index) {
        return h.createQuery("SELECT " + SHARD_COLUMNS + " FROM campaign_shards WHERE campaign_name = :name"
                        + " AND shard_index = :index").bind("name", name).bind("index", index)
                .map((rs, ctx) -> CampaignRows.shard(rs)).findOne()
                .orElseThrow(() -> new NotFoundException("no shard " + index + " in campaign " + name));
    }
}
