package dev.allot.sim.detail;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.timeline.TimelineData;
import dev.allot.sim.Scenario;
import dev.allot.sim.ScenarioBuilder;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.WorkloadRecord;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.sim.metrics.AllocationMetrics;
import dev.allot.sim.metrics.PolicyMetrics;
import dev.allot.sim.metrics.WaitStats;
import dev.allot.sim.report.JsonReport;
import dev.allot.sim.timeline.GpuTimeline;
import dev.allot.sim.timeline.TimelineRecorder;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@link DetailRecorder} hands the visual report must agree with what the simulator actually did: the compact
 * timeline decodes to exactly the per-GPU bars a plain {@link TimelineRecorder} records (the encoding is lossless),
 * hourly series add up to the headline metrics, wait curves match the workloads' waits, the largest preemption
 * events are ordered and capped as documented and name real victims, and the same inputs give the same details.
 * Checked on the tiny example under both default policies and on small stories built to exercise gangs,
 * unallocated work, fair-share preemption and host drains.
 */
class DetailRecorderTest {

    /** One run of a policy recorded in detail. */
    private record Recorded(Scenario scenario, SimulationResult result, RunDetail detail) {
    }

    private static Recorded record(Scenario s, String policy) {
        DetailRecorder detail = new DetailRecorder();
        SimulationResult result = new Simulator(s, PolicyRegistry.standard(), policy,
                Simulator.Options.defaults().withListener(detail)).run();
        return new Recorded(s, result, detail.finish(result));
    }

    private static Scenario tiny() {
        return ScenarioReader.read(Path.of("../examples/tiny"), false, PolicyRegistry.standard());
    }

    /**
     * Two 8-GPU nodes under allocation A, one under B, 24 GPUs. Twenty-four 1-GPU unallocated non-resumable jobs
     * of A fill the cluster at 0s; from 10m, every 10 minutes, a 1-GPU allocated job of A arrives and preempts one
     * of them (28 arrivals: 24 preempt, so more events than the report keeps, each losing 10 minutes more work than
     * the one before). At 6h B's whole-node gang of 8 needs a node held by A's allocated work, which is past its
     * minimum runtime and above A's share: one fair-share event of 8 GPUs. At 7h node n2 fails and its eight
     * allocated jobs, past their minimum runtimes, are drained at once: a second 8-GPU event that lost more work.
     */
    private static ScenarioBuilder crowd() {
        // the burst reserve at half of B's unused quota, as when this story was written: with the default (all of
        // it) A's arrivals beyond its quota would wait for B's quota to be used instead of preempting the sweeps
        ScenarioBuilder b = given().nodes(3, 8).allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .set("allocation.burst-reserve", "0.5");
        for (int i = 1; i <= 24; i++) {
            b.workload(w(String.format("u%02d", i)).in("A").unallocated().gpus(1).runs("20h").at("0s"));
        }
        for (int i = 1; i <= 28; i++) {
            b.workload(w(String.format("a%02d", i)).in("A").gpus(1).runs("20h").minRuntime("1h").at((i * 10) + "m"));
        }
        b.workload(w("b1").in("B").gang(8, 8).runs("2h").minRuntime("1h").at("6h"));
        return b.unhealthy("n2", "7h").healthy("n2", "9h");
    }

    /** DrainTest's story: a1 is drained off failing n1 after its minimum runtime and takes u1's GPUs on n2. */
    private static Scenario drain() {
        return given().nodes(2, 8)
                .allocations(t -> t.leaf("A", 50).leaf("B", 50))
                .workload(w("a1").in("A").gpus(8).runs("10h").minRuntime("3h").resumable().at("0s"))
                .workload(w("u1").in("A").gpus(8).runs("10h").unallocated().resumable().at("0s"))
                .workload(w("g1").in("B").gang(16, 8).runs("1h").minRuntime("30m").at("6h"))
                .unhealthy("n1", "1h")
                .healthy("n1", "5h")
                .scenario();
    }

    private static List<Recorded> all;

    /** Every scenario under both default policies (recorded once: the runs are deterministic and read-only). */
    private static synchronized List<Recorded> all() {
        if (all == null) {
            all = recordAll();
        }
        return all;
    }

