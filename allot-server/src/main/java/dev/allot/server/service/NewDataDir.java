package dev.allot.server.service;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A data directory that a failed start made: removed again rather than left behind holding nothing but its lock
 * file, which made the next {@code allot serve} on that path look like one on a used directory. Only what the start
 * made goes, and only while it is empty but for the lock: a directory that existed before, or into which anything
 * else was written, is kept.
 */
final class NewDataDir {
    private NewDataDir() {
    }

    /** The outermost folder of {@code dataDir} (itself included) that does not exist yet; null when it exists. */
    static Path firstMissing(Path dataDir) {
        Path missing = null;
        for (Path p = dataDir.toAbsolutePath().normalize(); p != null && !Files.exists(p); p = p.getParent()) {
            missing = p;
        }
        return missing;
    }

    /**
     * Removes {@code dataDir}'s file {@code lockFile} and the folders from {@code dataDir} up to {@code madeFrom}
     * (what {@link #firstMissing} said before the start made them), as long as each holds nothing else. Does
     * nothing when {@code madeFrom} is null; never fails (a folder it cannot remove is left as it is).
     */
    static void removeIfUnused(Path dataDir, Path madeFrom, String lockFile) {
        if (madeFrom == null) {
            return;
        }
        Path dir = dataDir.toAbsolutePath().normalize();
        try {
            if (!onlyHolds(dir, lockFile)) {
                return;
            }
            Files.deleteIfExists(dir.resolve(lockFile));
            for (Path p = dir; p != null && p.startsWith(madeFrom); p = p.getParent()) {
                if (!onlyHolds(p, null)) {
                    return;
                }
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException e) {
            // left as it is: the start's own error is what the user needs to read
        }
    }

    /** Whether folder {@code dir} holds nothing but {@code name} (nothing at all when null). */
    private static boolean onlyHolds(Path dir, String name) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                if (name == null || !e.getFileName().toString().equals(name)) {
                    return false;
                }
            }
        }
        return true;
    }
}
