package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The body of {@code POST /v1/workloads}, checked: every field has the type and range the API promises, so what
 * reaches the store can no longer be refused for bad input. Parsed by hand from the JSON tree rather than bound by
 * Jackson, because the answer to bad input must name the field and say what was expected, which data binding's
 * exceptions do not do in words a client can use.
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

    static final int MAX_TEXT = 256;
    static final int MAX_COMMAND_ARGS = 4096;
    static final int MAX_ARG = 65_536;
    static final int MAX_ENVIRONMENT = 1024;
    static final String DEFAULT_KIND = "train";

    private static final String DURATION_HINT = "a duration text such as \"90s\", \"30m\", \"2h\", \"1h30m\", \"2d\""
            + " or plain seconds (\"3600\")";

    /**
     * Checks a parsed JSON body.
     *
     * @throws ApiException 400 naming the first field that is wrong
     */
    static Submission parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object, got " + kindOf(body),
                    "send {\"allocation\": ..., \"gpus\": ..., ...}; GET /v1/openapi.json describes it");
        }
        Set<String> known = Set.copyOf(FIELDS);
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw ApiException.badField(name, "unknown field", "the fields are " + String.join(", ", FIELDS)
                        + " (names are case-sensitive)");
            }
        }
        String allocation = text(body, "allocation", true, "an allocation path such as \"lab/nlp/pretrain\"");
        int gpus = wholeNumber(body, "gpus", true, 1, 0);
        int gpusPerNode = wholeNumber(body, "gpusPerNode", false, 0, 0);
        if (gpusPerNode > 0 && gpus % gpusPerNode != 0) {
            throw ApiException.badField("gpusPerNode", "expected a number that divides gpus (" + gpus + "), got "
                    + gpusPerNode, "a gang takes whole groups of gpusPerNode GPUs on each node; omit it (or send 0)"
                    + " for any packing");
        }
        long minRuntime = duration(body, "minRuntime", true, true);
        Long duration = body.has("duration")
                ? Long.valueOf(duration(body, "duration", false, false)) : null;
        boolean resumable = bool(body, "resumable");
        Priority priority = priority(body);
        String kind = body.has("kind") ? text(body, "kind", false, "a short word such as \"train\" or \"eval\"")
                : DEFAULT_KIND;
        List<String> command = command(body);
        SortedMap<String, String> environment = environment(body);
        String key = body.has("idempotencyKey")
                ? text(body, "idempotencyKey", false, "any text up to " + MAX_TEXT + " characters that is new for"
                        + " each workload and the same when a submission is retried")
                : null;
        return new Submission(allocation, gpus, gpusPerNode, minRuntime, duration, resumable, priority, kind,
                command, environment, key);
    }

    private static String text(JsonNode body, String field, boolean required, String expected) {
        JsonNode v = present(body, field, required, expected);
        if (!v.isTextual()) {
            throw ApiException.badField(field, "expected a string, got " + kindOf(v), "expected " + expected);
        }
        String s = v.textValue();
        if (s.isBlank()) {
            throw ApiException.badField(field, "expected a non-blank string, got \"" + s + "\"", "expected " + expected);
        }
        if (s.length() > MAX_TEXT) {
            throw ApiException.badField(field, "expected at most " + MAX_TEXT + " characters, got " + s.length(),
                    "expected " + expected);
        }
        return s;
    }

    /** A whole number >= min; {@code absent} when the field is optional and not given. */
    private static int wholeNumber(JsonNode body, String field, boolean required, int min, int absent) {
        if (!required && !body.has(field)) {
            return absent;
        }
        String expected = "a whole number >= " + min;
        JsonNode v = present(body, field, required, expected);
        if (!v.isIntegralNumber()) {
            throw ApiException.badField(field, "expected " + expected + ", got " + kindOf(v), null);
        }
        if (!v.canConvertToInt() || v.intValue() < min) {
            throw ApiException.badField(field, "expected " + expected + ", got " + v.asText(), null);
        }
        return v.intValue();
    }

    /** Seconds of a duration text; zero allowed only when {@code zeroAllowed}. */
    private static long duration(JsonNode body, String field, boolean required, boolean zeroAllowed) {
        String expected = zeroAllowed ? DURATION_HINT + "; \"0\" for unallocated (free, never charged, always preemptible)"
                : DURATION_HINT;
        JsonNode v = present(body, field, required, expected);
        if (!v.isTextual()) {
            throw ApiException.badField(field, "expected a duration text, got " + kindOf(v), "expected " + expected);
        }
        String s = v.textValue().trim();
        if (s.startsWith("-")) {
            throw ApiException.badField(field, "expected a duration that is not negative, got \"" + v.textValue() + "\"",
                    "expected " + expected);
        }
        Duration d;
        try {
            d = Durations.parse(s);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField(field, e.getMessage(), "expected " + expected);
        }
        if (!zeroAllowed && d.isZero()) {
            throw ApiException.badField(field, "expected a positive duration, got \"" + v.textValue() + "\"",
                    "omit it when the running time is unknown");
        }
        return d.getSeconds();
    }

    private static boolean bool(JsonNode body, String field) {
        JsonNode v = present(body, field, true, "true or false");
        if (!v.isBoolean()) {
            throw ApiException.badField(field, "expected true or false, got " + kindOf(v),
                    "true when the workload checkpoints and may be preempted and resumed");
        }
        return v.booleanValue();
    }

    private static Priority priority(JsonNode body) {
        String expected = "one of " + Priority.validNames();
        JsonNode v = present(body, "priority", true, expected);
        if (!v.isTextual()) {
            throw ApiException.badField("priority", "expected " + expected + ", got " + kindOf(v), null);
        }
        try {
            return Priority.parse(v.textValue());
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("priority", "expected " + expected + ", got \"" + v.textValue() + "\"", null);
        }
    }

    private static List<String> command(JsonNode body) {
        String expected = "an array of strings, the program first, e.g. [\"python\", \"train.py\"]; it is not run"
                + " through a shell";
        JsonNode v = present(body, "command", true, expected);
        if (!v.isArray()) {
            throw ApiException.badField("command", "expected an array of strings, got " + kindOf(v), "expected " + expected);
        }
        if (v.isEmpty()) {
            throw ApiException.badField("command", "expected at least the program, got an empty array",
                    "expected " + expected);
        }
        if (v.size() > MAX_COMMAND_ARGS) {
            throw ApiException.badField("command", "expected at most " + MAX_COMMAND_ARGS + " items, got " + v.size(), null);
        }
        List<String> out = new ArrayList<>(v.size());
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            if (!item.isTextual()) {
                throw ApiException.badField("command", "expected a string at index " + i + ", got " + kindOf(item),
                        "expected " + expected);
            }
            if (item.textValue().length() > MAX_ARG || item.textValue().indexOf('\0') >= 0) {
                throw ApiException.badField("command", "item " + i + " is longer than " + MAX_ARG
                        + " characters or contains a NUL character", null);
            }
            out.add(item.textValue());
        }
        if (out.get(0).isBlank()) {
            throw ApiException.badField("command", "expected the program as the first item, got a blank string",
                    "expected " + expected);
        }
        return out;
    }

    private static SortedMap<String, String> environment(JsonNode body) {
        SortedMap<String, String> out = new TreeMap<>();
        if (!body.has("environment")) {
            return out;
        }
        String expected = "an object of string values, e.g. {\"SEED\": \"7\"}";
        JsonNode v = present(body, "environment", false, expected);
        if (!v.isObject()) {
            throw ApiException.badField("environment", "expected an object, got " + kindOf(v), "expected " + expected);
        }
        if (v.size() > MAX_ENVIRONMENT) {
            throw ApiException.badField("environment", "expected at most " + MAX_ENVIRONMENT + " variables, got "
                    + v.size(), null);
        }
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            String name = e.getKey();
            if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0 || name.length() > MAX_TEXT) {
                throw ApiException.badField("environment", "expected variable names that are not empty and have no"
                        + " '=' or NUL, got \"" + name + "\"", "expected " + expected);
            }
            if (!e.getValue().isTextual()) {
                throw ApiException.badField("environment", "expected a string value for " + name + ", got "
                        + kindOf(e.getValue()), "quote numbers and booleans: {\"" + name + "\": \"...\"}");
            }
            String value = e.getValue().textValue();
            if (value.length() > MAX_ARG || value.indexOf('\0') >= 0) {
                throw ApiException.badField("environment", "the value of " + name + " is longer than " + MAX_ARG
                        + " characters or contains a NUL character", null);
            }
            out.put(name, value);
        }
        return out;
    }

    /** The field's value; refuses a missing field when required and a null wherever it appears. */
    private static JsonNode present(JsonNode body, String field, boolean required, String expected) {
        JsonNode v = body.get(field);
        if (v == null) {
            if (required) {
                throw ApiException.badField(field, "missing", "expected " + expected);
            }
            throw new IllegalStateException("optional field " + field + " read while absent");
        }
        if (v.isNull()) {
            throw ApiException.badField(field, "expected " + (required ? "" : "it omitted or ") + "a value, got null",
                    "expected " + expected);
        }
        return v;
    }

    /** How a JSON value is described in errors: its type, and its text when short. */
    static String kindOf(JsonNode v) {
        if (v == null || v.isMissingNode()) {
            return "nothing";
        }
        if (v.isNull()) {
            return "null";
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
