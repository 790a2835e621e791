package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.HealthEvent.Health;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading valid scenario folders: every file, both workload formats, instants, defaults. */
class ScenarioReaderTest {
    @TempDir
    Path tmp;

    private static WorkloadSpec spec(String id, long submit, String alloc, String user, int gpus, int perNode,
                                     Duration duration, Duration minRuntime, boolean resumable, Priority priority,
                                     Duration checkpoint, String kind) {
        return new WorkloadSpec(id, submit, alloc, user, gpus, perNode, duration, minRuntime, resumable, priority,
                checkpoint, kind);
    }

    @Test
    void readsTheBasicFixture() {
        Scenario s = Folders.read(Folders.copy("basic", tmp));

        assertThat(s.name()).isEqualTo("basic");
        assertThat(s.cluster().nodes()).extracting(NodeSpec::name)
                .containsExactly("gpu-01", "gpu-02", "gpu-03", "gpu-04", "small-01", "small-02");
        assertThat(s.cluster().nodes().get(0)).isEqualTo(
                new NodeSpec("gpu-01", 8, "h100", new TreeMap<>(Map.of("rack", "r1", "zone", "a"))));
        assertThat(s.cluster().nodes().get(5)).isEqualTo(new NodeSpec("small-02", 4, "a100", new TreeMap<>()));
        assertThat(s.cluster().totalGpus()).isEqualTo(40);
        assertThat(s.cluster().healthEvents()).containsExactly(
                new HealthEvent("gpu-03", 5400, Health.UNHEALTHY),
                new HealthEvent("gpu-03", 7200, Health.HEALTHY));

        AllocationTree t = s.tree();
        assertThat(t.nodeCount()).isEqualTo(7);
        assertThat(t.leafNames()).containsExactly("pretrain", "finetune", "detect", "scratch");
        assertThat(t.name(0)).isEqualTo("lab");
        assertThat(t.managers(0)).containsExactly("director");
        int nlp = t.node("nlp").orElseThrow();
        assertThat(t.managers(nlp)).containsExactly("alice", "bob");
        assertThat(t.share(nlp)).isEqualTo(3.0);
        assertThat(t.share(t.node("detect").orElseThrow())).isEqualTo(1.0); // share defaults to 1
        assertThat(t.entitlement(t.node("pretrain").orElseThrow())).isEqualTo(0.75 * 2 / 3);
        assertThat(t.entitlement(t.node("scratch").orElseThrow())).isZero();

        assertThat(s.workloads()).containsExactly(
                spec("w1", 0, "pretrain", "alice", 16, 8, Duration.ofDays(2), Duration.ofHours(8), true, Priority.HIGH,
                        Duration.ofHours(1), "train"),
                spec("a0", 90, "scratch", "carol", 1, 0, Duration.ofMinutes(10), Duration.ZERO, true, Priority.URGENT,
                        null, ""),
                spec("w2", 90, "finetune", "bob", 4, 0, Duration.ofHours(3), Duration.ofMinutes(30), false,
                        Priority.NORMAL, null, "eval"),
                spec("w3", 3600, "detect", "-", 2, 0, Duration.ofMinutes(45), Duration.ZERO, false, Priority.LOW, null,
                        ""));
        assertThat(s.rejected()).isEmpty();

        PolicyConfig p = s.policyConfig();
        assertThat(p.scheduler()).isEqualTo(new SchedulerConfig(Duration.ofDays(3),
                SchedulerConfig.DEFAULT_MAX_MIN_RUNTIME, SchedulerConfig.DEFAULT_USAGE_BUCKET));
        assertThat(p.perPolicy()).containsOnlyKeys("allocation", "legacy");
        assertThat(p.perPolicy().get("allocation")).containsExactly(Map.entry("reservation", "false"));
        assertThat(p.perPolicy().get("legacy")).containsExactly(Map.entry("non-preemptible-min-runtime", "4h"));
    }

