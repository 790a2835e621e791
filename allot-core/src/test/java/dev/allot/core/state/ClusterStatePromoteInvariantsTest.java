package dev.allot.core.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Promotions mixed at random with submissions, starts, preemptions, completions and cancellations keep every
 * running sum of the state exact: the books of running work, protection and charges recomputed from the jobs agree
 * with the state's after every step, and every allocation is charged exactly for the time its work ran allocated
 * (for a promoted attempt, from its promotion on).
 */
class ClusterStatePromoteInvariantsTest {
    private static final long H = 3600;
    private static final int SCENARIOS = 200;
    private static final int STEPS = 120;

    @Test
    void givenRandomPromotionsAmongOtherChangesEveryRunningSumStaysExact() {
        int[] promoted = new int[2];
        for (long seed = 1; seed <= SCENARIOS; seed++) {
            Scenario sc = new Scenario(seed);
            sc.run();
            promoted[0] += sc.promotedWaiting;
            promoted[1] += sc.promotedRunning;
        }
        assertThat(promoted[0]).as("waiting work promoted").isGreaterThan(100);
        assertThat(promoted[1]).as("running work promoted").isGreaterThan(100);
    }

    private static final class Scenario {
        private final long seed;
        private final Random r;
        private final ClusterState s;
        private final long[] closedCharges = new long[2];
        private int promotedWaiting;
        private int promotedRunning;

