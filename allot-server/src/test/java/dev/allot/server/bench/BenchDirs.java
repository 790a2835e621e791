package dev.allot.server.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where a benchmark keeps its stores: the folder {@code --dir} names (kept, for a look afterwards), else a temporary
 * folder removed when the JVM exits, so repeated runs do not leave gigabytes of SQLite stores behind in /tmp.
 */
final class BenchDirs {
    private BenchDirs() {
    }

    /** {@code dir} created if needed, or (null) a fresh temporary folder deleted with everything in it at exit. */
    static Path root(String dir) throws IOException {
        if (dir != null) {
            return Files.createDirectories(Path.of(dir));
        }
        Path temp = Files.createTempDirectory("allot-bench");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(temp), "allot-bench-cleanup"));
        return temp;
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not remove the benchmark's folder " + root, e);
        }
    }
}
