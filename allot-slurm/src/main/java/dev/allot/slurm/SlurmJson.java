package dev.allot.slurm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads Slurm's JSON (data format {@code openapi/v0.0.38}, as {@code squeue --json}, {@code sinfo --json} and
 * slurmrestd print it). Anything that is not a complete document of the expected shape is a {@link Malformed}
 * naming the source and what was missing: a truncated or empty answer must never read as "no jobs".
 */
public final class SlurmJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SlurmJson() {
    }

    /** The answer could not be read; says from where and why. */
    public static final class Malformed extends Exception {
        public Malformed(String message) {
            super(message);
        }
    }

    /** The jobs of a {@code squeue --json} or {@code GET /slurm/v0.0.38/jobs} answer. */
    public static List<SlurmJob> jobs(String source, String text) throws Malformed {
        JsonNode root = document(source, text, "jobs");
        List<SlurmJob> out = new ArrayList<>();
        int i = 0;
        for (JsonNode j : root.get("jobs")) {
            out.add(job(source + ": jobs[" + i + "]", j));
            i++;
        }
        return out;
    }

    /** The nodes of a {@code sinfo --json} or {@code GET /slurm/v0.0.38/nodes} answer. */
    public static List<SlurmNode> nodes(String source, String text) throws Malformed {
        JsonNode root = document(source, text, "nodes");
        List<SlurmNode> out = new ArrayList<>();
        int i = 0;
        for (JsonNode n : root.get("nodes")) {
            String where = source + ": nodes[" + i + "]";
            String name = text(where, n, "name");
            String state = text(where, n, "state").toUpperCase(Locale.ROOT);
            List<String> flags = new ArrayList<>();
            JsonNode f = n.get("state_flags");
            if (f != null && f.isArray()) {
                f.forEach(x -> flags.add(x.asText().toUpperCase(Locale.ROOT)));
            }
            JsonNode reason = n.get("reason");
            out.add(new SlurmNode(name, gpus(n.path("gres").asText("")), state, flags,
                    reason == null || reason.isNull() ? "" : reason.asText()));
            i++;
        }
        return out;
    }

    /** GPUs in a gres string such as {@code gpu:8}, {@code gpu:a100:4(S:0-1),gpu:v100:2}, {@code (null)}. */
    static int gpus(String gres) {
        int total = 0;
        for (String part : gres.split(",(?![^()]*\\))")) {
            String p = part.trim();
            int paren = p.indexOf('(');
            if (paren >= 0) {
                p = p.substring(0, paren);
            }
            String[] f = p.split(":");
            if (f.length >= 2 && f[0].equals("gpu")) {
                String count = f[f.length - 1];
                if (!count.isEmpty() && count.chars().allMatch(Character::isDigit)) {
                    total += Integer.parseInt(count);
                }
            }
        }
        return total;
    }

    private static JsonNode document(String source, String text, String listField) throws Malformed {
        if (text == null || text.isBlank()) {
            throw new Malformed(source + ": empty answer, expected a JSON document with \"" + listField + "\"");
        }
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new Malformed(source + ": not complete JSON (" + text.length() + " characters; "
                    + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject()) {
            throw new Malformed(source + ": expected a JSON object, got " + (root == null ? "nothing" : root.getNodeType()));
        }
        JsonNode errors = root.get("errors");
        if (errors != null && errors.isArray() && !errors.isEmpty()) {
            throw new Malformed(source + ": Slurm reported errors: " + errors);
        }
        JsonNode list = root.get(listField);
        if (list == null || !list.isArray()) {
            throw new Malformed(source + ": no \"" + listField + "\" list in the answer");
        }
        return root;
    }

    private static SlurmJob job(String where, JsonNode j) throws Malformed {
        long id = number(where, j, "job_id");
        String name = text(where, j, "name");
        String state = text(where, j, "job_state").toUpperCase(Locale.ROOT);
        JsonNode exit = j.get("exit_code");
        Integer exitStatus = null;
        if (exit != null && exit.isInt()) {
            exitStatus = exit.asInt();
        } else if (exit != null && exit.isObject() && exit.path("return_code").isInt()) {
            exitStatus = exit.path("return_code").asInt() << 8;
        }
        JsonNode restarts = j.get("restart_cnt");
        List<String> nodes;
        try {
            nodes = HostList.expand(j.path("nodes").asText(""));
        } catch (IllegalArgumentException e) {
            throw new Malformed(where + ": " + e.getMessage());
        }
        return new SlurmJob(id, name, j.path("comment").asText(""), state, j.path("state_reason").asText(""),
                exitStatus, restarts != null && restarts.isInt() ? restarts.asInt() : 0, nodes,
                j.path("partition").asText(""), j.path("het_job_id").asLong(0), j.path("het_job_offset").asInt(0),
                epochMillis(j.get("end_time")));
    }

    /**
     * A time in seconds since the epoch as Slurm's JSON gives it, in milliseconds: a number ({@code openapi/v0.0.38})
     * or, in later data formats, an object {@code {"set": true, "infinite": false, "number": N}}; null when missing,
     * zero, not set or infinite.
     */
    static Long epochMillis(JsonNode t) {
        if (t != null && t.isObject()) {
            if (!t.path("set").asBoolean(true) || t.path("infinite").asBoolean(false)) {
                return null;
            }
            t = t.get("number");
        }
        if (t == null || !t.isIntegralNumber() || t.asLong() <= 0) {
            return null;
        }
        return t.asLong() * 1000;
    }

    private static long number(String where, JsonNode o, String field) throws Malformed {
        JsonNode v = o.get(field);
        if (v == null || !v.canConvertToLong()) {
            throw new Malformed(where + ": \"" + field + "\" missing or not a number");
        }
        return v.asLong();
    }

    private static String text(String where, JsonNode o, String field) throws Malformed {
        JsonNode v = o.get(field);
        if (v == null || !v.isTextual()) {
            throw new Malformed(where + ": \"" + field + "\" missing or not text");
        }
        return v.asText();
    }
}
