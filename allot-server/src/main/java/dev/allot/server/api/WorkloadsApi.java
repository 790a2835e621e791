package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.policy.LivePolicy;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The workloads' endpoints ({@link ApiServer} routes them here): {@code POST /v1/workloads} and
 * {@code /v1/workloads/batch} (checked in full by {@link WorkloadIntake}, stored pending, and the scheduling loop told),
 * {@code GET /v1/workloads} (filters {@code state}, {@code allocation}, {@code user}, {@code limit}, {@code after}),
 * {@code GET /v1/workloads/{id}} with its attempts, {@code GET /v1/workloads/{id}/explain}, and
 * {@code POST /v1/workloads/{id}/cancel} and {@code /progress}. What a workload runs (its command and environment) is
 * shown only to those {@link Permissions} lets see it.
 */
final class WorkloadsApi {
    static final int DEFAULT_LIMIT = 1000;
    static final Set<String> LIST_PARAMS = Set.of("state", "allocation", "user", "limit", "after");

    private final Store store;
    private final Clock clock;
    private final JsonIo io;
    private final Cached<List<Allocation>> allocations;
    private final WorkloadIntake intake;
    private final WorkloadExplainer explainer;
    private final LivePolicy policy;
    /** Told after a submission, so that the loop decides at once. */
    private final Runnable onSubmitted;
    /** Told after a cancellation, which the loop must look for among all the workloads it holds. */
    private final Runnable onCancelled;

