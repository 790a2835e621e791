package dev.allot.sim.trace;

import static dev.allot.sim.trace.Traces.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import dev.allot.sim.input.InputException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Alibaba openb pods: whole GPUs from fractions (counted), skipped pods, durations, qos as allocation, rejections. */
class AlibabaOpenbFormatTest {
    private static final String HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
            + "creation_time,deletion_time,scheduled_time\n";

    @TempDir
    Path tmp;

    @Test
    void podsBecomeWorkloadsWithWholeGpusAndTheQosAsAllocation() {
        WorkloadTable t = Traces.table(Traces.of("alibaba-openb", Traces.fixture("alibaba-openb.csv")));
        assertThat(t).extracting(WorkloadSpec::id, WorkloadSpec::submitSeconds, WorkloadSpec::allocation,
                        WorkloadSpec::gpus, w -> w.duration().getSeconds())
                .containsExactly(
                        tuple("openb-pod-0000", 0L, "LS", 1, 12_537_496L),
                        tuple("openb-pod-0005", 100L, "Burstable", 8, 3840L),   // deletion - scheduled
                        tuple("openb-pod-0006", 200L, "Guaranteed", 2, 59L),
                        tuple("openb-pod-0007", 300L, "BE", 1, 30L),            // 590 milli-GPU rounded up
                        tuple("openb-pod-0001", 427_061L, "LS", 1, 12_475_899L), // 460 milli-GPU rounded up
                        tuple("openb-pod-0003", 10_001_278L, "BE", 1, 125L));   // never scheduled: deletion - creation
    }

    @Test
    void roundedFractionsAndSkippedPodsAreCounted() {
        ImportSummary s = Traces.table(Traces.of("alibaba-openb", Traces.fixture("alibaba-openb.csv"))).summary();
        assertThat(s.rowsRead()).isEqualTo(8);
        assertThat(s.imported()).isEqualTo(6);
        assertThat(s.roundedUp()).isEqualTo(2); // pod 0004 is fractional too, but skipped for its zero duration
        assertThat(s.skipped()).isEqualTo(Map.of("no GPU", 1L, "zero duration", 1L));
        assertThat(s.skippedTotal()).isEqualTo(2);
        assertThat(s.timeZeroEpoch()).isNull();
    }

    private InputException row(String row) {
        return Traces.error(Traces.of("alibaba-openb", Traces.write(tmp, "pods.csv", HEADER
                + "openb-pod-1,6000,12288,1,1000,,LS,Running,10,20,10\n" + row + "\n")));
    }

    @Test
    void everyBadFieldIsRejectedWithItsLocation() {
        assertError(row("p,1,1,1,0,,LS,Running,10,20,10"), "pods.csv", 3, 5, "gpu_milli",
                "expected a whole number from 1 to 1000 for a pod with GPUs, got '0'");
        assertError(row("p,1,1,1,1500,,LS,Running,10,20,10"), "pods.csv", 3, 5, "gpu_milli",
                "expected a whole number from 1 to 1000 for a pod with GPUs, got '1500'");
        assertError(row("p,1,1,-1,1000,,LS,Running,10,20,10"), "pods.csv", 3, 4, "num_gpu",
                "expected a whole number >= 0, got '-1'");
        assertError(row("p,1,1,1,1000,,,Running,10,20,10"), "pods.csv", 3, 7, "qos",
                "expected a QoS class such as LS or BE, got nothing");
        assertError(row("p,1,1,1,1000,,LS,Running,10,20,5"), "pods.csv", 3, 11, "scheduled_time",
                "expected a whole number of seconds >= creation_time (10), or empty when never scheduled, got '5'");
        assertError(row("p,1,1,1,1000,,LS,Running,10,12,15"), "pods.csv", 3, 10, "deletion_time",
                "expected a whole number of seconds >= scheduled_time (15), got '12'");
        assertError(row("p,1,1,1,1000,,LS,Pending,10,,"), "pods.csv", 3, 10, "deletion_time",
                "expected a whole number of seconds >= creation_time (10), got nothing");
        assertError(row("p,1,1,32,1000,,LS,Running,10,20,10"), "pods.csv", 3, 4, "num_gpu",
                "expected at most 16 GPUs (the cluster has 16 GPUs on 2 nodes), got 32");
        assertError(row("openb-pod-1,1,1,1,1000,,LS,Running,10,20,10"), "pods.csv", 3, 1, "name",
                "expected a unique id, got 'openb-pod-1', already used on line 2");
    }

    @Test
    void numbersBeyondTheirLimitSayTheLimitOnce() {
        assertError(row("p,1,1,99999999999,1000,,LS,Running,10,20,10"), "pods.csv", 3, 4, "num_gpu",
                "expected a whole number >= 0, at most 2,147,483,647, got '99999999999'");
        assertError(row("p,1,1,1,1000,,LS,Running,99999999999999999999,,"), "pods.csv", 3, 9, "creation_time",
                "expected a whole number of seconds >= 0, at most 2,305,843,009,213,693,951,"
                        + " got '99999999999999999999'");
        assertError(row("p,1,1,1,99999999999,,LS,Running,10,20,10"), "pods.csv", 3, 5, "gpu_milli",
                "expected a whole number from 1 to 1000 for a pod with GPUs, got '99999999999'");
    }

    @Test
    void aGivenTreeRejectsPodsOfOtherClasses() {
        var tree = dev.allot.core.model.AllocationTree.builder("lab").leaf("LS", 1).leaf("BE", 1).build();
        Scenario s = Traces.of("alibaba-openb", Traces.fixture("alibaba-openb.csv")).tree(tree).lenient(true).read();
        assertThat(s.tree()).isSameAs(tree);
        assertThat(s.workloads()).extracting(WorkloadSpec::allocation).containsOnly("LS", "BE");
        assertThat(s.rejected()).containsExactly(
                "alibaba-openb.csv:7:7: field 'qos': expected one of the leaf allocations (LS, BE), got 'Burstable'",
                "alibaba-openb.csv:8:7: field 'qos': expected one of the leaf allocations (LS, BE), got 'Guaranteed'");
    }
}
