package dev.allot.core.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UsageLedgerTest {
    private static final long H = 3600;

    @Test
    void chargesAccrueAtTheRunningRate() {
        UsageLedger l = new UsageLedger(2, 24 * H, H, 0);
        l.addRunning(0, 8, 0);
        l.advance(90 * 60);
        assertThat(l.windowGpuSeconds(0)).isEqualTo(8 * 90 * 60);
        assertThat(l.windowGpuSeconds(1)).isZero();
        l.addRunning(1, 2, 2 * H);
        l.addRunning(0, -8, 2 * H);
        l.advance(3 * H);
        assertThat(l.windowGpuSeconds(0)).isEqualTo(16 * H);
        assertThat(l.windowGpuSeconds(1)).isEqualTo(2 * H);
        assertThat(l.totalGpuSeconds(0)).isEqualTo(16 * H);
    }

    @Test
    void usageLeavesTheWindowBucketByBucket() {
        UsageLedger l = new UsageLedger(1, 3 * H, H, 0);
        l.addRunning(0, 1, 0);
        l.addRunning(0, -1, H);
        l.advance(3 * H - 1);
        assertThat(l.windowGpuSeconds(0)).isEqualTo(H);
        l.advance(3 * H);
        assertThat(l.windowGpuSeconds(0)).isZero();
        assertThat(l.totalGpuSeconds(0)).isEqualTo(H);
    }

    @Test
    void aLongQuietGapKeepsOnlyTheRunningChargesInsideTheWindow() {
        UsageLedger l = new UsageLedger(1, 2 * H, H, 0);
        l.addRunning(0, 4, 0);
        l.advance(100 * H + 1800);
        assertThat(l.windowGpuSeconds(0)).isEqualTo(4 * (H + 1800));
        assertThat(l.totalGpuSeconds(0)).isEqualTo(4 * (100 * H + 1800));
    }

    @Test
    void timeNeverGoesBack() {
        UsageLedger l = new UsageLedger(1, H, H, 0);
        l.advance(10);
        assertThatThrownBy(() -> l.advance(5)).hasMessageContaining("time went back");
    }
}
