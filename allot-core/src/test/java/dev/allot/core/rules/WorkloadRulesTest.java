package dev.allot.core.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one rule for a workload's fields, and for whether its shape can ever fit a cluster's nodes. */
class WorkloadRulesTest {
    private static WorkloadFields.Builder valid() {
        return WorkloadFields.builder().id("w1").submitSeconds(0L).allocation("lab/nlp").user("ana").gpus(8L)
                .gpusPerNode(4L).duration(Duration.ofHours(2)).minRuntime(Duration.ofMinutes(30))
                .checkpointEvery(Duration.ofMinutes(10)).kind("train").command(List.of("python", "train.py"))
                .environment(Map.of("SEED", "7")).idempotencyKey("k1");
    }

    @Test
    void validFieldsBreakNoRule() {
        assertThat(WorkloadRules.check(valid().build())).isEmpty();
    }

    @Test
    void fieldsNotGivenAreNotChecked() {
        // given a boundary that refused every field's type already, when the rules check what is left, nothing remains
        assertThat(WorkloadRules.check(WorkloadFields.builder().build())).isEmpty();
        // and unallocated (min runtime 0) with any packing (0 per node) is valid
        assertThat(WorkloadRules.check(valid().minRuntime(Duration.ZERO).gpusPerNode(0L).gpus(3L).build())).isEmpty();
    }

    @Test
    void everyViolationIsListedAtOnceWithFieldExpectedAndGot() {
        // given a workload wrong in every field at once
        WorkloadFields bad = WorkloadFields.builder().id(" ").submitSeconds(-5L).allocation("").user("")
                .gpus(0L).gpusPerNode(-1L).duration(Duration.ZERO).minRuntime(Duration.ofMinutes(-30))
                .checkpointEvery(Duration.ZERO).kind("x".repeat(300)).command(List.of())
                .environment(Map.of("A=B", "1")).idempotencyKey("").build();

        // when checked, then each field's violation is there, in field order, with what was expected and what came
        List<Violation> v = WorkloadRules.check(bad);
        assertThat(v).extracting(Violation::field).containsExactly("id", "submit", "allocation", "user", "gpus",
                "gpusPerNode", "duration", "minRuntime", "checkpointEvery", "kind", "command", "environment",
                "idempotencyKey");
        assertThat(v.get(4)).isEqualTo(new Violation("gpus", "a whole number >= 1", "0"));
        assertThat(v.get(5)).isEqualTo(new Violation("gpusPerNode", "a whole number >= 0 (0 or none for any packing)",
                "-1"));
        assertThat(v.get(6)).isEqualTo(new Violation("duration", "a positive duration", "0s"));
        assertThat(v.get(7).got()).isEqualTo("-30m");
        // a checkpoint interval of 0 is still refused, with what to write instead for work that never loses progress
        assertThat(v.get(8)).isEqualTo(new Violation("checkpointEvery", "a positive duration", "0s",
                WorkloadRules.CHECKPOINT_EVERY_HINT));
        assertThat(v.get(8).hint()).startsWith("leave checkpoint_every empty for work that never loses progress");
        assertThat(v.get(7).expected()).startsWith("a duration >= 0");
        assertThat(v.get(10)).isEqualTo(new Violation("command", "at least the program", "an empty list"));
        assertThat(v.get(11).got()).isEqualTo("the name 'A=B'");
        assertThat(v.get(9).got()).endsWith("(300 characters)");
        assertThat(v).allSatisfy(x -> assertThat(x.toString()).startsWith("field '" + x.field() + "': expected ")
                .contains(", got "));
    }

    @Test
    void durationsAndMinimumRuntimesLongerThanAboutSixtyEightYearsAreRefusedWithTheLimitSaid() {
        Duration limit = Duration.ofSeconds(WorkloadRules.MAX_DURATION_SECONDS);
        assertThat(WorkloadRules.check(valid().duration(limit).minRuntime(limit).checkpointEvery(limit).build()))
                .isEmpty();
        Duration beyond = limit.plusSeconds(1);
        List<Violation> v = WorkloadRules.check(valid().duration(beyond).minRuntime(beyond).checkpointEvery(beyond)
                .build());
        // a checkpoint interval has no limit: the live service's 'no checkpoint known' is the longest duration there is
        assertThat(v).extracting(Violation::field).containsExactly("duration", "minRuntime");
        assertThat(WorkloadRules.check(valid().checkpointEvery(Duration.ofSeconds(Long.MAX_VALUE)).build())).isEmpty();
        assertThat(v).allSatisfy(x -> assertThat(x.expected()).endsWith(", " + WorkloadRules.AT_MOST_MAX_DURATION));
        assertThat(v.get(0).expected()).isEqualTo("a positive duration, at most 24855d3h14m7s (about 68 years)");
    }

