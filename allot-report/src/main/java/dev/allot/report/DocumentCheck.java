package dev.allot.report;

import dev.allot.core.rules.NodeGpus;
import dev.allot.sim.detail.HourlySeries;
import dev.allot.sim.detail.RunDetail;
import dev.allot.core.timeline.TimelineData;
import dev.allot.core.timeline.TimelineNodes;
import dev.allot.core.timeline.TimelineWorkloads;
import dev.allot.sim.detail.WaitCurve;
import dev.allot.sim.input.InputException;
import dev.allot.sim.metrics.PolicyMetrics;
import dev.allot.sim.report.JsonReport;
import java.util.List;

/**
 * Checks that a saved document holds everything the report draws, consistently, before any of it reaches a
 * browser: every array as long as it says, every index in range. A hand-edited or truncated file gets an error
 * naming the field and what was expected, instead of a page that draws nonsense.
 */
public final class DocumentCheck {
    private final String file;

    private DocumentCheck(String file) {
        this.file = file;
    }

    /** Throws an {@link InputException} naming the first problem; {@code file} names the source in messages. */
    public static void validate(JsonReport.Document d, String file) {
        new DocumentCheck(file).check(d);
    }

    private void check(JsonReport.Document d) {
        require(d.scenario() != null && d.scenario().allocations() != null && !d.scenario().allocations().isEmpty(),
                "scenario", "the scenario with its allocation tree");
        for (int i = 0; i < d.scenario().allocations().size(); i++) {
            JsonReport.Allocation a = d.scenario().allocations().get(i);
            require(a != null && a.name() != null && a.path() != null, "scenario.allocations[" + i + "]",
                    "an allocation with its name and path");
        }
        require(d.policies() != null && !d.policies().isEmpty(), "policies", "the metrics of at least one policy");
        for (int i = 0; i < d.policies().size(); i++) {
            PolicyMetrics p = d.policies().get(i);
            require(p != null, "policies[" + i + "]", "a policy's metrics");
            require(p.policy() != null, "policies[" + i + "].policy", "the policy's name");
        }
        if (d.runs() == null || d.runs().isEmpty() || d.nodes() == null || d.workloads() == null) {
            throw new InputException(file, 0, 0, "runs", "the results hold metrics only, without the runs the report "
                    + "draws; re-run 'allot simulate ... --json FILE' with this version of Allot (it records the runs), "
                    + "or write the report directly with 'allot simulate ... --report FILE'");
        }
        int leaves = (int) d.scenario().allocations().stream().filter(JsonReport.Allocation::leaf).count();
        TimelineNodes nodes = d.nodes();
        require(nodes.names() != null && nodes.gpus() != null && nodes.names().size() == nodes.gpus().length
                && !nodes.names().isEmpty(), "nodes", "as many node names as GPU counts, at least one");
        for (int g : nodes.gpus()) {
            require(NodeGpus.allowed(g), "nodes.gpus", NodeGpus.EXPECTED + ", got " + g);
        }
        TimelineWorkloads w = d.workloads();
        require(w.ids() != null, "workloads.ids", "the workload ids");
        int n = w.ids().size();
        length(w.allocation(), n, "workloads.allocation");
        length(w.gpus(), n, "workloads.gpus");
        length(w.submitSeconds(), n, "workloads.submitSeconds");
        length(w.durationSeconds(), n, "workloads.durationSeconds");
        length(w.minRuntimeSeconds(), n, "workloads.minRuntimeSeconds");
        length(w.resumable(), n, "workloads.resumable");
        length(w.priority(), n, "workloads.priority");
        length(w.kind(), n, "workloads.kind");
        require(w.priorities() != null && w.kinds() != null, "workloads", "the priority and kind names");
        range(w.allocation(), -1, leaves, "workloads.allocation");
        range(w.priority(), 0, w.priorities().size(), "workloads.priority");
        range(w.kind(), 0, w.kinds().size(), "workloads.kind");
        List<String> policies = d.policies().stream().map(PolicyMetrics::policy).toList();
        require(d.runs().size() == policies.size(), "runs", "one run per policy (" + policies.size() + "), got " + d.runs().size());
        for (int i = 0; i < d.runs().size(); i++) {
            RunDetail r = d.runs().get(i);
            String at = "runs[" + i + "]";
            require(r != null && policies.get(i).equals(r.policy()), at + ".policy", "'" + policies.get(i) + "' (the order of policies)");
            require(d.policies().get(i).allocations() != null && d.policies().get(i).allocations().size() == leaves,
                    "policies[" + i + "].allocations", leaves + " allocations");
            require(d.policies().get(i).waits() != null, "policies[" + i + "].waits", "the wait statistics");
            require(r.endSeconds() >= 0, at + ".endSeconds", "a time >= 0");
            hourly(r.hourly(), leaves, at + ".hourly");
            require(r.waitCurves() != null && r.waitCurves().keySet().containsAll(List.of("all", "debug", "large")),
                    at + ".waitCurves", "curves for all, debug and large");
            for (var e : r.waitCurves().entrySet()) {
                WaitCurve c = e.getValue();
                require(c != null && c.seconds() != null && (c.seconds().length == 0 || c.seconds().length == WaitCurve.POINTS),
                        at + ".waitCurves." + e.getKey(), "0 or " + WaitCurve.POINTS + " quantiles");
            }
            require(r.largestPreemptions() != null, at + ".largestPreemptions", "a list (maybe empty)");
            timeline(r.timeline(), n, nodes.gpus(), at + ".timeline");
        }
    }

