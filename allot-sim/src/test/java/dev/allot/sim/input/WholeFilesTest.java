package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file the commands write is whole or absent: a write that stops halfway (Ctrl-C, a full disk) keeps the earlier
 * file and leaves no hidden part beside it.
 */
class WholeFilesTest {
    @TempDir
    Path tmp;

    @Test
    void givenAnEarlierFile_whenTheNewWriteStopsHalfway_thenTheEarlierFileIsKeptAndNoPartIsLeft() throws IOException {
        Path file = Files.writeString(tmp.resolve("workloads.csv"), "id,submit\nw1,0\nw2,5\n");

        assertThatThrownBy(() -> WholeFiles.write(file, f -> {
            Files.writeString(f, "id,submit\nw1,0\nw2,");
            throw new IOException("interrupted");
        })).hasMessage("interrupted");

        assertThat(Files.readString(file)).isEqualTo("id,submit\nw1,0\nw2,5\n");
        assertThat(names()).containsExactly("workloads.csv");
    }

    @Test
    void givenNoEarlierFile_whenTheWriteStopsHalfway_thenNoFileAppears() {
        Path file = tmp.resolve("run.json");

        assertThatThrownBy(() -> WholeFiles.write(file, f -> {
            Files.writeString(f, "{\"schema\":");
            throw new IllegalStateException("stopped");
        })).hasMessage("stopped");

        assertThat(names()).isEmpty();
    }

    @Test
    void givenACompleteWrite_thenTheFileHoldsTheNewContentAndKeepsItsPermissions() throws IOException {
        Path file = Files.writeString(tmp.resolve("report.html"), "old");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        WholeFiles.write(file, f -> Files.writeString(f, "new"));

        assertThat(Files.readString(file)).isEqualTo("new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(names()).containsExactly("report.html");
    }

    @Test
    void givenALink_thenTheFileItNamesIsReplacedAndTheLinkStays() throws IOException {
        Path real = Files.writeString(Files.createDirectories(tmp.resolve("real")).resolve("out.csv"), "old");
        Path link = Files.createSymbolicLink(tmp.resolve("out.csv"), real);

        WholeFiles.write(link, f -> Files.writeString(f, "new"));

        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readString(real)).isEqualTo("new");
    }

    @Test
    void givenAPipe_thenItIsWrittenInPlaceNotReplacedByAFile() throws Exception {
        // --workloads-out /dev/stdout, piped: the pipe is written, not swapped for a file beside it
        Path fifo = tmp.resolve("pipe");
        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0,
                "mkfifo");
        java.util.concurrent.CompletableFuture<String> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return Files.readString(fifo);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });

        WholeFiles.write(fifo, f -> Files.writeString(f, "policy,id\n"));

        assertThat(read.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("policy,id\n");
        assertThat(Files.isRegularFile(fifo)).isFalse();
    }

    @Test
    void givenStandardOutputOrError_thenTheContentGoesToTheStreamItself() throws IOException {
        // '--workloads-out /dev/stdout > out.txt' followed the link to out.txt and replaced it by a file of the
        // workloads alone; the report printed around it went to the file that was replaced
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        out.write("printed before\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        for (String path : new String[] {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
            WholeFiles.write(Path.of(path), f -> Files.writeString(f, "id,submit\n"), out, err);
        }
        WholeFiles.write(Path.of("/dev/stderr"), f -> Files.writeString(f, "{}\n"), out, err);

        assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("printed before\nid,submit\nid,submit\nid,submit\n");
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("{}\n");
        assertThat(WholeFiles.standardStream(Path.of("/dev/fd/2"))).isEqualTo(2);
        assertThat(WholeFiles.standardStream(Path.of("/dev/fd/63"))).isZero(); // a pipe: written in place
        assertThat(WholeFiles.standardStream(tmp.resolve("stdout"))).isZero();
    }

    @Test
    void givenAFolderThatTakesNoNewFile_thenTheFileIsWrittenInPlaceAndAFailureIsItsOwn() throws IOException {
        // '--json /proc/version' said 'no such file or folder: /proc/.version.123-1.part', a file never asked for
        Path file = Files.writeString(tmp.resolve("out.csv"), "old");
        java.util.List<Path> written = new java.util.ArrayList<>();

        WholeFiles.write(file, f -> {
            written.add(f);
            if (!f.equals(file)) {
                throw new java.nio.file.NoSuchFileException(f.toString()); // the part cannot be created
            }
            Files.writeString(f, "new");
        });

        assertThat(written).hasSize(2).last().isEqualTo(file);
        assertThat(Files.readString(file)).isEqualTo("new");
        assertThat(names()).containsExactly("out.csv");
    }

    private java.util.List<String> names() {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
