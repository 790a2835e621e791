package dev.allot.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.allot.core.model.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract rule: kinds, minimum runtimes, resumability, checkpoints and the seeded unallocated choice. */
class ContractRuleTest {
    @TempDir
    Path tmp;

    private static WorkloadTable tiresias(Map<String, String> contract) {
        Map<String, String> given = new HashMap<>(contract);
        given.putIfAbsent("unallocated-fraction", "0");
        return Traces.table(Traces.of("tiresias", Traces.fixture("tiresias.csv"))
                .contract(ContractRule.parse(given, "test")));
    }

    private static Map<String, WorkloadSpec> byId(List<WorkloadSpec> ws) {
        return ws.stream().collect(Collectors.toMap(WorkloadSpec::id, w -> w));
    }

    @Test
    void theDefaultsDecideKindMinimumRuntimeResumabilityAndCheckpoints() {
        Duration ckpt = Duration.ofMinutes(30);
        assertThat(tiresias(Map.of())).extracting(w -> w.duration().getSeconds(), WorkloadSpec::kind,
                        w -> w.minRuntime().getSeconds(), WorkloadSpec::resumable, WorkloadSpec::checkpointEvery,
                        WorkloadSpec::priority)
                .containsExactly(
                        tuple(120L, "debug", 120L, false, null, dev.allot.core.model.Priority.NORMAL),
                        tuple(5400L, "train", 5400L, true, ckpt, dev.allot.core.model.Priority.NORMAL),
                        tuple(900L, "train", 900L, false, null, dev.allot.core.model.Priority.NORMAL), // 15m: not shorter
                        tuple(7200L, "train", 7200L, true, ckpt, dev.allot.core.model.Priority.NORMAL),
                        tuple(60L, "debug", 60L, false, null, dev.allot.core.model.Priority.NORMAL),
                        tuple(1800L, "train", 1800L, false, null, dev.allot.core.model.Priority.NORMAL),
                        tuple(3600L, "train", 3600L, false, null, dev.allot.core.model.Priority.NORMAL), // 1h: not longer
                        tuple(3601L, "train", 3601L, true, ckpt, dev.allot.core.model.Priority.NORMAL));
        ImportSummary s = tiresias(Map.of()).summary();
        assertThat(s.debug()).isEqualTo(2);
        assertThat(s.resumable()).isEqualTo(3);
        assertThat(s.unallocated()).isZero();
        assertThat(s.contract()).containsEntry("min-runtime", "2h").containsEntry("unallocated-fraction", "0.0");
    }

    @Test
    void everyThresholdIsASetting() {
        Map<String, WorkloadSpec> w = byId(tiresias(Map.of("min-runtime", "1h", "debug-if-shorter-than", "1m",
                "resumable-if-longer-than", "30m", "checkpoint-every", "0s")));
        assertThat(w.get("tiresias-3").minRuntime()).isEqualTo(Duration.ofHours(1)); // 2h capped at 1h
        assertThat(w.get("tiresias-1").minRuntime()).isEqualTo(Duration.ofHours(1));
        assertThat(w.get("tiresias-4").kind()).isEqualTo("train"); // 60s is not shorter than 1m
        assertThat(w.get("tiresias-4").minRuntime()).isEqualTo(Duration.ofSeconds(60));
        assertThat(w.get("tiresias-6").resumable()).isTrue(); // 1h is longer than 30m
        assertThat(w.get("tiresias-5").resumable()).isFalse(); // 30m is not
    }

    @Test
    void checkpointZeroMeansNoProgressIsLost() {
        Map<String, WorkloadSpec> w = byId(tiresias(Map.of("checkpoint-every", "0s")));
        assertThat(w.get("tiresias-1").resumable()).isTrue();
        assertThat(w.get("tiresias-1").checkpointEvery()).isNull();
    }

    /** Writes {@code n} Tiresias rows with distinct ids and returns them shuffled by {@code shuffleSeed}. */
    private Path tiresiasRows(int n, long shuffleSeed, String name) {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(i + ",1," + (i % 97) + ",1,m" + (i % 5) + "," + (60 + i) + ",0");
        }
        Collections.shuffle(rows, new Random(shuffleSeed));
        return Traces.write(tmp, name, "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                + String.join("\n", rows) + "\n");
    }

