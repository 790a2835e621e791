package dev.allot.sim.trace;

import java.util.Arrays;
import java.util.function.IntBinaryOperator;
import java.util.function.IntToLongFunction;

/** Sorts row numbers by primitive keys without boxing them. */
final class IndexSort {
    private static final int INSERTION = 24;

    private IndexSort() {
    }

    /**
     * The rows {@code 0..n-1} ordered by {@code key} (non-negative), ties broken by {@code tie} (a comparator of
     * two rows; null to keep row order). Keys and rows are packed into one long each and sorted with the
     * primitive {@link Arrays#sort(long[])} when they fit, which is the common case; otherwise, and inside runs of
     * equal keys when {@code tie} is given, a merge sort on the row numbers does the work.
     */
    static int[] order(int n, IntToLongFunction key, IntBinaryOperator tie) {
        int[] order = new int[n];
        if (n == 0) {
            return order;
        }
        int rowBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(n - 1));
        long maxKey = 0;
        for (int r = 0; r < n; r++) {
            maxKey = Math.max(maxKey, key.applyAsLong(r));
        }
        if (maxKey < (1L << (63 - rowBits))) {
            long[] packed = new long[n];
            for (int r = 0; r < n; r++) {
                packed[r] = (key.applyAsLong(r) << rowBits) | r;
            }
            Arrays.sort(packed);
            long mask = (1L << rowBits) - 1;
            for (int i = 0; i < n; i++) {
                order[i] = (int) (packed[i] & mask);
            }
        } else {
            for (int r = 0; r < n; r++) {
                order[r] = r;
            }
            sort(order, 0, n, (a, b) -> {
                int c = Long.compare(key.applyAsLong(a), key.applyAsLong(b));
                return c != 0 ? c : Integer.compare(a, b);
            });
        }
        if (tie != null) {
            int start = 0;
            for (int i = 1; i <= n; i++) {
                if (i == n || key.applyAsLong(order[i]) != key.applyAsLong(order[start])) {
                    if (i - start > 1) {
                        sort(order, start, i, tie);
                    }
                    start = i;
                }
            }
        }
        return order;
    }

    /** A stable merge sort of {@code a[from..to)} by {@code cmp}. */
    static void sort(int[] a, int from, int to, IntBinaryOperator cmp) {
        int[] buffer = new int[to - from];
        mergeSort(a, from, to, cmp, buffer);
    }

    private static void mergeSort(int[] a, int from, int to, IntBinaryOperator cmp, int[] buffer) {
        if (to - from <= INSERTION) {
            for (int i = from + 1; i < to; i++) {
                int v = a[i];
                int j = i - 1;
                while (j >= from && cmp.applyAsInt(a[j], v) > 0) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, from, mid, cmp, buffer);
        mergeSort(a, mid, to, cmp, buffer);
        if (cmp.applyAsInt(a[mid - 1], a[mid]) <= 0) {
            return;
        }
        int n = mid - from;
        System.arraycopy(a, from, buffer, 0, n);
        int i = 0;
        int j = mid;
        int k = from;
        while (i < n && j < to) {
            a[k++] = cmp.applyAsInt(a[j], buffer[i]) < 0 ? a[j++] : buffer[i++];
        }
        while (i < n) {
            a[k++] = buffer[i++];
        }
    }
}
