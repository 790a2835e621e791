package dev.allot.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.Launch;
import dev.allot.core.model.Durations;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AuditEntry;
import dev.allot.server.store.Node;
import dev.allot.server.store.Workload;
import java.util.List;
import java.util.SortedMap;

/**
 * The JSON the API answers with, as records, one per resource. Kept apart from the store's records so the wire
 * format is chosen here (labels in lower case, durations as text, times as ISO-8601 instants, the client's own
 * idempotency key) and a change to the store does not silently change the API.
 */
final class Views {
    /** The settings the service schedules with ({@code Service} gives the loop the defaults): the minimum runtime cap. */

    private Views() {
    }

    /**
     * A workload as the API shows it. {@code command} and {@code environment} are null and {@code redacted} true for
     * a viewer who may not see them ({@link Permissions#maySeeDetails}): they may hold secrets. {@code minRuntime} is
     * the minimum runtime that applies; when the cap cut the declared one, {@code minRuntimeAsked} is what was declared
     * and {@code minRuntimeNote} says so (both null otherwise). {@code starting} is true while the workload is running
     * but its attempt is still launching: the backend was asked to start it and has not yet reported it running (on
     * Slurm, until the job is seen running on the GPUs Allot placed it on); the scheduler counts it running meanwhile
     * (its GPUs held, its minimum runtime protected), and {@code allot queue} shows it as starting.
     */
    record WorkloadView(
            String id,
            long seq,
            String allocation,
            String user,
            int gpus,
            int gpusPerNode,
            String minRuntime,
            boolean allocated,
            String duration,
            boolean resumable,
            String priority,
            String kind,
            List<String> command,
            SortedMap<String, String> environment,
            String state,
            String submittedAt,
            Progress progress,
            boolean cancelRequested,
            String idempotencyKey,
            String heldReason,
            boolean redacted,
            String minRuntimeAsked,
            String minRuntimeNote,
            boolean starting) {
    }

    /** Progress the workload last reported, {@code done} out of {@code total}. */
    record Progress(long done, long total) {
    }

    /**
     * A campaign as the API shows it ({@code GET /v1/campaigns/{name}}): what it was submitted with, where it stands
     * and each shard. {@code command} and {@code environment} are null and {@code redacted} true for a viewer who may
     * not see them (as for workloads). Hours are rounded to 4 decimals; times are ISO-8601 instants, null when unknown.
     */
    record CampaignView(String name, String owner, String allocation, String state, String protectedSlots,
                        String strategy, int gpus, String minRuntime, String minRuntimeNote, String priority,
                        Double secondsPerUnit,
                        List<String> command, SortedMap<String, String> environment, boolean redacted,
                        CampaignBrakesView brakes, int failureRetries, String createdAt, long unitsTotal, long unitsDone,
                        double gpuHoursUsed, double gpuHoursCharged, String etaAt, List<ShardStatusView> shards) {
    }

    /** A campaign's caps; null for no cap. */
    record CampaignBrakesView(Double shardGpuHours, Integer shardRequeues, Double campaignGpuHours, Double campaignCost,
                              Double pricePerGpuHour) {
    }

    /** One shard of a campaign: see {@code dev.allot.server.campaign.CampaignStatus.Shard}. */
    record ShardStatusView(int index, String workload, String family, long units, long unitsDone, String phase,
                           String tier, double secondsPerUnit, String rateSource, long remainingSeconds, String etaAt,
                           String heldReason, double gpuHoursUsed, int requeues, String promotedAt,
                           String promotionDetail, int failures) {
    }

    record CampaignList(List<CampaignView> campaigns) {
    }

    /** The answer of {@code POST /v1/campaigns/{name}/retry}: the shards queued again, and the campaign after. */
    record CampaignRetry(List<Integer> retried, CampaignView campaign) {
    }

    /**
     * A workload with its attempts, oldest first: the answer of {@code GET /v1/workloads/{id}}. {@code campaign}: the
     * campaign shard it runs (or ran) for, null when it is no shard's; named to everyone who may read the workload, as
     * the campaign itself is ({@code GET /v1/campaigns/{name}}), unlike the {@code ALLOT_CAMPAIGN} in its environment.
     * {@code cannotRun}: why the scheduler cannot take it in (its shape does not fit the cluster as it is now), as the
     * queue's entry says it ({@link WorkloadExplainer#cannotRun}); null otherwise.
     */
    record WorkloadDetail(WorkloadView workload, List<AttemptView> attempts, CampaignShardRef campaign,
                          String cannotRun) {
    }

