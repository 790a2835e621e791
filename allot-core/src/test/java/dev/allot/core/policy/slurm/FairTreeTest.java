package dev.allot.core.policy.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.model.AllocationTree;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Golden tests from Slurm's Fair Tree documentation (https://slurm.schedmd.com/fair_tree.html): its example of
 * users in sibling accounts, the Level Fairshare equation, the ranking rule and the three tie rules. The page gives
 * the structure of its example and the rules, not numbers; the shares and usage below are chosen so that the
 * expected Level Fairshare values and ranks can be worked out by hand, and are.
 */
class FairTreeTest {

    private static FairTree rank(AllocationTree tree, Map<String, Double> usage) {
        double[] u = new double[tree.leafCount()];
        usage.forEach((name, value) -> u[tree.leaf(name).orElseThrow()] = value);
        FairTree ft = new FairTree(tree);
        ft.compute(u);
        return ft;
    }

    private static double lf(FairTree ft, String node) {
        return ft.levelFs(ft.tree().node(node).orElseThrow());
    }

    private static double factor(FairTree ft, String leaf) {
        return ft.factor(ft.tree().leaf(leaf).orElseThrow());
    }

    private static String[] order(FairTree ft) {
        return Arrays.stream(ft.leafOrder()).mapToObj(l -> ft.tree().leafName(l)).toArray(String[]::new);
    }

    /** The page's example: root => Acct1 => Acct12 => UserA and root => Acct1 => Acct16 => UserB. */
    private static AllocationTree docExample() {
        return AllocationTree.builder("root")
                .child("Acct1", 1)
                .child("Acct12", 1).leaf("UserA", 1).up()
                .child("Acct16", 1).leaf("UserB", 1).up()
                .up().build();
    }

    @Test
    void theDocumentationsExampleUserBRanksAboveUserAExactlyWhenAcct16HasTheHigherLevelFs() {
        // Acct12 and Acct16 have equal shares; UserA has used three times what UserB has
        FairTree ft = rank(docExample(), Map.of("UserA", 300.0, "UserB", 100.0));
        // under Acct1 (their first common ancestor): S = 1/2 each, U = 300/400 and 100/400
        assertThat(lf(ft, "Acct12")).isCloseTo(0.5 / 0.75, within(1e-12));
        assertThat(lf(ft, "Acct16")).isCloseTo(0.5 / 0.25, within(1e-12));
        assertThat(factor(ft, "UserB")).isGreaterThan(factor(ft, "UserA"));
        // two user associations: the highest ranked gets 2/2, the next 1/2
        assertThat(factor(ft, "UserB")).isEqualTo(1.0);
        assertThat(factor(ft, "UserA")).isEqualTo(0.5);

        FairTree reversed = rank(docExample(), Map.of("UserA", 100.0, "UserB", 300.0));
        assertThat(lf(reversed, "Acct12")).isGreaterThan(lf(reversed, "Acct16"));
        assertThat(order(reversed)).containsExactly("UserA", "UserB");
    }

    @Test
    void levelFairshareIsSharesOverUsageAmongSiblingsAboveOneWhenUnderServed() {
        AllocationTree tree = AllocationTree.builder("root").leaf("a", 60).leaf("b", 40).build();
        FairTree ft = rank(tree, Map.of("a", 30.0, "b", 70.0));
        assertThat(lf(ft, "a")).isCloseTo(0.6 / 0.3, within(1e-12)); // under-served: > 1
        assertThat(lf(ft, "b")).isCloseTo(0.4 / 0.7, within(1e-12)); // over-served: < 1
        assertThat(order(ft)).containsExactly("a", "b");
    }

    @Test
    void anAssociationWithNoUsageHasAnInfiniteLevelFsAndOneWithNoSharesZero() {
        AllocationTree tree = AllocationTree.builder("root").leaf("idle", 1).leaf("busy", 1).leaf("none", 0).build();
        FairTree ft = rank(tree, Map.of("busy", 10.0));
        assertThat(lf(ft, "idle")).isInfinite();
        assertThat(lf(ft, "busy")).isCloseTo(0.5, within(1e-12));
        assertThat(lf(ft, "none")).isZero(); // S = 0 gives 0 even with no usage
        assertThat(order(ft)).containsExactly("idle", "busy", "none");
        assertThat(factor(ft, "idle")).isEqualTo(1.0);
        assertThat(factor(ft, "none")).isCloseTo(1.0 / 3, within(1e-15));
    }

    @Test
    void allChildrenOfAHigherAccountRankAboveAllChildrenOfALowerSibling() {
        // B has used more than its share as a whole, although its user b2 has used nothing at all
        AllocationTree tree = AllocationTree.builder("root")
                .child("A", 1).leaf("a1", 1).leaf("a2", 1).up()
                .child("B", 1).leaf("b1", 1).leaf("b2", 1).up()
                .build();
        FairTree ft = rank(tree, Map.of("a1", 20.0, "a2", 20.0, "b1", 60.0));
        assertThat(lf(ft, "A")).isCloseTo(0.5 / 0.4, within(1e-12));
        assertThat(lf(ft, "B")).isCloseTo(0.5 / 0.6, within(1e-12));
        assertThat(lf(ft, "b2")).isInfinite();
        // depth first, A's subtree first: a1 and a2 are tied (same shares, same usage), then b2, then b1
        assertThat(order(ft)).containsExactly("a1", "a2", "b2", "b1");
        assertThat(factor(ft, "a1")).isEqualTo(1.0);
        assertThat(factor(ft, "a2")).isEqualTo(1.0);
        assertThat(factor(ft, "b2")).isEqualTo(0.5); // the tie used up rank 3: "rank, no ties" counts every user
        assertThat(factor(ft, "b1")).isEqualTo(0.25);
    }

