package dev.allot.sim;

import java.util.Arrays;

/**
 * The simulator's future: events ordered by (time, sequence), where the sequence number is the order in which
 * they were scheduled. Same inputs, same order, on every run. A binary heap over parallel arrays, so scheduling
 * an event allocates nothing but the payload.
 */
final class EventQueue {
    private long[] times = new long[1024];
    private long[] seqs = new long[1024];
    private Object[] payloads = new Object[1024];
    private int size;
    private long nextSeq;

    void add(long time, Object payload) {
        if (size == times.length) {
            times = Arrays.copyOf(times, size * 2);
            seqs = Arrays.copyOf(seqs, size * 2);
            payloads = Arrays.copyOf(payloads, size * 2);
        }
        int i = size++;
        long seq = nextSeq++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(time, seq, times[parent], seqs[parent])) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        times[i] = time;
        seqs[i] = seq;
        payloads[i] = payload;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** Time of the earliest event; undefined when empty. */
    long peekTime() {
        return times[0];
    }

    Object poll() {
        Object top = payloads[0];
        size--;
        long t = times[size];
        long s = seqs[size];
        Object p = payloads[size];
        payloads[size] = null;
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && less(times[right], seqs[right], times[child], seqs[child])) {
                child = right;
            }
            if (!less(times[child], seqs[child], t, s)) {
                break;
            }
            move(child, i);
            i = child;
        }
        if (size > 0) {
            times[i] = t;
            seqs[i] = s;
            payloads[i] = p;
        }
        return top;
    }

    private void move(int from, int to) {
        times[to] = times[from];
        seqs[to] = seqs[from];
        payloads[to] = payloads[from];
    }

    private static boolean less(long t1, long s1, long t2, long s2) {
        return t1 < t2 || (t1 == t2 && s1 < s2);
    }
}
