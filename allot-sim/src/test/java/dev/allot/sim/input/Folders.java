package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Scenario folders for tests: copies of the fixtures under {@code src/test/resources/input/}, edited in place. */
final class Folders {
    static final List<String> FILES = List.of("cluster.yaml", "allocations.yaml", "workloads.csv", "workloads.jsonl",
            "policy.yaml");

    private Folders() {
    }

    /** The text of a fixture file, or null when the fixture has no such file. */
    static String resource(String fixture, String file) {
        try (InputStream in = Folders.class.getResourceAsStream("/input/" + fixture + "/" + file)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies a fixture into {@code parent/<fixture>} and returns that folder. */
    static Path copy(String fixture, Path parent) {
        Path dir = parent.resolve(fixture);
        for (String f : FILES) {
            String text = resource(fixture, f);
            if (text != null) {
                write(dir, f, text);
            }
        }
        return dir;
    }

    static void write(Path dir, String file, String text) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(file), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path dir, String file) {
        try {
            Files.deleteIfExists(dir.resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Scenario read(Path dir) {
        return ScenarioReader.read(dir, false, PolicyRegistry.standard());
    }

    static Scenario readLenient(Path dir) {
        return ScenarioReader.read(dir, true, PolicyRegistry.standard());
    }

    /** The error reading {@code dir} strictly; fails when there is none. */
    static InputException error(Path dir) {
        InputException[] caught = new InputException[1];
        assertThatThrownBy(() -> read(dir)).isInstanceOfSatisfying(InputException.class, e -> caught[0] = e);
        return caught[0];
    }
}
