package dev.allot.sim.trace;

import static dev.allot.sim.trace.Traces.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.Simulator;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registry, the default tree, a given tree, native workloads, and a trace scenario that simulates. */
class TraceImportTest {
    @TempDir
    Path tmp;

    @Test
    void theRegistryKnowsFiveFormatsAndListsThemForAnUnknownName() {
        TraceFormats formats = TraceFormats.standard();
        assertThat(formats.names()).containsExactly("philly", "alibaba-openb", "swf", "tiresias", "native");
        assertThat(formats.all()).allSatisfy(f -> assertThat(f.description()).isNotBlank().doesNotContain("\n"));
        assertThatThrownBy(() -> formats.get("slurm")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown trace format 'slurm'; valid formats: philly, alibaba-openb, swf, tiresias, native");
        assertThat(TraceFormats.standard()).isNotSameAs(formats);
        assertThatThrownBy(() -> TraceFormats.of(new PhillyFormat(), new PhillyFormat()))
                .hasMessage("trace format 'philly' is registered twice");
    }

    @Test
    void theDefaultTreeIsFlatWithSharesOfGpuHours() {
        Scenario s = Traces.of("tiresias", Traces.fixture("tiresias.csv")).read();
        AllocationTree t = s.tree();
        assertThat(t.name(0)).isEqualTo("trace");
        assertThat(t.leafNames()).containsExactly("bert", "resnet50", "vgg19");
        // GPU-seconds: bert 4x7200 + 2x1800 = 32400; resnet50 8x5400 + 60 = 43260; vgg19 120 + 1800 + 3600 + 3601 = 9121
        double total = 32400 + 43260 + 9121;
        assertThat(t.leafEntitlement(0)).isCloseTo(32400 / total, within(1e-12));
        assertThat(t.leafEntitlement(1)).isCloseTo(43260 / total, within(1e-12));
        assertThat(t.leafEntitlement(2)).isCloseTo(9121 / total, within(1e-12));
        assertThat(t.share(t.node("vgg19").orElseThrow())).isCloseTo(9121 / total, within(1e-12));
    }

    @Test
    void theDefaultRootGivesWayToAnAllocationOfTheSameName() {
        Path p = Traces.write(tmp, "j.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                + "0,1,0,1,trace,60,0\n");
        assertThat(Traces.of("tiresias", p).read().tree().name(0)).isEqualTo("trace-root");
    }

    @Test
    void aTraceWithAHeaderAndNoRowsIsRefusedWithOrWithoutATree() {
        // without a tree it said '(0 rejected, 0 skipped), so there is no allocation to build the default tree
        // from'; with one it ran a report of nothing
        Path p = Traces.write(tmp, "j.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n");
        String problem = "the file has no rows after its header and comments (a run needs at least one workload);"
                + " expected rows of the tiresias format (" + TraceFormats.standard().get("tiresias").description()
                + ") (hint: 'allot traces' lists the formats)";
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 0, 0, null, problem);
        AllocationTree tree = AllocationTree.builder("lab").leaf("vgg19", 1).build();
        assertError(Traces.error(Traces.of("tiresias", p).tree(tree).lenient(true)), "j.csv", 0, 0, null, problem);
    }

    @Test
    void aTraceIdOrAllocationWithAControlCharacterIsRefusedShownEscaped() {
        String header = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n";
        Path id = Traces.write(tmp, "id.csv", header + "\"7\r\",1,0,1,vgg19,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", id)), "id.csv", 2, 1, "job_id", "expected text without"
                + " control characters (line breaks, tabs, escapes), got '7\\r'; remove the control character \\r"
                + " (U+000D) at character 2; ids and names are printed in reports and on terminals");
        Path model = Traces.write(tmp, "model.csv", header + "7,1,0,1,vgg\u001b[8m,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", model)), "model.csv", 2, 5, "model_name", "expected text"
                + " without control characters (line breaks, tabs, escapes), got 'vgg\\u001b[8m'; remove the control"
                + " character \\u001b (U+001B) at character 4; ids and names are printed in reports and on terminals");
    }

    @Test
    void aTraceOfWhichEveryRowIsSkippedIsRefusedWithTheReasons() {
        Path p = Traces.write(tmp, "pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                + "creation_time,deletion_time,scheduled_time\n"
                + "a,1000,1024,0,0,,LS,Succeeded,0,60,0\n"
                + "b,1000,1024,0,0,,LS,Succeeded,0,60,0\n");
        AllocationTree tree = AllocationTree.builder("lab").leaf("LS", 1).build();
        assertError(Traces.error(Traces.of("alibaba-openb", p).tree(tree)), "pods.csv", 0, 0, null,
                "no row became a workload: all 2 rows were skipped by the format's rules (no GPU: 2); a run needs"
                        + " at least one workload");
    }

    @Test
    void aNativeFileWithAHeaderAndNoRowsIsToldAsAScenarioFolderTellsIt() {
        Path p = Traces.write(tmp, "w.csv", "id,submit,allocation,user,gpus,gpus_per_node,duration,min_runtime\n");
        assertThat(Traces.error(Traces.of("native", p)).getMessage()).startsWith("w.csv: the file has a header row"
                + " and no workload rows (a run needs at least one)");
    }

    @Test
    void aGivenTreeRejectsRowsOfUnknownAllocations() {
        AllocationTree tree = AllocationTree.builder("lab").child("vision", 1).leaf("vgg19", 1).leaf("resnet50", 1)
                .up().leaf("nlp", 1).build();
        Scenario s = Traces.of("tiresias", Traces.fixture("tiresias.csv")).tree(tree).lenient(true).read();
        assertThat(s.workloads()).extracting(WorkloadSpec::allocation).containsOnly("vgg19", "resnet50");
        assertThat(s.rejected()).hasSize(2).first().asString().isEqualTo("tiresias.csv:5:5: field 'model_name':"
                + " expected one of the leaf allocations (vgg19, resnet50, nlp), got 'bert'");
        AllocationTree inner = AllocationTree.builder("lab").child("bert", 1).leaf("bert-a", 1).up().build();
        assertError(Traces.error(Traces.of("tiresias", Traces.fixture("tiresias.csv")).tree(inner)), "tiresias.csv",
                2, 5, "model_name", "expected one of the leaf allocations (bert-a), got 'vgg19'");
    }

    @Test
    void lenientReadingThatRejectsEveryRowIsRefusedEvenWithAGivenTree() {
        // with a tree given, a trace of which every row was rejected imported as a scenario of no workloads
        AllocationTree tree = AllocationTree.builder("lab").leaf("other", 1).build();
        assertError(Traces.error(Traces.of("tiresias", Traces.fixture("tiresias.csv")).tree(tree).lenient(true)),
                "tiresias.csv", 0, 0, null, "no row became a workload: 8 rows were rejected (--lenient skips bad"
                        + " rows, but a run needs at least one workload); the first: tiresias.csv:2:5: field"
                        + " 'model_name': expected one of the leaf allocations (other), got 'vgg19'; tiresias.csv:3:5:"
                        + " field 'model_name': expected one of the leaf allocations (other), got 'resnet50';"
                        + " tiresias.csv:4:5: field 'model_name': expected one of the leaf allocations (other), got"
                        + " 'vgg19'; tiresias.csv:5:5: field 'model_name': expected one of the leaf allocations"
                        + " (other), got 'bert'; tiresias.csv:6:5: field 'model_name': expected one of the leaf"
                        + " allocations (other), got 'resnet50'; and 3 more");
    }

    @Test
    void aUniformClusterNamesItsNodes() {
        assertThat(TraceImport.uniformCluster(3, 8).nodes()).extracting(NodeSpec::name)
                .containsExactly("node-001", "node-002", "node-003");
        assertThat(TraceImport.uniformCluster(1200, 4).nodes().get(1199).name()).isEqualTo("node-1200");
        assertThat(TraceImport.uniformCluster(1200, 4).totalGpus()).isEqualTo(4800);
        assertThatThrownBy(() -> TraceImport.uniformCluster(0, 8)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nativeWorkloadsKeepTheirDeclaredContract() {
        Path basic = Traces.fixture("../input/basic");
        AllocationTree tree = dev.allot.sim.input.ScenarioReader.readAllocations(basic.resolve("allocations.yaml"));
        TraceImport i = TraceImport.of(TraceFormats.standard().get("native"), basic)
                .cluster(TraceImport.uniformCluster(4, 8)).tree(tree);
        Scenario s = i.read();
        Scenario fromFolder = dev.allot.sim.input.ScenarioReader.read(basic, false, PolicyRegistry.standard());
        assertThat(s.workloads()).containsExactlyElementsOf(fromFolder.workloads());
        assertThat(((WorkloadTable) s.workloads()).summary().contract()).isEmpty();
        Scenario file = TraceImport.of(TraceFormats.standard().get("native"), basic.resolve("workloads.csv"))
                .cluster(TraceImport.uniformCluster(4, 8)).read();
        assertThat(file.tree().leafNames()).containsExactlyInAnyOrder("pretrain", "finetune", "detect", "scratch");
        assertThatThrownBy(() -> TraceImport.of(TraceFormats.standard().get("native"), basic)
                .cluster(TraceImport.uniformCluster(4, 8)).contract(ContractRule.defaults()).read())
                .hasMessage("trace format 'native' declares the contract in every row; contract settings do not apply"
                        + " to it");
    }

    @Test
    void anImportedTraceSimulatesAndBuildsEachWorkloadOnce() {
        Scenario s = Traces.of("philly", Traces.fixture("philly.csv")).read();
        WorkloadTable t = (WorkloadTable) s.workloads();
        var result = new Simulator(s, PolicyRegistry.standard(), "allocation",
                Simulator.Options.defaults().withCheck(true)).run();
        assertThat(result.metrics().completed()).isEqualTo(5);
        assertThat(t.created()).isEqualTo(t.size() + 1); // each at submission, and the last once more for the window
        assertThat(s.policyConfig().perPolicy()).isEqualTo(Map.of());
    }
}
