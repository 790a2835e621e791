package dev.allot.core.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The workloads' columns as the report and the live timeline lay them out: one per workload, in the rows' order. */
class TimelineWorkloadsTest {
    @Test
    void rowsBecomeColumnsInTheirOrderWithKindsSortedAndPrioritiesByOrdinal() {
        TimelineWorkloads t = TimelineWorkloads.of(List.of(
                new TimelineWorkloads.Row("w-2", 1, 8, 30, -1, 3600, true, Priority.HIGH, "train"),
                new TimelineWorkloads.Row("w-1", -1, 1, 0, 600, 0, false, Priority.LOW, "eval"),
                new TimelineWorkloads.Row("w-3", 0, 4, 45, 120, 60, false, Priority.NORMAL, "train")));
        assertThat(t.ids()).containsExactly("w-2", "w-1", "w-3");
        assertThat(t.allocation()).containsExactly(1, -1, 0);
        assertThat(t.gpus()).containsExactly(8, 1, 4);
        assertThat(t.submitSeconds()).containsExactly(30, 0, 45);
        assertThat(t.durationSeconds()).containsExactly(-1, 600, 120);
        assertThat(t.minRuntimeSeconds()).containsExactly(3600, 0, 60);
        assertThat(t.resumable()).containsExactly(1, 0, 0);
        assertThat(t.priorities()).containsExactly("low", "normal", "high", "urgent");
        assertThat(t.priority()).containsExactly(2, 0, 1);
        assertThat(t.kinds()).containsExactly("eval", "train");
        assertThat(t.kind()).containsExactly(1, 0, 1);
    }

    @Test
    void noWorkloadsNoColumns() {
        TimelineWorkloads t = TimelineWorkloads.of(List.of());
        assertThat(t.ids()).isEmpty();
        assertThat(t.kinds()).isEmpty();
        assertThat(t.kind()).isEmpty();
        assertThat(t.priorities()).hasSize(Priority.values().length);
    }
}
