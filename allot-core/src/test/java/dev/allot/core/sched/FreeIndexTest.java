package dev.allot.core.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.state.FreeIndex;
import org.junit.jupiter.api.Test;

class FreeIndexTest {
    @Test
    void tracksFreeGpusByCountAndCopiesIndependently() {
        FreeIndex f = new FreeIndex(new int[] {8, 8, 4});
        f.take(0, 3);
        assertThat(f.nodesWithAtLeast(5)).isEqualTo(2);
        assertThat(f.nextNodeWithFree(5, 0)).isZero();
        FreeIndex c = f.copy();
        c.take(1, 8);
        assertThat(f.totalFree()).isEqualTo(17);
        assertThat(c.totalFree()).isEqualTo(9);
        f.copyFrom(c);
        assertThat(f.nodesWithAtLeast(1)).isEqualTo(2);
    }

    @Test
    void refusesToGiveMoreThanANodeHas() {
        FreeIndex f = new FreeIndex(new int[] {8});
        assertThatThrownBy(() -> f.take(0, 9)).hasMessageContaining("-1 free GPUs of 8");
        assertThatThrownBy(() -> f.give(0, 1)).hasMessageContaining("9 free GPUs of 8");
    }
}
