package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code allot simulate --trace FORMAT:PATH --nodes COUNTxGPUS}, trace folders, and {@code allot traces}. */
class SimulateTraceTest {
    private static final String JOBS = Cli.ROOT.resolve("examples/trace-philly/jobs.csv").toString();

    @TempDir
    Path tmp;

    @Test
    void aPhillyTraceRunsOnAUniformClusterWithTheImportInTheHeader() throws IOException {
        Path json = tmp.resolve("r.json");
        Cli.Result r = Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "2x8", "--check",
                "--json", json.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("Allot simulation: jobs.csv", "cluster      2 nodes, 16 GPUs",
                "trace        philly jobs.csv: 16 rows read, 16 imported, 0 rejected, 0 skipped;",
                "contract     checkpoint-every 30m, debug-if-shorter-than 15m, min-runtime 2h,",
                "    vc-nlp ", "== allocation", "== legacy", "== side by side");
        assertThat(Files.readString(json)).contains("\"trace\" : {", "\"format\" : \"philly\"");
    }

    @Test
    void contractSettingsAndATreeComeFromTheCommandLine() throws IOException {
        Path tree = Files.writeString(tmp.resolve("teams.yaml"), "name: lab\nchildren:\n  - {name: vc-nlp, share: 3}\n"
                + "  - {name: vc-vision}\n");
        Cli.Result r = Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "2x8", "--policy", "allocation",
                "--contract", "min-runtime=1h", "--contract", "unallocated-fraction=0", "--allocations",
                tree.toString(), "--lenient");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("min-runtime 1h", "unallocated-fraction 0.0\n", "; 0 unallocated,",
                "skipped 5 workload rows (--lenient); the first:",
                "jobs.csv:3:5: field 'cluster': expected one of the leaf allocations (vc-nlp, vc-vision), got"
                        + " 'vc-speech'", "    vc-nlp                                75.0%");
    }

    @Test
    void aFolderWithTraceYamlRuns() {
        Cli.Result r = Cli.run("simulate", Cli.example("trace-philly"), "--policy", "allocation", "--check");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("Allot simulation: trace-philly", "cluster      4 nodes, 32 GPUs",
                "trace        philly jobs.csv: 16 rows read", "min-runtime 1h");
    }

    @Test
    void badTraceOptionsExitWithTheProblem() {
        assertBad(Cli.run("simulate"), "expected a scenario folder DIR or --trace FORMAT:PATH");
        assertBad(Cli.run("simulate", Cli.example("tiny"), "--trace", "philly:" + JOBS, "--nodes", "2x8"),
                "expected either a scenario folder DIR or --trace, not both");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS), "--trace needs the cluster: --nodes COUNTxGPUS");
        // it said "nope.yaml: cannot read: no such file", without the option or the folder
        Path missing = tmp.resolve("nope.yaml");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "2x8", "--allocations",
                missing.toString()), "--allocations " + missing + ": no such file; expected an allocation tree"
                + " written as a scenario's allocations.yaml is");
        assertBad(Cli.run("simulate", "--trace", JOBS, "--nodes", "2x8"), "--trace expects FORMAT:PATH such as"
                + " philly:jobs.csv, got '" + JOBS + "'; formats: philly, alibaba-openb, swf, tiresias, native");
        assertBad(Cli.run("simulate", "--trace", "slurm:" + JOBS, "--nodes", "2x8"),
                "unknown trace format 'slurm'; valid formats: philly, alibaba-openb, swf, tiresias, native");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "2by8"),
                "--nodes expects COUNTxGPUS such as 40x8 (40 nodes of 8 GPUs), got '2by8'");
        // written COUNTxGPUS but out of range: it said the form was wrong
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "0x8"),
                "--nodes expects COUNTxGPUS with 1 to 1,000,000 nodes of 1 to 4,096 GPUs (the GPUs of one machine),"
                        + " 2,147,483,647 GPUs in all at most, got '0x8'");
        // a billion GPUs on one node ran the simulator out of memory, blaming the workloads and the hours
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "1x1000000000"),
                "--nodes expects COUNTxGPUS with 1 to 1,000,000 nodes of 1 to 4,096 GPUs (the GPUs of one machine),");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "99999999x8"),
                "--nodes expects COUNTxGPUS with 1 to 1,000,000 nodes");
        // ten digits and more read as if not written COUNTxGPUS
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "99999999999x8"),
                "--nodes expects COUNTxGPUS with 1 to 1,000,000 nodes");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "2x99999999999999999999"),
                "--nodes expects COUNTxGPUS with 1 to 1,000,000 nodes");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "2x8", "--contract", "min=1h"),
                "--contract: unknown setting 'min'; valid settings: checkpoint-every, debug-if-shorter-than,");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "2x8", "--trace-set", "allocation-by=user"),
                "trace format 'philly': unknown setting 'allocation-by'; valid settings: (none)");
        assertBad(Cli.run("simulate", Cli.example("tiny"), "--nodes", "2x8", "--contract", "seed=2"),
                "--nodes, --contract only apply with --trace");
        assertBad(Cli.run("simulate", "--trace", "philly:" + JOBS, "--nodes", "1x8"),
                "jobs.csv:3:3: field 'num_gpus': expected at most 8 GPUs (the cluster has 8 GPUs on 1 node), got 16");
    }

    @Test
    void aMissingTraceFileIsOneLineNamingItOnceWithWhereARelativePathStarts() {
        Cli.Result r = Cli.run("simulate", "--trace", "philly:nope.csv", "--nodes", "40x8");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: nope.csv: no such file; expected a philly trace file; hint: a relative"
                + " path is read from the current folder, " + java.nio.file.Path.of("").toAbsolutePath() + "\n");
        assertThat(r.out()).isEmpty();
    }

    private static void assertBad(Cli.Result r, String message) {
        assertThat(r.exit()).as(r.out()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).contains(message);
    }

    @Test
    void tracesListsTheFormatsAndTheContractSettings() {
        Cli.Result r = Cli.run("traces");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("  philly ", "  alibaba-openb ", "  swf ", "  tiresias ", "  native ",
                "--trace-set allocation-by=...  (default user)", "unallocated-fraction      (default 0.1)");
    }
}
