package dev.allot.sim.trace;

import dev.allot.core.model.Priority;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of imported rows, by row number in reading order: primitive arrays for numbers, indices into
 * interned string tables for allocations, users and kinds. Filled by {@link TraceRows}, then read by
 * {@link WorkloadTable}. Optional columns stay null while every row has the default (any packing, normal
 * priority, the contract's checkpoint interval).
 */
final class Columns {
    static final byte RESUMABLE = 1;

    int size;
    long[] submit;
    int[] duration;
    int[] gpus;
    int[] allocation;
    int[] user;
    /** The line each row was read from, for generated ids; null when the trace has ids. */
    int[] line;
    /** The trace's own ids; null when ids are generated from {@link #line}. */
    String[] ids;

    int[] minRuntime;
    byte[] flags;
    int[] kind;
    int[] gpusPerNode;
    int[] checkpoint;
    byte[] priority;

    final Interner allocations = new Interner();
    final Interner users = new Interner();
    final Interner kinds = new Interner();

    Columns(int capacity, boolean generatedIds) {
        submit = new long[capacity];
        duration = new int[capacity];
        gpus = new int[capacity];
        allocation = new int[capacity];
        user = new int[capacity];
        minRuntime = new int[capacity];
        flags = new byte[capacity];
        kind = new int[capacity];
        if (generatedIds) {
            line = new int[capacity];
        } else {
            ids = new String[capacity];
        }
    }

    /** Makes room for one more row. */
    void ensureRoom() {
        if (size < submit.length) {
            return;
        }
        int n = Math.max(16, submit.length * 2);
        submit = Arrays.copyOf(submit, n);
        duration = Arrays.copyOf(duration, n);
        gpus = Arrays.copyOf(gpus, n);
        allocation = Arrays.copyOf(allocation, n);
        user = Arrays.copyOf(user, n);
        minRuntime = Arrays.copyOf(minRuntime, n);
        flags = Arrays.copyOf(flags, n);
        kind = Arrays.copyOf(kind, n);
        line = line == null ? null : Arrays.copyOf(line, n);
        ids = ids == null ? null : Arrays.copyOf(ids, n);
        gpusPerNode = gpusPerNode == null ? null : Arrays.copyOf(gpusPerNode, n);
        checkpoint = checkpoint == null ? null : Arrays.copyOf(checkpoint, n);
        priority = priority == null ? null : Arrays.copyOf(priority, n);
    }

    int[] gpusPerNode() {
        if (gpusPerNode == null) {
            gpusPerNode = new int[submit.length];
        }
        return gpusPerNode;
    }

    int[] checkpoint() {
        if (checkpoint == null) {
            checkpoint = new int[submit.length];
        }
        return checkpoint;
    }

    byte[] priority() {
        if (priority == null) {
            priority = new byte[submit.length];
            Arrays.fill(priority, (byte) Priority.NORMAL.ordinal());
        }
        return priority;
    }

    /** Distinct strings numbered in the order they were first seen. */
    static final class Interner {
        private final Map<String, Integer> index = new HashMap<>();
        private final List<String> values = new ArrayList<>();

        int intern(String s) {
            Integer i = index.get(s);
            if (i == null) {
                i = values.size();
                index.put(s, i);
                values.add(s);
            }
            return i;
        }

        int size() {
            return values.size();
        }

        String get(int i) {
            return values.get(i);
        }

        String[] toArray() {
            return values.toArray(new String[0]);
        }
    }
}