    private static Set<String> unallocated(WorkloadTable t) {
        return t.stream().filter(w -> !w.allocated()).map(WorkloadSpec::id).collect(Collectors.toSet());
    }

    private static WorkloadTable read(String format, Path file, String seed) {
        return Traces.table(Traces.of(format, file).contract(ContractRule.parse(Map.of("seed", seed), "test")));
    }

    @Test
    void theUnallocatedChoiceIsSeededAndIndependentOfRowOrder() {
        WorkloadTable a = read("tiresias", tiresiasRows(2000, 1, "a.csv"), "1");
        WorkloadTable b = read("tiresias", tiresiasRows(2000, 2, "b.csv"), "1");
        WorkloadTable c = read("tiresias", tiresiasRows(2000, 1, "a.csv"), "2");
        assertThat(unallocated(a)).hasSizeBetween(150, 250).isEqualTo(unallocated(b)).isNotEqualTo(unallocated(c));
        assertThat(a.summary().unallocated()).isEqualTo(unallocated(a).size());
        assertThat(a.stream().filter(w -> !w.allocated())).allSatisfy(w -> assertThat(w.minRuntime()).isZero());
    }

    @Test
    void withoutIdsTheChoiceHashesTheRowsContent() {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            rows.add(String.format("2017-10-%02d %02d:%02d:00,%d.0,%d,0,c%d", 1 + i % 28, i % 24, i % 60, 100 + i,
                    1 + i % 4, i % 3));
        }
        String header = "timestamp,duration,num_gpus,gpu_time,cluster\n";
        Path first = Traces.write(tmp, "p1.csv", header + String.join("\n", rows) + "\n");
        Collections.shuffle(rows, new Random(7));
        Path second = Traces.write(tmp, "p2.csv", header + String.join("\n", rows) + "\n");
        Set<String> one = read("philly", first, "1").stream().filter(w -> !w.allocated())
                .map(w -> w.submitSeconds() + "/" + w.duration()).collect(Collectors.toSet());
        Set<String> two = read("philly", second, "1").stream().filter(w -> !w.allocated())
                .map(w -> w.submitSeconds() + "/" + w.duration()).collect(Collectors.toSet());
        assertThat(one).hasSizeBetween(60, 140).isEqualTo(two);
    }

    @Test
    void fractionsZeroAndOneChooseNoneAndAll() {
        Path p = tiresiasRows(300, 1, "a.csv");
        var none = Traces.table(Traces.of("tiresias", p).contract(ContractRule.parse(Map.of("unallocated-fraction",
                "0"), "t")));
        var all = Traces.table(Traces.of("tiresias", p).contract(ContractRule.parse(Map.of("unallocated-fraction",
                "1"), "t")));
        assertThat(unallocated(none)).isEmpty();
        assertThat(unallocated(all)).hasSize(300);
    }

    @Test
    void badSettingsSayWhatIsValid() {
        assertThatThrownBy(() -> ContractRule.parse(Map.of("min_runtime", "1h"), "--contract"))
                .hasMessage("--contract: unknown setting 'min_runtime'; valid settings: checkpoint-every,"
                        + " debug-if-shorter-than, min-runtime, resumable-if-longer-than, seed, unallocated-fraction");
        assertThatThrownBy(() -> ContractRule.parse(Map.of("unallocated-fraction", "1.5"), "--contract"))
                .hasMessage("--contract: setting 'unallocated-fraction': expected a number from 0 to 1, got 1.5");
        assertThatThrownBy(() -> ContractRule.parse(Map.of("min-runtime", "0s"), "--contract"))
                .hasMessageStartingWith("--contract: setting 'min-runtime': expected a positive duration, got 0s");
        assertThatThrownBy(() -> ContractRule.parse(Map.of("min-runtime", "soon"), "--contract"))
                .hasMessageStartingWith("--contract: setting 'min-runtime': cannot read 'soon' as a duration");
        assertThat(ContractRule.defaults().toString()).isEqualTo("checkpoint-every=30m, debug-if-shorter-than=15m,"
                + " min-runtime=2h, resumable-if-longer-than=1h, seed=1, unallocated-fraction=0.1");
    }
}
