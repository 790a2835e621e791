package dev.allot.sim.forecast;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AccuracyProbeManual {
    @Test
    void run() {
        int days = Integer.getInteger("days", 14);
        int every = Integer.getInteger("every", 50);
        Scenario s = ScenarioGenerator.generate(GeneratorSpec.preset("lab").withDays(days), 42).toScenario("lab");
        DurationModel truth = new DurationModel() {
            public long drawSeconds(WorkloadSpec spec, long done, SplittableRandom r) {
                return Math.max(done + 1, spec.duration().getSeconds());
            }
            public String basis(WorkloadSpec spec) { return "truth"; }
        };
        ArrivalModel trueFuture = new ArrivalModel() {
            public List<WorkloadSpec> draw(long now, long until, String prefix, DurationModel d, SplittableRandom r) {
                int i = java.util.Collections.binarySearch(s.workloads().stream().map(WorkloadSpec::submitSeconds).toList(), now + 1);
                List<WorkloadSpec> out = new java.util.ArrayList<>();
                for (WorkloadSpec w : s.workloads()) { if (w.submitSeconds() > now && w.submitSeconds() <= until) out.add(w); }
                return out;
            }
            public String basis(long now) { return "truth"; }
        };
        ForecastSettings fs = ForecastSettings.defaults();
        String which = System.getProperty("which", "td,ta");
        for (String w : which.split(",")) {
            DurationHistory h = new DurationHistory(Duration.ofHours(1), DurationHistory.nothingDeclared());
            RecentArrivals ra = new RecentArrivals();
            DurationModel dm = w.contains("td") ? truth : h;
            ArrivalModel am = w.contains("ta") ? trueFuture : w.contains("na") ? ArrivalModel.NONE : ra;
            long t0 = System.nanoTime();
            var m = ForecastAccuracy.with(w, s, PolicyRegistry.standard(), "allocation", w.contains("td") && w.contains("ta") ? fs.withRuns(1) : fs, every, dm, h, am, ra);
            System.out.println((m + " in " + (System.nanoTime() - t0) / 1e9).replace("WaitClass", "\n  "));
        }
    }
}
