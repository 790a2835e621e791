package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.trace.TraceFormats;
import dev.allot.sim.trace.TraceImport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: a measurement that splits a forecast's error into what its duration draws and its arrival draws each
 * cost, by swapping either for the truth ("oracle") on a trace. Run by hand:
 * {@code -Dforecast.diagnose=philly:PATH -Dforecast.nodes=40x8 -Dforecast.every=800 -Dtest=ForecastDiagnosis}.
 */
@EnabledIfSystemProperty(named = "forecast.diagnose", matches = ".+")
class ForecastDiagnosis {
    @Test
    void splitTheError() {
        String spec = System.getProperty("forecast.diagnose");
        String[] nodes = System.getProperty("forecast.nodes", "40x8").split("x");
        int every = Integer.parseInt(System.getProperty("forecast.every", "800"));
        int runs = Integer.parseInt(System.getProperty("forecast.runs", "5"));
        String only = System.getProperty("forecast.only", "");
        Duration horizon = Duration.ofDays(Long.parseLong(System.getProperty("forecast.horizonDays", "60")));
        int colon = spec.indexOf(':');
        Scenario s = TraceImport.of(TraceFormats.standard().get(spec.substring(0, colon)), Path.of(spec.substring(colon + 1)))
                .cluster(TraceImport.uniformCluster(Integer.parseInt(nodes[0]), Integer.parseInt(nodes[1]))).read();
        Map<String, WorkloadSpec> truthById = new HashMap<>();
        for (WorkloadSpec w : s.workloads()) {
            truthById.put(w.id(), w);
        }
        DurationModel truth = new DurationModel() {
            @Override
            public long drawSeconds(WorkloadSpec w, long doneSeconds, SplittableRandom random) {
                return Math.max(doneSeconds + 1, w.duration().getSeconds());
            }

            @Override
            public String basis(WorkloadSpec w) {
                return "the truth";
            }
        };
        ArrivalModel future = new ArrivalModel() {
            @Override
            public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                           SplittableRandom random) {
                List<WorkloadSpec> out = new ArrayList<>();
                for (WorkloadSpec w : s.workloads()) {
                    if (w.submitSeconds() > now && w.submitSeconds() <= untilSeconds) {
                        long d = durations.drawSeconds(w, 0, random);
                        out.add(new WorkloadSpec(w.id(), w.submitSeconds(), w.allocation(), w.user(), w.gpus(),
                                w.gpusPerNode(), Duration.ofSeconds(d), w.minRuntime(), w.resumable(), w.priority(),
                                w.checkpointEvery(), w.kind()));
                    }
                }
                return out;
            }

            @Override
            public String basis(long now) {
                return "the truth";
            }
        };
        ForecastSettings settings = ForecastSettings.defaults().withRuns(runs).withHorizon(horizon);
        PolicyRegistry reg = PolicyRegistry.standard();
        if (only.contains("arrivals")) {
            checkArrivals(s, truthById, settings, every);
            return;
        }
        if (only.contains("durations")) {
            checkDurations(s, truthById, settings, every);
            return;
        }
        for (String variant : List.of("history+recent", "truth+recent", "history+future", "truth+future")) {
            if (!only.isEmpty() && !only.contains(variant)) {
                continue;
            }
            DurationHistory history = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
            RecentArrivals recent = new RecentArrivals();
            DurationModel d = variant.startsWith("truth") ? truth : history;
            ArrivalModel a = variant.endsWith("future") ? future : recent;
            long t0 = System.nanoTime();
            ForecastAccuracy.Measure m = ForecastAccuracy.with(variant, s, reg, "allocation", settings, every, d,
                    history, a, recent);
            System.out.printf("%-16s samples %d median|err| %s p90 %s band %.1f%% (%.0f s)%n", variant, m.samples(),
                    dev.allot.core.model.Durations.formatSeconds(m.medianAbsErrorSeconds()),
                    dev.allot.core.model.Durations.formatSeconds(m.p90AbsErrorSeconds()), 100 * m.coverage(),
                    (System.nanoTime() - t0) / 1e9);
            for (ForecastAccuracy.WaitClass c : m.byWait()) {
                System.out.printf("   %-8s %4d  %12s  bias %12s  band %.1f%%%n", c.name(), c.samples(),
                        dev.allot.core.model.Durations.formatSeconds(c.medianAbsErrorSeconds()),
                        (c.medianBiasSeconds() < 0 ? "-" : "+")
                                + dev.allot.core.model.Durations.formatSeconds(Math.abs(c.medianBiasSeconds())),
                        100 * c.coverage());
            }
            System.out.flush();
        }
    }

    /** How the history's draws for waiting work compare with the truth: GPU-seconds drawn over true, by day. */
    private static void checkDurations(Scenario s, Map<String, WorkloadSpec> truthById, ForecastSettings settings,
                                       int every) {
        DurationHistory history = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        RecentArrivals recent = new RecentArrivals();
        Map<Long, double[]> byDay = new java.util.TreeMap<>(); // drawn gpu-s, true gpu-s, running drawn-done, running true-done
        long t0 = s.workloads().get(0).submitSeconds();
        DurationModel spy = spy(history, truthById, byDay);
        ArrivalModel perDay = new ArrivalModel() {
            @Override
            public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                           SplittableRandom random) {
                double[] a = byDay.remove(0L);
                if (a != null) {
                    double[] b = byDay.computeIfAbsent((now - t0) / 86_400, k -> new double[4]);
                    for (int i = 0; i < 4; i++) {
                        b[i] += a[i];
                    }
                }
                return List.of();
            }

            @Override
            public String basis(long now) {
                return "none";
            }
        };
        ForecastAccuracy.with("spy", s, PolicyRegistry.standard(), "allocation", settings.withRuns(1), every, spy,
                history, perDay, recent);
        byDay.forEach((d, a) -> System.out.printf("day %3d waiting: drawn/true GPU-time %.2f (%.0f h true); running:"
                + " remaining drawn/true %.2f (%.0f h true)%n", d, a[0] / a[1], a[1] / 3600, a[2] / a[3], a[3] / 3600));
    }

    private static DurationModel spy(DurationModel inner, Map<String, WorkloadSpec> truthById,
                                     Map<Long, double[]> byDay) {
        return new DurationModel() {
            @Override
            public long drawSeconds(WorkloadSpec w, long doneSeconds, SplittableRandom random) {
                long d = inner.drawSeconds(w, doneSeconds, random);
                WorkloadSpec t = truthById.get(w.id());
                if (t != null) {
                    double[] a = byDay.computeIfAbsent(0L, k -> new double[4]);
                    int o = doneSeconds == 0 ? 0 : 2;
                    a[o] += (double) w.gpus() * (d - doneSeconds);
                    a[o + 1] += (double) w.gpus() * Math.max(0, t.duration().getSeconds() - doneSeconds);
                }
                return d;
            }

            @Override
            public String basis(WorkloadSpec w) {
                return inner.basis(w);
            }

            @Override
            public DurationModel given(dev.allot.core.state.ClusterState state) {
                return spy(inner.given(state), truthById, byDay);
            }
        };
    }

    /** The new work the arrival model draws against what came: GPU-time submitted in the next 1, 7 and 30 days. */
    private static void checkArrivals(Scenario s, Map<String, WorkloadSpec> truthById, ForecastSettings settings,
                                      int every) {
        RecentArrivals recent = new RecentArrivals();
        DurationHistory history = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
        long t0 = s.workloads().get(0).submitSeconds();
        long[] windows = {86_400, 7 * 86_400, 30 * 86_400};
        ArrivalModel spy = new ArrivalModel() {
            @Override
            public List<WorkloadSpec> draw(long now, long untilSeconds, String prefix, DurationModel durations,
                                           SplittableRandom random) {
                List<WorkloadSpec> out = recent.draw(now, untilSeconds, prefix, durations, random);
                StringBuilder b = new StringBuilder(String.format("day %5.1f drawn/true GPU-time:", (now - t0) / 86_400.0));
                for (long w : windows) {
                    double drawn = 0;
                    for (WorkloadSpec x : out) {
                        if (x.submitSeconds() <= now + w) {
                            String id = x.id().substring(x.id().indexOf("h-") + 2);
                            drawn += (double) x.gpus() * truthById.get(id).duration().getSeconds();
                        }
                    }
                    double real = 0;
                    for (WorkloadSpec x : s.workloads()) {
                        if (x.submitSeconds() > now && x.submitSeconds() <= now + w) {
                            real += (double) x.gpus() * x.duration().getSeconds();
                        }
                    }
                    b.append(String.format(" %dd %.2f (%.0f h)", w / 86_400, drawn / real, real / 3600));
                }
                System.out.println(b);
                return out;
            }

            @Override
            public String basis(long now) {
                return recent.basis(now);
            }
        };
        ForecastAccuracy.with("spy", s, PolicyRegistry.standard(), "allocation", settings.withRuns(2), every, history,
                history, spy, recent);
    }
}