    /** Shard {@code shard} of campaign {@code name}. */
    record CampaignShardRef(String name, int shard) {
    }

    record AttemptView(
            int attempt,
            List<Launch.NodeGpus> placement,
            int gpus,
            String phase,
            String startedAt,
            String endedAt,
            String outcome,
            String reason,
            String preemptor,
            Double lostGpuSeconds) {
    }

    record AllocationView(String path, String parent, double share, List<String> managers, List<String> members) {
    }

    record NodeView(String name, int gpus, boolean healthy, String reason, String updatedAt) {
    }

    record WorkloadList(List<WorkloadView> workloads) {
    }

    record AllocationList(List<AllocationView> allocations) {
    }

    record UserView(String name, String role, boolean disabled) {
    }

    record UserList(List<UserView> users) {
    }

    /** A token as listed: never the token itself; {@code mintedBy} the id of the token that minted it, if any. */
    record TokenView(String id, String label, String createdAt, String expiresAt, boolean expired, String mintedBy) {
    }

    record TokenList(List<TokenView> tokens) {
    }

    /** A token just made: the only answer that ever carries the token itself. */
    record NewToken(String id, String user, String label, String createdAt, String expiresAt,
                    String expiryCappedFrom, String token) {
    }

    /** How long tokens live: as durations ({@code 90d}) and in seconds. */
    record TokenPolicyView(String defaultLifetime, String maxLifetime, long defaultLifetimeSeconds,
                           long maxLifetimeSeconds) {
    }

    record NodeList(List<NodeView> nodes) {
    }

    record Health(String status, String time, ServiceHealth.Leader leader,
                  @JsonInclude(JsonInclude.Include.NON_NULL)
                  BackendHealth backend) {
    }

    /**
     * {@code /v1/health}'s {@code backend} while it has not been seen lately (status {@code degraded}): which, when it
     * was last observed (null when not since the service started), since when observations fail, how many in a row,
     * the last failure's message, and what that means for what the API shows.
     */
    record BackendHealth(String name, String lastObservedAt, String failingSince, long failures, String lastError,
                         String note) {
    }

    /** {@code /v1/health} while the service fails: the health fields and the API's error fields in one object. */
    record Failing(String status, String time, String since, long failures, String error, String field, String hint,
                   ServiceHealth.Leader leader) {
    }

    /**
     * The scheduling policy in force: the policy's name, where its settings came from, every effective setting (the
     * shared ones and the policy's own, as {@code policy.yaml} writes them) and the text they were read from.
     */
    record PolicyView(String policy, String source, java.util.Map<String, Object> settings, String text) {
    }

    /** The safety brakes' limits: {@code maxGpuHoursPerWorkload} null when there is no cap. */
    record BrakesView(int maxRequeues, Double maxGpuHoursPerWorkload) {
    }

    /** One change of the audit trail: who, when, what, and the thing before and after (null when absent). */
    record AuditView(long id, String at, String actor, String action, String subject, JsonNode before, JsonNode after) {
    }

    record AuditList(List<AuditView> entries) {
    }

    /**
     * One node of the tree with its entitlement (the product of its normalised shares from the root down) and the
     * GPU-seconds its subtree used in the window; {@code usedFraction} is that usage over all usage in the window,
     * null when nothing was used.
     */
    /**
     * One node of the tree over the window: its entitlement (a fraction of the cluster) and what that buys over the
     * window on the cluster's GPUs, what it used, its fraction of all use, and with {@code step} the same per step.
     */
    record UsageRow(String path, String parent, double share, double entitlement, double entitledGpuSeconds,
                    double gpuSeconds, Double usedFraction, List<UsagePoint> series, double unallocatedGpuSeconds,
                    double owedGpuSeconds, Double paidFraction) {
    }

    /**
     * Usage in one step of the window, starting at {@code start}, against what the entitlement buys in it: allocated
     * ({@code gpuSeconds}, charged) and unallocated GPU time received, and what was owed (entitlement capped by what
     * allocated work asked for).
     */
    record UsagePoint(String start, double gpuSeconds, double entitledGpuSeconds, double unallocatedGpuSeconds,
                      double owedGpuSeconds) {
    }

    record Usage(String since, String until, long windowSeconds, int clusterGpus, String step, double totalGpuSeconds,
                 List<UsageRow> allocations) {
    }