    @Test
    void readsJsonLinesWithNumbersStringsNullsAndAnyFieldOrder() {
        Scenario s = Folders.read(Folders.copy("jsonl", tmp));

        assertThat(s.workloads()).containsExactly(
                spec("w1", 0, "pretrain", "alice", 16, 8, Duration.ofDays(2), Duration.ofHours(8), true, Priority.HIGH,
                        Duration.ofHours(1), "train"),
                spec("w2", 90, "finetune", "-", 4, 0, Duration.ofHours(3), Duration.ofMinutes(30), false,
                        Priority.NORMAL, null, "eval"),
                spec("w3", 3600, "detect", "-", 2, 0, Duration.ofMinutes(45), Duration.ZERO, false, Priority.LOW, null,
                        ""));
        assertThat(s.policyConfig()).isEqualTo(PolicyConfig.defaults());
    }

    @Test
    void instantsAreRelativeToStart() {
        Scenario s = Folders.read(Folders.copy("instants", tmp));

        assertThat(s.workloads()).extracting(WorkloadSpec::id, WorkloadSpec::submitSeconds).containsExactly(
                tuple("early", 30L),
                tuple("relative", 120L),
                tuple("offset", 3600L),
                tuple("late", 86400L));
        assertThat(s.cluster().healthEvents()).containsExactly(
                new HealthEvent("gpu-02", 6 * 3600, Health.UNHEALTHY),
                new HealthEvent("gpu-02", 8 * 3600, Health.HEALTHY));
    }

    @Test
    void withoutStartTimeZeroIsTheEarliestInstant() {
        Path dir = Folders.copy("instants", tmp);
        Folders.write(dir, "cluster.yaml", Folders.resource("instants", "cluster.yaml")
                .replace("start: 2026-01-05T00:00:00Z\n", ""));

        Scenario s = Folders.read(dir);

        // "early" (00:00:30) is the earliest instant; relative submits and durations stay as written.
        assertThat(s.workloads()).extracting(WorkloadSpec::id, WorkloadSpec::submitSeconds).containsExactly(
                tuple("early", 0L),
                tuple("relative", 120L),
                tuple("offset", 3570L),
                tuple("late", 86370L));
        assertThat(s.cluster().healthEvents()).extracting(HealthEvent::atSeconds).containsExactly(6 * 3600L - 30,
                8 * 3600L);
    }

    @Test
    void mixingInstantsAndRelativeTimesWithoutStartIsKeptButSaysWhichInstantBecameTimeZero() {
        // the earliest instant became time 0 for the relative rows without a word
        Path dir = Folders.copy("instants", tmp);
        Folders.write(dir, "cluster.yaml", Folders.resource("instants", "cluster.yaml")
                .replace("start: 2026-01-05T00:00:00Z\n", ""));

        assertThat(Folders.read(dir).notes()).containsExactly("workloads.csv mixes ISO-8601 instants (first on line 2)"
                + " and relative times (first on line 4) and cluster.yaml gives no start: time 0 is"
                + " 2026-01-05T00:00:30Z, the earliest instant (workloads.csv line 3), and relative times count from"
                + " it; add start: to cluster.yaml to choose time 0");
    }

    @Test
    void aHealthEventAtAnInstantBesideRelativeSubmitTimesWithoutStartSaysItBecameTimeZero() {
        // 'at: 2020-01-01T00:00:00Z' was silently moved to 0s
        Path dir = Folders.copy("basic", tmp);
        String cluster = Folders.resource("basic", "cluster.yaml");
        assertThat(cluster).doesNotContain("start:").contains("    at: 1h30m\n");
        Folders.write(dir, "cluster.yaml", cluster.replace("    at: 1h30m\n", "    at: 2020-01-01T00:00:00Z\n"));

        Scenario s = Folders.read(dir);

        assertThat(s.notes()).containsExactly("cluster.yaml gives health events at ISO-8601 instants (first on line"
                + " 14) and workloads.csv relative times (first on line 3) and cluster.yaml gives no start: time 0 is"
                + " 2020-01-01T00:00:00Z, the earliest instant (cluster.yaml line 14), and relative times count from"
                + " it; add start: to cluster.yaml to choose time 0");
    }

