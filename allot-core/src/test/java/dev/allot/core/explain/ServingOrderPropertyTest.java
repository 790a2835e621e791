package dev.allot.core.explain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.Decision;
import dev.allot.core.policy.Plan;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.sched.Placer;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;
import dev.allot.core.state.SchedulerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The explainer's queue order is the policy's: on random scenarios where every waiting workload fits on the idle
 * GPUs, the policy starts them in exactly the order the explainer gives them positions.
 */
class ServingOrderPropertyTest {
    private static final int SCENARIOS = 300;

    @Test
    void thePolicyStartsWaitingWorkInTheExplainersOrder() {
        for (long seed = 1; seed <= SCENARIOS; seed++) {
            Random r = new Random(seed);
            ClusterState s = scenario(r);
            long now = s.now();
            List<String> explained = ServingOrder.of(s).stream().map(Job::id).toList();
            // the burst reserve moves protected work beyond its quota after unallocated work when GPUs are short; here
            // everything fits, so with the default reserve the same work starts, and without it in the same order
            assertThat(starts(AllocationPolicy.withDefaults(), s, seed)).as("seed %d", seed)
                    .containsExactlyInAnyOrderElementsOf(explained);
            List<String> started = starts(WITHOUT_RESERVE.get(), s, seed);
            assertThat(started).as("seed %d", seed).isEqualTo(explained);
            WaitExplainer explainer = new WaitExplainer();
            for (int i = 0; i < explained.size(); i++) {
                WaitExplanation e = explainer.explain(s, explained.get(i), now).orElseThrow();
                assertThat(e.position().position()).as("seed %d, %s", seed, e.jobId()).isEqualTo(i + 1);
                assertThat(e.position().waiting()).isEqualTo(explained.size());
                assertThat(e.waitsFor()).as("seed %d, %s", seed, e.jobId()).isInstanceOf(WaitsFor.StartsNow.class);
            }
        }
    }

    private static final java.util.function.Supplier<AllocationPolicy> WITHOUT_RESERVE = () ->
            (AllocationPolicy) AllocationPolicy.FACTORY.create(dev.allot.core.policy.Settings.parse(
                    dev.allot.core.policy.allocation.AllocationSettings.SPECS,
                    java.util.Map.of("burst-reserve", "0"), "test"));

    private static List<String> starts(AllocationPolicy policy, ClusterState s, long seed) {
        Plan plan = policy.schedule(s, s.now());
        List<String> started = new ArrayList<>();
        for (Decision d : plan.decisions()) {
            assertThat(d).as("seed %d: nothing is preempted when everything fits", seed).isInstanceOf(Decision.Start.class);
            started.add(((Decision.Start) d).job().id());
        }
        return started;
    }

    @Test
    void onCrowdedClustersEveryWaitingWorkloadGetsOneConsistentExplanation() {
        for (long seed = 1; seed <= SCENARIOS; seed++) {
            Random r = new Random(seed);
            ClusterState s = crowded(r);
            long now = s.now();
            Plan plan = AllocationPolicy.withDefaults().schedule(s, now);
            java.util.Set<String> started = new java.util.HashSet<>();
            for (Decision d : plan.decisions()) {
                if (d instanceof Decision.Start st) {
                    started.add(st.job().id());
                }
            }
            WaitExplainer explainer = new WaitExplainer();
            List<Job> order = ServingOrder.of(s);
            assertThat(order).hasSize(s.pending().total());
            java.util.Map<Integer, Integer> seenInLeaf = new java.util.HashMap<>();
            for (int i = 0; i < order.size(); i++) {
                Job j = order.get(i);
                WaitExplanation e = explainer.explain(s, j.id(), now).orElseThrow();
                assertThat(e.position().position()).as("seed %d, %s", seed, j.id()).isEqualTo(i + 1);
                assertThat(e.position().positionInAllocation()).as("seed %d, %s", seed, j.id())
                        .isEqualTo(seenInLeaf.merge(j.leaf(), 1, Integer::sum));
                assertThat(e.waitsFor() instanceof WaitsFor.StartsNow).as("seed %d, %s: %s", seed, j.id(), e.waitsFor())
                        .isEqualTo(started.contains(j.id()));
                if (!j.allocated()) {
                    assertThat(e.waitsFor()).isInstanceOfAny(WaitsFor.StartsNow.class, WaitsFor.Unallocated.class);
                }
                if (e.waitsFor() instanceof WaitsFor.ProtectedUntil p) {
                    assertThat(p.untilSeconds()).isGreaterThan(now);
                    assertThat(p.protectedWork()).isNotEmpty();
                }
                // under the default ranking=entitlement, allocated work is also told its allocation's standing
                assertThat(e.standing() != null).as("seed %d, %s", seed, j.id()).isEqualTo(j.allocated());
                // and work larger than its owed allocation's quota is told when the starvation limit lets it take turns
                boolean beyondQuota = e.standing() != null && e.standing().owed() && j.gpus() > e.standing().quotaGpus();
                assertThat(e.starvation() != null).as("seed %d, %s", seed, j.id()).isEqualTo(beyondQuota);
                assertThat(e.summary()).hasSize(j.allocated() ? (beyondQuota ? 5 : 4) : 3)
                        .allSatisfy(line -> assertThat(line).isNotBlank());
            }
            for (int l = 0; l < s.tree().leafCount(); l++) {
                for (Job v : s.running().allocated(l)) {
                    WaitExplanation e = explainer.explain(s, v.id(), now).orElseThrow();
                    assertThat(e.protection().protectedNow()).isEqualTo(v.isProtected(now));
                }
            }
        }
    }

