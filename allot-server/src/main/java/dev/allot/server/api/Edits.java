package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.model.Durations;
import dev.allot.core.rules.Names;
import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.Shares;
import dev.allot.core.rules.UserNames;
import dev.allot.core.rules.Violation;
import dev.allot.server.store.User;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The bodies of the editing endpoints, checked the way {@link Submission} is: parsed by hand from the JSON tree so
 * that bad input is answered with a 400 naming the field. Whether the names in them are known users, and whether
 * the caller may make the change, is for the server to check against the store.
 */
final class Edits {
    static final int MAX_NAMES = 1024;

    private Edits() {
    }

    /**
     * The body of {@code PUT /v1/allocations/<path>}: the node's share among its siblings, its managers and its
     * members, all required (a PUT replaces the node).
     */
    record AllocationEdit(double share, List<String> managers, List<String> members) {
        static final List<String> FIELDS = List.of("share", "managers", "members");
        static final String SHARE_HINT = "a weight among its siblings, e.g. 1 or 2.5; 0 for an allocation entitled to"
                + " nothing, whose work runs on what others leave idle";

        static AllocationEdit parse(JsonNode body) {
            object(body, "{\"share\": 1, \"managers\": [], \"members\": []}");
            onlyKnown(body, FIELDS);
            JsonNode s = present(body, "share", Shares.EXPECTED);
            if (!s.isNumber()) {
                throw ApiException.violations(List.of(new Violation("share", Shares.EXPECTED, Submission.kindOf(s))),
                        SHARE_HINT);
            }
            double share = s.doubleValue();
            Optional<Violation> bad = Shares.check(share);
            if (bad.isPresent()) {
                throw ApiException.violations(List.of(new Violation("share", Shares.EXPECTED, s.asText())), SHARE_HINT);
            }
            return new AllocationEdit(share, names(body, "managers"), names(body, "members"));
        }
    }

    /** The body of {@code POST /v1/nodes/{name}/health}: {@code healthy} required, {@code reason} optional. */
    record NodeHealth(boolean healthy, String reason) {
        static final List<String> FIELDS = List.of("healthy", "reason");

        static NodeHealth parse(JsonNode body) {
            object(body, "{\"healthy\": false, \"reason\": \"fan failure\"}");
            onlyKnown(body, FIELDS);
            JsonNode h = present(body, "healthy", "true or false");
            if (!h.isBoolean()) {
                throw ApiException.badField("healthy", "expected true or false, got " + Submission.kindOf(h),
                        "false takes the node out of service");
            }
            String reason = null;
            JsonNode r = body.get("reason");
            if (r != null && !r.isNull()) {
                if (!r.isTextual()) {
                    throw ApiException.badField("reason", "expected a string, got " + Submission.kindOf(r),
                            "a short text such as \"fan failure\", or omit it");
                }
                if (r.textValue().length() > Submission.MAX_TEXT) {
                    throw ApiException.badField("reason", "expected at most " + Submission.MAX_TEXT
                            + " characters, got " + r.textValue().length(), null);
                }
                reason = r.textValue().isBlank() ? null : r.textValue();
            }
            return new NodeHealth(h.booleanValue(), reason);
        }
    }

    /** The body of {@code POST /v1/workloads/{id}/progress}: {@code done} out of {@code total}, whole numbers. */
    record Progress(long done, long total) {
        static final List<String> FIELDS = List.of("done", "total");

        static Progress parse(JsonNode body) {
            object(body, "{\"done\": 1200, \"total\": 10000}");
            onlyKnown(body, FIELDS);
            // (a total of 0 is the total's fault: "done: expected at most total (0)" blamed the wrong number)
            long total = count(body, "total", 1, "a whole number >= 1 (the units of the whole work)");
            long done = count(body, "done", 0, "a whole number >= 0");
            if (done > total) {
                throw ApiException.badField("done", "expected at most total (" + total + "), got " + done,
                        "progress is done units out of total units, e.g. steps");
            }
            return new Progress(done, total);
        }