    @Test
    void timesOfOneKindOrAStartLeaveNoNote() {
        Path dir = Folders.copy("instants", tmp);
        assertThat(Folders.read(dir).notes()).isEmpty(); // start given
        Folders.write(dir, "cluster.yaml", Folders.resource("instants", "cluster.yaml")
                .replace("start: 2026-01-05T00:00:00Z\n", ""));
        Folders.write(dir, "workloads.csv", Folders.resource("instants", "workloads.csv")
                .replace("relative,120,", "relative,2026-01-05T00:02:00Z,"));
        assertThat(Folders.read(dir).notes()).isEmpty(); // instants only
        assertThat(Folders.read(Folders.copy("basic", tmp.resolve("b"))).notes()).isEmpty(); // relative only
    }

    @Test
    void aHealthEventCanBeTheEarliestInstant() {
        Path dir = Folders.copy("instants", tmp);
        Folders.write(dir, "cluster.yaml", Folders.resource("instants", "cluster.yaml")
                .replace("start: 2026-01-05T00:00:00Z\n", "")
                .replace("at: 2026-01-05T06:00:00Z", "at: 2026-01-04T23:00:00Z"));

        Scenario s = Folders.read(dir);

        assertThat(s.cluster().healthEvents().get(0).atSeconds()).isZero();
        assertThat(s.workloads()).extracting(WorkloadSpec::id, WorkloadSpec::submitSeconds)
                .contains(tuple("early", 3630L));
        assertThat(s.notes()).singleElement().asString().contains("time 0 is 2026-01-04T23:00:00Z, the earliest"
                + " instant (cluster.yaml line 7)");
    }

    @Test
    void onlyRequiredColumnsTakeTheDefaults() {
        Path dir = Folders.copy("basic", tmp);
        Folders.write(dir, "workloads.csv", """
                min_runtime,duration,gpus,allocation,submit,id
                15m,1h,8,detect,0,only
                """);

        Scenario s = Folders.read(dir);

        assertThat(s.workloads()).containsExactly(spec("only", 0, "detect", "-", 8, 0, Duration.ofHours(1),
                Duration.ofMinutes(15), false, Priority.NORMAL, null, ""));
    }

    @Test
    void emptyCellsOfOptionalColumnsTakeTheDefaultsAndQuotedCellsMayHoldCommas() {
        Path dir = Folders.copy("basic", tmp);
        Folders.write(dir, "workloads.csv", """
                id,submit,allocation,user,gpus,gpus_per_node,duration,min_runtime,resumable,priority,checkpoint_every,kind
                "job,1", 5 ,detect,,8,0,1h,15m,1,,,"eval, long"
                """);

        Scenario s = Folders.read(dir);

        assertThat(s.workloads()).containsExactly(spec("job,1", 5, "detect", "-", 8, 0, Duration.ofHours(1),
                Duration.ofMinutes(15), true, Priority.NORMAL, null, "eval, long"));
    }

