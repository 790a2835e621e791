package dev.allot.core.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.state.FreeIndex;
import dev.allot.core.state.Placement;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class PlacerTest {
    private static FreeIndex freeOf(int... free) {
        int[] cap = new int[free.length];
        java.util.Arrays.fill(cap, 8);
        FreeIndex f = new FreeIndex(cap);
        for (int n = 0; n < free.length; n++) {
            f.take(n, 8 - free[n]);
        }
        return f;
    }

    @Test
    void aSmallJobGoesToTheFullestNodeThatHasRoom() {
        Placement p = Placer.find(freeOf(8, 3, 2, 8), 2, 0, null);
        assertThat(p.toString()).isEqualTo("2:2");
    }

    @Test
    void aJobLargerThanAnyNodeSpreadsOverTheFewestNodes() {
        Placement p = Placer.find(freeOf(8, 3, 8, 5), 12, 0, null);
        assertThat(p.toString()).isEqualTo("0:8,3:4");
        assertThat(Placer.find(freeOf(2, 2, 2), 7, 0, null)).isNull();
    }

    @Test
    void aGangTakesWholeGroupsOnDistinctNodesOrNothing() {
        assertThat(Placer.find(freeOf(8, 4, 8, 6), 16, 8, null).toString()).isEqualTo("0:8,2:8");
        assertThat(Placer.find(freeOf(8, 4, 8, 6), 8, 4, null).toString()).isEqualTo("1:4,3:4");
        assertThat(Placer.find(freeOf(8, 7, 7), 16, 8, null)).isNull();
    }

    @Test
    void reservedNodesAreLeftAlone() {
        BitSet reserved = new BitSet();
        reserved.set(0);
        assertThat(Placer.find(freeOf(8, 8, 2), 8, 8, reserved).toString()).isEqualTo("1:8");
        assertThat(Placer.find(freeOf(8, 2), 4, 0, reserved)).isNull();
    }

    @Test
    void unschedulableNodesAreNotUsed() {
        FreeIndex f = freeOf(8, 8);
        f.setSchedulable(0, false);
        assertThat(f.totalFree()).isEqualTo(8);
        assertThat(Placer.find(f, 8, 8, null).toString()).isEqualTo("1:8");
        assertThat(Placer.find(f, 9, 0, null)).isNull();
    }
}