    @Test
    void tieRuleSiblingUsersWithTheSameLevelFsReceiveTheSameRank() {
        AllocationTree tree = AllocationTree.builder("root").leaf("u1", 2).leaf("u2", 2).leaf("u3", 1).build();
        // u1 and u2: S = 0.4, U = 0.4 each; u3: S = 0.2, U = 0.2: all three tied at LF 1
        FairTree ft = rank(tree, Map.of("u1", 40.0, "u2", 40.0, "u3", 20.0));
        assertThat(factor(ft, "u1")).isEqualTo(1.0);
        assertThat(factor(ft, "u2")).isEqualTo(1.0);
        assertThat(factor(ft, "u3")).isEqualTo(1.0);

        FairTree two = rank(tree, Map.of("u1", 40.0, "u2", 40.0, "u3", 30.0));
        assertThat(factor(two, "u1")).isEqualTo(1.0);
        assertThat(factor(two, "u2")).isEqualTo(1.0);
        assertThat(factor(two, "u3")).isCloseTo(1.0 / 3, within(1e-15));
    }

    @Test
    void tieRuleAUserTiedWithASiblingAccountGetsTheRankOfThatAccountsHighestRankedUser() {
        AllocationTree tree = AllocationTree.builder("root")
                .leaf("solo", 1)
                .child("team", 1).leaf("t1", 1).leaf("t2", 1).up()
                .leaf("late", 1)
                .build();
        // solo and team: S = 1/3, U = 10/40 each (LF 4/3); late: S = 1/3, U = 20/40 (LF 2/3)
        FairTree ft = rank(tree, Map.of("solo", 10.0, "t1", 2.0, "t2", 8.0, "late", 20.0));
        assertThat(lf(ft, "solo")).isEqualTo(lf(ft, "team"));
        // users sort before accounts on a tie: solo takes rank 4 of 4; team's best user, t1 (LF 0.5 / 0.2 against
        // t2's 0.5 / 0.8), inherits it; t2 gets rank 2, as ranks 4 and 3 went to solo and t1
        assertThat(factor(ft, "solo")).isEqualTo(1.0);
        assertThat(factor(ft, "t1")).isEqualTo(1.0);
        assertThat(factor(ft, "t2")).isEqualTo(0.5);
        assertThat(factor(ft, "late")).isEqualTo(0.25);
    }

    @Test
    void tieRuleSiblingAccountsWithTheSameLevelFsHaveTheirChildrenMergedBeforeDescending() {
        AllocationTree tree = AllocationTree.builder("root")
                .child("X", 1).leaf("x1", 1).leaf("x2", 1).up()
                .child("Y", 1).leaf("y1", 1).leaf("y2", 1).up()
                .build();
        // X and Y used the same (LF 1 each). Inside X: x1 LF 0.5/0.25 = 2, x2 0.5/0.75 = 0.667;
        // inside Y: y1 LF 0.5/0.125 = 4, y2 0.5/0.875 = 0.571
        FairTree ft = rank(tree, Map.of("x1", 20.0, "x2", 60.0, "y1", 10.0, "y2", 70.0));
        assertThat(lf(ft, "X")).isEqualTo(lf(ft, "Y"));
        // merged and sorted by each child's own Level FS: y1, x1, x2, y2 (not all of X's before Y's)
        assertThat(order(ft)).containsExactly("y1", "x1", "x2", "y2");
        assertThat(factor(ft, "y1")).isEqualTo(1.0);
        assertThat(factor(ft, "x1")).isEqualTo(0.75);
        assertThat(factor(ft, "x2")).isEqualTo(0.5);
        assertThat(factor(ft, "y2")).isEqualTo(0.25);
    }

    @Test
    void withNoUsageAnywhereEveryoneTiesAtTheTop() {
        AllocationTree tree = AllocationTree.builder("root")
                .child("X", 3).leaf("x1", 1).leaf("x2", 5).up()
                .child("Y", 1).leaf("y1", 1).up()
                .build();
        FairTree ft = rank(tree, Map.of());
        for (String u : new String[] {"x1", "x2", "y1"}) {
            assertThat(factor(ft, u)).isEqualTo(1.0);
        }
    }

    @Test
    void onlyRatiosMatterNotTheUnitOfUsage() {
        AllocationTree tree = docExample();
        FairTree a = rank(tree, Map.of("UserA", 3.0, "UserB", 1.0));
        FairTree b = rank(tree, Map.of("UserA", 3e9, "UserB", 1e9));
        assertThat(order(a)).containsExactly(order(b));
        assertThat(lf(a, "Acct12")).isCloseTo(lf(b, "Acct12"), within(1e-12));
    }
}
