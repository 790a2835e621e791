package dev.allot.sim.detail;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.sim.SimulationListener;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.metrics.Hourly;
import dev.allot.sim.metrics.HourlyUsage;
import dev.allot.sim.metrics.MetricsCollector;
import dev.allot.sim.timeline.GpuTimeline;
import dev.allot.sim.timeline.TimelineRecorder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Listens to one simulation and, at the end, turns what happened into a {@link RunDetail}: it keeps the per-GPU
 * timeline (through a {@link TimelineRecorder}) and every preemption with its cause; hourly usage comes from the
 * result's metrics, so the report's charts and the metrics table agree by construction.
 */
public final class DetailRecorder implements SimulationListener {
    /** How many preemption events the report lists. */
    public static final int LARGEST_EVENTS = 25;

    private final TimelineRecorder timeline = new TimelineRecorder();
    private ClusterState state;
    private final List<Stop> stops = new ArrayList<>();
    private final Map<RunKey, Stop> stopOfRun = new HashMap<>();

    /** One workload stopped by a preemption or a drain. */
    private record Stop(long time, Job job, int gpus, PreemptionCause cause, long lostGpuSeconds) {
    }

    private record RunKey(int job, long end) {
    }

    @Override
    public void onBegin(ClusterState s) {
        this.state = s;
        timeline.onBegin(s);
    }

    @Override
    public void onStart(long time, Job job, Placement placement, String reason) {
        timeline.onStart(time, job, placement, reason);
    }

    @Override
    public void onPreempt(long time, Job job, Placement placement, PreemptionCause cause, ClusterState.PreemptionResult result) {
        timeline.onPreempt(time, job, placement, cause, result);
        Stop stop = new Stop(time, job, job.gpus(), cause, result.lostGpuSeconds());
        stops.add(stop);
        stopOfRun.put(new RunKey(job.index(), time), stop);
    }

    @Override
    public void onComplete(long time, Job job, Placement placement) {
        timeline.onComplete(time, job, placement);
    }

    @Override
    public void onHealth(long time, String node, boolean healthy) {
        timeline.onHealth(time, node, healthy);
    }

    @Override
    public void onDrained(long time, String node) {
        timeline.onDrained(time, node);
    }

    /** The details of the finished run whose result is given. */
    public RunDetail finish(SimulationResult result) {
        long end = result.run().endSeconds();
        GpuTimeline bars = timeline.finish(end);
        return new RunDetail(result.policy(), end, hourly(result.hourly(), end), waitCurves(), largest(),
                TimelineRuns.encode(bars, state, this::causeOf));
    }

    /** Why the run of job {@code jobIndex} that ended at {@code endSeconds} was stopped; null if it was not. */
    private PreemptionCause causeOf(int jobIndex, long endSeconds) {
        Stop s = stopOfRun.get(new RunKey(jobIndex, endSeconds));
        return s == null ? null : s.cause();
    }

    private HourlySeries hourly(HourlyUsage usage, long endSeconds) {
        AllocationTree tree = state.tree();
        // the hours the run lasted, the last one partial or whole: a run that stopped at 8h has hours 0..7. It had
        // an hour 8 after its end, all zero, so the report's lines of healthy and entitled GPUs fell to 0 at the end
        int hours = (int) Math.max(1, -Math.floorDiv(-endSeconds, 3600));
        int[] drains = new int[hours];
        int[][] preemptions = new int[tree.leafCount()][hours];
        double[][] lost = new double[tree.leafCount()][hours];
        for (Stop s : stops) {
            int h = (int) Math.min(hours - 1, s.time() / 3600);
            int leaf = s.job().leaf();
            if (s.cause().kind() == PreemptionCause.Kind.HOST_DRAIN) {
                drains[h]++;
            } else {
                preemptions[leaf][h]++;
            }
            lost[leaf][h] += s.lostGpuSeconds() / 3600.0;
        }
        List<HourlySeries.Allocation> allocations = new ArrayList<>();
        for (int l = 0; l < tree.leafCount(); l++) {
            double ent = tree.leafEntitlement(l);
            double[] entitled = new double[hours];
            double[] owed = new double[hours];
            Hourly demand = usage.demand().get(l);
            for (int h = 0; h < hours; h++) {
                entitled[h] = gpus(ent * usage.healthy().get(h));
                owed[h] = gpus(MetricsCollector.owedGpuSeconds(ent, usage.healthy().get(h), demand.get(h)));
                lost[l][h] = round2(lost[l][h]);
            }
            allocations.add(new HourlySeries.Allocation(tree.leafName(l), series(usage.receivedAllocated().get(l), hours),
                    series(usage.receivedUnallocated().get(l), hours), entitled, owed, preemptions[l], lost[l]));
        }
        return new HourlySeries(hours, series(usage.healthy(), hours), series(usage.busy(), hours), drains, allocations);
    }