    @Test
    void gpusPerNodeMustDivideGpus() {
        List<Violation> v = WorkloadRules.check(valid().gpus(12L).gpusPerNode(8L).build());

        assertThat(v).hasSize(1);
        assertThat(v.get(0).field()).isEqualTo("gpusPerNode");
        assertThat(v.get(0).expected()).startsWith("a whole number that divides gpus (12)");
        assertThat(v.get(0).got()).isEqualTo("8");
    }

    @Test
    void gpusBeyondAnIntAreARangeViolationNotAnOverflow() {
        assertThat(WorkloadRules.check(valid().gpus(99_999_999_999L).gpusPerNode(0L).build()))
                .containsExactly(new Violation("gpus", "a whole number >= 1, at most 2,147,483,647", "99999999999"));
    }

    @Test
    void gpusPerNodeBeyondAnIntSaysTheUpperLimit() {
        assertThat(WorkloadRules.check(valid().gpus(8L).gpusPerNode(99_999_999_999L).build()))
                .containsExactly(new Violation("gpusPerNode",
                        "a whole number >= 0, at most 2,147,483,647 (0 or none for any packing)", "99999999999"));
    }

    @Test
    void commandItemsAndEnvironmentValuesMayNotHoldNul() {
        List<Violation> v = WorkloadRules.check(valid().command(List.of(" ", "a\0b"))
                .environment(Map.of("OK", "x\0")).build());

        assertThat(v).extracting(Violation::field).containsExactly("command", "command", "environment");
        assertThat(v.get(0).got()).isEqualTo("a blank string");
        assertThat(v.get(1).got()).isEqualTo("item 1, 'a\\u0000b'");
    }

    @Test
    void environmentNamesAreThoseEveryBackendCanSet() {
        // given names a shell cannot export (the local backend) and Slurm does not pass: each would be accepted and
        // then fail at every start
        for (String name : List.of("\u00c9", "MY-VAR", "1SEED", "A B", "")) {
            List<Violation> v = WorkloadRules.check(valid().environment(Map.of(name, "1")).build());

            assertThat(v).as(name).hasSize(1);
            assertThat(v.get(0).field()).isEqualTo("environment");
            assertThat(v.get(0).expected()).startsWith("variable names of ASCII letters, digits and '_'");
            assertThat(v.get(0).got()).isEqualTo("the name " + Violation.shown(name));
        }
        // and the names of a POSIX shell pass
        assertThat(WorkloadRules.check(valid().environment(Map.of("_x", "1", "CUDA_HOME", "/", "a1", "")).build()))
                .isEmpty();
    }

    @Test
    void aShapeFitsWhenTheNodesCanHoldIt() {
        // given 3 nodes of 8 GPUs and one of 4
        ClusterSpec cluster = new ClusterSpec(List.of(NodeSpec.of("a", 8), NodeSpec.of("b", 8), NodeSpec.of("c", 8),
                NodeSpec.of("d", 4)), List.of());

        assertThat(ShapeFit.check(cluster, 28, 0)).isEmpty();
        assertThat(ShapeFit.check(cluster, 16, 4)).isEmpty();
        assertThat(ShapeFit.check(cluster, 29, 0)).contains(new Violation("gpus",
                "at most 28 GPUs (the cluster has 28 GPUs on 4 nodes)", "29"));
        Violation gang = ShapeFit.check(cluster, 32, 8).orElseThrow();
        assertThat(gang.field()).isEqualTo("gpusPerNode");
        assertThat(gang.got()).isEqualTo("4 nodes x 8 GPUs");
        assertThat(gang.expected()).contains("it has 3 nodes with at least 8 GPUs", "at most 8 GPUs per node");
        assertThat(ShapeFit.check(cluster, 16, 16).orElseThrow().got()).isEqualTo("1 node x 16 GPUs");
    }

    @Test
    void aClusterOfOneNodeIsSaidInTheSingular() {
        // given one node of 8 GPUs: "1 node", not "1 nodes"
        ClusterSpec one = new ClusterSpec(List.of(NodeSpec.of("a", 8)), List.of());

        assertThat(ShapeFit.check(one, 16, 0)).contains(new Violation("gpus",
                "at most 8 GPUs (the cluster has 8 GPUs on 1 node)", "16"));
        assertThat(ShapeFit.check(one, 16, 8).orElseThrow().expected())
                .startsWith("a shape the cluster can hold: it has 1 node with at least 8 GPUs (8 GPUs on 1 node in all");
    }
}
