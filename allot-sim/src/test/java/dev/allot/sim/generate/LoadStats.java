package dev.allot.sim.generate;

import dev.allot.core.model.Durations;
import dev.allot.core.model.WorkloadSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/** Measurements of a generated scenario used by the tests (and to tune the presets). */
final class LoadStats {
    private LoadStats() {
    }

    static double gpuHours(WorkloadSpec w) {
        return w.gpus() * w.duration().getSeconds() / 3600.0;
    }

    /** Offered GPU-hours per kind divided by the cluster's GPU-hours over {@code days}. */
    static SortedMap<String, Double> loadByKind(GeneratedScenario s, int days) {
        double capacity = s.totalGpus() * days * 24.0;
        SortedMap<String, Double> out = new TreeMap<>();
        for (WorkloadSpec w : s.workloads()) {
            out.merge(w.kind(), gpuHours(w) / capacity, Double::sum);
        }
        return out;
    }

    static SortedMap<String, Long> countByKind(GeneratedScenario s) {
        SortedMap<String, Long> out = new TreeMap<>();
        for (WorkloadSpec w : s.workloads()) {
            out.merge(w.kind(), 1L, Long::sum);
        }
        return out;
    }

    /** Offered load of the allocated work (min_runtime > 0) relative to capacity. */
    static double allocatedLoad(GeneratedScenario s, int days) {
        double capacity = s.totalGpus() * days * 24.0;
        return s.workloads().stream().filter(WorkloadSpec::allocated).mapToDouble(LoadStats::gpuHours).sum()
                / capacity;
    }

    static double unallocatedLoad(GeneratedScenario s, int days) {
        double capacity = s.totalGpus() * days * 24.0;
        return s.workloads().stream().filter(w -> !w.allocated()).mapToDouble(LoadStats::gpuHours).sum() / capacity;
    }

    /**
     * The size of the workloads as a CSV with the columns id, submit, allocation, user, gpus, gpus_per_node,
     * duration, min_runtime, resumable, priority, checkpoint_every, kind: durations in the compact form, empty
     * gpus_per_node and checkpoint_every when absent, plus a header line.
     */
    static long csvBytes(GeneratedScenario s) {
        long bytes = "id,submit,allocation,user,gpus,gpus_per_node,duration,min_runtime,resumable,priority,checkpoint_every,kind\n"
                .length();
        for (WorkloadSpec w : s.workloads()) {
            String row = String.join(",", w.id(), Long.toString(w.submitSeconds()), w.allocation(), w.user(),
                    Integer.toString(w.gpus()), w.gpusPerNode() == 0 ? "" : Integer.toString(w.gpusPerNode()),
                    Durations.format(w.duration()), Durations.format(w.minRuntime()), Boolean.toString(w.resumable()),
                    w.priority().label(), w.checkpointEvery() == null ? "" : Durations.format(w.checkpointEvery()),
                    w.kind());
            bytes += row.length() + 1;
        }
        return bytes;
    }

    /**
     * GPUs that would be in use at the end of every hour if every workload ran from its submission, without
     * waiting, divided by the cluster's GPUs: the offered concurrent demand.
     */
    static double[] offeredRatios(GeneratedScenario s, int days) {
        double[] delta = new double[days * 24 + 1];
        for (WorkloadSpec w : s.workloads()) {
            long start = w.submitSeconds();
            long end = start + w.duration().getSeconds();
            // in use at the end of hour h, time 3600 * (h + 1), when start <= that time < end
            int first = (int) Math.max(0, Math.floorDiv(start + 3599, 3600) - 1);
            int last = (int) Math.min(days * 24L, Math.floorDiv(end + 3599, 3600) - 1);
            if (first < last) {
                delta[first] += w.gpus();
                delta[last] -= w.gpus();
            }
        }
        double[] out = new double[days * 24];
        double level = 0;
        for (int h = 0; h < out.length; h++) {
            level += delta[h];
            out[h] = level / s.totalGpus();
        }
        return out;
    }

    /**
     * A floor on the allocated work that is submitted but not yet done, at the end of every hour, in days of the whole
     * cluster: the GPU-hours of allocated work submitted so far less all the GPU-hours the cluster could have given
     * it, whatever the scheduler ({@code q[h] = max(0, q[h-1] + submitted in hour h - GPUs x 1 h)}). Every node
     * counts as healthy and a workload submitted in an hour may use that whole hour, so the real figure is higher.
     */
    static double[] unfinishedFloor(GeneratedScenario s, int days) {
        double[] submitted = new double[days * 24];
        for (WorkloadSpec w : s.workloads()) {
            if (w.allocated()) {
                submitted[(int) (w.submitSeconds() / 3600)] += gpuHours(w);
            }
        }
        double[] out = new double[submitted.length];
        double q = 0;
        for (int h = 0; h < out.length; h++) {
            q = Math.max(0, q + submitted[h] - s.totalGpus());
            out[h] = q / (s.totalGpus() * 24.0);
        }
        return out;
    }

    /** GPU-hours of the workloads submitted at time 0. */
    static double gpuHoursAtStart(GeneratedScenario s) {
        return s.workloads().stream().filter(w -> w.submitSeconds() == 0).mapToDouble(LoadStats::gpuHours).sum();
    }

    static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    /** A multi-line summary for tuning by hand. */
    static String report(GeneratorSpec spec, GeneratedScenario s) {
        List<String> lines = new ArrayList<>();
        lines.add(spec.name() + ": " + s.workloads().size() + " workloads, counts " + countByKind(s));
        SortedMap<String, String> load = new TreeMap<>();
        loadByKind(s, spec.days()).forEach((k, v) -> load.put(k, String.format("%.3f", v)));
        lines.add("  load by kind " + load + String.format("; allocated %.3f, unallocated %.3f",
                allocatedLoad(s, spec.days()), unallocatedLoad(s, spec.days())));
        double[] o = offeredRatios(s, spec.days());
        double[] o1 = Arrays.copyOfRange(o, Math.min(24, o.length - 1), o.length);
        lines.add(String.format("  offered concurrent demand after day 1: p10 %.2f p25 %.2f median %.2f p75 %.2f p90 %.2f max %.2f",
                percentile(o1, 0.1), percentile(o1, 0.25), percentile(o1, 0.5),
                percentile(o1, 0.75), percentile(o1, 0.9), percentile(o1, 1.0)));
        lines.add(String.format("  csv %.2f MB", csvBytes(s) / 1e6));
        return String.join("\n", lines);
    }
}