    @Test
    void aHeaderWithoutRowsIsRefusedNotReadAsAScenarioWithoutWorkloads() {
        // it was read as a scenario of no workloads, which ran a report of nothing
        Path dir = Folders.copy("basic", tmp);
        Folders.write(dir, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime\n");

        assertThat(Folders.error(dir).getMessage()).startsWith("workloads.csv: the file has a header row and no"
                + " workload rows");
    }

    @Test
    void aByteOrderMarkBeforeTheHeaderIsIgnored() {
        Path dir = Folders.copy("basic", tmp);
        Folders.write(dir, "workloads.csv", "\uFEFFid,submit,allocation,gpus,duration,min_runtime\nx,0,detect,1,1h,0\n");

        assertThat(Folders.read(dir).workloads()).extracting(WorkloadSpec::id).containsExactly("x");
    }

    @Test
    void aPolicyYmlBesideThePolicyYamlIsRefusedNotIgnored() throws IOException {
        Path dir = Folders.copy("basic", tmp);
        Files.writeString(dir.resolve("policy.yml"), "lookback: 1d\n");
        assertThat(Folders.error(dir).getMessage()).isEqualTo("policy.yml: not a name allot reads, beside policy.yaml,"
                + " which it reads; remove or rename policy.yml (its content is not read)");
        Files.delete(dir.resolve("policy.yml"));
        Files.writeString(dir.resolve("Cluster.yaml"), "node-groups: []\n");
        assertThat(Folders.error(dir).getMessage()).isEqualTo("Cluster.yaml: not a name allot reads, beside"
                + " cluster.yaml, which it reads; remove or rename Cluster.yaml (its content is not read)");
    }

    @Test
    void aFileNamedAlmostAsOneTheFolderHoldsIsNamedRight() throws IOException {
        Path dir = Folders.copy("basic", tmp);
        // a policy.yml was not read, without a word: its settings did not apply
        Files.move(dir.resolve("policy.yaml"), dir.resolve("policy.yml"));
        assertThat(Folders.error(dir).getMessage()).isEqualTo("policy.yml: not a name allot reads; expected"
                + " policy.yaml (allot reads only the names cluster.yaml, allocations.yaml, workloads.csv,"
                + " workloads.jsonl, policy.yaml, trace.yaml)");
        Files.delete(dir.resolve("policy.yml"));
        Files.move(dir.resolve("cluster.yaml"), dir.resolve("Cluster.yml"));
        assertThat(Folders.error(dir).getMessage()).startsWith("Cluster.yml: not a name allot reads; expected"
                + " cluster.yaml");
        Files.move(dir.resolve("Cluster.yml"), dir.resolve("cluster.yaml"));
        // beside a workloads file, a workloads.json is none of allot's business
        Files.writeString(dir.resolve("workloads.json"), "[]\n");
        assertThat(Folders.read(dir).workloads()).isNotEmpty();
    }

    @Test
    void missingOrEmptyPolicyFileMeansDefaults() {
        Path dir = Folders.copy("basic", tmp);
        Folders.delete(dir, "policy.yaml");
        assertThat(Folders.read(dir).policyConfig()).isEqualTo(PolicyConfig.defaults());

        Folders.write(dir, "policy.yaml", "# nothing to change\n");
        assertThat(Folders.read(dir).policyConfig()).isEqualTo(PolicyConfig.defaults());
    }

    @Test
    void sharedPolicyKeysAndAShortLookbackShrinkTheDefaultBucket() {
        Path dir = Folders.copy("basic", tmp);
        Folders.write(dir, "policy.yaml", "lookback: 30m\nmax-min-runtime: 2h\nallocation:\n");

        PolicyConfig p = Folders.read(dir).policyConfig();

        assertThat(p.scheduler()).isEqualTo(new SchedulerConfig(Duration.ofMinutes(30), Duration.ofHours(2),
                Duration.ofMinutes(30)));
        assertThat(p.perPolicy()).as("an empty section is no section").isEmpty();
    }

    @Test
    void healthEventsAndLabelsAreOptional() {
        Path dir = Folders.copy("basic", tmp);
        Folders.write(dir, "cluster.yaml", """
                node-groups:
                  - {name-prefix: n, count: 100, gpus: 8}
                health-events:
                """);
        Folders.write(dir, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime\nx,0,detect,1,1h,0\n");

        Scenario s = Folders.read(dir);

        assertThat(s.cluster().nodes()).hasSize(100);
        assertThat(s.cluster().nodes().get(0)).isEqualTo(new NodeSpec("n-001", 8, "gpu", new TreeMap<>()));
        assertThat(s.cluster().healthEvents()).isEmpty();
        assertThat(List.copyOf(s.cluster().nodes().get(99).labels().keySet())).isEmpty();
    }
}
