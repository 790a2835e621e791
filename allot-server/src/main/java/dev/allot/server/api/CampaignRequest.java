package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.campaign.ShardBrakes;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Priority;
import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.Violation;
import dev.allot.server.campaign.ShardSubmissions;
import dev.allot.server.store.Campaign;
import dev.allot.server.store.NewCampaign;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The bodies of {@code POST /v1/campaigns} and {@code PUT /v1/campaigns/{name}/brakes}, checked field by field as
 * {@link Submission} checks a workload's: every problem is reported at once, each naming its field
 * ({@code shards[3].units}, {@code brakes.campaignCost}) and what was expected. What the shards' workloads must also
 * pass (the allocation, the command's and environment's rules, the shape) is checked by the caller through
 * {@link WorkloadIntake}, as each shard's submission.
 *
 * <p>Required: {@code name}, {@code allocation}, {@code command}, {@code gpus}, {@code minRuntime}, one of
 * {@code protectedShards} and {@code protectedGpus}, {@code shards}. Optional: {@code environment},
 * {@code secondsPerUnit}, {@code priority} (default normal), {@code brakes} (default none), {@code failureRetries}
 * (default 0).
 */
record CampaignRequest(String name, String allocation, List<String> command, SortedMap<String, String> environment,
                       int gpus, long minRuntimeSeconds, Integer protectedShards, Integer protectedGpus,
                       Double secondsPerUnit, Priority priority, List<NewCampaign.Shard> shards, ShardBrakes brakes,
                       int failureRetries) {

    static final List<String> FIELDS = List.of("name", "allocation", "command", "environment", "gpus", "minRuntime",
            "protectedShards", "protectedGpus", "secondsPerUnit", "priority", "shards", "brakes", "failureRetries");
    static final List<String> BRAKE_FIELDS = List.of("shardGpuHours", "shardRequeues", "campaignGpuHours",
            "campaignCost", "pricePerGpuHour");
    static final List<String> SHARD_FIELDS = List.of("units", "family");
    /** Variables Allot sets in a shard's environment itself. */
    static final Set<String> RESERVED = java.util.stream.Stream.concat(java.util.stream.Stream.of(ShardSubmissions.CAMPAIGN_VARIABLE,
            ShardSubmissions.SHARD_VARIABLE, ShardSubmissions.RESUME_VARIABLE, ShardSubmissions.UNITS_VARIABLE,
            ShardSubmissions.FAMILY_VARIABLE), dev.allot.core.backend.Launch.ATTEMPT_VARIABLES.stream())
            .collect(java.util.stream.Collectors.toUnmodifiableSet());
    static final long MAX_UNITS = 1_000_000_000_000L;
    static final int MAX_SLOTS = 1_000_000;
    static final double MAX_NUMBER = 1e12;

    private static final String HINT = "GET /v1/openapi.json describes a campaign; e.g. {\"name\": \"eval\","
            + " \"allocation\": \"lab/nlp/eval\", \"command\": [\"python\", \"eval.py\", \"--shard\", \"{shard}\"],"
            + " \"gpus\": 1, \"minRuntime\": \"2h\", \"protectedShards\": 2, \"shards\": [{\"units\": 64}]}";

    /** The hint of a refused {@code PUT /v1/campaigns/{name}/brakes}: about brakes, not the campaign's fields. */
    static final String BRAKES_HINT = "the body is the whole set of caps, e.g. {\"shardGpuHours\": 40,"
            + " \"campaignGpuHours\": 2000}; a cap left out or null is none";

    /** The campaign as the store takes it, owned by {@code owner}. */
    NewCampaign toNew(String owner) {
        return new NewCampaign(name, owner, allocation, command, environment, gpus, minRuntimeSeconds, protectedShards,
                protectedGpus, secondsPerUnit, priority, brakes, failureRetries, shards);
    }

    static CampaignRequest parse(JsonNode body) {
        Reader r = new Reader(body, "");
        r.object(HINT);
        r.onlyKnown(FIELDS);
        String name = r.string("name", true, Campaign.NAME_EXPECTED, Campaign.MAX_NAME);
        if (name != null && !Campaign.validName(name)) {
            r.bad("name", Campaign.NAME_EXPECTED, Violation.shown(name));
        }
        String allocation = r.string("allocation", true, "an allocation path such as \"lab/nlp/eval\"");
        List<String> command = r.command();
        SortedMap<String, String> environment = r.environment();
        Long gpus = r.whole("gpus", true, 1, 1_000_000, "a whole number of GPUs per shard, at least 1");
        Duration minRuntime = r.duration("minRuntime", true);
        Long shards = r.whole("protectedShards", false, 0, MAX_SLOTS, "how many shards may run protected at once");
        Long slotGpus = r.whole("protectedGpus", false, 0, MAX_SLOTS, "how many GPUs its protected shards may hold");
        if (body.has("protectedShards") == body.has("protectedGpus")) {
            r.bad("protectedShards", "exactly one of protectedShards and protectedGpus",
                    body.has("protectedShards") ? "both" : "neither");
        }
        Double rate = r.number("secondsPerUnit", false, "a number of seconds per unit above 0", true);
        Priority priority = r.priority();
        List<NewCampaign.Shard> list = r.shards();
        ShardBrakes brakes = body.hasNonNull("brakes") ? brakes(body.get("brakes"), "brakes.", r) : ShardBrakes.NONE;
        Long retries = r.whole("failureRetries", false, 0, Campaign.MAX_FAILURE_RETRIES,
                "how many times a shard whose workload failed is queued again by itself");
        r.finish(FIELDS, HINT);
        return new CampaignRequest(name, allocation, command, environment, gpus.intValue(), minRuntime.getSeconds(),
                shards == null ? null : shards.intValue(), slotGpus == null ? null : slotGpus.intValue(), rate,
                priority, list, brakes, retries == null ? 0 : retries.intValue());
    }

    /** The body of {@code PUT /v1/campaigns/{name}/brakes}: the whole set of caps (an absent or null one: none). */
    static ShardBrakes parseBrakes(JsonNode body) {
        Reader r = new Reader(body, "");
        r.object(BRAKES_HINT);
        ShardBrakes b = brakes(body, "", r);
        r.finish(BRAKE_FIELDS, BRAKES_HINT);
        return b;
    }

    private static ShardBrakes brakes(JsonNode v, String prefix, Reader outer) {
        if (v == null || !v.isObject()) {
            outer.bad(prefix.isEmpty() ? "brakes" : prefix.substring(0, prefix.length() - 1),
                    "an object of caps such as {\"shardGpuHours\": 40}", Submission.kindOf(v));
            return ShardBrakes.NONE;
        }
        Reader r = new Reader(v, prefix);
        r.onlyKnown(BRAKE_FIELDS);
        Double shardHours = r.number("shardGpuHours", false, "GPU-hours one shard may use, a number >= 0", false);
        Long requeues = r.whole("shardRequeues", false, 0, 1_000_000, "times one shard may go back to the queue");
        Double campaignHours = r.number("campaignGpuHours", false, "GPU-hours the campaign may use, >= 0", false);
        Double cost = r.number("campaignCost", false, "what the campaign may cost at pricePerGpuHour, >= 0", false);
        Double price = r.number("pricePerGpuHour", false, "a price per GPU-hour, >= 0", false);
        if (cost != null && price == null) {
            r.bad("campaignCost", "pricePerGpuHour beside it (a cost needs a price)", "no price");
        }
        outer.bad.addAll(r.bad);
        if (!r.bad.isEmpty()) {
            return ShardBrakes.NONE;
        }
        return new ShardBrakes(shardHours, requeues == null ? null : requeues.intValue(), campaignHours, cost, price);
    }

    /** Reads the fields of one JSON object by type, noting each wrong one as a violation (prefixed) and going on. */
    private static final class Reader {
        final JsonNode body;
        final String prefix;
        final List<Violation> bad = new ArrayList<>();

        Reader(JsonNode body, String prefix) {
            this.body = body;
            this.prefix = prefix;
        }

        void object(String hint) {
            if (body == null || !body.isObject()) {
                throw ApiException.badRequest("the body must be a JSON object, got " + Submission.kindOf(body), hint);
            }
        }

        void onlyKnown(List<String> fields) {
            for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
                String n = names.next();
                if (!fields.contains(n)) {
                    bad(n, "one of the fields " + String.join(", ", fields), "an unknown field");
                }
            }
        }

        void bad(String field, String expected, String got) {
            bad.add(new Violation(prefix + field, expected, got));
        }

        /** Throws the 400 listing every violation (in the order of the fields), if there is any. */
        void finish(List<String> order, String hint) {
            if (bad.isEmpty()) {
                return;
            }
            List<Violation> all = new ArrayList<>(bad);
            all.sort(Comparator.comparingInt(v -> order.indexOf(v.field().replaceAll("[.\\[].*", ""))));
            throw ApiException.violations(all, hint);
        }

        private JsonNode present(String field, boolean required, String expected) {
            JsonNode v = body.get(field);
            if (v == null || v.isNull()) {
                if (required) {
                    bad(field, expected, v == null ? "nothing" : "null");
                }
                return null; // an optional field given null is as if left out (a brake: no cap)
            }
            return v;
        }

        String string(String field, boolean required, String expected) {
            return string(field, required, expected, Submission.MAX_TEXT);
        }

        /** A string that is not blank, of at most {@code maxLength} characters, printable. */
        String string(String field, boolean required, String expected, int maxLength) {
            JsonNode v = present(field, required, expected);
            if (v == null) {
                return null;
            }
            if (!v.isTextual() || v.textValue().isBlank()) {
                bad(field, expected, Submission.kindOf(v));
                return null;
            }
            if (v.textValue().length() > maxLength) {
                // told by the limit and its length (Violation.shown says it past 60 characters): "got a string" alone
                // read as a wrong type
                bad(field, expected + ", of at most " + maxLength + " characters", Violation.shown(v.textValue()));
                return null;
            }
            if (!PrintableText.valid(v.textValue())) { // a shard's family is printed by 'allot campaign status'
                bad(field, PrintableText.EXPECTED, Violation.shown(v.textValue()));
                return null;
            }
            return v.textValue();
        }

        Long whole(String field, boolean required, long min, long max, String expected) {
            String what = expected + " (" + min + " to " + max + ")";
            JsonNode v = present(field, required, what);
            if (v == null) {
                return null;
            }
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
                bad(field, what, Submission.kindOf(v));
                return null;
            }
            return v.longValue();
        }

        Double number(String field, boolean required, String expected, boolean positive) {
            JsonNode v = present(field, required, expected);
            if (v == null) {
                return null;
            }
            double d = v.isNumber() ? v.doubleValue() : Double.NaN;
            if (!(d >= 0) || d > MAX_NUMBER || (positive && d <= 0)) {
                bad(field, expected + " (at most " + (long) MAX_NUMBER + ")", Submission.kindOf(v));
                return null;
            }
            return d;
        }

        Duration duration(String field, boolean required) {
            String expected = "a duration above 0 such as \"90m\", \"2h\" or plain seconds: a protected shard's"
                    + " minimum runtime";
            JsonNode v = present(field, required, expected);
            if (v == null) {
                return Duration.ZERO;
            }
            try {
                Duration d = v.isTextual() && !v.textValue().strip().startsWith("-")
                        ? Durations.parse(v.textValue().strip()) : null;
                if (d != null && !d.isZero() && d.getSeconds() <= 366L * 86_400) {
                    return d;
                }
            } catch (Durations.RepeatedUnitException e) {
                // the parser's own words, as a workload's (5m5m was told only what a duration looks like)
                bad(field, Durations.RepeatedUnitException.EXPECTED, Submission.kindOf(v) + ": " + e.twice());
                return Duration.ZERO;
            } catch (IllegalArgumentException e) {
                // noted below
            }
            bad(field, expected + ", at most 366d", Submission.kindOf(v));
            return Duration.ZERO;
        }

        Priority priority() {
            JsonNode v = body.get("priority");
            if (v == null) {
                return Priority.NORMAL;
            }
            try {
                return Priority.parse(v.isTextual() ? v.textValue() : "");
            } catch (IllegalArgumentException e) {
                bad("priority", "one of " + Priority.validNames(), Submission.kindOf(v));
                return Priority.NORMAL;
            }
        }

        List<String> command() {
            String expected = "a non-empty array of strings, the program first; {shard} stands for the shard's index";
            JsonNode v = present("command", true, expected);
            List<String> out = new ArrayList<>();
            if (v == null) {
                return out;
            }
            if (!v.isArray() || v.isEmpty()) {
                bad("command", expected, Submission.kindOf(v));
                return out;
            }
            for (int i = 0; i < v.size(); i++) {
                if (!v.get(i).isTextual()) {
                    bad("command", "a string at index " + i, Submission.kindOf(v.get(i)));
                    return out;
                }
                out.add(v.get(i).textValue());
            }
            return out;
        }

        SortedMap<String, String> environment() {
            SortedMap<String, String> out = new TreeMap<>();
            JsonNode v = body.get("environment");
            String expected = "an object of string values, e.g. {\"DATA\": \"/data/eval\"}";
            if (v == null) {
                return out;
            }
            if (!v.isObject()) {
                bad("environment", expected, Submission.kindOf(v));
                return out;
            }
            for (Map.Entry<String, JsonNode> e : v.properties()) {
                if (RESERVED.contains(e.getKey())) {
                    bad("environment", "no variable Allot sets itself (" + String.join(", ",
                            RESERVED.stream().sorted().toList()) + ")", Violation.shown(e.getKey()));
                } else if (!e.getValue().isTextual()) {
                    bad("environment", "a string value for " + Violation.shown(e.getKey()),
                            Submission.kindOf(e.getValue()));
                } else {
                    out.put(e.getKey(), e.getValue().textValue());
                }
            }
            return out;
        }

        List<NewCampaign.Shard> shards() {
            String expected = "an array of 1 to " + NewCampaign.MAX_SHARDS + " shards such as [{\"units\": 64,"
                    + " \"family\": \"restore\"}]";
            JsonNode v = present("shards", true, expected);
            List<NewCampaign.Shard> out = new ArrayList<>();
            if (v == null) {
                return out;
            }
            if (!v.isArray() || v.isEmpty() || v.size() > NewCampaign.MAX_SHARDS) {
                bad("shards", expected, v.isArray() ? "an array of " + v.size() : Submission.kindOf(v));
                return out;
            }
            for (int i = 0; i < v.size(); i++) {
                JsonNode s = v.get(i);
                String at = "shards[" + i + "].";
                if (!s.isObject()) {
                    bad("shards[" + i + "]", "an object such as {\"units\": 64}", Submission.kindOf(s));
                    continue;
                }
                Reader r = new Reader(s, prefix + at);
                r.onlyKnown(SHARD_FIELDS);
                Long units = r.whole("units", true, 1, MAX_UNITS, "the shard's units of work in all (rows, samples)");
                String family = r.string("family", false, "a short name of the shards that run at one speed, e.g."
                        + " \"restore\"");
                bad.addAll(r.bad);
                if (units != null) {
                    out.add(new NewCampaign.Shard(units, family));
                }
            }
            return out;
        }
    }
}
