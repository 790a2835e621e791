package dev.allot.core.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The victim pool's sorts within a cycle, which ask only the standings again (once per shared standing) and keep
 * the order when none moved: after every move of the standings the list must be the one a full sort of every key
 * gives.
 */
class VictimPoolTest {
    private static final String[] LEAVES = {"A", "B", "C", "D"};

    /** Keys of fixed group and work lost per job, standings per allocation that the test moves. */
    private static final class MovingKeys implements VictimPool.Keys {
        final double[] standing = new double[LEAVES.length];
        final double[] ownStanding = new double[64];
        final boolean shared;
        final boolean lostFirst;

        MovingKeys(boolean shared, boolean lostFirst) {
            this.shared = shared;
            this.lostFirst = lostFirst;
        }

        @Override
        public int group(Job j) {
            return j.index() % 3 == 0 ? 0 : 1;
        }

        @Override
        public double overServed(Job j) {
            return shared ? standing[j.leaf()] : ownStanding[j.index()];
        }

        @Override
        public long workLost(Job j) {
            return (j.index() * 7L) % 4;
        }

        @Override
        public boolean workLostFirst() {
            return lostFirst;
        }

        @Override
        public int sharedStanding(Job j) {
            return shared ? j.leaf() : -1;
        }

        /** The order a full sort of every key, asked now, gives. */
        Comparator<Job> order() {
            Comparator<Job> byGroup = Comparator.comparingInt(this::group);
            Comparator<Job> standingDesc = Comparator.comparingDouble(this::overServed).reversed();
            Comparator<Job> lost = Comparator.comparingLong(this::workLost);
            return lostFirst
                    ? byGroup.thenComparing(lost).thenComparing(standingDesc).thenComparingInt(Job::gpus)
                            .thenComparing(Job::id)
                    : byGroup.thenComparing(standingDesc).thenComparing(lost).thenComparing(Job::id);
        }
    }

    private static RunningJobs fixture() {
        AllocationTree.Builder b = AllocationTree.builder("lab");
        for (String l : LEAVES) {
            b.leaf(l, 1);
        }
        RunningJobs f = new RunningJobs(8, b.build());
        Random r = new Random(7);
        for (int node = 0; node < 8; node++) {
            int left = 8;
            int k = 0;
            while (left > 0) {
                int gpus = Math.min(left, 1 + r.nextInt(3));
                f.run("j" + node + "-" + k++, LEAVES[r.nextInt(LEAVES.length)], node, gpus);
                left -= gpus;
            }
        }
        return f;
    }

    private static void checkAgainstFullSorts(boolean shared, boolean lostFirst) {
        RunningJobs f = fixture();
        MovingKeys keys = new MovingKeys(shared, lostFirst);
        VictimPool pool = new VictimPool(8);
        Random r = new Random(11);
        long version = 0;
        int reordered = 0;
        List<Job> before = List.of();
        for (int round = 0; round < 200; round++) {
            if (round > 0) {
                // a start moves one allocation's standing (or one job's own), sometimes to a value another has
                if (shared) {
                    keys.standing[r.nextInt(LEAVES.length)] = r.nextInt(4) / 2.0;
                } else {
                    keys.ownStanding[r.nextInt(f.running.size())] = r.nextInt(4) / 2.0;
                }
                version++;
            }
            List<Job> got = new ArrayList<>(pool.sorted(all -> f.running.forEach(all), j -> true, keys, version));
            List<Job> expected = new ArrayList<>(f.running);
            expected.sort(keys.order());
            assertThat(RunningJobs.ids(got)).as("round %d", round).isEqualTo(RunningJobs.ids(expected));
            reordered += got.equals(before) ? 0 : 1;
            before = got;
        }
        assertThat(reordered).as("the moves reorder the pool often").isGreaterThan(20);
    }

    @Test
    void givenSharedStandingsEverySortIsTheFullSortsOrder() {
        checkAgainstFullSorts(true, true);
        checkAgainstFullSorts(true, false);
    }

    @Test
    void givenOwnStandingsEverySortIsTheFullSortsOrder() {
        checkAgainstFullSorts(false, true);
        checkAgainstFullSorts(false, false);
    }

    @Test
    void aNewCycleGathersAndAsksEveryKeyAgain() {
        RunningJobs f = fixture();
        MovingKeys keys = new MovingKeys(true, true);
        VictimPool pool = new VictimPool(8);
        pool.sorted(all -> f.running.forEach(all), j -> true, keys, 0);
        keys.standing[0] = 5;
        pool.reset();
        List<Job> got = pool.sorted(all -> f.running.forEach(all), j -> j.leaf() != 1, keys, 0);
        List<Job> expected = new ArrayList<>(f.running.stream().filter(j -> j.leaf() != 1).toList());
        expected.sort(keys.order());
        assertThat(RunningJobs.ids(got)).isEqualTo(RunningJobs.ids(expected));
    }
}
