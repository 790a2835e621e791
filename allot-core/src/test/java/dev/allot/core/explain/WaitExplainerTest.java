package dev.allot.core.explain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.explain.WaitExplanation.FairShareLevel;
import dev.allot.core.explain.WaitsFor.ProtectedWork;
import dev.allot.core.model.Priority;
import dev.allot.core.policy.Settings;
import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.state.JobState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Stories of why work waits, each told with {@link Story} and checked in data and in words. */
class WaitExplainerTest {
    private static final long H = 3600;
    private static final long WINDOW = 7 * 24 * H;

    @Test
    void anUnderServedTeamWaitsForTheProtectionOfAnOverServedTeamsWorkToEnd() {
        // given 2 nodes x 8 GPUs, team A running all 16 GPUs protected until t=3600, B submits 8 GPUs at t=600
        Story s = Story.given(2, 8).teams("A", "B")
                .at(0).runs("a1", "A", 8, H).runs("a2", "A", 8, H)
                .at(600).submits("b1", "B", 8);

        WaitExplanation e = s.explain("b1");

        // B waits for A's protection to end at 3600, naming A's jobs; it is 1st of 1
        assertThat(e.state()).isEqualTo(JobState.PENDING);
        assertThat(e.position()).isEqualTo(new WaitExplanation.QueuePosition(1, 1, 1, 1));
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.ProtectedUntil(3600, 8, 0, 0,
                List.of(new ProtectedWork("a1", "A", 8, 3600), new ProtectedWork("a2", "A", 8, 3600))));
        assertThat(e.waitsFor().kind()).isEqualTo("protected-until");
        FairShareLevel b = e.fairShare().get(0);
        assertThat(e.fairShare()).hasSize(1);
        assertThat(b.name()).isEqualTo("B");
        assertThat(b.usageGpuSeconds()).isZero();
        assertThat(b.entitlement()).isEqualTo(0.5);
        assertThat(b.entitledGpuSeconds()).isEqualTo(0.5 * 16 * WINDOW);
        assertThat(b.rank()).isEqualTo(1);
        assertThat(b.siblings()).isEqualTo(2);
        assertThat(e.summary()).containsExactly(
                "b1 waits: 1st of 1 waiting; 1st of 1 in B.",
                "Over the last 7d: B has been charged 0 of its entitlement (0 of 1344 GPU-hours), ranking 1st of 2 at the top.",
                "Right now B holds 0 GPUs of its quota of 8 (entitlement 50% x 16 healthy GPUs): it is owed GPUs, so its"
                        + " waiting work goes first and may reclaim from allocations holding at least 1.1 x their quota,"
                        + " down to their quota; from those it is ahead of on the lookback window it may take"
                + " more, below their quota, while it would stand no higher than they do (taking turns).",
                "It needs 8 GPUs; 0 are idle and 0 could be preempted now; the protection of a1 (A, 8 GPUs),"
                        + " a2 (A, 8 GPUs) ends at t=3600s (in 50m), after which it may preempt them if the rules still"
                        + " allow it then (its allocation holds 0 of its quota of 8 GPUs; A holds 16 of its quota of 8).");
    }

    @Test
    void givenItsHostGoesUnhealthyProtectedWorkIsSaidToBeDrainedWhenItsProtectionEnds_andWaitingWorkThatItCannotStart() {
        // given 2 nodes x 8 GPUs: a1 runs on n1 protected until t=3600; n1 goes unhealthy at t=600, when B asks for 16
        Story s = Story.given(2, 8).teams("A", "B")
                .at(0).runsOn("a1", "A", 0, 8, H)
                .at(600).unhealthy(0).submits("b1", "B", 16);

        WaitExplanation running = s.explain("a1");
        WaitExplanation waiting = s.explain("b1");

        // then a1's explanation says its host is unhealthy and when it is drained (it said only "protected until")
        assertThat(running.protection().unhealthyHosts()).containsExactly("n1");
        assertThat(running.summary().get(1)).endsWith(" Its host n1 is unhealthy and takes no new work: it is drained"
                + " when its protection ends at t=3600s (preempted; it cannot resume, so it ends).");
        // and b1's says which hosts take no new work, and that 16 GPUs cannot be had on the 8 healthy ones
        assertThat(waiting.hosts()).isEqualTo(new WaitExplanation.Hosts(1, List.of("n1"), 8, 16));
        assertThat(waiting.summary()).contains("Hosts that take no new work (unhealthy): n1; the healthy hosts have"
                + " 8 GPUs of 16. It asks for 16: it cannot start until hosts are healthy again.");
        // the sentence of what it waits for stays before it (the dashboard's queue shows that one beside its badge)
        List<String> words = waiting.summary();
        assertThat(words.indexOf(words.stream().filter(x -> x.startsWith("It needs 16 GPUs")).findFirst().orElseThrow()))
                .isLessThan(words.size() - 1);
        assertThat(words.get(words.size() - 1)).startsWith(WaitExplanation.HOSTS_SENTENCE);
    }

    @Test
    void aBurstBeyondQuotaWaitsWhileUnallocatedWorkHoldsTheGpusAnotherTeamIsEntitledTo() {
        // given 2 nodes x 8 GPUs shared by A and B (quota 8 each): A runs its quota, B's unallocated sweep the rest,
        // and A submits 8 more GPUs protected for 1h
        Story s = Story.given(2, 8).teams("A", "B")
                .at(0).runs("a1", "A", 8, H).runs("u1", "B", 8, 0)
                .at(600).submits("a2", "A", 8);

        WaitExplanation e = s.explain("a2");

        // then the burst reserve holds a2 back: taking the sweep's GPUs would leave 0 that B could have at once,
        // where the reserve keeps all (1 x) of B's unused quota of 8
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.BurstReserve(8, 8, 8.0, 1.0));
        assertThat(e.waitsFor().kind()).isEqualTo("burst-reserve");
        assertThat(e.summary().get(3)).isEqualTo("It needs 8 GPUs; its start would take its allocation beyond its"
                + " quota with protected work, leaving 0 GPUs that could be handed over at once (idle, unallocated, or"
                + " unprotected beyond a quota) where the burst reserve keeps 1 x the other allocations' unused"
                + " quotas (8 GPUs). It starts when enough of that room is used or can be handed over, or on GPUs that"
                + " unallocated work leaves idle.");
    }

    @Test
    void onceTheProtectionHasEndedItStartsNextCycleByPreempting() {
        Story s = Story.given(1, 8).teams("A", "B")
                .at(0).runs("a1", "A", 8, H)
                .at(2 * H).submits("b1", "B", 8);

        assertThat(s.explain("b1").waitsFor()).isEqualTo(new WaitsFor.StartsNow(List.of("a1")));
        assertThat(s.explain("b1").summary().get(3))
                .isEqualTo("Nothing blocks it: it starts in the next scheduling cycle, after preempting a1.");
    }

    @Test
    void onAnIdleClusterNothingBlocksIt() {
        Story s = Story.given(1, 8).teams("A", "B").at(0).submits("b1", "B", 8);

        WaitExplanation e = s.explain("b1");

        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.StartsNow(List.of()));
        assertThat(e.position()).isEqualTo(new WaitExplanation.QueuePosition(1, 1, 1, 1));
    }

    @Test
    void aTeamThatRanksLowerWaitsForGpusItMayNotTake() {
        // B used 3 hours of the node; A's running work commits only 1 hour: A ranks above B, so B may not preempt it
        Story s = Story.given(1, 8).teams("A", "B")
                .at(0).runs("b0", "B", 8, H)
                .at(3 * H).ends("b0").runs("a1", "A", 8, H)
                .submits("b1", "B", 8);

        WaitExplanation e = s.explain("b1");

        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.Gpus(8, 0, 0, 0));
        assertThat(e.fairShare().get(0).rank()).isEqualTo(2);
        assertThat(e.summary().get(1)).startsWith("Over the last 7d: B has been charged ").endsWith("ranking 2nd of 2 at the top.");
    }

    @Test
    void aBurstingTeamWaitsForTheShortestTurnOfWorkPreemptedBefore() {
        // given 2 nodes x 8 GPUs shared A 1 / B 1 / C 2 (quotas 4, 4, 8): A runs 12 GPUs and B its quota of 4, all
        // protected 10 minutes; a2 was preempted at 10m and started again at 20m; at 40m B, which has used less over
        // the window, submits 4 GPUs more (protected 10m)
        Story s = Story.given(2, 8).tree(t -> t.leaf("A", 1).leaf("B", 1).leaf("C", 2))
                .at(0).runsOn("a1", "A", 0, 8, 8 * H).runsOn("a2", "A", 1, 4, 600).runsOn("b0", "B", 1, 4, 600)
                .at(600).preempted("a2").at(1200).restartsOn("a2", 1)
                .at(2400).submits("b1", "B", 4, 0, 600, Priority.NORMAL);

        WaitExplanation e = s.explain("b1");

        // then a2 is past its protection but, preempted before, must first run the shortest turn (1h) that B,
        // bursting, has to leave it: b1 waits until 1h20m, and the explanation says so
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.ProtectedUntil(1200 + H, 4, 0, 0,
                List.of(new ProtectedWork("a2", "A", 4, 1200 + H, true))));
        assertThat(e.summary().get(3)).isEqualTo("It needs 4 GPUs; 0 are idle and 0 could be preempted now; the"
                + " protection or shortest turn of a2 (A, 4 GPUs, whose run must first last the shortest turn) ends at"
                + " t=4800s (in 40m), after which it may preempt them if the rules still allow it then (its allocation"
                + " holds 4 of its quota of 4 GPUs; A holds 12 of its quota of 4).");
    }

    @Test
    void aGangOfWholeNodesWaitsForWholeNodesWhenTheIdleGpusAreScattered() {
        // A (a quarter: a quota of 4 GPUs) holds 8, twice its quota; B's whole-node gang needs one of A's nodes
        Story s = Story.given(2, 8).tree(t -> t.leaf("A", 1).leaf("B", 3))
                .at(0).runsOn("a1", "A", 0, 4, H).runsOn("a2", "A", 1, 4, H)
                .submitsGang("b1", "B", 8, 8);

        WaitExplanation e = s.explain("b1");

        List<ProtectedWork> a1 = List.of(new ProtectedWork("a1", "A", 4, H));
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.Gang(1, 8, true, 0, H, a1));
        assertThat(e.waitsFor().kind()).isEqualTo("gang");
        assertThat(e.summary().get(3)).isEqualTo("It needs 1 whole node of 8 GPUs; 0 are free. Enough nodes have room at"
                + " t=3600s (in 1h), when the protection of a1 (A, 4 GPUs) ends, after which it may preempt them if the"
                + " rules still allow it then (its allocation holds 0 of its quota of 12 GPUs; A holds 8 of its quota of 4).");
    }

    @Test
    void aGangOfPartNodesWaitsForNodesWithRoomWhenTheIdleGpusAreScattered() {
        // 6 GPUs idle, but 2 on each node: a gang of 2 nodes x 3 GPUs does not fit
        Story s = Story.given(3, 8).teams("A", "B")
                .at(0).runsOn("a1", "A", 0, 6, H).runsOn("a2", "A", 1, 6, H).runsOn("a3", "A", 2, 6, H)
                .submitsGang("b1", "B", 6, 3);

        WaitExplanation e = s.explain("b1");

        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.Gang(2, 3, false, 0, H,
                List.of(new ProtectedWork("a1", "A", 6, H), new ProtectedWork("a2", "A", 6, H))));
        assertThat(e.summary().get(3)).startsWith("It is a gang that needs 2 nodes with 3 idle GPUs each; 0 have that"
                + " many. Enough nodes have room at t=3600s");
    }

    @Test
    void workAheadInFairShareOrderTakesTheGpusFirst() {
        // both teams at zero usage: a tie, broken by name, so A is served first
        Story s = Story.given(1, 8).teams("A", "B").at(0).submits("a1", "A", 8).submits("b1", "B", 8);

        WaitExplanation e = s.explain("b1");

        assertThat(e.position()).isEqualTo(new WaitExplanation.QueuePosition(2, 2, 1, 1));
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.HigherRankedWork(8, 8, 0, 1, 8));
        assertThat(s.explain("a1").waitsFor()).isEqualTo(new WaitsFor.StartsNow(List.of()));
    }

    @Test
    void allocationsInterleaveBecauseEachStartCommitsItsMinimumRuntime() {
        Story s = Story.given(4, 8).teams("A", "B").at(0)
                .submits("a1", "A", 8).submits("a2", "A", 8).submits("a3", "A", 8)
                .submits("b1", "B", 8).submits("b2", "B", 8);

        assertThat(List.of("a1", "b1", "a2", "b2", "a3").stream().map(id -> s.explain(id).position().position()))
                .containsExactly(1, 2, 3, 4, 5);
        assertThat(s.explain("a3").position()).isEqualTo(new WaitExplanation.QueuePosition(5, 5, 3, 3));
        assertThat(s.explain("b2").position()).isEqualTo(new WaitExplanation.QueuePosition(4, 5, 2, 2));
    }

    @Test
    void unallocatedWorkComesAfterAllAllocatedWorkAndRunsOnlyOnIdleGpus() {
        Story s = Story.given(1, 8).teams("A", "B")
                .at(0).runs("a1", "A", 8, H)
                .submitsUnallocated("u1", "A", 4).submits("b1", "B", 8);

        WaitExplanation e = s.explain("u1");

        assertThat(e.allocated()).isFalse();
        assertThat(e.position()).isEqualTo(new WaitExplanation.QueuePosition(2, 2, 1, 1));
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.Unallocated(4, 0, 1));
        assertThat(e.summary().get(0)).isEqualTo(
                "u1 waits: 2nd of 2 waiting; 1st of 1 in A (unallocated work comes after all allocated work).");
    }

    @Test
    void theFairShareOfEveryLevelFromTheTopDownToTheLeaf() {
        // lab > nlp (2) {pretrain, posttrain}, vision (1) {detect}; pretrain commits 8 GPUs x 1h
        Story s = Story.given(2, 8).tree(t -> t.child("nlp", 2).leaf("pretrain", 1).leaf("posttrain", 1).up()
                        .child("vision", 1).leaf("detect", 1).up())
                .at(0).runs("p1", "pretrain", 8, H)
                .submits("q1", "posttrain", 8);

        List<FairShareLevel> levels = s.explain("q1").fairShare();

        assertThat(levels).extracting(FairShareLevel::name).containsExactly("nlp", "posttrain");
        FairShareLevel nlp = levels.get(0);
        assertThat(nlp.parent()).isEqualTo("lab");
        assertThat(nlp.usageGpuSeconds()).isEqualTo(8 * H);
        assertThat(nlp.entitlement()).isCloseTo(2.0 / 3, within(1e-12));
        assertThat(nlp.ratio()).isCloseTo(8 * H / (2.0 / 3 * 16 * WINDOW), within(1e-12));
        assertThat(nlp.rank()).isEqualTo(2); // vision used nothing
        assertThat(nlp.siblings()).isEqualTo(2);
        FairShareLevel post = levels.get(1);
        assertThat(post.parent()).isEqualTo("nlp");
        assertThat(post.usageGpuSeconds()).isZero();
        assertThat(post.entitlement()).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(post.rank()).isEqualTo(1);
        assertThat(s.explain("q1").summary().get(1)).isEqualTo("Over the last 7d: nlp has been charged 0.00446 of its entitlement"
                + " (8.00 of 1792 GPU-hours): 0 run plus 8.00 committed to protected minimum runtimes, ranking 2nd of 2"
                + " at the top; posttrain has been charged 0 of its entitlement"
                + " (0 of 896 GPU-hours), ranking 1st of 2 under nlp.");
    }

    @Test
    void aRunningJobIsProtectedUntilItsMinimumRuntimeEndsAndThenMayBePreempted() {
        Story s = Story.given(1, 8).teams("A", "B")
                .at(0).runs("a1", "A", 8, H)
                .at(600).submits("b1", "B", 8);

        WaitExplanation during = s.explain("a1");
        assertThat(during.position()).isNull();
        assertThat(during.waitsFor()).isNull();
        assertThat(during.protection()).isEqualTo(new WaitExplanation.Protection(true, H, H, 1, List.of("b1"), List.of(),
                false));
        assertThat(during.summary().get(1)).isEqualTo("It is protected by its 1h minimum runtime until t=3600s (in 50m);"
                + " nobody may preempt it before then. 1 waiting workload may preempt it once its protection ends, if the"
                + " rules then still allow it: b1.");

        s.at(2 * H);
        WaitExplanation after = s.explain("a1");
        assertThat(after.protection().protectedNow()).isFalse();
        assertThat(after.summary().get(1)).isEqualTo("Its 1h minimum runtime ended at t=3600s; it may be preempted."
                + " 1 waiting workload may preempt it: b1.");
    }

    @Test
    void aJobOfTheTopRankedTeamMayBePreemptedByNobody() {
        Story s = Story.given(1, 8).teams("A", "B")
                .at(0).runs("b0", "B", 8, H)
                .at(3 * H).ends("b0").runs("a1", "A", 8, H)
                .submits("b1", "B", 8);

        assertThat(s.explain("a1").protection().preemptibleByCount()).isZero();
    }

    @Test
    void unknownJobsAreNotExplained() {
        Story s = Story.given(1, 8).teams("A").at(0);
        assertThat(new WaitExplainer().explain(s.state(), "nope", 0)).isEmpty();
    }

    @Test
    void overAWeekTheDecidingDifferenceInUsageShowsInTheExplanationAndInThePreemptionReason() {
        // given a week's window on 2 x 8 GPUs: vision used 2 GPU-hours, nlp 4; both ratios round to 0.00
        Story s = Story.given(2, 8).teams("vision", "nlp")
                .at(0).runs("v0", "vision", 2, H).runs("n0", "nlp", 4, H)
                .at(H).ends("v0").ends("n0")
                .submits("n1", "nlp", 8);

        // when n1 is explained, then its sentence shows the ratio with significant digits and the GPU-hours
        assertThat(s.explain("n1").summary().get(1)).isEqualTo("Over the last 7d: nlp has been charged 0.00298 of its"
                + " entitlement (4.00 of 1344 GPU-hours), ranking 2nd of 2 at the top.");

        // and a preemption reason comparing them names both numbers and which is lower
        dev.allot.core.policy.allocation.FairShare fs = new dev.allot.core.policy.allocation.FairShare(
                s.state().tree(), 16, s.state().ledger().windowSeconds());
        fs.reset(s.state());
        int vision = s.state().tree().leaf("vision").orElseThrow();
        int nlp = s.state().tree().leaf("nlp").orElseThrow();
        assertThat(fs.explainAbove(vision, nlp)).isEqualTo("under 'lab', 'vision' has been charged 0.00149 of its entitlement"
                + " (2.00 of 1344 GPU-hours) over the window and 'nlp' 0.00298 of its entitlement (4.00 of 1344"
                + " GPU-hours): 'vision' is lower");
    }

    @Test
    void aGangThatNoProtectionEndCanFreeSaysItWaitsForWorkItMayNotPreempt() {
        // given A used 3 hours of the node and now ranks below B, whose work holds the only node: A may not preempt it
        Story s = Story.given(1, 8).teams("A", "B")
                .at(0).runs("a0", "A", 8, H)
                .at(3 * H).ends("a0").runs("b1", "B", 8, H)
                .submitsGang("a2", "A", 8, 8);

        WaitExplanation e = s.explain("a2");

        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.Gang(1, 8, true, 0, -1, List.of()));
        assertThat(e.summary().get(3)).isEqualTo("It needs 1 whole node of 8 GPUs; 0 are free. Ends of protection do"
                + " not free enough nodes it may take: it waits for work it may not preempt to end, or for its allocation"
                + " to rank higher.");
    }

    @Test
    void workLargerThanItsOwedAllocationsQuotaIsToldWhenTheStarvationLimitLetsItTakeTurns() {
        // given 2 nodes x 8 GPUs shared 1:3 (A's quota 4 GPUs, B's 12), B runs 16 GPUs protected for 2h, and at 10m A
        // submits a gang of one whole node: 8 GPUs, twice its quota
        Story s = Story.given(2, 8).tree(t -> t.leaf("A", 1).leaf("B", 3))
                .at(0).runsOn("b1", "B", 0, 8, 2 * H).runsOn("b2", "B", 1, 8, 2 * H)
                .at(600).submitsGang("a1", "A", 8, 8);

        // then before the starvation limit (1h after its submission) it is told from when it may take turns
        WaitExplanation before = s.explain("a1");
        assertThat(before.starvation()).isEqualTo(new WaitExplanation.Starvation(600 + H, H));
        assertThat(before.summary().get(before.summary().size() - 1)).isEqualTo("It asks for more GPUs (8) than A's"
                + " quota of 4, so reclaiming alone may never pay for it: from t=4200s (after the starvation limit of 1h)"
                + " it may also take turns with allocations standing higher than its own that it is ahead of on the"
                + " lookback window, taking their unprotected work that fits within their own quotas, if A is still"
                + " owed then.");

        // and after it, that it has that right now
        WaitExplanation after = s.at(5000).explain("a1");
        assertThat(after.summary().get(after.summary().size() - 1)).isEqualTo("It asks for more GPUs (8) than A's"
                + " quota of 4, so reclaiming alone may never pay for it: it has waited past the starvation limit (1h,"
                + " since t=4200s), so while A is owed it may also take turns with allocations standing higher than its"
                + " own that it is ahead of on the lookback window, taking their unprotected work that fits within their"
                + " own quotas.");
        // work within its allocation's quota is not told about starvation
        assertThat(s.submits("a2", "A", 2).explain("a2").starvation()).isNull();
    }

    @Test
    void gpusWithinAReclaimBudgetThatNoSingleJobFitsAreNotCountedAsPreemptible() {
        // given 2 nodes x 8 GPUs shared 1:3 (A's quota 4, B's 12); A used a node for 3h, so B is ahead of A on the
        // window (A may not take turns with B); then B runs two 8-GPU jobs past their protection: B holds 16, 4 above
        // its quota, but each of its jobs is 8 GPUs
        Story s = Story.given(2, 8).tree(t -> t.leaf("A", 1).leaf("B", 3))
                .at(0).runsOn("a0", "A", 0, 8, H)
                .at(3 * H).ends("a0").runsOn("b1", "B", 0, 8, H).runsOn("b2", "B", 1, 8, H)
                .at(5 * H).submits("a1", "A", 2);

        // then owed A may reclaim 4 GPUs of B but no job of B fits that: nothing could be preempted now
        WaitExplanation e = s.explain("a1");
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.Gpus(2, 0, 0, 0));
    }

    @Test
    void aGangWaitsForTheLaterOfTheTwoNodesItNeedsToFreeUp() {
        // given A (a quota of 4 GPUs) runs a1 on node 1 protected for 1h and a2 on node 2 for 2h, B's gang (quota 12)
        // needs both whole nodes
        Story s = Story.given(2, 8).tree(t -> t.leaf("A", 1).leaf("B", 3))
                .at(0).runsOn("a1", "A", 0, 8, H).runsOn("a2", "A", 1, 2, 2 * H)
                .submitsGang("b1", "B", 16, 8);

        WaitExplanation e = s.explain("b1");

        // then it has room when the later protection ends, and names both
        assertThat(e.waitsFor()).isEqualTo(new WaitsFor.Gang(2, 8, true, 0, 2 * H,
                List.of(new ProtectedWork("a1", "A", 8, H), new ProtectedWork("a2", "A", 2, 2 * H))));
        assertThat(e.summary().get(3)).isEqualTo("It needs 2 whole nodes of 8 GPUs; 0 are free. Enough nodes have room"
                + " at t=7200s (in 2h), when the protection of a1 (A, 8 GPUs), a2 (A, 2 GPUs) ends, after which it may"
                + " preempt them if the rules still allow it then (its allocation holds 0 of its quota of 12 GPUs; A holds"
                + " 10 of its quota of 4).");
    }

    @Test
    void aPromiseToPreemptLowerPriorityWorkOfTheSameAllocationIsNotConditionalOnRanks() {
        Story s = Story.given(1, 8).teams("A", "B")
                .at(0).submits("a1", "A", 8, 0, H, dev.allot.core.model.Priority.LOW);
        s.state().start(s.state().job("a1").orElseThrow(),
                new dev.allot.core.state.Placement(new int[] {0}, new int[] {8}), 0);
        s.at(600).submits("a2", "A", 8, 0, H, dev.allot.core.model.Priority.HIGH);

        assertThat(s.explain("a2").summary().get(3)).endsWith("after which it may preempt them (they have a lower"
                + " priority in its allocation).");
    }

    @Test
    void aMinimumRuntimeAboveTheCapIsExplainedAsCapped() {
        // given a1 declared a 9h minimum runtime, over the default 8h cap
        Story s = Story.given(1, 8).teams("A", "B").at(0).runs("a1", "A", 8, 9 * H).at(600);

        // then its explanation shows the 8h that applies and says the cap cut it
        assertThat(s.explain("a1").summary()).containsExactly(
                "a1 runs in A.",
                "The minimum runtime is capped at 8h (the scheduler's maximum); 9h was asked.",
                "It is protected by its 8h minimum runtime until t=28800s (in 7h50m); nobody may preempt it before then."
                        + " No waiting workload may preempt it: the rules let none take GPUs from its allocation now,"
                        + " and none has a higher priority in it.",
                "Over the last 7d: A has been charged 0.0952 of its entitlement (64.0 of 672 GPU-hours): 1.33 run plus"
                        + " 62.7 committed to protected minimum runtimes, ranking 2nd of 2 at the top.",
                "Right now A holds 8 GPUs of its quota of 4 (entitlement 50% x 8 healthy GPUs; standing 2): it holds at"
                        + " least 1.1 x its quota, so owed allocations may reclaim from it down to its quota (and"
                        + " allocations ahead of it on the lookback window may take turns with it); its waiting work"
                        + " comes after that of owed allocations, in lookback order.");
    }

    @Test
    void anOwedAllocationIsToldItsStandingInDataAndWordsAndLookbackKeepsTheRankingWords() {
        // given lab > vision (2) {video (1), image (1)}, nlp (3) on 1 x 8 GPUs: video's entitlement is 2/5 x 1/2 = 20%
        // of 8 healthy GPUs, a quota of 1.6; nlp (60%, a quota of 4.8) holds all 8 GPUs, protected until t=3600
        Story s = Story.given(1, 8).tree(t -> t.child("vision", 2).leaf("video", 1).leaf("image", 1).up().leaf("nlp", 3))
                .at(0).runs("n1", "nlp", 8, H)
                .at(600).submits("v1", "video", 2);

        WaitExplanation e = s.explain("v1");

        // then under the default ranking=entitlement the data carry video's standing and nlp's, whose work it waits for
        assertThat(e.ranking()).isEqualTo(Ranking.ENTITLEMENT);
        assertThat(e.reclaimMargin()).isEqualTo(0.1);
        WaitExplanation.Standing video = e.standing();
        assertThat(video.allocation()).isEqualTo("video");
        assertThat(video.entitlement()).isCloseTo(0.2, within(1e-12));
        assertThat(video.healthyGpus()).isEqualTo(8);
        assertThat(video.quotaGpus()).isCloseTo(1.6, within(1e-12));
        assertThat(video.heldGpus()).isZero();
        assertThat(video.standing()).isZero();
        assertThat(video.owed()).isTrue();
        assertThat(e.otherStandings()).extracting(WaitExplanation.Standing::allocation).containsExactly("nlp");
        WaitExplanation.Standing nlp = e.otherStandings().get(0);
        assertThat(nlp.heldGpus()).isEqualTo(8);
        assertThat(nlp.standing()).isCloseTo(8 / 4.8, within(1e-12));
        assertThat(nlp.owed()).isFalse();
        // and the words say the rule with those numbers
        assertThat(e.summary().get(2)).isEqualTo("Right now video holds 0 GPUs of its quota of 1.6 (entitlement 20% x"
                + " 8 healthy GPUs): it is owed GPUs, so its waiting work goes first and may reclaim from allocations"
                + " holding at least 1.1 x their quota, down to their quota; from those it is ahead of on the lookback window it may take"
                + " more, below their quota, while it would stand no higher than they do (taking turns).");
        assertThat(e.summary().get(3)).endsWith("ends at t=3600s (in 50m), after which it may preempt them if the rules"
                + " still allow it then (its allocation holds 0 of its quota of 1.6 GPUs; nlp holds 8 of its quota of 4.8).");
        // and nlp's running work is told it stands well above its quota
        assertThat(s.explain("n1").summary().get(3)).startsWith("Right now nlp holds 8 GPUs of its quota of 4.8"
                + " (entitlement 60% x 8 healthy GPUs; standing 1.67): it holds at least 1.1 x its quota, so owed"
                + " allocations may reclaim from it down to its quota");

        // when the policy ranks by lookback usage alone, then no standing is given and the words are the ranking's
        WaitExplainer lookback = new WaitExplainer(() -> (AllocationPolicy) AllocationPolicy.FACTORY.create(
                Settings.parse(AllocationPolicy.FACTORY.settings(), Map.of("ranking", "lookback"), "test")));
        WaitExplanation l = s.explain("v1", lookback);
        assertThat(l.ranking()).isEqualTo(Ranking.LOOKBACK);
        assertThat(l.standing()).isNull();
        assertThat(l.otherStandings()).isEmpty();
        assertThat(l.summary()).hasSize(3).noneMatch(line -> line.startsWith("Right now"));
        assertThat(l.summary().get(2)).endsWith("after which it may preempt them if its allocation still ranks above"
                + " theirs then.");
        assertThat(s.explain("n1", lookback).summary().get(1)).endsWith("if the ranking then still allows it: v1.");
    }

    @Test
    void anAllocationWithinTheMarginAboveItsQuotaIsToldNoAllocationReclaimsFromIt() {
        // A (quota 4 of 8) holds 4: at its quota, below 1.1 x it
        Story s = Story.given(1, 8).teams("A", "B").at(0).runs("a1", "A", 4, H).submits("a2", "A", 8);

        WaitExplanation e = s.explain("a2");

        assertThat(e.standing().standing()).isEqualTo(1.0);
        assertThat(e.standing().owed()).isFalse();
        assertThat(e.summary().get(2)).isEqualTo("Right now A holds 4 GPUs of its quota of 4 (entitlement 50% x 8"
                + " healthy GPUs; standing 1): it is at or above its quota but below 1.1 x it, so no allocation reclaims"
                + " from it (only starving work larger than its own allocation's quota may take turns with it); its waiting work comes after that of owed"
                + " allocations, in lookback order.");
    }

    @Test
    void unallocatedWorkHasNoStanding() {
        Story s = Story.given(1, 8).teams("A", "B").at(0).runs("a1", "A", 8, H).submitsUnallocated("u1", "A", 4);

        WaitExplanation e = s.explain("u1");

        assertThat(e.standing()).isNull();
        assertThat(e.summary()).noneMatch(line -> line.startsWith("Right now"));
    }

    @Test
    void shortNumbersDropTrailingZeros() {
        assertThat(List.of(8.0, 3.2, 1.1, 1.0 / 3, 0.0, 1234.5).stream().map(WaitExplanation::short3))
                .containsExactly("8", "3.2", "1.1", "0.333", "0", "1235");
    }
}