    private static List<Recorded> recordAll() {
        List<Recorded> out = new ArrayList<>();
        Scenario tiny = tiny();
        Scenario crowd = crowd().scenario();
        Scenario drain = drain();
        for (String policy : List.of("allocation", "legacy")) {
            out.add(record(tiny, policy));
            out.add(record(crowd, policy));
            out.add(record(drain, policy));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------------------
    // (a) the timeline encoding is lossless

    /** A per-GPU bar, as both the compact encoding and the recorder describe it. */
    private record Bar(int node, int lane, long start, long end, long preemptibleFrom, String workload, int how) {
        @Override
        public String toString() {
            return workload + " n" + node + "/" + lane + " " + start + "-" + end + " end=" + how
                    + (preemptibleFrom == Long.MAX_VALUE ? "" : " preemptible@" + preemptibleFrom);
        }
    }

    private static List<Bar> decode(TimelineData t, List<String> ids, int[] gpusPerNode) {
        List<Bar> bars = new ArrayList<>();
        long start = 0;
        int slot = 0;
        for (int r = 0; r < t.runs(); r++) {
            start += t.startDelta()[r];
            long end = start + t.durationSeconds()[r];
            long preemptible = t.protectedSeconds()[r] < 0 ? Long.MAX_VALUE : start + t.protectedSeconds()[r];
            for (int p = 0; p < t.parts()[r]; p++) {
                int node = t.slots()[slot++];
                int lane = t.slots()[slot++];
                int count = t.slots()[slot++];
                assertThat(count).as("lane count of run %d", r).isPositive();
                assertThat(lane + count).as("lanes of run %d on node %d", r, node).isLessThanOrEqualTo(gpusPerNode[node]);
                for (int k = 0; k < count; k++) {
                    bars.add(new Bar(node, lane + k, start, end, preemptible, ids.get(t.workload()[r]), t.end()[r]));
                }
            }
        }
        assertThat(slot).as("every slot triple belongs to a run").isEqualTo(t.slots().length);
        return bars;
    }

    private static List<Bar> recorded(Scenario s, String policy) {
        TimelineRecorder recorder = new TimelineRecorder();
        SimulationResult r = new Simulator(s, PolicyRegistry.standard(), policy,
                Simulator.Options.defaults().withListener(recorder)).run();
        GpuTimeline t = recorder.finish(r.run().endSeconds());
        List<Bar> bars = new ArrayList<>();
        for (int b = 0; b < t.size(); b++) {
            bars.add(new Bar(t.node(b), t.lane(b), t.startSeconds(b), t.endSeconds(b), t.preemptibleFromSeconds(b),
                    t.workloadId(b), t.end(b).ordinal()));
        }
        return bars;
    }

    private static List<String> ids(Scenario s) {
        return s.workloads().stream().map(WorkloadSpec::id).toList();
    }

    private static int[] gpusPerNode(Scenario s) {
        return s.cluster().nodes().stream().mapToInt(n -> n.gpus()).toArray();
    }

    @Test
    void theCompactTimelineDecodesToExactlyTheBarsOfATimelineRecorder() {
        for (Recorded rec : all()) {
            String as = rec.scenario().name() + "/" + rec.result().policy();
            TimelineData t = rec.detail().timeline();
            List<Bar> decoded = decode(t, ids(rec.scenario()), gpusPerNode(rec.scenario()));
            List<Bar> expected = recorded(rec.scenario(), rec.result().policy());
            assertThat(expected).as(as).isNotEmpty();
            assertThat(decoded).as(as).containsExactlyInAnyOrderElementsOf(expected);
            // one entry per run, not per GPU: a multi-GPU run is fewer runs than bars
            assertThat(t.runs()).as(as).isLessThan(expected.size());
        }
    }

    @Test
    void runsAreSortedByStartThenWorkloadIndexWithNonNegativeDeltas() {
        for (Recorded rec : all()) {
            String as = rec.scenario().name() + "/" + rec.result().policy();
            TimelineData t = rec.detail().timeline();
            for (int r = 0; r < t.runs(); r++) {
                assertThat(t.startDelta()[r]).as(as + " run " + r).isNotNegative();
                if (r > 0 && t.startDelta()[r] == 0) {
                    assertThat(t.workload()[r]).as(as + " run " + r + " starts with run " + (r - 1))
                            .isGreaterThanOrEqualTo(t.workload()[r - 1]);
                }
            }
        }
    }

    @Test
    void aCrossNodeGangIsOneRunWithOneTriplePerNode() {
        // g1 (16 GPUs, 8 per node) runs on both nodes of the drain story: one run, two (node, 0, 8) triples
        Recorded rec = record(drain(), "allocation");
        TimelineData t = rec.detail().timeline();
        int g1 = ids(rec.scenario()).indexOf("g1");
        List<String> runsOfG1 = new ArrayList<>();
        int slot = 0;
        for (int r = 0; r < t.runs(); r++) {
            StringBuilder sb = new StringBuilder();
            for (int p = 0; p < t.parts()[r]; p++, slot += 3) {
                sb.append('(').append(t.slots()[slot]).append(',').append(t.slots()[slot + 1]).append(',')
                        .append(t.slots()[slot + 2]).append(')');
            }
            if (t.workload()[r] == g1) {
                runsOfG1.add(sb.toString());
            }
        }
        assertThat(runsOfG1).hasSize(1);
        assertThat(runsOfG1.get(0)).matches("\\((0|1),0,8\\)\\((0|1),0,8\\)").isNotIn("(0,0,8)(0,0,8)", "(1,0,8)(1,0,8)");
    }

    // ---------------------------------------------------------------------------------------------------------
    // (b) hourly series add up to the metrics

    @Test
    void hourlySeriesAddUpToTheMetricsOverTheWindow() {
        for (Recorded rec : all()) {
            String as = rec.scenario().name() + "/" + rec.result().policy();
            PolicyMetrics m = rec.result().metrics();
            HourlySeries h = rec.detail().hourly();
            int window = (int) (m.windowSeconds() / 3600);
            assertThat(h.hours()).as(as).isEqualTo((int) Math.max(1, (rec.result().run().endSeconds() + 3599) / 3600))
                    .isGreaterThanOrEqualTo(window);
            assertThat(h.healthyGpus()).as(as).hasSize(h.hours());
            assertThat(h.busyGpus()).as(as).hasSize(h.hours());
            assertThat(h.drainEvictions()).as(as).hasSize(h.hours());
            assertThat(h.allocations()).as(as).hasSameSizeAs(m.allocations());
            double rounding = 0.01 * window + 1e-9;
            long preemptions = 0;
            double lost = 0;
            int cells = 0;
            for (int l = 0; l < m.allocations().size(); l++) {
                AllocationMetrics am = m.allocations().get(l);
                HourlySeries.Allocation a = h.allocations().get(l);
                String at = as + " " + am.name();
                assertThat(a.allocation()).as(at).isEqualTo(am.name());
                for (double[] series : List.of(a.allocatedGpus(), a.unallocatedGpus(), a.entitledGpus(), a.owedGpus(),
                        a.lostGpuHours())) {
                    assertThat(series).as(at).hasSize(h.hours());
                }
                assertThat(a.preemptions()).as(at).hasSize(h.hours());
                assertThat(sum(a.allocatedGpus(), window)).as(at + " allocated").isCloseTo(am.receivedGpuHours(), within(rounding));
                assertThat(sum(a.unallocatedGpus(), window)).as(at + " unallocated").isCloseTo(am.unallocatedGpuHours(), within(rounding));
                int p = 0;
                for (int v : a.preemptions()) {
                    p += v;
                }
                assertThat((long) p).as(at + " preemptions").isEqualTo(am.preemptions());
                preemptions += p;
                lost += sum(a.lostGpuHours(), h.hours());
                cells += h.hours();
            }
            assertThat(preemptions).as(as).isEqualTo(m.preemptions());
            long drains = 0;
            for (int v : h.drainEvictions()) {
                drains += v;
            }
            assertThat(drains).as(as + " drain evictions").isEqualTo(m.drainEvictions());
            assertThat(lost).as(as + " lost GPU-hours").isCloseTo(m.lostGpuHours(), within(0.01 * cells + 0.01));
        }
    }

    @Test
    void givenARunThatStopsOnTheHour_whenRecorded_thenTheHourlySeriesEndWithItsLastHourNotAnEmptyOneAfterIt() {
        // one 8-GPU node, one job of 2h from 0s: the run stops at 2h. The series had an hour 2 after the end, all
        // zero, and the report drew the healthy and entitled GPUs falling to 0 at the end
        Scenario s = given().nodes(1, 8).allocations(t -> t.leaf("A", 1))
                .workload(w("j").in("A").at("0").gpus(8).runs("2h").minRuntime("1h")).scenario();
        Recorded rec = record(s, "allocation");
        assertThat(rec.result().run().endSeconds()).isEqualTo(7200);
        HourlySeries h = rec.detail().hourly();
        assertThat(h.hours()).isEqualTo(2);
        assertThat(h.healthyGpus()).containsExactly(8.0, 8.0);
        assertThat(h.allocations().get(0).entitledGpus()).containsExactly(8.0, 8.0);
    }

    @Test
    void deliveredIsEveryRunOfTheTimelineAndTheBusySeriesPlusWorkOnUnhealthyNodes() {
        // delivered GPU-hours (the whole run, every attempt) are the timeline's bars; the hourly busy series counts
        // healthy nodes only, so it falls short of delivered by exactly the work that ran on unhealthy nodes
        // before their drains
        int withUnhealthyWork = 0;
        int withoutUnhealthyWork = 0;
        for (Recorded rec : all()) {
            String as = rec.scenario().name() + "/" + rec.result().policy();
            PolicyMetrics m = rec.result().metrics();
            TimelineData t = rec.detail().timeline();
            long ranGpuSeconds = 0;
            long onUnhealthyGpuSeconds = 0;
            for (Bar b : decode(t, ids(rec.scenario()), gpusPerNode(rec.scenario()))) {
                ranGpuSeconds += b.end() - b.start();
                for (int p = 0; p < t.periodNode().length; p++) {
                    if (t.periodNode()[p] == b.node()) {
                        onUnhealthyGpuSeconds += Math.max(0, Math.min(b.end(), t.periodToSeconds()[p])
                                - Math.max(b.start(), t.periodFromSeconds()[p]));
                    }
                }
            }
            assertThat(m.deliveredGpuHours()).as(as + " delivered").isCloseTo(ranGpuSeconds / 3600.0, within(0.005 + 1e-9));
            HourlySeries h = rec.detail().hourly();
            double busyGpuHours = sum(h.busyGpus(), h.hours());
            assertThat(busyGpuHours + onUnhealthyGpuSeconds / 3600.0).as(as + " busy + on unhealthy nodes")
                    .isCloseTo(m.deliveredGpuHours(), within(0.005 * h.hours() + 0.005 + 1e-9));
            assertThat(m.lostShare()).as(as + " lost share")
                    .isCloseTo(m.lostGpuHours() / m.deliveredGpuHours(), within(1e-4 + 0.01 / m.deliveredGpuHours()));
            if (onUnhealthyGpuSeconds > 0) {
                withUnhealthyWork++;
            } else {
                withoutUnhealthyWork++;
            }
        }
        // both cases occur: delivered equals the busy series where nothing ran on an unhealthy node, and exceeds it
        // where something did
        assertThat(withUnhealthyWork).isPositive();
        assertThat(withoutUnhealthyWork).isPositive();
    }

    @Test
    void theStoriesExerciseWhatTheHourlyChecksCount() {
        // guards against the sums above passing vacuously: somewhere there are preemptions, drains and lost work
        List<Recorded> runs = all();
        assertThat(runs).anySatisfy(r -> assertThat(r.result().metrics().preemptions()).isPositive());
        assertThat(runs).anySatisfy(r -> assertThat(r.result().metrics().drainEvictions()).isPositive());
        assertThat(runs).anySatisfy(r -> assertThat(r.result().metrics().lostGpuHours()).isGreaterThan(1));
        assertThat(runs).anySatisfy(r -> assertThat(r.result().metrics().allocations())
                .anySatisfy(a -> assertThat(a.unallocatedGpuHours()).isPositive()));
    }

    @Test
    void inTheCrowdStoryEachHourCountsItsOwnPreemptions() {
        // a01..a24 arrive at 10m, 20m, ..., 240m and each preempts one of A's unallocated jobs: 5 in hour 0
        // (10m..50m), 6 in each of hours 1-3, one at 4h exactly
        Recorded rec = record(crowd().scenario(), "allocation");
        int[] a = rec.detail().hourly().allocations().get(0).preemptions();
        assertThat(rec.detail().hourly().allocations().get(0).allocation()).isEqualTo("A");
        assertThat(a[0]).isEqualTo(5);
        assertThat(a[1]).isEqualTo(6);
        assertThat(a[2]).isEqualTo(6);
        assertThat(a[3]).isEqualTo(6);
        assertThat(a[4]).isEqualTo(1);
        assertThat(a[5]).isZero();
        // at 6h b1's gang preempts eight of A's allocated jobs; at 7h n2's failure evicts eight more (drains, not
        // preemptions)
        assertThat(a[6]).isEqualTo(8);
        assertThat(a[7]).isZero();
        assertThat(rec.detail().hourly().drainEvictions()[7]).isEqualTo(8);
        assertThat(rec.detail().hourly().allocations().get(1).preemptions()).containsOnly(0);
    }

    private static double sum(double[] values, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += values[i];
        }
        return s;
    }

    // ---------------------------------------------------------------------------------------------------------
    // (c) wait curves

    @Test
    void waitCurvesHave201NonDecreasingQuantilesEndingAtTheLongestWait() {
        for (Recorded rec : all()) {
            String as = rec.scenario().name() + "/" + rec.result().policy();
            PolicyMetrics m = rec.result().metrics();
            assertThat(rec.detail().waitCurves()).as(as).containsOnlyKeys("all", "debug", "large");
            for (var e : rec.detail().waitCurves().entrySet()) {
                WaitCurve c = e.getValue();
                WaitStats stats = m.waits().get(e.getKey());
                String at = as + " " + e.getKey();
                assertThat(c.started()).as(at).isEqualTo(stats.count());
                assertThat(c.neverStarted()).as(at).isEqualTo(stats.neverStarted());
                assertThat(c.seconds()).as(at).hasSize(c.started() == 0 ? 0 : WaitCurve.POINTS);
                for (int i = 1; i < c.seconds().length; i++) {
                    assertThat(c.seconds()[i]).as(at + " quantile " + i).isGreaterThanOrEqualTo(c.seconds()[i - 1]);
                }
            }
            List<Long> waits = rec.result().workloads().stream().filter(w -> w.firstStartSeconds() >= 0)
                    .map(WorkloadRecord::waitSeconds).sorted().toList();
            WaitCurve allCurve = rec.detail().waitCurves().get("all");
            assertThat(allCurve.started()).as(as).isEqualTo(waits.size()).isPositive();
            assertThat(allCurve.seconds()[WaitCurve.POINTS - 1]).as(as + " longest wait").isEqualTo(waits.get(waits.size() - 1));
            assertThat(allCurve.seconds()[0]).as(as + " shortest wait").isEqualTo(waits.get(0));
            // nearest rank: the median is the ceil(n/2)-th smallest wait
            assertThat(allCurve.seconds()[100]).as(as + " median").isEqualTo(waits.get((waits.size() + 1) / 2 - 1));
        }
    }

    @Test
    void theCrowdsWaitsAreDistinctSoTheCurveIsNotFlat() {
        // most jobs start the moment they arrive, but a25..a28 arrive (from 4h10m) when all 24 GPUs run allocated
        // work and wait until b1's gang completes at 8h: a25 longest, 3h50m
        WaitCurve c = record(crowd().scenario(), "allocation").detail().waitCurves().get("all");
        assertThat(c.started()).isEqualTo(24 + 28 + 1);
        assertThat(c.seconds()[0]).isZero();
        assertThat(c.seconds()[WaitCurve.POINTS - 1]).isEqualTo(3 * 3600 + 50 * 60);
        // 4 of 53 waited: by nearest rank, point i is the ceil(i / 200 x 53)-th wait, so points up to 184 (rank
        // 49) are zero and point 185 (rank 50) is the shortest of the four, a28's 3h20m
        assertThat(c.seconds()[184]).isZero();
        assertThat(c.seconds()[185]).isEqualTo(12000);
    }

    // ---------------------------------------------------------------------------------------------------------
    // (d) largest preemptions

    @Test
    void largestPreemptionsAreCappedOrderedAndNameRealVictims() {
        for (Recorded rec : all()) {
            String as = rec.scenario().name() + "/" + rec.result().policy();
            List<PreemptionEvent> events = rec.detail().largestPreemptions();
            assertThat(events).as(as).hasSizeLessThanOrEqualTo(DetailRecorder.LARGEST_EVENTS);
            for (int i = 1; i < events.size(); i++) {
                PreemptionEvent a = events.get(i - 1);
                PreemptionEvent b = events.get(i);
                String at = as + " events " + (i - 1) + "," + i + ": " + a + " / " + b;
                assertThat(a.gpus()).as(at).isGreaterThanOrEqualTo(b.gpus());
                if (a.gpus() == b.gpus()) {
                    assertThat(a.lostGpuHours()).as(at).isGreaterThanOrEqualTo(b.lostGpuHours());
                    if (a.lostGpuHours() == b.lostGpuHours()) {
                        assertThat(a.timeSeconds()).as(at).isLessThanOrEqualTo(b.timeSeconds());
                    }
                }
            }
            checkVictims(rec, events, as);
        }
    }

    /** Every victim has a run that ended, stopped by the event's rule and preemptor, at the event's time. */
    private static void checkVictims(Recorded rec, List<PreemptionEvent> events, String as) {
        List<String> ids = ids(rec.scenario());
        Map<String, Integer> gpusOf = new HashMap<>();
        rec.scenario().workloads().forEach(w -> gpusOf.put(w.id(), w.gpus()));
        TimelineData t = rec.detail().timeline();
        long[] start = new long[t.runs()];
        long s = 0;
        for (int r = 0; r < t.runs(); r++) {
            s += t.startDelta()[r];
            start[r] = s;
        }
        int preempted = TimelineData.ENDS.indexOf("preempted");
        int requeued = TimelineData.ENDS.indexOf("requeued");
        for (PreemptionEvent e : events) {
            String at = as + " " + e;
            assertThat(e.victims()).as(at).isNotEmpty().doesNotHaveDuplicates();
            assertThat(e.reason()).as(at).isNotBlank();
            assertThat(e.kind()).as(at).isIn(TimelineData.CAUSES);
            if (e.kind().equals("HOST_DRAIN")) {
                assertThat(e.node()).as(at).isNotNull();
                assertThat(rec.scenario().cluster().nodes()).as(at).anySatisfy(n -> assertThat(n.name()).isEqualTo(e.node()));
                assertThat(e.preemptor()).as(at).isNull();
            } else {
                assertThat(e.preemptor()).as(at).isIn(ids);
                assertThat(e.node()).as(at).isNull();
            }
            int gpus = 0;
            for (String v : e.victims()) {
                int idx = ids.indexOf(v);
                assertThat(idx).as(at + " victim " + v).isNotNegative();
                gpus += gpusOf.get(v);
                boolean found = false;
                for (int r = 0; r < t.runs() && !found; r++) {
                    found = t.workload()[r] == idx && start[r] + t.durationSeconds()[r] == e.timeSeconds()
                            && (t.end()[r] == preempted || t.end()[r] == requeued)
                            && t.cause()[r] == TimelineData.CAUSES.indexOf(e.kind())
                            && t.preemptor()[r] == (e.preemptor() == null ? -1 : ids.indexOf(e.preemptor()));
                }
                assertThat(found).as(at + ": no run of victim " + v + " stopped by this event in the timeline").isTrue();
            }
            assertThat(e.gpus()).as(at + " GPUs freed").isEqualTo(gpus);
        }
    }

    @Test
    void theCrowdKeepsTheTwoEightGpuEventsFirstThenTheUnallocatedOnesThatLostMostWork() {
        Recorded rec = record(crowd().scenario(), "allocation");
        List<PreemptionEvent> events = rec.detail().largestPreemptions();
        // 26 events in all: 24 unallocated (1 GPU each), b1's fair-share preemption and n2's drain (8 GPUs each)
        assertThat(rec.result().metrics().preemptions()).isEqualTo(24 + 8);
        assertThat(rec.result().metrics().drainEvictions()).isEqualTo(8);
        assertThat(events).hasSize(DetailRecorder.LARGEST_EVENTS);
        // the two 8-GPU events tie on GPUs; the drain at 7h threw away more work than b1's preemption at 6h
        PreemptionEvent drain = events.get(0);
        assertThat(drain.kind()).isEqualTo("HOST_DRAIN");
        assertThat(drain.node()).isEqualTo("n2");
        assertThat(drain.preemptor()).isNull();
        assertThat(drain.timeSeconds()).isEqualTo(7 * 3600);
        assertThat(drain.gpus()).isEqualTo(8);
        assertThat(drain.victims()).hasSize(8).allSatisfy(v -> assertThat(v).startsWith("a"));
        PreemptionEvent fair = events.get(1);
        assertThat(fair.kind()).isEqualTo("FAIR_SHARE");
        assertThat(fair.preemptor()).isEqualTo("b1");
        assertThat(fair.node()).isNull();
        assertThat(fair.timeSeconds()).isEqualTo(6 * 3600);
        assertThat(fair.gpus()).isEqualTo(8);
        assertThat(fair.victims()).hasSize(8).allSatisfy(v -> assertThat(v).startsWith("a"));
        assertThat(drain.lostGpuHours()).isGreaterThan(fair.lostGpuHours());
        // then the 1-GPU unallocated events, most work lost (latest) first: a24's at 4h down to a02's at 20m;
        // a01's at 10m, which lost least, is the one beyond the cap
        List<PreemptionEvent> unallocated = events.subList(2, events.size());
        assertThat(unallocated).allSatisfy(e -> {
            assertThat(e.kind()).isEqualTo("UNALLOCATED");
            assertThat(e.gpus()).isEqualTo(1);
            assertThat(e.victims()).singleElement().asString().startsWith("u");
            // u-jobs started at 0s and cannot resume: all their work so far is lost
            assertThat(e.lostGpuHours()).isCloseTo(e.timeSeconds() / 3600.0, within(0.005));
        });
        List<String> preemptors = unallocated.stream().map(PreemptionEvent::preemptor).toList();
        assertThat(preemptors).hasSize(23).startsWith("a24", "a23").endsWith("a03", "a02").doesNotContain("a01")
                .isSortedAccordingTo(Comparator.reverseOrder());
    }

    @Test
    void aHostDrainIsItsOwnEventWithTheNodeAndNoPreemptor() {
        Recorded rec = record(drain(), "allocation");
        List<PreemptionEvent> events = rec.detail().largestPreemptions();
        assertThat(events).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo("HOST_DRAIN");
            assertThat(e.node()).isEqualTo("n1");
            assertThat(e.preemptor()).isNull();
            assertThat(e.victims()).containsExactly("a1");
            assertThat(e.timeSeconds()).isEqualTo(3 * 3600);
            assertThat(e.gpus()).isEqualTo(8);
        });
        assertThat(events).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo("UNALLOCATED");
            assertThat(e.preemptor()).isEqualTo("a1");
            assertThat(e.victims()).containsExactly("u1");
            assertThat(e.timeSeconds()).isEqualTo(3 * 3600);
        });
        // the drain shows in the hour it happened, not as a preemption of A
        assertThat(rec.detail().hourly().drainEvictions()[3]).isEqualTo(1);
        // and on the timeline: a1's first run ended requeued at 3h, by HOST_DRAIN, with no preemptor
        TimelineData t = rec.detail().timeline();
        int a1 = ids(rec.scenario()).indexOf("a1");
        assertThat(t.workload()[0]).isEqualTo(a1);
        assertThat(t.startDelta()[0] + t.durationSeconds()[0]).isEqualTo(3 * 3600);
        assertThat(TimelineData.ENDS.get(t.end()[0])).isEqualTo("requeued");
        assertThat(TimelineData.CAUSES.get(t.cause()[0])).isEqualTo("HOST_DRAIN");
        assertThat(t.preemptor()[0]).isEqualTo(-1);
        assertThat(t.periodNode()).contains(0);
    }

    // ---------------------------------------------------------------------------------------------------------
    // (e) determinism

    @Test
    void theSameScenarioGivesTheSameDetailsByteForByte() throws IOException {
        for (Scenario s : List.of(tiny(), crowd().scenario())) {
            String first = json(s);
            String second = json(s);
            assertThat(first).contains("\"runs\":[{").contains("\"startDelta\"");
            assertThat(second).isEqualTo(first);
        }
    }

    private static String json(Scenario s) throws IOException {
        List<SimulationResult> results = new ArrayList<>();
        List<RunDetail> details = new ArrayList<>();
        for (String policy : List.of("allocation", "legacy")) {
            Recorded r = record(s, policy);
            results.add(r.result());
            details.add(r.detail());
        }
        StringWriter out = new StringWriter();
        JsonReport.writeCompact(JsonReport.document(s, results, details), out);
        return out.toString();
    }
}
