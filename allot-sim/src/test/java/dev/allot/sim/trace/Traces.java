package dev.allot.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.sim.input.InputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Fixtures under {@code src/test/resources/trace/} and helpers to import them. */
final class Traces {
    private Traces() {
    }

    static Path fixture(String name) {
        try {
            return Path.of(Traces.class.getResource("/trace/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static String text(String fixture) {
        try {
            return Files.readString(fixture(fixture), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path write(Path dir, String name, String text) {
        try {
            Files.createDirectories(dir);
            return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An import of {@code file} on two 8-GPU nodes with the default contract and tree. */
    static TraceImport of(String format, Path file) {
        return TraceImport.of(TraceFormats.standard().get(format), file).cluster(TraceImport.uniformCluster(2, 8));
    }

    static WorkloadTable table(TraceImport i) {
        return (WorkloadTable) i.read().workloads();
    }

    /** The error of a strict import; fails when there is none. */
    static InputException error(TraceImport i) {
        InputException[] caught = new InputException[1];
        assertThatThrownBy(i::read).isInstanceOfSatisfying(InputException.class, e -> caught[0] = e);
        return caught[0];
    }

    static void assertError(InputException e, String file, int line, int column, String field, String problem) {
        assertThat(e.file()).as(e.getMessage()).isEqualTo(file);
        assertThat(e.line()).as(e.getMessage()).isEqualTo(line);
        assertThat(e.column()).as(e.getMessage()).isEqualTo(column);
        assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
        assertThat(e.problem()).as(e.getMessage()).isEqualTo(problem);
    }
}
