package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.rules.Names;
import dev.allot.core.rules.Shares;
import dev.allot.core.rules.Violation;
import dev.allot.core.state.ClusterState;
import dev.allot.server.policy.LivePolicy;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.sim.forecast.ForecastSettings;
import dev.allot.sim.forecast.WhatIf;
import dev.allot.sim.forecast.WhatIfChanges;
import dev.allot.sim.forecast.WhatIfReport;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code POST /v1/whatif}: what a change of shares or of the policy's settings would do to each allocation's waits
 * and paid fraction over the next hours or days ({@link WhatIf}), played from a fork of the live state; nothing live
 * changes. Shares asked for as they already are come back apart, as unchanged. Managers may try shares of what they
 * may edit (the rule of {@code PUT /v1/allocations}: strictly below a node they manage); administrators may also try
 * the policy's settings; others are refused.
 */
final class WhatIfApi {
    static final List<String> FIELDS = List.of("shares", "settings", "horizon", "runs");
    static final int MAX_RUNS = 20;
    static final int DEFAULT_RUNS = 5;
    static final Duration DEFAULT_HORIZON = Duration.ofDays(1);
    static final Duration MAX_HORIZON = Duration.ofDays(7);
    static final Duration MIN_HORIZON = Duration.ofHours(1);
    static final int MAX_CHANGES = 256;

    private final Store store;
    private final JsonIo io;
    private final WorkloadExplainer scheduler;
    private final LivePolicy policy;