        private static long count(JsonNode body, String field, long min, String expected) {
            JsonNode v = present(body, field, expected);
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min) {
                throw ApiException.badField(field, "expected " + expected + ", got " + Submission.kindOf(v),
                        "progress is done units out of total units, e.g. steps");
            }
            return v.longValue();
        }
    }

    /**
     * The body of {@code PUT /v1/brakes}: both limits, required (a PUT replaces them): {@code maxRequeues} a whole
     * number from 0, {@code maxGpuHoursPerWorkload} a finite number from 0, or null for no cap.
     */
    record BrakesEdit(int maxRequeues, Double maxGpuHoursPerWorkload) {
        static final List<String> FIELDS = List.of("maxRequeues", "maxGpuHoursPerWorkload");
        static final int MAX_REQUEUES = 1_000_000;
        static final double MAX_GPU_HOURS = 1e12;

        static BrakesEdit parse(JsonNode body) {
            object(body, "{\"maxRequeues\": 20, \"maxGpuHoursPerWorkload\": null}");
            onlyKnown(body, FIELDS);
            String requeues = "a whole number from 0 to " + MAX_REQUEUES + ": how many times a workload may go back"
                    + " to the queue after having started before it is held";
            JsonNode r = present(body, "maxRequeues", requeues);
            if (!r.isIntegralNumber() || !r.canConvertToInt() || r.intValue() < 0 || r.intValue() > MAX_REQUEUES) {
                throw ApiException.badField("maxRequeues", "expected a whole number from 0 to " + MAX_REQUEUES
                        + ", got " + Submission.kindOf(r), "expected " + requeues);
            }
            String hours = "a number of GPU-hours from 0 to " + (long) MAX_GPU_HOURS + " at which a workload is held,"
                    + " or null for no cap";
            if (!body.has("maxGpuHoursPerWorkload")) {
                throw ApiException.badField("maxGpuHoursPerWorkload", "missing", "expected " + hours);
            }
            JsonNode g = body.get("maxGpuHoursPerWorkload");
            Double cap = null;
            if (!g.isNull()) {
                if (!g.isNumber() || !(g.doubleValue() >= 0) || g.doubleValue() > MAX_GPU_HOURS) {
                    throw ApiException.badField("maxGpuHoursPerWorkload", "expected a number from 0 to "
                            + (long) MAX_GPU_HOURS + " or null, got " + Submission.kindOf(g), "expected " + hours);
                }
                cap = g.doubleValue();
            }
            return new BrakesEdit(r.intValue(), cap);
        }
    }

    /**
     * The body of {@code PUT /v1/users/{name}}: the user's role and whether it is disabled, each optional on an
     * existing user (what is not given is kept); a new user needs its role (null here when not given).
     */
    record UserEdit(User.Role role, Boolean disabled) {
        static final List<String> FIELDS = List.of("role", "disabled");

        static UserEdit parse(JsonNode body) {
            object(body, "{\"role\": \"user\"} or {\"disabled\": true}");
            onlyKnown(body, FIELDS);
            User.Role role = null;
            JsonNode r = body.get("role");
            if (r != null) {
                if (!r.isTextual()) {
                    throw ApiException.badField("role", "expected \"admin\" or \"user\", got " + Submission.kindOf(r),
                            null);
                }
                try {
                    role = User.Role.parse(r.textValue());
                } catch (IllegalArgumentException e) {
                    throw ApiException.badField("role", e.getMessage(), "admins may do everything; users what their"
                            + " allocations allow");
                }
            }
            Boolean disabled = null;
            JsonNode d = body.get("disabled");
            if (d != null) {
                if (!d.isBoolean()) {
                    throw ApiException.badField("disabled", "expected true or false, got " + Submission.kindOf(d),
                            "true stops every token of the user at once; false lets them sign in again");
                }
                disabled = d.booleanValue();
            }
            if (role == null && disabled == null) {
                throw ApiException.badField("role", "missing", "give \"role\" (\"admin\" or \"user\"),"
                        + " \"disabled\" (true or false), or both");
            }
            return new UserEdit(role, disabled);
        }
    }

    /**
     * The body of {@code POST /v1/users/{name}/tokens}: an optional label saying what the token is for, and an
     * optional lifetime (a duration such as {@code 30d}; null for the token policy's default).
     */
    record TokenRequest(String label, Long lifetimeSeconds) {
        static final List<String> FIELDS = List.of("label", "lifetime");

        static TokenRequest parse(JsonNode body) {
            object(body, "{\"label\": \"laptop\", \"lifetime\": \"30d\"}");
            onlyKnown(body, FIELDS);
            JsonNode l = body.get("label");
            String label = "";
            if (l != null && !l.isNull()) {
                if (!l.isTextual() || l.textValue().length() > Submission.MAX_TEXT) {
                    // a label too long is told by its length: "got a string" alone read as a wrong type
                    throw ApiException.badField("label", "expected a string of at most " + Submission.MAX_TEXT
                            + " characters, got " + (l.isTextual() ? "one of " + l.textValue().length() + " characters"
                            : Submission.kindOf(l)), "e.g. \"laptop\" or \"ci\"");
                }
                if (!PrintableText.valid(l.textValue())) {
                    throw ApiException.badField("label", "expected " + PrintableText.EXPECTED + ", got "
                            + dev.allot.core.rules.Violation.shown(l.textValue()), "e.g. \"laptop\" or \"ci\"");
                }
                label = l.textValue().strip();
            }
            JsonNode t = body.get("lifetime");
            Long lifetime = t == null || t.isNull() ? null : durationSeconds("lifetime", t);
            return new TokenRequest(label, lifetime);
        }
    }

    /** The body of {@code PUT /v1/token-policy}: the default and the maximum lifetime of tokens, both required. */
    record TokenPolicyEdit(long defaultLifetimeSeconds, long maxLifetimeSeconds) {
        static final List<String> FIELDS = List.of("defaultLifetime", "maxLifetime");

        static TokenPolicyEdit parse(JsonNode body) {
            object(body, "{\"defaultLifetime\": \"90d\", \"maxLifetime\": \"365d\"}");
            onlyKnown(body, FIELDS);
            long d = durationSeconds("defaultLifetime", present(body, "defaultLifetime", "a duration such as 90d"));
            long m = durationSeconds("maxLifetime", present(body, "maxLifetime", "a duration such as 365d"));
            if (d > m) {
                throw ApiException.badField("defaultLifetime", "expected at most maxLifetime ("
                        + Durations.formatSeconds(m) + "), got " + Durations.formatSeconds(d), null);
            }
            if (m > dev.allot.server.store.TokenPolicy.MAX_MAX_LIFETIME_SECONDS) {
                throw ApiException.badField("maxLifetime", "expected at most "
                        + Durations.formatSeconds(dev.allot.server.store.TokenPolicy.MAX_MAX_LIFETIME_SECONDS)
                        + ", got " + Durations.formatSeconds(m), null);
            }
            return new TokenPolicyEdit(d, m);
        }
    }

    /** A positive whole-second duration given as text such as {@code 30d} or {@code 12h}. */
    private static long durationSeconds(String field, JsonNode v) {
        String hint = "a duration such as 30d, 12h or 1d12h";
        if (!v.isTextual()) {
            throw ApiException.badField(field, "expected a duration as text, got " + Submission.kindOf(v), hint);
        }
        java.time.Duration d;
        try {
            d = Durations.parse(v.textValue().strip());
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw ApiException.badField(field, e.getMessage(), hint);
        }
        if (d.isNegative() || d.getSeconds() < 1 || d.getSeconds() > 100L * 365 * 86_400) {
            throw ApiException.badField(field, "expected at least 1s and at most 100 years, got '" + v.textValue()
                    + "'", hint);
        }
        return d.getSeconds();
    }

    /**
     * Checks a user name taken from the URL: not blank, no surrounding blanks, no '/' nor control characters.
     *
     * @throws ApiException 400 naming {@code name}
     */
    static String userName(String name) {
        String hint = "a login name such as alice";
        if (name == null || name.isBlank() || !name.strip().equals(name) || name.length() > 100
                || name.contains("/") || name.chars().anyMatch(Character::isISOControl)) {
            throw ApiException.badField("name", "expected a user name without blanks around it, '/' or control"
                    + " characters, at most 100 characters", hint);
        }
        return name;
    }

    /**
     * Checks the name of a user about to be made: {@link UserNames} (no blanks, no ',', the characters of a Unix
     * account name and '@'). Users are made by this API only (no identity mode derives user names from elsewhere), so
     * this is where the rule holds; a user made before it keeps working, as {@link #userName} still finds it.
     *
     * @throws ApiException 400 naming {@code name}
     */
    static String newUserName(String name) {
        userName(name);
        Optional<Violation> bad = UserNames.check("name", name);
        if (bad.isPresent()) {
            throw ApiException.badField("name", bad.get().problem(), "a login name such as alice or ana@lab");
        }
        return name;
    }

    /** The body of {@code PUT /v1/nodes/{name}}: how many GPUs the node has. */
    record NodeRegistration(int gpus) {
        static final List<String> FIELDS = List.of("gpus");

        static NodeRegistration parse(JsonNode body) {
            object(body, "{\"gpus\": 8}");
            onlyKnown(body, FIELDS);
            JsonNode g = present(body, "gpus", dev.allot.core.rules.NodeGpus.EXPECTED);
            if (!g.isIntegralNumber() || !g.canConvertToLong() || !dev.allot.core.rules.NodeGpus.allowed(g.longValue())) {
                throw ApiException.badField("gpus", "expected " + dev.allot.core.rules.NodeGpus.EXPECTED + ", got "
                        + Submission.kindOf(g), null);
            }
            return new NodeRegistration(g.intValue());
        }
    }

    /**
     * Checks an allocation path taken from the URL: names joined by '/', none empty, '.' or '..', no control
     * characters or blanks around a name ({@link Names#checkPath}), before any permission is checked on it.
     *
     * @throws ApiException 400 naming {@code path}
     */
    static String path(String path) {
        Optional<Violation> bad = Names.checkPath("path", path);
        if (bad.isPresent()) {
            throw ApiException.violations(List.of(bad.get()), "names joined by '/', e.g. lab/nlp/pretrain, with no"
                    + " empty name and no leading or trailing '/'");
        }
        return path;
    }

    /**
     * Checks a node name taken from the URL ({@link Names#check}): one name, not '.' or '..', no '/', control
     * characters or blanks around it.
     *
     * @throws ApiException 400 naming {@code name}
     */
    static String nodeName(String name) {
        Optional<Violation> bad = Names.check("name", name);
        if (bad.isPresent()) {
            throw ApiException.violations(List.of(bad.get()), "e.g. gpu-01");
        }
        return name;
    }

    private static void object(JsonNode body, String example) {
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object, got " + Submission.kindOf(body),
                    "send " + example + "; GET /v1/openapi.json describes it");
        }
    }

    private static void onlyKnown(JsonNode body, List<String> fields) {
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!fields.contains(name)) {
                throw ApiException.badField(name, "unknown field", "the fields are " + String.join(", ", fields)
                        + " (names are case-sensitive)");
            }
        }
    }

    private static JsonNode present(JsonNode body, String field, String expected) {
        JsonNode v = body.get(field);
        if (v == null) {
            throw ApiException.badField(field, "missing", "expected " + expected);
        }
        if (v.isNull()) {
            throw ApiException.badField(field, "expected a value, got null", "expected " + expected);
        }
        return v;
    }

    /** An array of distinct, non-blank user names (whether they exist is checked by the server). */
    private static List<String> names(JsonNode body, String field) {
        String expected = "an array of user names, e.g. [\"alice\", \"bob\"], or [] for none";
        JsonNode v = present(body, field, expected);
        if (!v.isArray()) {
            throw ApiException.badField(field, "expected an array, got " + Submission.kindOf(v), "expected " + expected);
        }
        if (v.size() > MAX_NAMES) {
            throw ApiException.badField(field, "expected at most " + MAX_NAMES + " names, got " + v.size(), null);
        }
        List<String> out = new ArrayList<>(v.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            if (!item.isTextual() || item.textValue().isBlank()) {
                throw ApiException.badField(field, "expected a user name at index " + i + ", got "
                        + Submission.kindOf(item), "expected " + expected);
            }
            if (!seen.add(item.textValue())) {
                throw ApiException.badField(field, "'" + item.textValue() + "' is listed twice", "list each user once");
            }
            out.add(item.textValue());
        }
        return out;
    }
}
