package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Priority;
import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.Violation;
import dev.allot.core.rules.WorkloadFields;
import dev.allot.core.rules.WorkloadRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The body of {@code POST /v1/workloads}, checked: every field has the type the API promises (checked here, as
 * JSON) and the range every reader of workloads promises ({@link WorkloadRules}, the one rule the store, the core and
 * the simulator keep too), so what reaches the store can no longer be refused for bad input. Parsed by hand from the
 * JSON tree rather than bound by Jackson, because the answer to bad input must name each wrong field and say what
 * was expected, which data binding's exceptions do not do in words a client can use. Every problem of the body is
 * reported at once, as a 400 whose body lists them.
 *
 * <p>Required: {@code allocation}, {@code gpus}, {@code minRuntime}, {@code resumable}, {@code priority},
 * {@code command}. Optional: {@code gpusPerNode} (0 or absent for any packing), {@code kind} (default
 * {@code train}), {@code duration} (for the simulated backend), {@code environment} (default none),
 * {@code idempotencyKey}. Whether the allocation exists and the caller may submit to it is for the server to
 * check against the tree.
 *
 * @param gpusPerNode     zero for any packing
 * @param durationSeconds null when not given
 * @param idempotencyKey  as the client sent it (not yet scoped to the user), null when not given
 */
