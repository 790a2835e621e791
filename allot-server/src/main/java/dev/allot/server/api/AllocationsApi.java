package dev.allot.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.model.Durations;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AuditEntry;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The allocation tree's endpoints ({@link ApiServer} routes them here): reading the tree, editing it, its audit trail
 * and its usage against entitlement.
 * <ul>
 *   <li>{@code GET /v1/allocations}: the tree, for anyone signed in.</li>
 *   <li>{@code PUT} and {@code DELETE /v1/allocations/<path>}: administrators edit anything, managers what is below
 *   the allocations they manage ({@link Permissions#mayEditAllocation}); managers and members must be existing
 *   users. Every edit is audited by the store, drops the API's cached tree (so the next submission is checked
 *   against the new one) and is told to the scheduling loop as a change of the topology.</li>
 *   <li>{@code GET /v1/audit}: the newest entries of the audit trail; administrators see all, managers the entries
 *   about their allocations and below.</li>
 *   <li>{@code GET /v1/allocations/usage}: each allocation's GPU use over a window ({@code since}: an instant or a
 *   duration back from now, default {@value #DEFAULT_USAGE_WINDOW}), optionally as a series of {@code step}s
 *   ({@link Entitlements}).</li>
 * </ul>
 * Apart from the workloads' handlers because the tree is an idea of its own: budgets, who may edit them and what was
 * used of them.
 */
final class AllocationsApi {
    static final int DEFAULT_AUDIT_LIMIT = 100;
    static final int MAX_AUDIT_LIMIT = 10_000;
    static final String DEFAULT_USAGE_WINDOW = "7d";
    /** At most this many steps in a usage series. */
    static final int MAX_USAGE_STEPS = 2_000;

    private final Store store;
    private final Clock clock;
    private final JsonIo io;
    private final Cached<List<Allocation>> allocations;
    private final Runnable topologyChanged;

    /**
     * @param allocations the API's cached tree, invalidated after every edit
     * @param topologyChanged told after every edit ({@link ApiServer.Extras#topologyChanged()})
     */
    AllocationsApi(Store store, Clock clock, JsonIo io, Cached<List<Allocation>> allocations,
                   Runnable topologyChanged) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = Objects.requireNonNull(io, "io");
        this.allocations = Objects.requireNonNull(allocations, "allocations");
        this.topologyChanged = Objects.requireNonNull(topologyChanged, "topologyChanged");
    }

    /** {@code GET /v1/allocations}: the whole tree, for any signed-in user. */
    void allocations(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/allocations");
        io.json(ctx, 200, new Views.AllocationList(
                store.allocations().allocations().stream().map(Views::allocation).toList()));
    }

    /** {@code PUT /v1/allocations/<path>}: creates or replaces an allocation (201 when new, 200 when it was there). */
    void putAllocation(Context ctx, User user) {
        String path = Edits.path(ctx.pathParam("path"));
        Permissions permissions = Permissions.of(store.allocations().allocations());
        // A missing parent is said before permission (which would name the parent as what the user may not edit):
        // every signed-in user may read the whole tree, so that a path does not exist tells nobody anything new.
        String parent = Allocation.parentOf(path);
        if (parent != null && permissions.allocation(path).isEmpty() && permissions.allocation(parent).isEmpty()) {
            throw dev.allot.server.store.Allocations.missingParent(path, parent);
        }
        requireMayEdit(permissions, user, path);
        Edits.AllocationEdit edit = Edits.AllocationEdit.parse(io.body(ctx));
        Set<String> users = store.access().users().stream().map(User::name).collect(Collectors.toSet());
        requireKnownUsers("managers", edit.managers(), users);
        requireKnownUsers("members", edit.members(), users);
        boolean existed = permissions.allocation(path).isPresent();
        Allocation allocation = new Allocation(path, edit.share(), edit.managers(), edit.members());
        store.allocations().putAllocation(allocation, user.name(), clock.millis());
        allocations.invalidate();
        topologyChanged.run();
        io.json(ctx, existed ? 200 : 201, Views.allocation(allocation));
    }

    /** {@code DELETE /v1/allocations/<path>}: removes an allocation; 204. */
    void removeAllocation(Context ctx, User user) {
        String path = Edits.path(ctx.pathParam("path"));
        Permissions permissions = Permissions.of(store.allocations().allocations());
        if (permissions.allocation(path).isEmpty()) {
            throw ApiException.notFound("no allocation '" + path + "'", "GET /v1/allocations lists them");
        }
        requireMayEdit(permissions, user, path);
        store.allocations().removeAllocation(path, user.name(), clock.millis());
        allocations.invalidate();
        topologyChanged.run();
        ctx.status(204);
    }

    private static void requireMayEdit(Permissions permissions, User user, String path) {
        if (!permissions.mayEditAllocation(user, path)) {
            int slash = path.lastIndexOf('/');
            throw ApiException.forbidden("user '" + user.name() + "' may not edit allocation '" + path + "'",
                    slash < 0 ? "only administrators may create, change or remove a root allocation"
                            : "administrators, and managers of '" + path.substring(0, slash) + "' or above, may;"
                            + " a manager may not edit the node they manage, only what is below it");
        }
    }

    private static void requireKnownUsers(String field, List<String> names, Set<String> users) {
        for (String name : names) {
            if (!users.contains(name)) {
                throw ApiException.badField(field, "unknown user '" + name + "'",
                        "name users that exist; an administrator creates them");
            }
        }
    }

    /** {@code GET /v1/audit?limit=N}: the newest entries the caller may see (managers: about their subtrees). */
    void audit(Context ctx, User user) {
        QueryParams.only(ctx, List.of("limit"), "the only parameter is limit");
        Map<String, List<String>> params = ctx.queryParamMap();
        int limit = (int) QueryParams.number(params, "limit", 1, MAX_AUDIT_LIMIT, DEFAULT_AUDIT_LIMIT);
        Permissions permissions = Permissions.of(store.allocations().allocations());
        if (!permissions.mayReadAudit(user)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not read the audit trail",
                    "administrators may, and managers of an allocation may read the entries about it and below");
        }
        List<AuditEntry> visible = new ArrayList<>();
        // The store reads the newest n entries; a manager sees only some of them, so read further until enough.
        for (int n = limit; ; n = (int) Math.min((long) n * 4, Integer.MAX_VALUE)) {
            List<AuditEntry> newest = store.allocations().audit(n);
            visible = newest.stream()
                    .filter(e -> e.action().startsWith("allocation.") ? permissions.maySeeAudit(user, e.subject())
                            : user.role() == User.Role.ADMIN) // users and tokens: administrators only
                    .limit(limit).toList();
            if (visible.size() == limit || newest.size() < n || n == Integer.MAX_VALUE) {
                break;
            }
        }
        io.json(ctx, 200, new Views.AuditList(visible.stream()
                .map(e -> Views.audit(e, this::parseStored)).toList()));
    }

    private JsonNode parseStored(String json) {
        try {
            return io.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the audit trail holds JSON that does not parse", e);
        }
    }

    /** {@code GET /v1/allocations/usage?since=...&step=...}: each allocation's use against its entitlement. */
    void usage(Context ctx, User user) {
        QueryParams.only(ctx, List.of("since", "step"), "the parameters are since and step");
        Map<String, List<String>> params = ctx.queryParamMap();
        long now = clock.millis();
        String text = Optional.ofNullable(QueryParams.single(params, "since")).orElse(DEFAULT_USAGE_WINDOW)
                .trim();
        long since = since(text, now);
        String stepText = QueryParams.single(params, "step");
        long stepMillis = 0;
        if (stepText != null) {
            String hint = "a duration such as 1h or 1d; the window is cut into at most " + MAX_USAGE_STEPS + " steps";
            try {
                stepMillis = Durations.parse(stepText.trim()).toMillis();
            } catch (IllegalArgumentException e) {
                throw ApiException.badField("step", e.getMessage(), hint);
            } catch (ArithmeticException e) { // seconds that do not fit in a long of milliseconds
                throw ApiException.badField("step", "duration '" + stepText + "' is too large", hint);
            }
            if (stepMillis <= 0) {
                throw ApiException.badField("step", "expected a positive duration, got '" + stepText + "'", hint);
            }
            long window = now - since;
            if (window / stepMillis + (window % stepMillis == 0 ? 0 : 1) > MAX_USAGE_STEPS) {
                throw ApiException.badField("step", "'" + stepText + "' cuts the window into more than "
                        + MAX_USAGE_STEPS + " steps", hint);
            }
        }
        List<Allocation> tree = store.allocations().allocations();
        List<dev.allot.server.store.Attempts.ChargedRun> runs = store.attempts().chargedRuns(since, now);
        int clusterGpus = store.nodes().nodes().stream().mapToInt(Node::gpus).sum();
        List<Views.UsageRow> rows = Entitlements.rows(tree, runs, store.attempts().unallocatedRuns(since, now),
                store.attempts().allocatedDemand(since, now), since, now, clusterGpus, stepMillis);
        double total = runs.stream().mapToDouble(r -> r.gpuSecondsIn(since, now)).sum();
        io.json(ctx, 200, new Views.Usage(Views.instant(since), Views.instant(now), (now - since) / 1000, clusterGpus,
                stepText == null ? null : Durations.formatSeconds(stepMillis / 1000), total, rows));
    }

    /** The start of the usage window: an ISO-8601 instant, or a duration back from now. */
    private static long since(String text, long now) {
        String hint = "an ISO-8601 instant such as 2026-03-01T00:00:00Z, or a duration back from now such as 7d,"
                + " 12h or 1d12h";
        long since;
        if (!text.isEmpty() && Character.isDigit(text.charAt(0)) && text.contains("T")) {
            try {
                since = Instant.parse(text).toEpochMilli();
            } catch (DateTimeException | ArithmeticException e) {
                throw ApiException.badField("since", "not an ISO-8601 instant: '" + text + "'", hint);
            }
        } else {
            Duration d;
            try {
                d = Durations.parse(text);
            } catch (IllegalArgumentException e) {
                throw ApiException.badField("since", e.getMessage(), hint);
            }
            if (d.getSeconds() > now / 1000) {
                throw ApiException.badField("since", "the duration '" + text + "' reaches back before 1970", hint);
            }
            since = now - d.toMillis();
        }
        if (since >= now) {
            throw ApiException.badField("since", "the window must start before now (" + Views.instant(now)
                    + "), got '" + text + "'", hint);
        }
        return since;
    }
}
