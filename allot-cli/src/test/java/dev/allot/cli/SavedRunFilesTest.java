package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that read a saved run ({@code allot report RESULTS.json}, {@code allot compare A.csv B.csv},
 * {@code allot simulate --submit-times FILE}) given a folder, an empty file or a binary file where the run belongs:
 * one line naming the file, what is wrong in words and what was expected, the bad-input exit, never "a fault in
 * allot". {@code compare} of a folder said "allot: Is a directory" and "this is a fault in allot"; {@code report} of
 * a binary file said "cannot read: Input length = 1" and of an empty one "No content to map due to end-of-input".
 */
class SavedRunFilesTest {
    @TempDir
    Path tmp;

    private Path folder() throws IOException {
        return Files.createDirectories(tmp.resolve("run.d"));
    }

    private Path binary() throws IOException {
        return Files.write(tmp.resolve("run.bin"), new byte[] {'{', '"', (byte) 0x8f, (byte) 0xff, '"', '}'});
    }

    private Path empty() throws IOException {
        return Files.writeString(tmp.resolve("run.empty"), "\n  \n");
    }

    private static void assertOneLineOfBadInput(Cli.Result r, String what) {
        assertThat(r.exit()).as(what + ": " + r.err()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err().strip()).as(what).doesNotContain("\n").doesNotContain("fault in allot")
                .doesNotContain("Exception");
    }

    @Test
    void reportGivenAFolderABinaryOrAnEmptyFileSaysWhichAndWhatItExpected() throws IOException {
        String expected = "expected the --json output of 'allot simulate' (schema allot.simulate/1)";
        Path out = tmp.resolve("r.html");

        Cli.Result dir = Cli.run("report", folder().toString(), "--report", out.toString());
        assertOneLineOfBadInput(dir, "folder");
        assertThat(dir.err()).isEqualTo("allot: " + folder() + ": cannot read: is a directory\n");

        Cli.Result bin = Cli.run("report", binary().toString(), "--report", out.toString());
        assertOneLineOfBadInput(bin, "binary");
        assertThat(bin.err()).startsWith("allot: " + binary() + ":1:3: expected UTF-8 text, got a byte sequence"
                + " that is not UTF-8 (0x8f)");

        Cli.Result blank = Cli.run("report", empty().toString(), "--report", out.toString());
        assertOneLineOfBadInput(blank, "empty");
        assertThat(blank.err()).isEqualTo("allot: " + empty() + ": the file is empty; " + expected + "\n");
        assertThat(out).doesNotExist();
    }

    @Test
    void compareGivenAFolderOrABinaryFileSaysWhichAndWhatItExpected() throws IOException {
        String expected = "expected a CSV written by allot simulate --workloads-out or allot replay --workloads-out";

        Cli.Result dir = Cli.run("compare", folder().toString(), folder().toString());
        assertOneLineOfBadInput(dir, "folder");
        assertThat(dir.err()).isEqualTo("allot: " + folder() + ": cannot read: is a directory; " + expected + "\n");

        Cli.Result bin = Cli.run("compare", binary().toString(), binary().toString());
        assertOneLineOfBadInput(bin, "binary");
        assertThat(bin.err()).startsWith("allot: " + binary() + ":1:3: expected UTF-8 text").endsWith(expected + "\n");
    }

    @Test
    void simulateGivenAFolderAsSubmitTimesSaysSo() throws IOException {
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--submit-times", folder().toString());
        assertOneLineOfBadInput(r, "--submit-times folder");
        assertThat(r.err()).contains(folder() + ": cannot read: is a directory");
    }
}