record Submission(
        String allocation,
        int gpus,
        int gpusPerNode,
        long minRuntimeSeconds,
        Long durationSeconds,
        boolean resumable,
        Priority priority,
        String kind,
        List<String> command,
        SortedMap<String, String> environment,
        String idempotencyKey) {

    /** The fields a submission may have, in the order the documentation lists them. */
    static final List<String> FIELDS = List.of("allocation", "gpus", "gpusPerNode", "minRuntime", "duration",
            "resumable", "priority", "kind", "command", "environment", "idempotencyKey");

    static final int MAX_TEXT = WorkloadRules.MAX_TEXT;
    static final String DEFAULT_KIND = "train";

    private static final String DURATION_HINT = "a duration text such as \"90s\", \"30m\", \"2h\", \"1h30m\", \"2d\""
            + " or plain seconds (\"3600\")";
    private static final String POSITIVE_DURATION_HINT = "a positive duration such as \"90s\", \"30m\", \"2h\", \"1h30m\","
            + " \"2d\" or plain seconds (\"3600\")";
    private static final String COMMAND_EXPECTED = "an array of strings, the program first, e.g. [\"python\","
            + " \"train.py\"]; it is not run through a shell";
    private static final String KEY_EXPECTED = "any text up to " + MAX_TEXT + " characters that is new for each"
            + " workload and the same when a submission is retried";

    /** What to suggest when a field is wrong, by field; unknown fields get the list of fields. */
    private static final Map<String, String> HINTS = Map.of(
            "allocation", "GET /v1/allocations lists them; use the full path, e.g. \"lab/nlp/pretrain\"",
            "gpusPerNode", "a gang takes whole groups of gpusPerNode GPUs on each node; omit it (or send 0) for any"
                    + " packing",
            "minRuntime", "\"0\" makes the workload unallocated: free, never charged and always preemptible",
            "duration", "omit it when the running time is unknown",
            "resumable", "true when the workload checkpoints and may be preempted and resumed",
            "kind", "a short word such as \"train\" or \"eval\"",
            "command", "expected " + COMMAND_EXPECTED,
            "environment", "names are letters, digits and _, not starting with a digit; values are strings, so quote"
                    + " numbers and booleans: {\"SEED\": \"7\"}; Allot sets "
                    + String.join(", ", dev.allot.core.backend.Launch.ATTEMPT_VARIABLES.stream().sorted().toList())
                    + " itself",
            "idempotencyKey", "expected " + KEY_EXPECTED);

    /**
     * Checks a parsed JSON body.
     *
     * @throws ApiException 400 listing every field that is wrong (the first as its field), or naming none when the
     *                      body is not a JSON object
     */
    static Submission parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object, got " + kindOf(body),
                    "send {\"allocation\": ..., \"gpus\": ..., ...}; GET /v1/openapi.json describes it");
        }
        Fields f = new Fields(body);
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                f.bad.add(new Violation(name, "one of the fields " + String.join(", ", FIELDS), "an unknown field"));
            }
        }
        String allocation = f.text("allocation", true, "an allocation path such as \"lab/nlp/pretrain\"");
        Long gpus = f.wholeNumber("gpus", true, WorkloadRules.GPUS_EXPECTED);
        Long gpusPerNode = body.has("gpusPerNode")
                ? f.wholeNumber("gpusPerNode", false, WorkloadRules.GPUS_PER_NODE_EXPECTED) : Long.valueOf(0);
        Duration minRuntime = f.duration("minRuntime", true, DURATION_HINT + "; \"0\" for unallocated");
        Duration duration = body.has("duration") ? f.duration("duration", false, POSITIVE_DURATION_HINT) : null;
        Boolean resumable = f.bool("resumable");
        Priority priority = f.priority();
        String kind = body.has("kind") ? f.text("kind", false, "a short word such as \"train\" or \"eval\"")
                : DEFAULT_KIND;
        List<String> command = f.command();
        SortedMap<String, String> environment = f.environment();
        String key = body.has("idempotencyKey") ? f.string("idempotencyKey", KEY_EXPECTED) : null;

        f.bad.addAll(WorkloadRules.check(WorkloadFields.builder().allocation(allocation).gpus(gpus)
                .gpusPerNode(gpusPerNode).minRuntime(minRuntime).duration(duration).kind(kind).command(command)
                .environment(environment).idempotencyKey(key).build()));
        if (!f.bad.isEmpty()) {
            List<Violation> all = new ArrayList<>(f.bad);
            all.sort(Comparator.comparingInt(v -> FIELDS.indexOf(v.field()))); // unknown fields (-1) first
            String first = all.get(0).field();
            throw ApiException.violations(all, FIELDS.contains(first) ? HINTS.get(first)
                    : "the fields are " + String.join(", ", FIELDS) + " (names are case-sensitive)");
        }
        return new Submission(allocation, gpus.intValue(), gpusPerNode.intValue(), minRuntime.getSeconds(),
                duration == null ? null : duration.getSeconds(), resumable, priority, kind, command, environment, key);
    }

    /**
     * Reads the fields of one body by type, noting each one of the wrong type (or missing when required) as a
     * violation and returning null for it, so that the rest can still be read and checked.
     */
    private static final class Fields {
        final JsonNode body;
        final List<Violation> bad = new ArrayList<>();

        Fields(JsonNode body) {
            this.body = body;
        }

        /** The field's value; null (noted) when missing but required or null; null (not noted) when absent. */
        private JsonNode present(String field, boolean required, String expected) {
            JsonNode v = body.get(field);
            if (v == null) {
                if (required) {
                    bad.add(new Violation(field, expected, "nothing"));
                }
                return null;
            }
            if (v.isNull()) {
                bad.add(new Violation(field, (required ? "" : "it omitted or ") + expected, "null"));
                return null;
            }
            return v;
        }

        /** A non-blank string (whose length and characters are for the rules). */
        String text(String field, boolean required, String expected) {
            JsonNode v = present(field, required, expected);
            if (v == null) {
                return null;
            }
            if (!v.isTextual() || v.textValue().isBlank()) {
                bad.add(new Violation(field, "a string that is not blank: " + expected, kindOf(v)));
                return null;
            }
            return printable(field, v.textValue());
        }

        /**
         * {@code text}, or null noting a violation when it holds a control character: a kind or key of
         * "x\u001b[31m...\nfake-line" was stored and printed as is by 'allot show' and 'allot queue' to whoever
         * listed the queue, escape sequences and line breaks reaching their terminal.
         */
        private String printable(String field, String text) {
            Optional<Violation> why = PrintableText.check(field, text);
            why.ifPresent(bad::add);
            return why.isPresent() ? null : text;
        }

        /** Any string (the rules say which). */
        String string(String field, String expected) {
            JsonNode v = present(field, false, expected);
            if (v == null) {
                return null;
            }
            if (!v.isTextual()) {
                bad.add(new Violation(field, "a string: " + expected, kindOf(v)));
                return null;
            }
            return printable(field, v.textValue());
        }

        Long wholeNumber(String field, boolean required, String expected) {
            JsonNode v = present(field, required, expected);
            if (v == null) {
                return null;
            }
            if (!v.isIntegralNumber()) {
                bad.add(new Violation(field, expected, kindOf(v)));
                return null;
            }
            if (!v.canConvertToLong()) {
                bad.add(new Violation(field, expected, v.asText()));
                return null;
            }
            return v.longValue();
        }

        /** A duration text; its range (zero, negative) is for the rules, except a sign, which the text refuses. */
        Duration duration(String field, boolean required, String expected) {
            JsonNode v = present(field, required, expected);
            if (v == null) {
                return null;
            }
            if (!v.isTextual()) {
                bad.add(new Violation(field, expected, kindOf(v)));
                return null;
            }
            String s = v.textValue().trim();
            if (s.startsWith("-")) {
                bad.add(new Violation(field, "a duration that is not negative: " + expected, kindOf(v)));
                return null;
            }
            try {
                return Durations.parse(s);
            } catch (Durations.TooLargeException e) {
                // a well-formed duration beyond the longest there is (68 years) is not one of the wrong form
                bad.add(new Violation(field, Durations.AT_MOST, kindOf(v)));
                return null;
            } catch (Durations.RepeatedUnitException e) {
                // the parser's own words ("5m5m" was told only what a duration looks like)
                bad.add(new Violation(field, Durations.RepeatedUnitException.EXPECTED, kindOf(v) + ": " + e.twice()));
                return null;
            } catch (IllegalArgumentException e) {
                bad.add(new Violation(field, expected, kindOf(v)));
                return null;
            }
        }

        Boolean bool(String field) {
            JsonNode v = present(field, true, "true or false");
            if (v == null) {
                return null;
            }
            if (!v.isBoolean()) {
                bad.add(new Violation(field, "true or false", kindOf(v)));
                return null;
            }
            return v.booleanValue();
        }

        Priority priority() {
            String expected = "one of " + Priority.validNames();
            JsonNode v = present("priority", true, expected);
            if (v == null) {
                return null;
            }
            if (v.isTextual()) {
                try {
                    return Priority.parse(v.textValue());
                } catch (IllegalArgumentException e) {
                    // noted below
                }
            }
            bad.add(new Violation("priority", expected, kindOf(v)));
            return null;
        }

        List<String> command() {
            JsonNode v = present("command", true, COMMAND_EXPECTED);
            if (v == null) {
                return null;
            }
            if (!v.isArray()) {
                bad.add(new Violation("command", COMMAND_EXPECTED, kindOf(v)));
                return null;
            }
            List<String> out = new ArrayList<>(v.size());
            for (int i = 0; i < v.size(); i++) {
                JsonNode item = v.get(i);
                if (!item.isTextual()) {
                    bad.add(new Violation("command", "a string at index " + i, kindOf(item)));
                    return null;
                }
                out.add(item.textValue());
            }
            return out;
        }

        SortedMap<String, String> environment() {
            SortedMap<String, String> out = new TreeMap<>();
            if (!body.has("environment")) {
                return out;
            }
            String expected = "an object of string values, e.g. {\"SEED\": \"7\"}";
            JsonNode v = present("environment", false, expected);
            if (v == null) {
                return null;
            }
            if (!v.isObject()) {
                bad.add(new Violation("environment", expected, kindOf(v)));
                return null;
            }
            for (Map.Entry<String, JsonNode> e : v.properties()) {
                if (dev.allot.core.backend.Launch.ATTEMPT_VARIABLES.contains(e.getKey())) {
                    bad.add(new Violation("environment", "no variable Allot sets itself on each attempt ("
                            + String.join(", ", dev.allot.core.backend.Launch.ATTEMPT_VARIABLES.stream().sorted()
                            .toList()) + ")", Violation.shown(e.getKey())));
                    return null;
                }
                if (!e.getValue().isTextual()) {
                    bad.add(new Violation("environment", "a string value for " + Violation.shown(e.getKey()),
                            kindOf(e.getValue())));
                    return null;
                }
                out.put(e.getKey(), e.getValue().textValue());
            }
            return out;
        }
    }

    /**
     * How a JSON value is described in errors: a number as it was sent ({@code -1}, {@code 1.5}; a range or whole-number
     * check said "got a number (-1.0)"), else its type, and its text when short.
     */
    static String kindOf(JsonNode v) {
        if (v == null || v.isMissingNode()) {
            return "nothing";
        }
        if (v.isNull()) {
            return "null";
        }
        if (v.isNumber()) {
            String written = v.toString();
            return written.length() > 40 ? "a number" : written; // as before: a long one by its kind alone
        }
        String type = switch (v.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case BOOLEAN -> "a boolean";
            case NUMBER -> "a number";
            case STRING -> "a string";
            default -> "a " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
        String text = v.isContainerNode() ? "" : v.toString();
        return text.isEmpty() || text.length() > 40 ? type : type + " (" + text + ")";
    }
}