    private static double[] series(Hourly h, int hours) {
        double[] out = new double[hours];
        for (int i = 0; i < hours; i++) {
            out[i] = gpus(h.get(i));
        }
        return out;
    }

    private static double gpus(double gpuSeconds) {
        return round2(gpuSeconds / 3600.0);
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private SortedMap<String, WaitCurve> waitCurves() {
        List<Job> jobs = state.jobs();
        long[] all = new long[jobs.size()];
        long[] debug = new long[jobs.size()];
        long[] large = new long[jobs.size()];
        int na = 0;
        int nd = 0;
        int nl = 0;
        long neverAll = 0;
        long neverDebug = 0;
        long neverLarge = 0;
        for (Job j : jobs) {
            boolean d = MetricsCollector.isDebug(j);
            boolean lg = MetricsCollector.isLarge(j);
            if (j.firstStartSeconds() < 0) {
                neverAll++;
                neverDebug += d ? 1 : 0;
                neverLarge += lg ? 1 : 0;
                continue;
            }
            long w = Math.max(0, j.firstStartSeconds() - j.spec().submitSeconds());
            all[na++] = w;
            if (d) {
                debug[nd++] = w;
            }
            if (lg) {
                large[nl++] = w;
            }
        }
        SortedMap<String, WaitCurve> curves = new TreeMap<>();
        curves.put("all", WaitCurve.of(all, na, neverAll));
        curves.put("debug", WaitCurve.of(debug, nd, neverDebug));
        curves.put("large", WaitCurve.of(large, nl, neverLarge));
        return curves;
    }

    /**
     * Groups stops into events (one instant and one preemptor, or one instant and one drained host) and keeps the
     * largest: most GPUs freed, then most work lost, then earliest, then by preemptor or node name.
     */
    private List<PreemptionEvent> largest() {
        Map<String, List<Stop>> byEvent = new TreeMap<>();
        for (Stop s : stops) {
            PreemptionCause c = s.cause();
            String who = c.kind() == PreemptionCause.Kind.HOST_DRAIN ? "node:" + c.node() : "job:" + c.preemptorId();
            byEvent.computeIfAbsent(String.format("%020d|%s|%s", s.time(), c.kind(), who), k -> new ArrayList<>()).add(s);
        }
        List<PreemptionEvent> events = new ArrayList<>(byEvent.size());
        for (List<Stop> group : byEvent.values()) {
            Stop first = group.get(0);
            PreemptionCause c = first.cause();
            int gpus = 0;
            long lost = 0;
            List<String> victims = new ArrayList<>(group.size());
            for (Stop s : group) {
                gpus += s.gpus();
                lost += s.lostGpuSeconds();
                victims.add(s.job().id());
            }
            events.add(new PreemptionEvent(first.time(), c.kind().name(), c.preemptorId(), c.node(), victims, gpus,
                    round2(lost / 3600.0), c.explanation()));
        }
        events.sort(Comparator.comparingInt(PreemptionEvent::gpus).reversed()
                .thenComparing(Comparator.comparingDouble(PreemptionEvent::lostGpuHours).reversed())
                .thenComparingLong(PreemptionEvent::timeSeconds)
                .thenComparing(e -> e.preemptor() != null ? e.preemptor() : e.node()));
        return List.copyOf(events.subList(0, Math.min(LARGEST_EVENTS, events.size())));
    }
}
