package dev.allot.sim.input;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The one rule for the true cause of "no such file or directory" when making a file or folder in a folder that
 * exists: that folder takes no new entries (a virtual file system such as {@code /proc} or {@code /sys}, where even
 * root may not). The system's words blamed a missing file: the CLI's outputs ({@code --csv /proc/nope/x.csv}) and
 * the service's data directory ({@code allot serve --data-dir /proc/d}) both said "no such file or directory" of a
 * path whose missing folders are otherwise made.
 */
public final class VirtualFolders {
    private VirtualFolders() {
    }

    /**
     * Why {@code p} could not be made, when the system answered "no such file or directory" though its folder exists:
     * "the folder /proc takes no new files or folders (...)". Empty when {@code p}'s folder is missing too (the
     * system's words are then true), or {@code p} exists.
     */
    public static Optional<String> whyNotMade(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path folder = abs.getParent();
        if (folder == null || !Files.isDirectory(folder) || Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        return Optional.of("the folder " + folder + " takes no new files or folders (a virtual file system such as"
                + " /proc or /sys)");
    }
}