    WorkloadsApi(Store store, Clock clock, JsonIo io, Cached<List<Allocation>> allocations, WorkloadIntake intake,
                 WorkloadExplainer explainer, LivePolicy policy, Runnable onSubmitted, Runnable onCancelled) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = Objects.requireNonNull(io, "io");
        this.allocations = Objects.requireNonNull(allocations, "allocations");
        this.intake = Objects.requireNonNull(intake, "intake");
        this.explainer = Objects.requireNonNull(explainer, "explainer");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.onSubmitted = Objects.requireNonNull(onSubmitted, "onSubmitted");
        this.onCancelled = Objects.requireNonNull(onCancelled, "onCancelled");
    }

    void submit(Context ctx, User user) {
        NewWorkload w = checked(io.body(ctx), user, Permissions.of(allocations.get()));
        Optional<Workload> earlier = w.idempotencyKey() == null ? Optional.empty()
                : store.workloads().withIdempotencyKey(w.idempotencyKey());
        Workload stored = store.workloads().submit(w);
        IdempotentReplays.requireRetry(w, stored); // a reused key with another submission stored nothing
        if (earlier.isPresent() && earlier.get().id().equals(stored.id())) {
            ctx.header(IdempotentReplays.HEADER, "true");
        }
        onSubmitted.run();
        io.json(ctx, 201, Views.workload(stored, scheduling()));
    }

    /** At most this many workloads in one batch submission. */
    static final int MAX_BATCH = 1_000;

    /**
     * {@code POST /v1/workloads/batch}: many workloads in one request and one transaction (a sweep, a job array), all
     * or nothing: each is checked as a single submission is, and the first refused names its index.
     */
    void submitBatch(Context ctx, User user) {
        JsonNode body = io.body(ctx);
        if (body == null || !body.isObject() || !body.has("workloads") || body.size() != 1
                || !body.get("workloads").isArray()) {
            throw ApiException.badRequest("the body must be {\"workloads\": [submission, ...]}",
                    "each submission is what POST /v1/workloads takes; GET /v1/openapi.json describes it");
        }
        JsonNode items = body.get("workloads");
        if (items.isEmpty() || items.size() > MAX_BATCH) {
            throw ApiException.badField("workloads", "expected 1 to " + MAX_BATCH + " submissions, got " + items.size(),
                    "split larger sweeps into several requests");
        }
        Permissions permissions = Permissions.of(allocations.get());
        List<NewWorkload> batch = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            try {
                batch.add(checked(items.get(i), user, permissions));
            } catch (ApiException e) {
                throw e.within("workloads[" + i + "]");
            }
        }
        // a reused key with another submission refuses the batch inside its transaction: nothing of it is stored
        List<Workload> stored = store.workloads().submitAll(batch, (i, asked, answer) -> {
            try {
                IdempotentReplays.requireRetry(asked, answer);
            } catch (ApiException e) {
                throw e.within("workloads[" + i + "]");
            }
        });
        onSubmitted.run();
        io.json(ctx, 201, new Views.WorkloadList(stored.stream().map(w -> Views.workload(w, scheduling())).toList()));
    }

    /** A submission checked in full (fields, identity, allocation, permission, shape): {@link WorkloadIntake}. */
    private NewWorkload checked(JsonNode body, User user, Permissions permissions) {
        return intake.checked(body, user, permissions);
    }

    void list(Context ctx, User user) {
        QueryParams.only(ctx, LIST_PARAMS, "the filters are "
                + LIST_PARAMS.stream().sorted().collect(Collectors.joining(", ")));
        Map<String, List<String>> params = ctx.queryParamMap();
        Set<WorkloadState> states = EnumSet.noneOf(WorkloadState.class);
        for (String value : params.getOrDefault("state", List.of())) {
            for (String label : value.split(",", -1)) {
                try {
                    states.add(WorkloadState.parse(label.trim()));
                } catch (IllegalArgumentException e) {
                    throw ApiException.badField("state", "unknown state '" + label.trim() + "'", "expected one of "
                            + Arrays.stream(WorkloadState.values()).map(WorkloadState::label)
                            .collect(Collectors.joining(", ")) + " (several: comma-separated, or repeated)");
                }
            }
        }
        String allocation = QueryParams.single(params, "allocation");
        String owner = QueryParams.single(params, "user");
        int limit = (int) QueryParams.number(params, "limit", 1, WorkloadFilter.MAX_LIMIT, DEFAULT_LIMIT);
        long after = QueryParams.number(params, "after", 0, Long.MAX_VALUE, 0);
        WorkloadFilter filter;
        try {
            filter = new WorkloadFilter(states, allocation, owner, after, limit);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("allocation", e.getMessage(), "an allocation path such as \"lab/nlp\"; it"
                    + " selects that allocation and everything below it");
        }
        Permissions permissions = Permissions.of(allocations.get());
        dev.allot.core.state.SchedulerConfig scheduling = scheduling();
        List<Workload> listed = store.workloads().workloads(filter);
        if (listed.isEmpty() && allocation != null) {
            requireKnownAllocation(allocation);
        }
        // a second read: it shows starting only what is launching as it reads (confirmed since the first: running)
        Set<String> launching = listed.stream().anyMatch(w -> w.state() == WorkloadState.RUNNING)
                ? store.attempts().launchingWorkloads() : Set.of();
        io.json(ctx, 200, new Views.WorkloadList(listed.stream()
                .map(w -> Views.workload(w, permissions.maySeeDetails(user, w), scheduling,
                        launching.contains(w.id()))).toList()));
    }

    /**
     * Refuses a filter by an allocation that is not in the tree and never had a workload (a typo: it answered an empty
     * list where {@code GET /v1/queue} answered 400). An allocation removed since keeps its ended workloads, which the
     * filter still lists.
     */
    private void requireKnownAllocation(String allocation) {
        List<String> paths = allocations.get().stream().map(Allocation::path).sorted().toList();
        if (!paths.contains(allocation)
                && store.workloads().workloads(new WorkloadFilter(Set.of(), allocation, null, 0, 1)).isEmpty()) {
            throw ApiException.unknownAllocationFilter(allocation, paths);
        }
    }

    /**
     * A workload and its attempts, the campaign shard it runs for (if any) and why the scheduler cannot take it in (if
     * it cannot: the queue's cannotRun); its command and environment, and the backend's words in its attempts'
     * reasons, only for those who may see them.
     */
    void show(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/workloads/ID");
        String id = ctx.pathParam("id");
        dev.allot.server.store.Attempts.WorkloadHistory read = store.attempts().workloadWithAttempts(id)
                .orElseThrow(() -> noSuchWorkload(id));
        Workload w = read.workload();
        boolean details = Permissions.of(allocations.get()).maySeeDetails(user, w);
        io.json(ctx, 200, new Views.WorkloadDetail(Views.workload(w, details, scheduling(),
                Views.launching(read.attempts())),
                read.attempts().stream().map(a -> Views.attempt(a, details)).toList(),
                store.campaigns().shardOf(w.id()).map(s -> new Views.CampaignShardRef(s.campaign(), s.index()))
                        .orElse(null), explainer.cannotRun(w)));
    }

    /**
     * Why a workload waits, runs or was preempted; readable by whoever may read the workload (any signed-in user), the
     * backend's words in its attempts' reasons only by those who may see its details.
     */
    void explain(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/workloads/ID/explain");
        Workload w = requireWorkload(ctx.pathParam("id"));
        boolean details = Permissions.of(allocations.get()).maySeeDetails(user, w);
        io.json(ctx, 200, Explanations.of(w, store.attempts().attempts(w.id()), details, explainer.explain(w.id()),
                io.mapper(), scheduling(), explainer.forecast(), explainer.forecasting(), explainer.awaiting(),
                explainer.refusal(w.id()))
                .from(explainer.view(), clock.millis()));
    }

    void cancel(Context ctx, User user) {
        Workload w = requireWorkload(ctx.pathParam("id"));
        requireMayCancel(user, w, "cancel");
        Workload cancelled = store.workloads().requestCancel(w.id());
        onCancelled.run();
        io.json(ctx, 200, Views.workload(cancelled, true, scheduling(), cancelled.state() == WorkloadState.RUNNING
                && Views.launching(store.attempts().attempts(w.id()))));
    }

    void progress(Context ctx, User user) {
        Workload w = requireWorkload(ctx.pathParam("id"));
        requireMayCancel(user, w, "report the progress of");
        Edits.Progress p = Edits.Progress.parse(io.body(ctx));
        store.campaigns().shardOf(w.id()).ifPresent(shard -> {
            if (p.total() != shard.unitsTotal()) {
                throw ApiException.badField("total", "expected " + shard.unitsTotal() + ", the units of shard "
                        + shard.index() + " of campaign " + shard.campaign() + ", got " + p.total(), "a shard's"
                        + " workload reports its units done out of all the shard's units (it resumes from"
                        + " ALLOT_RESUME_FROM)");
            }
        });
        store.workloads().reportProgress(w.id(), p.done(), p.total(), clock.millis());
        explainer.progressReported(w.id());
        dev.allot.server.store.Attempts.WorkloadHistory now = store.attempts().workloadWithAttempts(w.id())
                .orElseThrow(() -> noSuchWorkload(w.id()));
        io.json(ctx, 200, Views.workload(now.workload(), true, scheduling(), Views.launching(now.attempts())));
    }

    /** The shared settings in force (the minimum runtime a workload is counted with is capped by them). */
    private dev.allot.core.state.SchedulerConfig scheduling() {
        return policy.current().scheduler();
    }

    /**
     * Refuses (403) a caller who may not cancel {@code w} ({@link Permissions#mayCancel}: its owner, a manager above
     * it, an administrator), which is also who may report its progress; {@code what} completes "may not ... workload".
     */
    private void requireMayCancel(User user, Workload w, String what) {
        if (!Permissions.of(store.allocations().allocations()).mayCancel(user, w)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not " + what + " workload " + w.id(),
                    "its owner, a manager of allocation '" + w.allocationPath() + "' or above, or an administrator may");
        }
    }

    private Workload requireWorkload(String id) {
        return store.workloads().workload(id).orElseThrow(() -> noSuchWorkload(id));
    }

    private static ApiException noSuchWorkload(String id) {
        return ApiException.notFound("no workload '" + id + "'", "workload ids look like w-42; GET /v1/workloads lists"
                + " them");
    }
}
