package dev.allot.sim;

import dev.allot.core.model.Durations;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;

/**
 * Writes the story of a run as short lines, one per thing that happened, e.g.
 * {@code 1h start b1 on n1:8,n2:8}, {@code 4h preempt a1 by b2 fair_share requeued lost=0},
 * {@code 3d drained n7}, {@code 8h promote s1 running} (an agent's contract change). Scenario tests assert on these lines; {@code allot simulate --events-out} prints them
 * with the reasons.
 */
public final class StoryRecorder implements SimulationListener {
    private final List<String> lines = new ArrayList<>();
    private ClusterState state;
    private final boolean withReasons;
    private final boolean withSubmits;
    private final Predicate<Job> filter;

    private StoryRecorder(boolean withReasons, boolean withSubmits, Predicate<Job> filter) {
        this.withReasons = withReasons;
        this.withSubmits = withSubmits;
        this.filter = filter;
    }

    /** Starts, preemptions, completions, health and drains; no submissions, no reasons. */
    public static StoryRecorder brief() {
        return new StoryRecorder(false, false, j -> true);
    }

    /** Everything, with the policy's reasons. */
    public static StoryRecorder detailed() {
        return new StoryRecorder(true, true, j -> true);
    }

    public StoryRecorder only(Predicate<Job> which) {
        return new StoryRecorder(withReasons, withSubmits, which);
    }

    public List<String> lines() {
        return Collections.unmodifiableList(lines);
    }

    private static String t(long time) {
        return Durations.formatSeconds(time);
    }

    private String where(Placement p, ClusterState s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < p.nodeCount(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(s == null ? Integer.toString(p.node(i)) : s.nodes().name(p.node(i))).append(':').append(p.gpusOn(i));
        }
        return sb.toString();
    }

    @Override
    public void onBegin(ClusterState s) {
        state = s;
    }

    @Override
    public void onSubmit(long time, Job job) {
        if (withSubmits && filter.test(job)) {
            lines.add(t(time) + " submit " + job.id());
        }
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        if (filter.test(job)) {
            lines.add(t(time) + " start " + job.id() + " on " + where(placement, state) + (withReasons ? " (" + reason + ")" : ""));
        }
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause, ClusterState.PreemptionResult result) {
        if (!filter.test(job)) {
            return;
        }
        String by = cause.kind() == PreemptionCause.Kind.HOST_DRAIN ? "drain " + cause.node() : "by " + cause.preemptorId();
        lines.add(t(time) + " preempt " + job.id() + " " + by + " " + cause.kind().name().toLowerCase(java.util.Locale.ROOT)
                + (result.requeued() ? " requeued" : " ended") + " lost=" + t(result.lostGpuSeconds() / Math.max(1, job.gpus()))
                + (withReasons ? " (" + cause.explanation() + ")" : ""));
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        if (filter.test(job)) {
            lines.add(t(time) + " complete " + job.id());
        }
    }

    /** {@code 8h promote s1 running} or {@code ... waiting}: unallocated work became allocated in place. */
    @Override
    public void onPromote(long time, Job job) {
        if (filter.test(job)) {
            lines.add(t(time) + " promote " + job.id() + (job.state() == dev.allot.core.state.JobState.RUNNING
                    ? " running" : " waiting"));
        }
    }

    @Override
    public void onDemote(long time, Job job) {
        if (filter.test(job)) {
            lines.add(t(time) + " demote " + job.id());
        }
    }

    @Override
    public void onHealth(long time, String node, boolean healthy) {
        lines.add(t(time) + " " + (healthy ? "healthy " : "unhealthy ") + node);
    }

    @Override
    public void onDrained(long time, String node) {
        lines.add(t(time) + " drained " + node);
    }
}
