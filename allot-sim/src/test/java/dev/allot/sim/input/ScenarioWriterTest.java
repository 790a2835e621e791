package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.HealthEvent.Health;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writing scenario folders: exact output, determinism, size, and write-then-read round trips. */
class ScenarioWriterTest {
    static final List<NodeGroup> GROUPS = List.of(
            new NodeGroup("gpu", 4, 8, "h100", new TreeMap<>(Map.of("rack", "r1", "zone", "a"))),
            new NodeGroup("small", 2, 4, "a100", new TreeMap<>()));

    @TempDir
    Path tmp;

    @Test
    void writesTheBasicScenarioReadablyAndItReadsBackEqual() throws IOException {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        Path out = tmp.resolve("out");

        ScenarioWriter.write(out, GROUPS, basic.cluster().healthEvents(), basic.tree(), basic.workloads(),
                basic.policyConfig());

        assertThat(Files.readString(out.resolve("cluster.yaml"))).isEqualTo("""
                node-groups:
                  - name-prefix: gpu
                    count: 4
                    gpus: 8
                    gpu-type: h100
                    labels: {rack: r1, zone: a}
                  - name-prefix: small
                    count: 2
                    gpus: 4
                    gpu-type: a100
                health-events:
                  - node: gpu-03
                    at: 1h30m
                    state: unhealthy
                  - node: gpu-03
                    at: 2h
                    state: healthy
                """);
        assertThat(Files.readString(out.resolve("allocations.yaml"))).isEqualTo("""
                name: lab
                managers: [director]
                children:
                  - name: nlp
                    share: 3
                    managers: [alice, bob]
                    children:
                      - name: pretrain
                        share: 2
                      - name: finetune
                        share: 1
                  - name: vision
                    share: 1
                    children:
                      - name: detect
                        share: 1
                  - name: scratch
                    share: 0
                """);
        assertThat(Files.readString(out.resolve("workloads.csv"))).isEqualTo("""
                id,submit,allocation,user,gpus,gpus_per_node,duration,min_runtime,resumable,priority,checkpoint_every,kind
                w1,0,pretrain,alice,16,8,2d,8h,true,high,1h,train
                a0,90,scratch,carol,1,,10m,0s,true,urgent,,
                w2,90,finetune,bob,4,,3h,30m,false,normal,,eval
                w3,3600,detect,-,2,,45m,0s,false,low,,
                """);
        assertThat(Files.readString(out.resolve("policy.yaml"))).isEqualTo("""
                lookback: 3d
                allocation:
                  reservation: false
                legacy:
                  non-preemptible-min-runtime: 4h
                """);

        assertRoundTrip(basic, Folders.read(out));
    }

    @Test
    void twentyThousandWorkloadsAreCompactDeterministicAndRoundTrip() throws IOException {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        List<WorkloadSpec> workloads = randomWorkloads(new SplittableRandom(42), 20_000, basic.tree().leafNames());
        List<WorkloadSpec> shuffled = new ArrayList<>(workloads);
        Collections.shuffle(shuffled, new java.util.Random(7));
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");

        ScenarioWriter.write(a, GROUPS, basic.cluster().healthEvents(), basic.tree(), workloads, PolicyConfig.defaults());
        ScenarioWriter.write(b, GROUPS, basic.cluster().healthEvents(), basic.tree(), shuffled, PolicyConfig.defaults());

        for (String f : List.of("cluster.yaml", "allocations.yaml", "workloads.csv")) {
            assertThat(Files.readAllBytes(b.resolve(f))).as(f).isEqualTo(Files.readAllBytes(a.resolve(f)));
        }
        assertThat(Files.size(a.resolve("workloads.csv"))).isLessThan(2_000_000);
        Scenario back = Folders.read(a);
        assertThat(back.workloads()).isEqualTo(Scenario.sorted(workloads));
        assertThat(back.policyConfig()).isEqualTo(PolicyConfig.defaults());
    }

