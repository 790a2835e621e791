package dev.allot.core.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The slot planner's rules hold on random campaigns under every strategy: slots are never overfilled, only live
 * shards that do not hold a slot already move, the shards left out are the ones that do not fit (and, counted in
 * shards, never longer than a chosen one), the plan does not depend on the order of its input, and carrying a plan
 * out leaves nothing more to do. Fixed seed: the same examples every run.
 */
class SlotPlannerPropertyTest {
    private static final long SEED = 17;
    private static final int EXAMPLES = 500;

    /** A campaign of up to 9 shards (ties in remaining work are common), in a random order. */
    private static final Gen<List<ShardView>> SHARDS = lists().of(
            integers().between(1, 4).zip(integers().between(0, 6), integers().between(0, ShardPhase.values().length - 1),
                    booleans().all(), (gpus, fives, phase, prot) -> new int[] {gpus, fives * 5, phase, prot ? 1 : 0}))
            .ofSizeBetween(0, 9)
            .zip(longs().all(), SlotPlannerPropertyTest::shards);

    private static final Gen<ProtectedSlots> SLOTS = integers().between(0, 4).zip(integers().between(0, 10),
            integers().between(0, 3), (n, g, kind) -> switch (kind) {
                case 0 -> ProtectedSlots.shards(n);
                case 1 -> ProtectedSlots.gpus(g);
                case 2 -> new ProtectedSlots(n, g);
                default -> ProtectedSlots.unlimited();
            });

    private static final Gen<CampaignStrategy> STRATEGY = integers().between(0, CampaignStrategy.all().size() - 1)
            .map(i -> CampaignStrategy.all().get(i));

    private static List<ShardView> shards(List<int[]> specs, long shuffleSeed) {
        List<ShardView> out = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            int[] s = specs.get(i);
            ShardPhase phase = ShardPhase.values()[s[2]];
            long hours = phase == ShardPhase.DONE ? 0 : s[1];
            out.add(Shards.shard(i, s[0], hours, phase, s[3] == 1 ? ShardTier.PROTECTED : ShardTier.UNALLOCATED));
        }
        Collections.shuffle(out, new Random(shuffleSeed));
        return out;
    }

    private static boolean candidate(ShardView s) {
        return s.phase().live() && !s.runningProtected();
    }

    @Test
    void theProtectedSlotsAreNeverOverfilled() {
        qt().withFixedSeed(SEED).withExamples(EXAMPLES).forAll(SHARDS, SLOTS, STRATEGY).checkAssert((shards, slots, st) -> {
            SlotPlanner.Plan p = SlotPlanner.plan(shards, slots, st, 0);
            ProtectedSlots used = st.slots().apply(slots);
            long runningShards = shards.stream().filter(ShardView::runningProtected).count();
            long runningGpus = shards.stream().filter(ShardView::runningProtected).mapToLong(ShardView::gpus).sum();
            long chosenGpus = shards.stream().filter(s -> p.chosen().contains(s.index())).mapToLong(ShardView::gpus).sum();
            if (!p.chosen().isEmpty()) {
                assertThat(runningShards + p.chosen().size()).isLessThanOrEqualTo(used.maxShards());
                assertThat(runningGpus + chosenGpus).isLessThanOrEqualTo(used.maxGpus());
            }
        });
    }

    @Test
    void onlyLiveShardsWithoutASlotMoveAndEachAtMostOnceWithTheTierItWasGiven() {
        qt().withFixedSeed(SEED).withExamples(EXAMPLES).forAll(SHARDS, SLOTS, STRATEGY).checkAssert((shards, slots, st) -> {
            SlotPlanner.Plan p = SlotPlanner.plan(shards, slots, st, 0);
            Set<Integer> moved = new HashSet<>();
            for (CampaignMove m : p.moves()) {
                assertThat(moved.add(m.shard())).as("one move per shard: %s", p.moves()).isTrue();
                ShardView s = shards.stream().filter(v -> v.index() == m.shard()).findFirst().orElseThrow();
                assertThat(candidate(s)).as("%s moved %s", s, m).isTrue();
            }
            for (ShardView s : Shards.carryOut(shards, p.moves())) {
                if (candidate(s) || s.runningProtected() && p.chosen().contains(s.index())) {
                    boolean chosen = p.chosen().contains(s.index());
                    boolean unqueued = s.phase() == ShardPhase.UNQUEUED;
                    assertThat(unqueued).as("%s is queued by the plan", s).isFalse();
                    if (s.phase() == ShardPhase.WAITING || chosen) {
                        assertThat(s.tier()).as("%s chosen=%s", s, chosen)
                                .isEqualTo(chosen ? ShardTier.PROTECTED : ShardTier.UNALLOCATED);
                    }
                }
            }
            assertThat(p.moves()).extracting(CampaignMove::shard).isSorted();
        });
    }

    @Test
    void aShardLeftOutDoesNotFitBesideTheChosenOnesAndCountedInShardsIsNeverLongerThanOne() {
        qt().withFixedSeed(SEED).withExamples(EXAMPLES).forAll(SHARDS, SLOTS, STRATEGY).checkAssert((shards, slots, st) -> {
            SlotPlanner.Plan p = SlotPlanner.plan(shards, slots, st, 0);
            ProtectedSlots used = st.slots().apply(slots);
            int holding = 0;
            long gpus = 0;
            for (ShardView s : shards) {
                if (s.runningProtected() || p.chosen().contains(s.index())) {
                    holding++;
                    gpus += s.gpus();
                }
            }
            Map<Integer, RateEstimator.Estimate> est = p.estimates();
            long shortestChosen = p.chosen().stream().mapToLong(i -> est.get(i).remainingSeconds()).min()
                    .orElse(Long.MAX_VALUE);
            for (ShardView s : shards) {
                if (candidate(s) && !p.chosen().contains(s.index())) {
                    assertThat(used.fits(holding, gpus, s.gpus())).as("%s was left out of %s", s, p.chosen()).isFalse();
                    if (st.parking() == ParkingOrder.LPT && used.maxGpus() == ProtectedSlots.UNLIMITED) {
                        assertThat(est.get(s.index()).remainingSeconds()).isLessThanOrEqualTo(shortestChosen);
                    }
                }
            }
        });
    }

    @Test
    void thePlanDoesNotDependOnTheOrderOfTheShards() {
        qt().withFixedSeed(SEED).withExamples(EXAMPLES).forAll(SHARDS, SLOTS, STRATEGY).checkAssert((shards, slots, st) -> {
            List<ShardView> reversed = new ArrayList<>(shards);
            Collections.reverse(reversed);
            assertThat(SlotPlanner.plan(reversed, slots, st, 0)).isEqualTo(SlotPlanner.plan(shards, slots, st, 0));
        });
    }

    @Test
    void aPlanCarriedOutLeavesNothingMoreToDo() {
        qt().withFixedSeed(SEED).withExamples(EXAMPLES).forAll(SHARDS, SLOTS, STRATEGY).checkAssert((shards, slots, st) -> {
            SlotPlanner.Plan p = SlotPlanner.plan(shards, slots, st, 0);
            SlotPlanner.Plan again = SlotPlanner.plan(Shards.carryOut(shards, p.moves()), slots, st, 0);
            assertThat(again.moves()).as("after %s", p.moves()).isEmpty();
        });
    }
}
