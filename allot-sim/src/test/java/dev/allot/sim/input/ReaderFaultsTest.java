package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs that are not what they claim to be: a workloads file of NUL bytes or other binary garbage, and a
 * {@code trace.yaml} whose path leads out of its scenario folder. Each is refused with the file, the line and what
 * was expected, never read as an empty scenario.
 */
class ReaderFaultsTest {
    @TempDir
    Path tmp;

    private Path scenario(String workloadsFile, byte[] content) throws IOException {
        Path dir = Folders.copy("basic", tmp);
        Folders.delete(dir, "workloads.csv");
        Files.write(dir.resolve(workloadsFile), content);
        return dir;
    }

    @Test
    void aCsvOfNulBytesIsAnErrorNamingTheFileAndLine() throws IOException {
        // given a scenario whose workloads.csv is 4 KiB of NUL bytes
        Path dir = scenario("workloads.csv", new byte[4096]);

        // when read, then it is refused, not read as 0 workloads
        InputException e = Folders.error(dir);
        assertThat(e.file()).isEqualTo("workloads.csv");
        assertThat(e.line()).isEqualTo(1);
        assertThat(e.problem()).contains("expected text", "NUL");
    }

    @Test
    void aJsonlOfNulBytesIsAnErrorNamingTheFileAndLine() throws IOException {
        Path dir = scenario("workloads.jsonl", new byte[4096]);

        InputException e = Folders.error(dir);
        assertThat(e.file()).isEqualTo("workloads.jsonl");
        assertThat(e.line()).isEqualTo(1);
        assertThat(e.problem()).contains("expected text", "NUL");
    }

    @Test
    void binaryGarbageAfterAValidRowIsAnErrorAtItsLine() throws IOException {
        // given a valid header and row, then a line of random bytes
        byte[] text = ("id,submit,allocation,gpus,duration,min_runtime\nw1,0,detect,1,1h,15m\n").getBytes();
        byte[] garbage = new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13, 'I', 'H', 'D', 'R', '\n'};
        byte[] all = new byte[text.length + garbage.length];
        System.arraycopy(text, 0, all, 0, text.length);
        System.arraycopy(garbage, 0, all, text.length, garbage.length);
        Path dir = scenario("workloads.csv", all);

        InputException e = Folders.error(dir);
        assertThat(e.file()).isEqualTo("workloads.csv");
        assertThat(e.line()).as(e.getMessage()).isEqualTo(3);
        assertThat(e.problem()).as(e.getMessage()).startsWith("expected UTF-8 text, got a byte sequence that is not"
                + " UTF-8 (0x89)");
    }

    @Test
    void aTraceOfNulBytesIsAnErrorNotAnEmptyTrace() throws IOException {
        // given an SWF trace (whitespace-separated, where a line of NULs would trim to nothing) of NUL bytes
        Path dir = tmp.resolve("swf");
        Folders.write(dir, "cluster.yaml", "node-groups:\n  - {name-prefix: node, count: 2, gpus: 8}\n");
        Files.write(dir.resolve("jobs.swf"), new byte[1024]);
        Folders.write(dir, "trace.yaml", "format: swf\npath: jobs.swf\n");

        InputException e = Folders.error(dir);
        assertThat(e.getMessage()).startsWith("jobs.swf:1:1: expected text, got a NUL character");
    }

    @Test
    void aTracePathOutsideTheFolderIsRefusedNamingTheFieldAndTheRule() throws IOException {
        // given a trace folder whose trace.yaml names ../../etc/passwd, then an absolute path
        Path dir = tmp.resolve("t");
        Folders.write(dir, "cluster.yaml", "node-groups:\n  - {name-prefix: node, count: 2, gpus: 8}\n");
        for (String path : new String[] {"../../etc/passwd", "/etc/passwd", "sub/../../x.csv"}) {
            Folders.write(dir, "trace.yaml", "format: tiresias\npath: " + path + "\n");

            InputException e = Folders.error(dir);
            assertThat(e.getMessage()).startsWith("trace.yaml:2:7: field 'path': expected a file inside the scenario"
                    + " folder");
            assertThat(e.problem()).contains("got '" + path + "'");
        }
    }

    @Test
    void aTracePathThroughASymbolicLinkOutOfTheFolderIsRefused() throws IOException {
        Path dir = tmp.resolve("t");
        Folders.write(dir, "cluster.yaml", "node-groups:\n  - {name-prefix: node, count: 2, gpus: 8}\n");
        Folders.write(tmp, "outside.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n");
        Files.createSymbolicLink(dir.resolve("jobs.csv"), tmp.resolve("outside.csv"));
        Folders.write(dir, "trace.yaml", "format: tiresias\npath: jobs.csv\n");

        InputException e = Folders.error(dir);
        assertThat(e.getMessage()).startsWith("trace.yaml:2:7: field 'path': expected a file inside the scenario folder");
    }

    @Test
    void aFolderWhereAScenarioFileShouldBeIsSaidToBeAFolderNotMissing() throws IOException {
        // it said 'allocations.yaml: missing in ...' of a folder named allocations.yaml (and so for cluster.yaml
        // and workloads.csv), while policy.yaml said 'cannot read: is a directory'
        for (String name : new String[] {"cluster.yaml", "allocations.yaml", "workloads.csv", "policy.yaml"}) {
            Path dir = Folders.copy("basic", tmp.resolve(name));
            Folders.delete(dir, name);
            Files.createDirectory(dir.resolve(name));

            assertThat(Folders.error(dir).getMessage()).as(name).isEqualTo(name + ": a folder where a file is"
                    + " expected, in " + dir + "; move or rename the folder and put the file " + name + " there");
        }
    }

    @Test
    void aFolderNamedTraceYamlIsSaidToBeAFolderNotIgnored() throws IOException {
        // beside workloads.csv it was ignored: the folder ran as a native scenario
        Path dir = Folders.copy("basic", tmp);
        Files.createDirectory(dir.resolve("trace.yaml"));

        assertThat(Folders.error(dir).getMessage()).isEqualTo("trace.yaml: a folder where a file is expected, in "
                + dir + "; move or rename the folder and put the file trace.yaml there");
    }
}