    @Test
    void awkwardNamesAreQuotedAndSurviveTheRoundTrip() {
        AllocationTree tree = AllocationTree.builder("the lab")
                .managers(List.of("o'neil", "\"quoted\"", "a: b"))
                .child("007", 0.1)
                .leaf("true", 1e-5)
                // not a tab: managers with control characters are refused when read (PrintableText)
                .leaf("#hash, comma", 2.5, List.of("null", "x] [y"))
                .up()
                .leaf("ünïcode|team-1.0", 1) // not "/": a name is one segment (Names)
                .build();
        List<NodeGroup> groups = List.of(new NodeGroup("rack 1", 3, 2, "1080",
                new TreeMap<>(Map.of("yes", "no", "k", "[v]"))));
        List<HealthEvent> health = List.of(new HealthEvent("rack 1-02", 0, Health.UNHEALTHY));
        List<WorkloadSpec> workloads = List.of(
                WorkloadSpec.builder("#not-a-comment").allocation("#hash, comma").user("a,b").gpus(2)
                        .kind("say \"hi\"").build(),
                // not a line break: ids with control characters are refused when read (PrintableText)
                WorkloadSpec.builder("two, \"quoted\" words").allocation("true").user("o'neil").kind("x").build(),
                WorkloadSpec.builder("plain").allocation("ünïcode|team-1.0").gpus(6).gpusPerNode(2)
                        .resumable(Duration.ofSeconds(90)).priority(Priority.URGENT).kind("").build());
        Path out = tmp.resolve("awkward");

        ScenarioWriter.write(out, groups, health, tree, workloads, PolicyConfig.defaults());
        Scenario back = Folders.read(out);

        assertThat(back.workloads()).isEqualTo(Scenario.sorted(workloads));
        assertThat(back.cluster().nodes()).isEqualTo(NodeGroup.expandAll(groups));
        assertThat(back.cluster().healthEvents()).isEqualTo(health);
        assertSameTree(back.tree(), tree);
    }

    @Test
    void defaultPolicyLeavesNoPolicyFileAndStaleFilesGo() throws IOException {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        Path out = tmp.resolve("out");
        Folders.write(out, "policy.yaml", "lookback: 1d\n");
        Folders.write(out, "workloads.jsonl", "{}\n");
        // generate --force over a trace folder left trace.yaml beside workloads.csv: 'both trace.yaml and
        // workloads.csv are in out; keep exactly one source of workloads'
        Folders.write(out, "trace.yaml", "format: philly\npath: philly.csv\n");
        Folders.write(out, "philly.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n");

        ScenarioWriter.write(out, GROUPS, List.of(), basic.tree(), basic.workloads(), PolicyConfig.defaults());

        assertThat(out.resolve("policy.yaml")).doesNotExist();
        assertThat(out.resolve("workloads.jsonl")).doesNotExist();
        assertThat(out.resolve("trace.yaml")).doesNotExist();
        assertThat(out.resolve("philly.csv")).as("the trace file is the user's data, not a scenario file").exists();
        assertThat(Files.readString(out.resolve("cluster.yaml"))).doesNotContain("health-events");
        assertThat(Folders.read(out).policyConfig()).isEqualTo(PolicyConfig.defaults());
    }

    @Test
    void givenAWriteStoppedHalfwayThroughTheWorkloads_thenTheEarlierWorkloadsCsvIsKeptWhole() throws IOException {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        Path out = tmp.resolve("out");
        ScenarioWriter.write(out, GROUPS, List.of(), basic.tree(), basic.workloads(), PolicyConfig.defaults());
        String before = Files.readString(out.resolve("workloads.csv"));
        // A list that fails at its 5,000th workload once workloads.csv is open, as Ctrl-C stops 'generate --preset big'
        // while it writes the file: the file was left cut short (here empty), a scenario with fewer workloads.
        List<WorkloadSpec> many = randomWorkloads(new SplittableRandom(7), 10_000, basic.tree().leafNames());
        List<WorkloadSpec> stopping = new java.util.AbstractList<>() {
            @Override
            public WorkloadSpec get(int i) {
                if (i == 5_000) {
                    throw new IllegalStateException("interrupted");
                }
                return many.get(i);
            }

            @Override
            public int size() {
                return many.size();
            }
        };

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ScenarioWriter.write(out, GROUPS, List.of(),
                basic.tree(), stopping, PolicyConfig.defaults())).hasMessage("interrupted");

