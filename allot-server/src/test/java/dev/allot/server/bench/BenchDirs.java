package dev.allot.server.bench;

import dev.allot.server.TestFolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
        TestFolders.deleteTree(root);
    }
}
