package dev.allot.sim.diagnosis;

import dev.allot.core.explain.WaitExplainer;
import dev.allot.core.explain.WaitsFor;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.JobState;
import dev.allot.core.state.Placement;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationListener;
import dev.allot.sim.Simulator;
import dev.allot.sim.input.ScenarioReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, not a check (off unless asked for): why large gangs wait under the allocation policy. It replays
 * scenario folders and, about once an hour of simulated time, asks the wait explainer (the words of {@code allot
 * explain}) about every waiting allocated gang of at least {@code gang.gpus} GPUs: whether a moment can be predicted
 * when enough nodes would have room for it under its rights at that instant, and if so which. It prints per scenario
 * how many of those gang-hours had no moment at all, how often the moment slipped by more than 30 minutes from one
 * hour to the next, and how far the start fell after the first moment predicted. Run by hand (folders from {@code
 * allot generate --preset lab --seed N DIR}):
 * {@code mvn -B -o -q -pl allot-sim -am -Dtest=GangWaitDiagnosis -Dsurefire.failIfNoSpecifiedTests=false
 * -Dgang.dirs=DIR1,DIR2 [-Dgang.gpus=64] [-Dgang.trace=WORKLOAD_ID]}; with {@code gang.trace} it prints that
 * workload's whole explanation every hour it waits instead (docs/policy.md, "Why a small team's gang waits").
 */
@EnabledIfSystemProperty(named = "gang.dirs", matches = ".+")
class GangWaitDiagnosis {
    private static final long HOUR = 3600;

    @Test
    void whereLargeGangsWait() {
        int minGpus = Integer.parseInt(System.getProperty("gang.gpus", "64"));
        String traced = System.getProperty("gang.trace", "");
        for (String dir : System.getProperty("gang.dirs").split(",")) {
            Scenario s = ScenarioReader.read(Path.of(dir), false, PolicyRegistry.standard());
            Hourly hourly = new Hourly(minGpus, traced);
            new Simulator(s, PolicyRegistry.standard(), "allocation", Simulator.Options.defaults().withListener(hourly))
                    .run();
            if (traced.isEmpty()) {
                hourly.summary(dir);
            }
        }
    }

    /** Asks the explainer about the waiting gangs at the first event of each hour. */
    private static final class Hourly implements SimulationListener {
        private final int minGpus;
        private final String traced;
        private final WaitExplainer explainer = new WaitExplainer();
        /** Per gang: {time, moment predicted} at each hour it waited; moment -1: none can be predicted. */
        private final Map<String, List<long[]>> moments = new TreeMap<>();
        private final Map<String, Long> firstStarts = new HashMap<>();
        private ClusterState state;
        private long nextSeconds;

        Hourly(int minGpus, String traced) {
            this.minGpus = minGpus;
            this.traced = traced;
        }

        @Override
        public void onBegin(ClusterState s) {
            state = s;
        }

        @Override
        public void onSubmit(long time, Job job) {
            maybeAsk(time);
        }

        @Override
        public void onComplete(long time, Job job, Placement placement) {
            maybeAsk(time);
        }

        @Override
        public void onStart(long time, Job job, Placement placement, String reason) {
            if (job.gpus() >= minGpus) {
                firstStarts.putIfAbsent(job.id(), time);
            }
        }

        private void maybeAsk(long t) {
            if (t < nextSeconds) {
                return;
            }
            nextSeconds = t + HOUR;
            if (!traced.isEmpty()) {
                boolean waits = state.job(traced).map(j -> j.state() == JobState.PENDING).orElse(false);
                explainer.explain(state, traced, t).filter(e -> waits).ifPresent(e -> {
                    System.out.printf("=== %s at %.1f h%n", traced, t / (double) HOUR);
                    e.summary().forEach(line -> System.out.println("  " + line));
                });
                return;
            }
            for (Job j : state.jobs()) {
                if (j.gpus() < minGpus || !j.allocated() || j.state() == JobState.RUNNING
                        || firstStarts.containsKey(j.id()) || j.spec().submitSeconds() > t) {
                    continue;
                }
                explainer.explain(state, j.id(), t).ifPresent(e -> {
                    if (e.waitsFor() instanceof WaitsFor.Gang g) {
                        long at = g.roomAtSeconds() < 0 || g.roomAtSeconds() == Long.MAX_VALUE ? -1 : g.roomAtSeconds();
                        moments.computeIfAbsent(j.id(), k -> new ArrayList<>()).add(new long[] {t, at});
                    }
                });
            }
        }

        void summary(String dir) {
            int hours = 0;
            int none = 0;
            int slips = 0;
            double lateHours = 0;
            int late = 0;
            for (Map.Entry<String, List<long[]>> e : moments.entrySet()) {
                long previous = -1;
                long first = -1;
                for (long[] m : e.getValue()) {
                    hours++;
                    if (m[1] < 0) {
                        none++;
                        previous = -1;
                        continue;
                    }
                    if (first < 0) {
                        first = m[1];
                    }
                    if (previous >= 0 && m[1] > previous + HOUR / 2) {
                        slips++;
                    }
                    previous = m[1];
                }
                Long start = firstStarts.get(e.getKey());
                if (first >= 0 && start != null) {
                    lateHours += (start - first) / (double) HOUR;
                    late++;
                }
            }
            System.out.printf(java.util.Locale.ROOT, "%s: %d gangs of at least %d GPUs waited %d hours; no moment"
                            + " predicted in %d of them (%.0f%%); the moment slipped by over 30 minutes %d times; start"
                            + " after the first moment predicted: %.1f h on average over %d gangs%n", dir,
                    moments.size(), minGpus, hours, none, hours == 0 ? 0 : 100.0 * none / hours, slips,
                    late == 0 ? 0 : lateHours / late, late);
        }
    }
}
