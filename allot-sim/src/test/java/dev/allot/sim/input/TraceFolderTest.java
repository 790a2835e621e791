package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.HealthEvent.Health;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import dev.allot.sim.trace.WorkloadTable;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A scenario folder whose trace.yaml names a real trace instead of workloads.csv. */
class TraceFolderTest {
    private static final String CLUSTER = "node-groups:\n  - {name-prefix: node, count: 2, gpus: 8}\n";
    private static final String TIRESIAS = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
            + "0,1,0,1,vgg19,60,0\n1,2,30,1,bert,7200,0\n";

    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void folder() {
        dir = tmp.resolve("t");
        Folders.write(dir, "cluster.yaml", CLUSTER);
        Folders.write(dir, "jobs.csv", TIRESIAS);
    }

    private InputException traceYaml(String text) {
        Folders.write(dir, "trace.yaml", text);
        return Folders.error(dir);
    }

    private static void assertError(InputException e, String file, int line, int column, String field, String problem) {
        assertThat(e.file()).as(e.getMessage()).isEqualTo(file);
        assertThat(e.line()).as(e.getMessage()).isEqualTo(line);
        assertThat(e.column()).as(e.getMessage()).isEqualTo(column);
        assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
        assertThat(e.problem()).as(e.getMessage()).isEqualTo(problem);
    }

    @Test
    void theFixtureReplaysPhillyWithItsContractAndHealthEvents() throws URISyntaxException {
        Scenario s = Folders.read(Path.of(TraceFolderTest.class.getResource("/input/trace").toURI()));
        assertThat(s.name()).isEqualTo("trace");
        assertThat(s.tree().leafNames()).containsExactly("11cb48", "6214e9", "6c71a0");
        assertThat(s.workloads()).hasSize(5).first().satisfies(w -> {
            assertThat(w.id()).isEqualTo("philly-000004");
            assertThat(w.minRuntime()).isEqualTo(Duration.ofHours(1)); // min-runtime: 1h
        });
        assertThat(s.workloads()).allMatch(WorkloadSpec::allocated); // unallocated-fraction: 0
        assertThat(s.cluster().healthEvents()).containsExactly(new HealthEvent("node-02", 3600, Health.UNHEALTHY),
                new HealthEvent("node-02", 7200, Health.HEALTHY));
        assertThat(((WorkloadTable) s.workloads()).summary().contract()).containsEntry("min-runtime", "1h");
    }

    @Test
    void aTreeAndSettingsInTheFolderApply() {
        Folders.write(dir, "allocations.yaml", "name: lab\nchildren:\n  - {name: vgg19}\n");
        Folders.write(dir, "trace.yaml", "format: tiresias\npath: jobs.csv\nsettings: {}\n");
        Scenario s = Folders.readLenient(dir);
        assertThat(s.tree().leafNames()).containsExactly("vgg19");
        assertThat(s.workloads()).extracting(WorkloadSpec::id).containsExactly("tiresias-0");
        assertThat(s.rejected()).containsExactly("jobs.csv:3:5: field 'model_name': expected one of the leaf"
                + " allocations (vgg19), got 'bert'");
    }

    @Test
    void anUnclosedQuoteInTheTraceIsReportedOnTheLineItOpens() {
        Folders.write(dir, "jobs.csv", TIRESIAS + "2,1,60,1,\"vgg19,60,0\n" + "3,1,90,1,bert,60,0\n".repeat(5));
        Folders.write(dir, "trace.yaml", "format: tiresias\npath: jobs.csv\n");
        assertThat(Folders.error(dir).getMessage()).isEqualTo("jobs.csv:4: malformed CSV: a quoted value opened here"
                + " is never closed (hint: add the closing \"; a value that starts with \" runs to the next \", across"
                + " commas and lines, and a \" inside it is written \"\")");
    }

    @Test
    void theFormatAndPathAreChecked() {
        assertError(traceYaml("format: slurm\npath: jobs.csv\n"), "trace.yaml", 1, 9, "format",
                "expected one of the trace formats (philly, alibaba-openb, swf, tiresias, native), got 'slurm'");
        assertError(traceYaml("path: jobs.csv\n"), "trace.yaml", 1, 1, "format", "missing; a trace folder needs 'format'");
        assertError(traceYaml("format: tiresias\npath: nope.csv\n"), "trace.yaml", 2, 7, "path",
                "no such file: " + dir.resolve("nope.csv"));
        assertError(traceYaml("format: tiresias\npath: jobs.csv\nworkloads: x\n"), "trace.yaml", 3, 1, "workloads",
                "unknown key; valid keys here: format, path, contract, settings");
    }

    @Test
    void contractAndFormatSettingsAreCheckedWhereTheyAreWritten() {
        assertError(traceYaml("format: tiresias\npath: jobs.csv\ncontract:\n  min_runtime: 1h\n"), "trace.yaml", 4, 3,
                "contract", "unknown setting 'min_runtime'; valid settings: checkpoint-every,"
                        + " debug-if-shorter-than, min-runtime, resumable-if-longer-than, seed, unallocated-fraction");
        assertError(traceYaml("format: tiresias\npath: jobs.csv\ncontract:\n  seed: 2\n  min-runtime: soon\n"),
                "trace.yaml", 5, 16, "contract", "setting 'min-runtime': cannot read 'soon' as a duration such as 30s,"
                        + " 5m, 8h or 7d (malformed duration 'soon'; expected e.g. 90s, 15m, 8h, 2d, 1h30m or plain"
                        + " seconds)");
        assertError(traceYaml("format: tiresias\npath: jobs.csv\ncontract:\n  unallocated-fraction: 2\n"),
                "trace.yaml", 4, 25, "contract", "setting 'unallocated-fraction': expected a number from 0 to 1, got 2");
        Folders.write(dir, "j.swf", "1 0 0 60 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n");
        assertError(traceYaml("format: swf\npath: j.swf\nsettings:\n  allocation-by: queue\n"), "trace.yaml", 4, 18,
                "settings", "setting 'allocation-by': expected user or group, got 'queue'");
        assertError(traceYaml("format: native\npath: jobs.csv\ncontract:\n  seed: 2\n"), "trace.yaml", 3, 1,
                "contract", "the native format declares the contract in every row; remove this section");
    }

    @Test
    void aFolderHasOneSourceOfWorkloadsAndRelativeTracesTakeNoInstants() {
        Folders.write(dir, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime\n");
        assertError(traceYaml("format: tiresias\npath: jobs.csv\n"), "trace.yaml", 0, 0, null, "both trace.yaml and"
                + " workloads.csv are in " + dir + "; keep exactly one source of workloads");
        Folders.delete(dir, "workloads.csv");
        Folders.write(dir, "cluster.yaml", CLUSTER + "health-events:\n  - {node: node-01, at: 2026-01-05T00:00:00Z,"
                + " state: unhealthy}\n");
        InputException e = traceYaml("format: tiresias\npath: jobs.csv\n");
        assertThat(e.getMessage()).startsWith("cluster.yaml:4:25: field 'at': expected a time from time 0 such as 3h");
        Folders.write(dir, "cluster.yaml", "start: 2026-01-05T00:00:00Z\n" + CLUSTER + "health-events:\n"
                + "  - {node: node-01, at: 2026-01-05T01:00:00Z, state: unhealthy}\n");
        Folders.write(dir, "trace.yaml", "format: tiresias\npath: jobs.csv\n");
        assertThat(Folders.read(dir).cluster().healthEvents()).containsExactly(
                new HealthEvent("node-01", 3600, Health.UNHEALTHY));
    }
}
