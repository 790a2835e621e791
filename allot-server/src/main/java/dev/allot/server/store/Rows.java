package dev.allot.server.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.Launch;
import dev.allot.core.model.Priority;
import java.io.UncheckedIOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rows to records and values to the JSON the store keeps in text columns (commands, environments, placements,
 * managers and members), for every part of the {@link Store}. In one place so that what one part writes another
 * reads the same way (a placement is written by beginning an attempt and read back by listing attempts and by
 * summing usage), and so that an unreadable value fails the same way wherever it is met.
 */
final class Rows {
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };
    private static final TypeReference<TreeMap<String, String>> STRING_MAP = new TypeReference<>() {
    };
    /** Thread-safe once configured, and never configured: shared by every store. */
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Readers bound to their types once: the loop reads thousands of workloads in a cycle (issue 21's intake). */
    private static final com.fasterxml.jackson.databind.ObjectReader COMMAND_READER = JSON.readerFor(STRINGS);
    private static final com.fasterxml.jackson.databind.ObjectReader ENVIRONMENT_READER = JSON.readerFor(STRING_MAP);

    private Rows() {
    }

    static Workload workload(ResultSet rs) throws SQLException {
        int[] at = new int[WORKLOAD_COLUMN_NAMES.length];
        for (int i = 0; i < at.length; i++) {
            at[i] = rs.findColumn(WORKLOAD_COLUMN_NAMES[i]);
        }
        return workload(rs, at);
    }

    /**
     * {@link #workload(ResultSet)} for a query whose select list begins with {@link Workloads#WORKLOAD_COLUMNS}, in
     * their order: read by position, not looked up by name (twenty lookups per row, and on SQLite a name table built
     * per result: the loop reads 10,000 changed rows and ends a thousand attempts in issue 21's intake cycle).
     */
    static Workload workloadInColumnOrder(ResultSet rs) throws SQLException {
        return workload(rs, IN_ORDER);
    }

    /** {@link Workloads#WORKLOAD_COLUMNS}' names, in their order. */
    private static final String[] WORKLOAD_COLUMN_NAMES = java.util.Arrays.stream(
            Workloads.WORKLOAD_COLUMNS.split(",")).map(String::trim).toArray(String[]::new);
    /** The positions 1, 2, ... of {@link #WORKLOAD_COLUMN_NAMES}. */
    private static final int[] IN_ORDER = java.util.stream.IntStream.rangeClosed(1, WORKLOAD_COLUMN_NAMES.length)
            .toArray();

    /** A workload from the columns at {@code at} (positions of {@link #WORKLOAD_COLUMN_NAMES}, in that order). */
    private static Workload workload(ResultSet rs, int[] at) throws SQLException {
        long seq = rs.getLong(at[0]);
        String id = rs.getString(at[1]);
        String allocation = rs.getString(at[2]);
        String user = rs.getString(at[3]);
        int gpus = rs.getInt(at[4]);
        int gpusPerNode = rs.getInt(at[5]);
        Long duration = nullableLong(rs, at[6]);
        long minRuntime = rs.getLong(at[7]);
        boolean resumable = rs.getBoolean(at[8]);
        Priority priority = Priority.parse(rs.getString(at[9]));
        String kind = rs.getString(at[10]);
        List<String> command = command(rs.getString(at[11]));
        TreeMap<String, String> environment = environment(rs.getString(at[12]));
        WorkloadState state = WorkloadState.parse(rs.getString(at[13]));
        long submittedAt = rs.getLong(at[14]);
        Long done = nullableLong(rs, at[15]);
        Long total = nullableLong(rs, at[16]);
        boolean cancelRequested = rs.getBoolean(at[17]);
        String key = rs.getString(at[18]);
        String held = rs.getString(at[19]);
        return new Workload(seq, id, allocation, user, gpus, gpusPerNode, duration, minRuntime, resumable, priority, kind,
                command, environment, state, submittedAt, done, total, cancelRequested, key, held);
    }

    private static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    static Attempt attempt(ResultSet rs) throws SQLException {
        AttemptKey key = new AttemptKey(rs.getString("workload_id"), rs.getInt("attempt"));
        List<Launch.NodeGpus> placement = placement(rs.getString("placement"));
        AttemptPhase phase = AttemptPhase.parse(rs.getString("phase"));
        long started = rs.getLong("started_at_ms");
        Long ended = nullableLong(rs, "ended_at_ms");
        String outcome = rs.getString("outcome");
        String reason = rs.getString("reason");
        String reasonDetail = rs.getString("reason_detail");
        String preemptor = rs.getString("preemptor");
        double lost = rs.getDouble("lost_gpu_seconds");
        Double lostGpuSeconds = rs.wasNull() ? null : lost;
        Long stopRequested = nullableLong(rs, "stop_requested_at_ms");
        Long chargedFrom = nullableLong(rs, "charged_from_ms");
        return new Attempt(key, placement, phase, started, ended, outcome == null ? null : AttemptOutcome.parse(outcome),
                reason, reasonDetail, preemptor, lostGpuSeconds, stopRequested, chargedFrom);
    }

    static Allocation allocation(ResultSet rs) throws SQLException {
        return new Allocation(rs.getString("path"), rs.getDouble("share"), fromJson(rs.getString("managers"), STRINGS),
                fromJson(rs.getString("members"), STRINGS));
    }

    static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    /** A placement as stored: {@code [{"node": "n1", "gpus": [0, 1]}, ...]}, in placement order. */
    static String placementJson(List<Launch.NodeGpus> placement) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Launch.NodeGpus p : placement) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", p.node());
            m.put("gpus", p.gpus());
            out.add(m);
        }
        return toJson(out);
    }

    static List<Launch.NodeGpus> placement(String text) {
        JsonNode root = fromJson(text, new TypeReference<JsonNode>() {
        });
        List<Launch.NodeGpus> out = new ArrayList<>();
        for (JsonNode p : root) {
            List<Integer> gpus = new ArrayList<>();
            p.get("gpus").forEach(g -> gpus.add(g.intValue()));
            out.add(new Launch.NodeGpus(p.get("node").textValue(), gpus));
        }
        return out;
    }

    /** Stored JSON as a tree. */
    static JsonNode jsonTree(String text) {
        return fromJson(text, new TypeReference<JsonNode>() {
        });
    }

    static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A workload's command as stored: a JSON array of strings, as the store writes it (compact, Jackson's). Read
     * without Jackson when it has no escape: then a {@code "} inside is a delimiter, never part of an argument, so
     * {@code ["a","b"]} splits exactly at {@code ","}; anything else (an escape, a space between elements, an element
     * that is not a string) goes to Jackson. The loop reads 10,000 workloads in the cycle that takes in as many
     * submissions; Jackson's set-up per value was about half of the time spent reading each row (issue 21).
     */
    static List<String> command(String text) {
        if (text.indexOf('\\') < 0 && text.length() >= 4 && text.startsWith("[\"") && text.endsWith("\"]")) {
            List<String> out = new ArrayList<>();
            int from = 2;
            int end = text.length() - 2;
            while (true) {
                int at = text.indexOf("\",\"", from);
                if (at < 0 || at >= end) {
                    break;
                }
                out.add(text.substring(from, at));
                from = at + 3;
            }
            String last = text.substring(from, end);
            if (last.indexOf('"') < 0 && out.stream().noneMatch(a -> a.indexOf('"') >= 0)) {
                out.add(last);
                return out;
            }
        } else if ("[]".equals(text)) {
            return new ArrayList<>();
        }
        return fromJson(text, COMMAND_READER);
    }

    /** A workload's environment; most have none, stored as {@code {}}. */
    private static TreeMap<String, String> environment(String text) {
        return "{}".equals(text) ? new TreeMap<>() : fromJson(text, ENVIRONMENT_READER);
    }

    private static <T> T fromJson(String text, com.fasterxml.jackson.databind.ObjectReader reader) {
        try {
            return reader.readValue(text);
        } catch (java.io.IOException e) {
            throw new StoreException("unreadable JSON in the store: " + text, e);
        }
    }

    static <T> T fromJson(String text, TypeReference<T> type) {
        try {
            return JSON.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new StoreException("unreadable JSON in the store: " + text, e);
        }
    }
}