    WhatIfApi(Store store, JsonIo io, WorkloadExplainer scheduler, LivePolicy policy) {
        this.store = Objects.requireNonNull(store, "store");
        this.io = Objects.requireNonNull(io, "io");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** The body, checked field by field. */
    record Request(SortedMap<String, Double> shares, SortedMap<String, String> settings, Duration horizon, int runs) {
        static Request parse(JsonNode body) {
            // one that runs on the demo tree ('allot serve --demo'), as openapi.json's: lab/team-b is not in it
            String example = "{\"shares\": {\"lab/nlp/eval\": 3}, \"settings\": {\"allocation.reclaim-margin\":"
                    + " \"0.2\"}, \"horizon\": \"1d\", \"runs\": 5}";
            if (body == null || !body.isObject()) {
                throw ApiException.badRequest("the body must be a JSON object, got " + Submission.kindOf(body),
                        "send " + example + "; GET /v1/openapi.json describes it");
            }
            for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!FIELDS.contains(name)) {
                    throw ApiException.badField(name, "unknown field", "the fields are " + String.join(", ", FIELDS)
                            + " (names are case-sensitive)");
                }
            }
            SortedMap<String, Double> shares = new TreeMap<>();
            JsonNode s = body.get("shares");
            if (s != null && !s.isNull()) {
                requireObject("shares", s, "an object of allocation path to share, e.g. {\"lab/nlp/eval\": 3}");
                for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    // the one rule of a path, as everywhere else: '/lab/nlp' was taken here (and refused by
                    // 'allot budget set') while 'lab/nlp/' was refused; the message says what a path is once
                    String path = e.getKey();
                    Optional<Violation> bad = Names.checkPath("shares", path);
                    if (bad.isPresent()) {
                        throw ApiException.badField("shares", "'" + e.getKey() + "' is not an allocation path: "
                                + bad.get().expected(), null);
                    }
                    JsonNode v = e.getValue();
                    if (!v.isNumber() || Shares.check(v.doubleValue()).isPresent()) {
                        throw ApiException.badField("shares", "'" + e.getKey() + "': expected " + Shares.EXPECTED
                                + ", got " + Submission.kindOf(v), null);
                    }
                    if (shares.put(path, v.doubleValue()) != null) {
                        throw ApiException.badField("shares", "'" + path + "' is given twice", "give each once");
                    }
                }
            }
            SortedMap<String, String> settings = new TreeMap<>();
            JsonNode t = body.get("settings");
            if (t != null && !t.isNull()) {
                requireObject("settings", t,
                        "an object of <policy>.<setting> to value, e.g. {\"allocation.reclaim-margin\": \"0.2\"}");
                for (Iterator<Map.Entry<String, JsonNode>> it = t.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    JsonNode v = e.getValue();
                    if (!v.isTextual() && !v.isNumber() && !v.isBoolean()) {
                        throw ApiException.badField("settings", "'" + e.getKey() + "': expected a value as text (or a"
                                + " number or true/false), got " + Submission.kindOf(v), null);
                    }
                    settings.put(e.getKey(), v.asText());
                }
            }
            if (shares.size() + settings.size() > MAX_CHANGES) {
                throw ApiException.badField("shares", "expected at most " + MAX_CHANGES + " changes in all", null);
            }
            Duration horizon = DEFAULT_HORIZON;
            JsonNode h = body.get("horizon");
            String hHint = "a duration from " + Durations.format(MIN_HORIZON) + " to " + Durations.format(MAX_HORIZON)
                    + ", e.g. 1d or 7d";
            if (h != null && !h.isNull()) {
                if (!h.isTextual()) {
                    throw ApiException.badField("horizon", "expected a duration as text, got " + Submission.kindOf(h),
                            hHint);
                }
                try {
                    horizon = Durations.parse(h.textValue().strip());
                } catch (IllegalArgumentException | ArithmeticException e) {
                    throw ApiException.badField("horizon", e.getMessage(), hHint);
                }
                if (horizon.compareTo(MIN_HORIZON) < 0 || horizon.compareTo(MAX_HORIZON) > 0) {
                    throw ApiException.badField("horizon", "expected " + hHint + ", got '" + h.textValue() + "'",
                            null);
                }
            }
            int runs = DEFAULT_RUNS;
            JsonNode r = body.get("runs");
            if (r != null && !r.isNull()) {
                if (!r.isIntegralNumber() || !r.canConvertToInt() || r.intValue() < 1 || r.intValue() > MAX_RUNS) {
                    throw ApiException.badField("runs", "expected a whole number from 1 to " + MAX_RUNS + ", got "
                            + Submission.kindOf(r), "more runs: a steadier answer, proportionally slower");
                }
                runs = r.intValue();
            }
            return new Request(shares, settings, horizon, runs);
        }

        private static void requireObject(String field, JsonNode v, String expected) {
            if (!v.isObject()) {
                throw ApiException.badField(field, "expected " + expected + ", got " + Submission.kindOf(v), null);
            }
        }
    }

    /** The answer: the report with its times as instants and what it assumed. */
    record Answer(String from, String until, String horizon, String policy, int runs, long seed, String durations,
                  String newWork, SortedMap<String, Double> shares, SortedMap<String, Double> unchangedShares,
                  SortedMap<String, String> settings,
                  List<WhatIfReport.Allocation> allocations) {
    }

    /** {@code POST /v1/whatif}. */
    void whatIf(Context ctx, User user) {
        Permissions permissions = Permissions.of(store.allocations().allocations());
        if (user.role() != User.Role.ADMIN && !permissions.mayReadAudit(user)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not run what-ifs",
                    "managers of an allocation (for shares below it) and administrators may");
        }
        Request req = Request.parse(io.body(ctx));
        for (String path : req.shares().keySet()) {
            if (permissions.allocation(path).isEmpty()) {
                throw ApiException.badField("shares", "no allocation '" + path + "'",
                        "GET /v1/allocations lists them");
            }
            if (!permissions.mayEditAllocation(user, path)) {
                int slash = path.lastIndexOf('/');
                throw ApiException.forbidden("user '" + user.name() + "' may not try shares of allocation '" + path
                        + "'", slash < 0 ? "only administrators may change the share of a root allocation"
                        : "administrators, and managers of '" + path.substring(0, slash) + "' or above, may;"
                        + " a manager may not change the node they manage, only what is below it");
            }
        }
        for (String path : req.shares().keySet()) {
            if (!permissions.hasSiblings(path)) {
                // shares are weights among siblings: an only child (or the only root) gets all of its parent's
                // entitlement whatever its share, so trying one would show an unchanged table as if it were an answer
                throw ApiException.badField("shares", "'" + path + "' has no siblings, and shares are relative among"
                        + " siblings: its share changes nothing", "try the shares of what is below it");
            }
        }
        if (!req.settings().isEmpty()) {
            ApiServer.requireAdmin(user, "try policy settings in a what-if");
        }
        WhatIfInputs inputs = scheduler.whatIfInputs().orElseThrow(() -> new ApiException(409,
                "the scheduler has not loaded the cluster's state yet", null, "try again in a few seconds"));
        ClusterState state = inputs.state();
        PolicyFactory factory = PolicyRegistry.standard().get(ServicePolicy.POLICY);
        Settings baseSettings = policy.current().allocation();
        WhatIf.Side base = new WhatIf.Side(state.tree(), baseSettings);
        WhatIf.Side variant;
        try {
            variant = new WhatIf.Side(WhatIfChanges.withShares(state.tree(), req.shares()), base.settings());
        } catch (IllegalArgumentException e) {
            // the lag explains an allocation the tree lacks, not a bad value or shares that sum to nothing
            throw ApiException.badField("shares", e.getMessage(), e instanceof WhatIfChanges.UnknownAllocation
                    ? "the scheduler's tree may lag an edit by a cycle" : "GET /v1/allocations shows the shares");
        }
        try {
            variant = new WhatIf.Side(variant.tree(), WhatIfChanges.withSettings(factory, baseSettings,
                    req.settings()));
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("settings", e.getMessage(), "GET /v1/policy shows the settings in force");
        }
        ForecastSettings how = ForecastSettings.defaults().withRuns(req.runs()).withHorizon(req.horizon());
        WhatIfReport r = new WhatIf(factory, how).compare(state, base, variant, inputs.durations(), inputs.arrivals());
        // the report lists the shares that changed; one asked for as it already is would vanish without a word
        SortedMap<String, Double> unchanged = new TreeMap<>(req.shares());
        unchanged.keySet().removeAll(r.shares().keySet());
        io.json(ctx, 200, new Answer(Views.instant(r.nowSeconds() * 1000), Views.instant(r.untilSeconds() * 1000),
                Durations.format(req.horizon()), factory.name(), r.runs(), r.seed(), r.durations(), r.newWork(),
                r.shares(), unchanged, r.settings(), r.allocations()));
    }
}
