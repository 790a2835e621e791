package dev.allot.core.policy.kueue;

import dev.allot.core.sched.CycleWork;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Whether a pass of the {@code kueue} policy starts from exactly the world the last pass left: the same admitted
 * workloads (each on the same GPUs, admitted at the same second), the same free GPUs on the same schedulable nodes
 * and the same ClusterQueue usage. That is what a head's answer ("fits", "may preempt", or neither) depends on,
 * besides the head's ClusterQueue, shape and priority ({@link HopelessMemo}); so when it holds, the answers found at
 * the end of the last pass still hold. It holds after a pass whose plan was carried out and nothing else happened,
 * e.g. the pass the simulator asks for at the same instant after evictions, or a pass for a submission alone.
 *
 * <p>The check is exact, not a hash, and costs what the last plan did, not what runs: the running lists count every
 * entry and exit ({@link dev.allot.core.state.RunningLists#changes}). The plan's starts each enter once and its
 * evictions each leave once; when each of them is found done (a start running on its planned GPUs since the pass's
 * second, one more attempt; an eviction no longer running) and the count moved by exactly their number, nothing
 * else entered or left. The free-GPU index (health included) and the usage are compared whole (a node each, a
 * ClusterQueue each). Workloads stopping or waiting for a stop make the check fail: their GPUs and admission times
 * change without the policy.
 */
final class PassWorld {
    private final long[] usage;
    private FreeIndex free;
    private boolean valid;
    private long expectedChanges;
    private long passSeconds;
    private final List<Job> starts = new ArrayList<>();
    private final List<Placement> startPlacements = new ArrayList<>();
    private int[] startAttempts = new int[16];
    private final List<Job> evictions = new ArrayList<>();

    PassWorld(int cqCount) {
        this.usage = new long[cqCount];
    }

    /** Forgets the last pass's world: the next pass starts from a different one. */
    void invalidate() {
        valid = false;
    }

    /** Keeps the world a pass at {@code now} leaves once its plan ({@code started}, {@code evicted}) is carried out. */
    void keep(ClusterState state, CycleWork work, List<Job> started, List<Job> evicted, long now, Cohorts cohorts) {
        if (stopping(state)) {
            valid = false;
            return;
        }
        expectedChanges = state.running().changes() + started.size() + evicted.size();
        passSeconds = now;
        starts.clear();
        startPlacements.clear();
        if (startAttempts.length < started.size()) {
            startAttempts = Arrays.copyOf(startAttempts, Math.max(started.size(), startAttempts.length * 2));
        }
        for (int i = 0; i < started.size(); i++) {
            Job j = started.get(i);
            starts.add(j);
            startPlacements.add(work.isPreempted(j) ? null : work.placementOf(j));
            startAttempts[i] = j.attempts();
        }
        evictions.clear();
        evictions.addAll(evicted);
        if (free == null) {
            free = work.free().copy();
        } else {
            free.copyFrom(work.free());
        }
        for (int q = 0; q < usage.length; q++) {
            usage[q] = cohorts.cqUsage(q);
        }
        valid = true;
    }

    private static boolean stopping(ClusterState state) {
        return !state.stopPhase().stopping().isEmpty() || !state.stopPhase().waiting().isEmpty();
    }

    /**
     * Whether the state now, with this ClusterQueue usage, is the world the last pass left ({@link #keep}): its plan
     * carried out and nothing else entered or left the running lists, the same free-GPU index and usage.
     */
    boolean unchanged(ClusterState state, long[] cqUsage) {
        if (!valid || state.running().changes() != expectedChanges || stopping(state)
                || !Arrays.equals(usage, cqUsage) || !free.sameAs(state.nodes().free())) {
            return false;
        }
        for (int i = 0; i < starts.size(); i++) {
            Job j = starts.get(i);
            Placement p = startPlacements.get(i);
            // started and evicted in the pass: entered and left once each
            boolean done = j.attempts() == startAttempts[i] + 1 && (p == null ? j.state() != JobState.RUNNING
                    : j.state() == JobState.RUNNING && j.attemptStartSeconds() == passSeconds && p.equals(j.placement()));
            if (!done) {
                return false;
            }
        }
        for (int i = 0; i < evictions.size(); i++) {
            if (evictions.get(i).state() == JobState.RUNNING) {
                return false;
            }
        }
        return true;
    }
}
