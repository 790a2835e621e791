package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A campaign file, as {@code allot campaign submit FILE} reads it: YAML (or JSON, which YAML reads too) with the
 * fields of {@code POST /v1/campaigns} in kebab-case, for example
 *
 * <pre>
 * name: eval-2026-03
 * allocation: lab/nlp/eval
 * command: [python, eval.py, --shard, "{shard}"]   # {shard}: the shard's index
 * environment: {DATA: /data/eval}                  # optional
 * gpus: 1
 * min-runtime: 2h                                  # a protected shard's minimum runtime
 * protected-shards: 2                              # or protected-gpus: 16
 * seconds-per-unit: 30                             # optional: the rate until one is measured
 * priority: normal                                 # optional
 * shards:
 *   - {units: 64, family: restore}
 *   - units: 48
 * brakes:                                          # optional, each cap optional
 *   shard-gpu-hours: 40
 *   shard-requeues: 5
 *   campaign-gpu-hours: 2000
 *   campaign-cost: 5000
 *   price-per-gpu-hour: 2.5
 * failure-retries: 2                               # optional: a failed shard is queued again by itself twice
 * </pre>
 *
 * Its shape (known fields, lists and mappings where they belong) is checked here, naming the file and the field;
 * values are the server's to check, and its errors are said back in the file's field names ({@link #inFileTerms}).
 */
final class CampaignFile {
    /** The file's fields and the API's, in the order the documentation lists them. */
    static final Map<String, String> FIELDS = fields("name", "name", "allocation", "allocation", "command", "command",
            "environment", "environment", "gpus", "gpus", "min-runtime", "minRuntime", "protected-shards",
            "protectedShards", "protected-gpus", "protectedGpus", "seconds-per-unit", "secondsPerUnit", "priority",
            "priority", "shards", "shards", "brakes", "brakes", "failure-retries", "failureRetries");
    static final Map<String, String> BRAKES = fields("shard-gpu-hours", "shardGpuHours", "shard-requeues",
            "shardRequeues", "campaign-gpu-hours", "campaignGpuHours", "campaign-cost", "campaignCost",
            "price-per-gpu-hour", "pricePerGpuHour");
    static final Map<String, String> SHARD = fields("units", "units", "family", "family");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private CampaignFile() {
    }

    private static Map<String, String> fields(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    /** The file's text as the body of {@code POST /v1/campaigns}; a file that does not read is the caller's fault. */
    static ObjectNode read(Path file, String text) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // as a scenario's YAML files say it: the parser's first line alone ("while scanning a simple key") said
            // where it was, not what it found wrong ("could not find expected ':'")
            int[] at = dev.allot.sim.input.ParserMessages.yamlPosition(e);
            String where = at != null ? ":" + at[0] + ":" + at[1] : "";
            throw bad(file + where + ": not YAML or JSON: "
                    + dev.allot.sim.input.ParserMessages.yamlSyntax(e.getOriginalMessage()));
        } catch (IOException e) {
            throw bad(file + ": not YAML or JSON: " + firstLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            throw bad(file + ": expected a mapping of the campaign's fields (name, allocation, command, gpus,"
                    + " min-runtime, protected-shards, shards...), got " + kind(root));
        }
        ObjectNode body = ApiClient.JSON.createObjectNode();
        List<String> problems = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String api = FIELDS.get(e.getKey());
            if (api == null) {
                problems.add("field '" + e.getKey() + "': unknown; the fields are " + String.join(", ", FIELDS.keySet()));
                continue;
            }
            JsonNode v = e.getValue();
            switch (api) {
                case "command" -> v = list(v, e.getKey(), problems);
                case "environment" -> v = mapping(v, e.getKey(), problems);
                case "shards" -> v = shards(v, problems);
                case "brakes" -> v = renamed(v, "brakes", BRAKES, problems);
                default -> {
                    if (v.isContainerNode()) {
                        problems.add("field '" + e.getKey() + "': expected a single value, got " + kind(v));
                    }
                }
            }
            body.set(api, v);
        }
        if (!problems.isEmpty()) {
            throw bad(located(file, String.join("; ", problems), text));
        }
        return body;
    }

    private static final java.util.regex.Pattern FIELD = java.util.regex.Pattern.compile("field '([^']+)'");

    /**
     * Words about the file's fields, located: {@code FILE:LINE:COLUMN: } where the first field they name (as the file
     * names it: {@code gpus}, {@code shards[1].units}, {@code brakes.campaign-cost}) stands in the file, each other
     * field located by its line; {@code FILE: } when the first is not in the file (a required field left out).
     */
    static String located(Path file, String words, String text) {
        Map<String, int[]> at = locations(text);
        java.util.regex.Matcher m = FIELD.matcher(words);
        StringBuilder out = new StringBuilder();
        int[] first = null;
        boolean leading = true;
        while (m.find()) {
            int[] l = at.get(m.group(1));
            String said = m.group();
            if (leading) { // the location leads only when it is the first field's: a left-out one has none
                first = l;
                leading = false;
            } else if (l != null) {
                said += " (line " + l[0] + ")";
            }
            m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(said));
        }
        m.appendTail(out);
        return file + (first == null ? "" : ":" + first[0] + ":" + first[1]) + ": " + out;
    }

    /** Where each field and list item of a file that reads stands (line, column), by its path in the file's names. */
    private static Map<String, int[]> locations(String text) {
        Map<String, int[]> at = new java.util.HashMap<>();
        try (com.fasterxml.jackson.core.JsonParser p = YAML.getFactory().createParser(text)) {
            if (p.nextToken() != null) {
                walk(p, "", at);
            }
        } catch (IOException e) {
            // it read as a tree already; a location missing only leaves the message unlocated
        }
        return at;
    }

    private static void walk(com.fasterxml.jackson.core.JsonParser p, String path, Map<String, int[]> at)
            throws IOException {
        com.fasterxml.jackson.core.JsonToken t = p.currentToken();
        if (t == com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String field = path.isEmpty() ? p.currentName() : path + "." + p.currentName();
                at.putIfAbsent(field, where(p));
                p.nextToken();
                walk(p, field, at);
            }
        } else if (t == com.fasterxml.jackson.core.JsonToken.START_ARRAY) {
            int i = 0;
            while (p.nextToken() != com.fasterxml.jackson.core.JsonToken.END_ARRAY) {
                String item = path + "[" + i++ + "]";
                at.putIfAbsent(item, where(p));
                walk(p, item, at);
            }
        }
    }

    private static int[] where(com.fasterxml.jackson.core.JsonParser p) {
        com.fasterxml.jackson.core.JsonLocation l = p.getTokenLocation();
        return new int[] {l.getLineNr(), l.getColumnNr()};
    }

    private static JsonNode list(JsonNode v, String field, List<String> problems) {
        if (!v.isArray()) {
            problems.add("field '" + field + "': expected a list, e.g. [python, eval.py, --shard, \"{shard}\"], got "
                    + kind(v));
            return v;
        }
        List<String> words = new ArrayList<>();
        v.forEach(w -> words.add(w.isValueNode() ? w.asText() : null));
        CommandWords.problem(words, apart -> field + ": [" + apart.stream()
                        .map(w -> ApiClient.JSON.getNodeFactory().textNode(w).toString())
                        .collect(java.util.stream.Collectors.joining(", ")) + "]")
                .ifPresent(p -> problems.add("field '" + field + "': " + p));
        return v;
    }

    private static JsonNode mapping(JsonNode v, String field, List<String> problems) {
        if (!v.isObject()) {
            problems.add("field '" + field + "': expected a mapping of names to values, got " + kind(v));
            return v;
        }
        ObjectNode out = ApiClient.JSON.createObjectNode();
        // YAML reads 7 as a number and yes as a string: the environment's values are text whatever they look like
        v.fields().forEachRemaining(e -> out.set(e.getKey(), e.getValue().isValueNode() && !e.getValue().isNull()
                ? ApiClient.JSON.getNodeFactory().textNode(e.getValue().asText()) : e.getValue()));
        return out;
    }

    private static JsonNode shards(JsonNode v, List<String> problems) {
        if (!v.isArray()) {
            problems.add("field 'shards': expected a list of shards such as [{units: 64, family: restore}], got "
                    + kind(v));
            return v;
        }
        ArrayNode out = ApiClient.JSON.createArrayNode();
        for (int i = 0; i < v.size(); i++) {
            out.add(renamed(v.get(i), "shards[" + i + "]", SHARD, problems));
        }
        return out;
    }

    /** A mapping whose kebab-case keys become the API's names; an unknown key is a problem. */
    private static JsonNode renamed(JsonNode v, String field, Map<String, String> names, List<String> problems) {
        if (!v.isObject()) {
            problems.add("field '" + field + "': expected a mapping of " + String.join(", ", names.keySet()) + ", got "
                    + kind(v));
            return v;
        }
        ObjectNode out = ApiClient.JSON.createObjectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String api = names.get(e.getKey());
            if (api == null) {
                problems.add("field '" + field + "." + e.getKey() + "': unknown; expected one of "
                        + String.join(", ", names.keySet()));
            } else {
                out.set(api, e.getValue());
            }
        }
        return out;
    }

    /**
     * The server's words about the file's campaign, with its fields named as the file names them, and its hint in the
     * command line's words (an unknown allocation's "'allot budget show' lists them" was dropped).
     */
    static String inFileTerms(Path file, String text, ApiClient.ClientException e) {
        String words = e.error() == null ? e.getMessage() : e.error();
        String hint = e.error() == null ? null : CliHints.hint(e.hint(), "allot campaign submit");
        if (hint != null && !hint.isBlank()) {
            words += " (hint: " + hint + ")";
        }
        for (Map<String, String> names : List.of(FIELDS, BRAKES)) {
            for (Map.Entry<String, String> n : names.entrySet()) {
                if (!n.getKey().equals(n.getValue())) {
                    words = words.replaceAll("\\b" + n.getValue() + "\\b", n.getKey());
                }
            }
        }
        return located(file, words, text);
    }

    private static ApiClient.ClientException bad(String message) {
        return new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, message);
    }

    private static String kind(JsonNode v) {
        if (v == null || v.isMissingNode()) {
            return "nothing";
        }
        if (v.isNull()) {
            return "nothing";
        }
        return v.isArray() ? "a list" : v.isObject() ? "a mapping" : "'" + v.asText() + "'";
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