    /**
     * A workload just submitted, with everything in it: for a viewer who may see its command and environment.
     * {@code scheduling}: the shared settings in force (its minimum runtime as the scheduler counts it, capped by
     * max-min-runtime).
     */
    static WorkloadView workload(Workload w, SchedulerConfig scheduling) {
        return workload(w, true, scheduling, false);
    }

    /**
     * A workload, with its command, environment and idempotency key only when {@code details} (else null, and
     * redacted): a key may name its user's pipeline. {@code launching}: whether its open attempt is launching (shown
     * as {@code starting} while the workload runs).
     */
    static WorkloadView workload(Workload w, boolean details, SchedulerConfig scheduling, boolean launching) {
        String capNote = scheduling.minRuntimeCapNote(w.minRuntimeSeconds());
        return new WorkloadView(w.id(), w.seq(), w.allocationPath(), w.user(), w.gpus(), w.gpusPerNode(),
                Durations.formatSeconds(scheduling.minRuntimeSecondsOf(w.minRuntimeSeconds())), w.allocated(),
                w.durationSeconds() == null ? null : Durations.formatSeconds(w.durationSeconds()),
                w.resumable(), w.priority().label(), w.kind(), details ? w.command() : null,
                details ? w.environment() : null, w.state().label(),
                instant(w.submittedAtMillis()),
                w.progressDone() == null ? null : new Progress(w.progressDone(), w.progressTotal()),
                w.cancelRequested(), details ? IdempotencyKeys.clientKey(w.user(), w.idempotencyKey()) : null,
                w.state().waiting() ? w.heldReason() : null, !details,
                capNote == null ? null : Durations.formatSeconds(w.minRuntimeSeconds()), capNote,
                launching && w.state() == dev.allot.server.store.WorkloadState.RUNNING);
    }

    /** Whether the last of these attempts (first to last) is launching. */
    static boolean launching(List<Attempt> attempts) {
        return !attempts.isEmpty()
                && attempts.get(attempts.size() - 1).phase() == dev.allot.server.store.AttemptPhase.LAUNCHING;
    }

    static UserView user(dev.allot.server.store.User u) {
        return new UserView(u.name(), u.role().label(), u.disabled());
    }

    static TokenView token(dev.allot.server.store.Access.TokenInfo t, long nowMillis) {
        return new TokenView(t.id(), t.label(), instant(t.createdAtMillis()), instant(t.expiresAtMillis()),
                t.expiredAt(nowMillis), t.mintedBy());
    }

    static TokenPolicyView tokenPolicy(dev.allot.server.store.TokenPolicy p) {
        return new TokenPolicyView(Durations.formatSeconds(p.defaultLifetimeSeconds()),
                Durations.formatSeconds(p.maxLifetimeSeconds()), p.defaultLifetimeSeconds(), p.maxLifetimeSeconds());
    }

    /**
     * An attempt; its reason with the backend's words only when {@code details} (the viewer may see the workload's
     * command and environment, {@link Permissions#maySeeDetails}), else with them withheld
     * ({@link dev.allot.server.store.AttemptReasons}).
     */
    static AttemptView attempt(Attempt a, boolean details) {
        return new AttemptView(a.key().attempt(), a.placement(), a.gpus(), a.phase().label(), instant(a.startedAtMillis()),
                a.endedAtMillis() == null ? null : instant(a.endedAtMillis()),
                a.outcome() == null ? null : a.outcome().label(), a.reasonFor(details), a.preemptor(),
                a.lostGpuSeconds());
    }

    static AllocationView allocation(Allocation a) {
        return new AllocationView(a.path(), a.parentPath(), a.share(), a.managers(), a.members());
    }

    static NodeView node(Node n) {
        return new NodeView(n.name(), n.gpus(), n.healthy(), n.reason(), instant(n.updatedAtMillis()));
    }

    static AuditView audit(AuditEntry e, java.util.function.Function<String, JsonNode> parse) {
        return new AuditView(e.id(), instant(e.atMillis()), e.actor(), e.action(), e.subject(),
                e.beforeJson() == null ? null : parse.apply(e.beforeJson()),
                e.afterJson() == null ? null : parse.apply(e.afterJson()));
    }

    /** An instant in the API's one form ({@link dev.allot.server.Instants}). */
    static String instant(long millis) {
        return dev.allot.server.Instants.ofMillis(millis);
    }

    /** An instant kept in whole seconds, in the API's one form ({@link dev.allot.server.Instants}). */
    static String instantOfSeconds(long seconds) {
        return dev.allot.server.Instants.ofSeconds(seconds);
    }
}