        assertThat(Files.readString(out.resolve("workloads.csv"))).isEqualTo(before);
        assertThat(Folders.read(out).workloads()).hasSameSizeAs(basic.workloads());
        try (java.util.stream.Stream<Path> files = Files.list(out)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no hidden part left")
                    .noneMatch(n -> n.startsWith("."));
        }
    }

    @Test
    void onlyNonDefaultSharedValuesAreWritten() throws IOException {
        Scenario basic = Folders.read(Folders.copy("basic", tmp));
        PolicyConfig config = PolicyConfig.defaults().with("lookback", "30m").with("max-min-runtime", "8h")
                .with("allocation.fairshare-recheck", "10m");
        Path out = tmp.resolve("out");

        ScenarioWriter.write(out, GROUPS, List.of(), basic.tree(), basic.workloads(), config);

        // max-min-runtime is the default; the usage bucket follows the short lookback on its own.
        assertThat(Files.readString(out.resolve("policy.yaml")))
                .isEqualTo("lookback: 30m\nallocation:\n  fairshare-recheck: 10m\n");
        assertThat(Folders.read(out).policyConfig()).isEqualTo(config);
    }

    static void assertRoundTrip(Scenario expected, Scenario actual) {
        assertThat(actual.workloads()).isEqualTo(expected.workloads());
        assertThat(actual.cluster().nodes()).isEqualTo(expected.cluster().nodes());
        assertThat(actual.cluster().healthEvents()).isEqualTo(expected.cluster().healthEvents());
        assertSameTree(actual.tree(), expected.tree());
        assertThat(actual.policyConfig()).isEqualTo(expected.policyConfig());
    }

    static void assertSameTree(AllocationTree actual, AllocationTree expected) {
        assertThat(actual.nodeCount()).isEqualTo(expected.nodeCount());
        for (int i = 0; i < expected.nodeCount(); i++) {
            assertThat(actual.name(i)).isEqualTo(expected.name(i));
            assertThat(actual.parent(i)).as(expected.name(i)).isEqualTo(expected.parent(i));
            assertThat(actual.managers(i)).as(expected.name(i)).isEqualTo(expected.managers(i));
            if (i > 0) {
                assertThat(actual.share(i)).as(expected.name(i)).isEqualTo(expected.share(i));
            }
        }
    }

    /** Workloads that fit the basic cluster (four 8-GPU nodes, two 4-GPU nodes). */
    static List<WorkloadSpec> randomWorkloads(SplittableRandom r, int n, List<String> leaves) {
        int[] sizes = {1, 2, 4, 8, 16, 32};
        String[] kinds = {"train", "eval", "notebook", ""};
        List<WorkloadSpec> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int gpus = sizes[r.nextInt(sizes.length)];
            boolean gang = gpus >= 8 && r.nextBoolean();
            boolean resumable = r.nextInt(3) == 0;
            Duration checkpoint = resumable && r.nextBoolean() ? Duration.ofMinutes(1 + r.nextInt(120)) : null;
            out.add(new WorkloadSpec(String.format("w%06d", i), r.nextLong(30L * 86400), leaves.get(r.nextInt(leaves.size())),
                    "user" + r.nextInt(50), gpus, gang ? 8 : 0, Duration.ofSeconds(60 + r.nextLong(3 * 86400)),
                    r.nextBoolean() ? Duration.ZERO : Duration.ofMinutes(r.nextInt(600)), resumable,
                    Priority.values()[r.nextInt(4)], checkpoint, kinds[r.nextInt(kinds.length)]));
        }
        return out;
    }
}