    private void hourly(HourlySeries h, int leaves, String at) {
        require(h != null && h.hours() >= 1, at + ".hours", "at least one hour");
        length(h.healthyGpus(), h.hours(), at + ".healthyGpus");
        length(h.busyGpus(), h.hours(), at + ".busyGpus");
        length(h.drainEvictions(), h.hours(), at + ".drainEvictions");
        require(h.allocations() != null && h.allocations().size() == leaves, at + ".allocations", leaves + " allocations");
        for (int l = 0; l < leaves; l++) {
            HourlySeries.Allocation a = h.allocations().get(l);
            String al = at + ".allocations[" + l + "]";
            require(a != null, al, "an allocation's series");
            length(a.allocatedGpus(), h.hours(), al + ".allocatedGpus");
            length(a.unallocatedGpus(), h.hours(), al + ".unallocatedGpus");
            length(a.entitledGpus(), h.hours(), al + ".entitledGpus");
            length(a.owedGpus(), h.hours(), al + ".owedGpus");
            length(a.preemptions(), h.hours(), al + ".preemptions");
            length(a.lostGpuHours(), h.hours(), al + ".lostGpuHours");
        }
    }

    private void timeline(TimelineData t, int workloads, int[] gpus, String at) {
        require(t != null && t.runs() >= 0, at + ".runs", "a count >= 0");
        int n = t.runs();
        length(t.workload(), n, at + ".workload");
        length(t.startDelta(), n, at + ".startDelta");
        length(t.durationSeconds(), n, at + ".durationSeconds");
        length(t.protectedSeconds(), n, at + ".protectedSeconds");
        length(t.end(), n, at + ".end");
        length(t.cause(), n, at + ".cause");
        length(t.preemptor(), n, at + ".preemptor");
        length(t.parts(), n, at + ".parts");
        range(t.workload(), 0, workloads, at + ".workload");
        range(t.preemptor(), -1, workloads, at + ".preemptor");
        range(t.end(), 0, TimelineData.SIMULATED_ENDS, at + ".end");
        range(t.cause(), -1, TimelineData.CAUSES.size(), at + ".cause");
        range(t.parts(), 1, Integer.MAX_VALUE, at + ".parts");
        for (int i = 0; i < n; i++) {
            require(t.startDelta()[i] >= 0 && t.durationSeconds()[i] >= 0, at + ".startDelta/durationSeconds",
                    "non-negative values, got " + t.startDelta()[i] + " and " + t.durationSeconds()[i] + " at run " + i);
        }
        long triples = 0;
        for (int p : t.parts()) {
            triples += p;
        }
        require(t.slots() != null && t.slots().length == triples * 3, at + ".slots",
                "3 numbers per part (" + triples * 3 + "), got " + (t.slots() == null ? "none" : t.slots().length));
        for (int k = 0; k < t.slots().length; k += 3) {
            int node = t.slots()[k];
            require(node >= 0 && node < gpus.length, at + ".slots", "node indexes 0.." + (gpus.length - 1) + ", got " + node);
            int lane = t.slots()[k + 1];
            int count = t.slots()[k + 2];
            require(lane >= 0 && count >= 1 && (long) lane + count <= gpus[node], at + ".slots",
                    "lanes within the node's " + gpus[node] + " GPUs, got lanes " + lane + "+" + count + " on node " + node);
        }
        int p = t.periodNode() == null ? -1 : t.periodNode().length;
        require(p >= 0, at + ".periodNode", "a list (maybe empty)");
        length(t.periodState(), p, at + ".periodState");
        length(t.periodFromSeconds(), p, at + ".periodFromSeconds");
        length(t.periodToSeconds(), p, at + ".periodToSeconds");
        range(t.periodNode(), 0, gpus.length, at + ".periodNode");
        range(t.periodState(), 0, 2, at + ".periodState");
    }

    private void length(Object array, int expected, String field) {
        int actual = array == null ? -1 : java.lang.reflect.Array.getLength(array);
        require(actual == expected, field, expected + " values, got " + (actual < 0 ? "none" : actual));
    }

    private void range(int[] values, int min, int maxExclusive, String field) {
        for (int i = 0; i < values.length; i++) {
            int v = values[i];
            require(v >= min && v < maxExclusive, field, "values in " + min + ".." + (maxExclusive - 1) + ", got " + v + " at index " + i);
        }
    }

    private void require(boolean ok, String field, String expected) {
        if (!ok) {
            throw new InputException(file, 0, 0, field, "expected " + expected);
        }
    }
}