    /** Like {@link #scenario}, then more waiting work than fits, gangs of whole nodes and half nodes among it. */
    private static ClusterState crowded(Random r) {
        ClusterState s = scenario(r);
        long t = s.now();
        List<String> leaves = s.tree().leafNames();
        for (int i = 0; i < 10; i++) {
            int kind = r.nextInt(3);
            int perNode = kind == 0 ? 0 : kind == 1 ? 8 : 4;
            int gpus = perNode == 0 ? 1 + r.nextInt(16) : perNode * (1 + r.nextInt(3));
            Job j = s.register(WorkloadSpec.builder("c" + i).allocation(leaves.get(r.nextInt(leaves.size())))
                    .gpus(gpus).gpusPerNode(perNode).minRuntime(Duration.ofSeconds(r.nextInt(4) == 0 ? 0 : 3600))
                    .duration(Duration.ofDays(1)).submitAt(t).build());
            s.submit(j, t);
        }
        return s;
    }

    /** A random tree, past usage, running work, and waiting work that all fits on what is idle. */
    private static ClusterState scenario(Random r) {
        AllocationTree.Builder b = AllocationTree.builder("root");
        List<String> leaves = new ArrayList<>();
        int top = 2 + r.nextInt(3);
        for (int i = 0; i < top; i++) {
            if (r.nextBoolean()) {
                b.child("t" + i, 1 + r.nextInt(4));
                int kids = 1 + r.nextInt(3);
                for (int k = 0; k < kids; k++) {
                    b.leaf("t" + i + "k" + k, 1 + r.nextInt(4));
                    leaves.add("t" + i + "k" + k);
                }
                b.up();
            } else {
                b.leaf("t" + i, 1 + r.nextInt(4));
                leaves.add("t" + i);
            }
        }
        int nodes = 4 + r.nextInt(8);
        List<NodeSpec> specs = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            specs.add(NodeSpec.of("n" + n, 8));
        }
        ClusterState s = new ClusterState(new ClusterSpec(specs, List.of()), b.build(), SchedulerConfig.defaults(), 0);
        int id = 0;
        long t = 0;
        // past usage: some work that ran and ended, some still running (protected or not)
        List<Job> running = new ArrayList<>();
        for (int i = 0; i < 3 + r.nextInt(6); i++) {
            Job j = s.register(spec("p" + id++, leaves.get(r.nextInt(leaves.size())), 1 + r.nextInt(8),
                    (1 + r.nextInt(4)) * 1800L, t, Priority.NORMAL));
            s.submit(j, t);
            Placement p = Placer.find(s.nodes().free(), j.gpus(), 0, null);
            if (p == null) {
                break;
            }
            s.start(j, p, t);
            running.add(j);
            t += r.nextInt(3600);
            s.advanceTo(t);
            if (r.nextBoolean()) {
                Job done = running.remove(r.nextInt(running.size()));
                s.complete(done, t);
            }
        }
        int idle = Placer.usableFree(s.nodes().free(), null);
        for (int i = 0; i < 12 && idle > 0; i++) {
            int gpus = 1 + r.nextInt(Math.min(8, idle));
            idle -= gpus;
            long minRuntime = r.nextInt(4) == 0 ? 0 : (1 + r.nextInt(8)) * 1800L;
            Priority prio = Priority.values()[r.nextInt(Priority.values().length)];
            long submit = t - r.nextInt(600);
            Job j = s.register(spec("w" + id++, leaves.get(r.nextInt(leaves.size())), gpus, minRuntime,
                    Math.max(0, submit), prio));
            s.submit(j, t);
        }
        return s;
    }

    private static WorkloadSpec spec(String id, String alloc, int gpus, long minRuntime, long submit, Priority p) {
        return WorkloadSpec.builder(id).allocation(alloc).gpus(gpus).minRuntime(Duration.ofSeconds(minRuntime))
                .duration(Duration.ofDays(2)).priority(p).submitAt(submit).build();
    }
}
