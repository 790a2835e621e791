package dev.allot.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Test folders removed with everything in them: the one way the server's fixtures clean up after themselves. */
public final class TestFolders {
    private TestFolders() {
    }

    /** Removes {@code root} and everything under it (nothing when it does not exist). */
    public static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not remove the test folder " + root, e);
        }
    }
}
