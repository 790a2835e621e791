package dev.allot.core.policy.kueue;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Every ClusterQueue's running workloads in {@link CandidateOrder} without Admission Fair Sharing, kept from pass to
 * pass instead of sorted anew in every pass that searches for victims (a tenth of the {@code kueue} policy's time on
 * the Philly trace).
 *
 * <p>Why it is the same list: without Admission Fair Sharing a running workload's place in the order depends on
 * its priority, its id and when its attempt started, which do not change while it runs (a start waiting for a
 * stop, whose attempt start moves with the clock, is caught by the check below). Each time it is asked, a list
 * drops what no longer runs in its ClusterQueue or started again since it was filed, and files by binary search
 * what runs there and is missing; the order is total (ids differ), so the result is the list a sort would give.
 */
final class RunningInOrder {
    private final ToIntFunction<Job> cqOf;
    private final CandidateOrder order = new CandidateOrder(Job::attemptStartSeconds, null);
    private final List<List<Job>> lists = new ArrayList<>();
    /** Per job index: the ClusterQueue whose list holds it (-1: none) and its attempt start when filed. */
    private int[] filedIn = new int[0];
    private long[] filedAt = new long[0];

    /** Per ClusterQueue, the list's change count at its last full look (-1: none), and whether the state was quiet. */
    private final long[] seenChanges;
    private final boolean[] seenQuiet;
    /** Per ClusterQueue, counts the full looks at its list: equal counts, the same list in the same order. */
    private final long[] looks;

    RunningInOrder(int cqCount, ToIntFunction<Job> cqOf) {
        this.cqOf = cqOf;
        this.seenChanges = new long[cqCount];
        Arrays.fill(seenChanges, -1);
        this.seenQuiet = new boolean[cqCount];
        this.looks = new long[cqCount];
        for (int q = 0; q < cqCount; q++) {
            lists.add(new ArrayList<>());
        }
    }

    /**
     * ClusterQueue {@code q}'s running workloads ({@code running}, the state's list for it) in candidate order. The
     * list is this object's own; copy it to change it.
     */
    List<Job> sorted(int q, List<Job> running) {
        return sorted(q, running, -1, false);
    }

    /**
     * {@link #sorted(int, List)}, given the state's change count of that running list ({@link
     * dev.allot.core.state.RunningLists#listChanges}) and whether no attempt is stopping or waiting for a stop now
     * ({@code quiet}). When the count is the one of the last full look at this list and the state was quiet then,
     * the list is returned as it is: no workload entered or left it since, and none of its workloads' attempt start
     * moved (only a start that waits for a stop has an attempt start that moves while it runs, and one that entered
     * the list since would have changed the count). Else the list is brought up to date in full.
     */
    List<Job> sorted(int q, List<Job> running, long listChanges, boolean quiet) {
        List<Job> l = lists.get(q);
        if (current(q, listChanges)) {
            return l;
        }
        seenChanges[q] = listChanges;
        seenQuiet[q] = quiet;
        looks[q]++;
        int kept = 0;
        for (int i = 0; i < l.size(); i++) {
            Job j = l.get(i);
            if (j.state() == JobState.RUNNING && cqOf.applyAsInt(j) == q && j.attemptStartSeconds() == filedAt[j.index()]) {
                l.set(kept++, j);
            } else if (filedIn[j.index()] == q) { // a workload that changed ClusterQueue may be filed in its new one
                filedIn[j.index()] = -1;
            }
        }
        l.subList(kept, l.size()).clear();
        for (int i = 0; i < running.size(); i++) {
            Job j = running.get(i);
            int x = j.index();
            if (x >= filedIn.length) {
                int old = filedIn.length;
                filedIn = Arrays.copyOf(filedIn, Math.max(64, Math.max(x + 1, old * 2)));
                filedAt = Arrays.copyOf(filedAt, filedIn.length);
                Arrays.fill(filedIn, old, filedIn.length, -1);
            }
            if (filedIn[x] != q) {
                int at = Collections.binarySearch(l, j, order);
                l.add(at < 0 ? -at - 1 : at, j);
                filedIn[x] = q;
                filedAt[x] = j.attemptStartSeconds();
            }
        }
        return l;
    }

    /**
     * {@link #sorted(int, List, long, boolean)} of the state's running list of ClusterQueue {@code q}, which is read
     * only if the kept list is not {@linkplain #current current}.
     */
    List<Job> sorted(ClusterState state, int q, boolean quiet) {
        long listChanges = state.running().listChanges(q);
        return current(q, listChanges) ? lists.get(q) : sorted(q, running(state, q), listChanges, quiet);
    }

    private boolean current(int q, long listChanges) {
        return listChanges >= 0 && seenChanges[q] == listChanges && seenQuiet[q];
    }

    /**
     * A number that changes whenever ClusterQueue {@code q}'s list may have changed: while it stays the same, what a
     * caller derived from the list still holds.
     */
    long looks(int q) {
        return looks[q];
    }

    /** The running lists of a state, ClusterQueue {@code q}'s: allocation q's, or the unallocated ones after them. */
    static List<Job> running(ClusterState state, int q) {
        int leaves = state.tree().leafCount();
        return q < leaves ? state.running().allocated(q) : state.running().unallocated();
    }
}