        Scenario(long seed) {
            this.seed = seed;
            this.r = new Random(seed);
            ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("n1", 8), NodeSpec.of("n2", 8), NodeSpec.of("n3", 4)),
                    List.of());
            AllocationTree tree = AllocationTree.builder("lab").leaf("A", 1).leaf("B", 1).build();
            this.s = new ClusterState(cluster, tree, SchedulerConfig.defaults().withMaxMinRuntime(Duration.ofHours(4)), 0);
        }

        void run() {
            for (int step = 0; step < STEPS; step++) {
                long t = s.now() + (r.nextInt(3) == 0 ? 0 : r.nextInt((int) (2 * H)));
                switch (r.nextInt(7)) {
                    case 0, 1 -> submit(step, t);
                    case 2 -> start(t);
                    case 3 -> promote(t);
                    case 4 -> stop(t);
                    default -> s.advanceTo(t);
                }
                check(step);
            }
        }

        private void submit(int step, long t) {
            boolean allocated = r.nextInt(3) == 0;
            WorkloadSpec spec = WorkloadSpec.builder("w" + step).allocation(r.nextBoolean() ? "A" : "B")
                    .gpus(1 + r.nextInt(4)).duration(Duration.ofHours(30))
                    .minRuntime(allocated ? Duration.ofMinutes(30 + r.nextInt(300)) : Duration.ZERO)
                    .priority(Priority.values()[r.nextInt(Priority.values().length)])
                    .resumable(Duration.ofMinutes(20)).submitAt(t).build();
            s.submit(s.register(spec), t);
        }

        private void start(long t) {
            List<Job> waiting = jobsIn(JobState.PENDING);
            if (waiting.isEmpty()) {
                s.advanceTo(t);
                return;
            }
            Job j = waiting.get(r.nextInt(waiting.size()));
            for (int n = 0; n < s.nodes().count(); n++) {
                if (s.nodes().free().free(n) >= j.gpus()) {
                    s.start(j, new Placement(new int[] {n}, new int[] {j.gpus()}), t);
                    return;
                }
            }
            s.advanceTo(t);
        }

        private void promote(long t) {
            List<Job> unallocated = new ArrayList<>();
            for (Job j : s.jobs()) {
                if (!j.allocated() && (j.state() == JobState.PENDING || j.state() == JobState.RUNNING)) {
                    unallocated.add(j);
                }
            }
            if (unallocated.isEmpty()) {
                s.advanceTo(t);
                return;
            }
            Job j = unallocated.get(r.nextInt(unallocated.size()));
            s.promote(j, Duration.ofMinutes(10 + r.nextInt(6 * 60)), t); // sometimes above the 4h cap
            if (j.state() == JobState.RUNNING) {
                promotedRunning++;
            } else {
                promotedWaiting++;
            }
            assertThat(j.allocated()).isTrue();
            assertThat(j.promotedAtSeconds()).isEqualTo(t);
            if (j.state() == JobState.RUNNING) {
                assertThat(j.protectedUntilSeconds()).isEqualTo(t + j.minRuntimeSeconds());
            }
        }

        private void stop(long t) {
            List<Job> running = jobsIn(JobState.RUNNING);
            if (running.isEmpty()) {
                s.advanceTo(t);
                return;
            }
            Job j = running.get(r.nextInt(running.size()));
            if (j.allocated()) {
                closedCharges[j.leaf()] += (t - chargedSince(j)) * j.gpus();
            }
            switch (r.nextInt(3)) {
                case 0 -> s.complete(j, t);
                case 1 -> s.cancel(j, t);
                default -> s.preempt(j, t);
            }
        }

        private static long chargedSince(Job j) {
            return Math.max(j.attemptStartSeconds(), j.promotedAtSeconds());
        }

        private List<Job> jobsIn(JobState state) {
            List<Job> out = new ArrayList<>();
            for (Job j : s.jobs()) {
                if (j.state() == state) {
                    out.add(j);
                }
            }
            return out;
        }

        private void check(int step) {
            String at = "seed " + seed + ", step " + step;
            long now = s.now();
            int leaves = s.tree().leafCount();
            long[] protectedGpus = new long[leaves];
            long[][] unprotected = new long[leaves][Priority.values().length];
            long[] committed = new long[leaves];
            long[] allocatedGpus = new long[leaves];
            long[] charged = closedCharges.clone();
            int[][] waiting = new int[leaves][2];
            long unallocatedGpus = 0;
            int running = 0;
            long earliestEnd = Long.MAX_VALUE;
            for (Job j : s.jobs()) {
                if (j.state() == JobState.PENDING) {
                    waiting[j.leaf()][j.allocated() ? 0 : 1]++;
                }
                if (j.state() != JobState.RUNNING) {
                    continue;
                }
                running++;
                if (!j.allocated()) {
                    unallocatedGpus += j.gpus();
                    assertThat(s.running().unallocated()).as(at).contains(j);
                    continue;
                }
                assertThat(s.running().allocated(j.leaf())).as(at).contains(j);
                allocatedGpus[j.leaf()] += j.gpus();
                charged[j.leaf()] += (now - chargedSince(j)) * j.gpus();
                if (j.isProtected(now)) {
                    protectedGpus[j.leaf()] += j.gpus();
                    committed[j.leaf()] += (j.protectedUntilSeconds() - now) * j.gpus();
                    earliestEnd = Math.min(earliestEnd, j.protectedUntilSeconds());
                } else {
                    unprotected[j.leaf()][j.spec().priority().ordinal()] += j.gpus();
                }
            }
            assertThat(s.running().count()).as(at).isEqualTo(running);
            assertThat(s.running().unallocatedGpus()).as(at).isEqualTo(unallocatedGpus);
            assertThat(s.protections().nextEndSeconds()).as(at + ": never late").isLessThanOrEqualTo(earliestEnd);
            int listed = s.running().unallocated().size();
            for (int l = 0; l < leaves; l++) {
                listed += s.running().allocated(l).size();
                assertThat(s.protections().protectedGpus(l)).as(at).isEqualTo(protectedGpus[l]);
                assertThat(s.committedGpuSeconds(l)).as(at).isEqualTo(committed[l]);
                assertThat(s.ledger().runningGpus(l)).as(at).isEqualTo(allocatedGpus[l]);
                assertThat(s.totalChargedGpuSeconds(l)).as(at + ", charges of leaf " + l).isEqualTo(charged[l]);
                assertThat(s.pending().count(l, true)).as(at).isEqualTo(waiting[l][0]);
                assertThat(s.pending().count(l, false)).as(at).isEqualTo(waiting[l][1]);
                for (Priority p : Priority.values()) {
                    assertThat(s.protections().unprotectedGpus(l, p)).as(at).isEqualTo(unprotected[l][p.ordinal()]);
                }
            }
            assertThat(listed).as(at + ": each running job listed once").isEqualTo(running);
            for (int n = 0; n < s.nodes().count(); n++) {
                int protectedJobs = 0;
                int used = 0;
                long latest = Long.MIN_VALUE;
                for (Job j : s.nodes().jobsOn(n)) {
                    used += j.placement().gpusOnNode(n);
                    if (j.isProtected(now)) {
                        protectedJobs++;
                    }
                    if (j.allocated()) {
                        latest = Math.max(latest, j.protectedUntilSeconds());
                    }
                }
                assertThat(s.nodes().protectedJobsOn(n)).as(at + ", node " + n).isEqualTo(protectedJobs);
                assertThat(s.nodes().latestProtectionEnd(n)).as(at + ", node " + n).isEqualTo(latest);
                assertThat(s.nodes().free().free(n)).as(at + ", node " + n).isEqualTo(s.nodes().free().capacity(n) - used);
                boolean filed = protectedJobs == 0 && s.nodes().free().capacity(n) == s.nodes().wholeNodes().wholeNodeGpus();
                assertThat(s.nodes().wholeNodes().contains(n)).as(at + ", node " + n).isEqualTo(filed);
            }
        }
    }
}
