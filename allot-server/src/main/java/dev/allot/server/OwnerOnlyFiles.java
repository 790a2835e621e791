package dev.allot.server;

import dev.allot.server.store.Store;
import dev.allot.sim.input.VirtualFolders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data directory and its secrets belong to the service's user alone: the directory is 0700 (no one else may
 * even list it, so a workload cannot reach the attempts' files either), the store's files ({@code allot.db} and its
 * {@code -wal}, {@code -shm} and {@code -journal}) and the token and state files 0600. They are made so at creation
 * and tightened at every start if found looser (an older version, a copy, an umask of 000), each change logged. A
 * file system without POSIX permissions is left as it is.
 */
public final class OwnerOnlyFiles {
    private static final Logger LOG = LoggerFactory.getLogger(OwnerOnlyFiles.class);
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    /** The data directory's files that hold secrets or the store, besides the SQLite files. */
    private static final List<String> SECRETS = List.of("admin-token", "demo-token", "service.json");

    private OwnerOnlyFiles() {
    }

    /** Creates the directory (and missing parents' last level) 0700 if missing; tightens it if looser. */
    public static void directory(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Path parent = dir.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
                } catch (FileAlreadyExistsException raced) {
                    // made meanwhile: tightened below
                } catch (UnsupportedOperationException noPosix) {
                    Files.createDirectories(dir);
                }
            }
            tighten(dir, DIRECTORY);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory " + dir + ": " + reason(e), e);
        }
    }

    /**
     * Why making a file or folder failed, in words ("permission denied", "no such file or directory"): the message
     * of a {@link java.nio.file.FileSystemException} is often the path alone ("/proc/d"), which says nothing. "No such
     * file" of a path whose folder exists is said as its true cause ({@link VirtualFolders}): {@code --data-dir
     * /proc/d} said "no such file or directory" of /proc.
     */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException f && f.getFile() != null) {
            Optional<String> why = VirtualFolders.whyNotMade(Path.of(f.getFile()));
            if (why.isPresent()) {
                return why.get();
            }
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null && !f.getReason().isBlank()) {
            return f.getReason().substring(0, 1).toLowerCase(java.util.Locale.ROOT) + f.getReason().substring(1);
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "a file of that name exists";
        }
        if (e instanceof java.nio.file.NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof java.nio.file.FileSystemException) {
            return "the file system refused it (" + e.getClass().getSimpleName() + ")";
        }
        return e.getMessage();
    }

    /** Creates an empty file 0600 if missing (so that whoever opens it later does not create it world-readable). */
    public static void file(Path file) {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
        } catch (FileAlreadyExistsException exists) {
            tighten(file, FILE);
        } catch (UnsupportedOperationException noPosix) {
            try {
                Files.createFile(file);
            } catch (FileAlreadyExistsException exists) {
                // fine
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + file + ": " + e.getMessage(), e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes a whole file 0600, atomically (temp file, then rename). */
    public static void write(Path file, String text) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = dir.resolve(file.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            try {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(FILE));
            } catch (UnsupportedOperationException e) {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes the data directory 0700 and the store's, token and state files in it 0600 where they are looser;
     * returns what it changed (also logged).
     */
    public static List<String> secureDataDir(Path dataDir) {
        List<String> changed = new ArrayList<>();
        if (Files.isDirectory(dataDir)) {
            tighten(dataDir, DIRECTORY).ifPresent(changed::add);
        } else {
            directory(dataDir);
        }
        List<String> names = new ArrayList<>(SECRETS);
        for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
            names.add(Store.SQLITE_FILE + suffix);
        }
        for (String name : names) {
            tighten(dataDir.resolve(name), FILE).ifPresent(changed::add);
        }
        return changed;
    }

    /**
     * Removes from {@code path}'s permissions whatever {@code most} does not allow; says what changed, empty when
     * nothing did (also when the path is missing, a symbolic link, or has no POSIX permissions).
     */
    public static Optional<String> tighten(Path path, Set<PosixFilePermission> most) {
        try {
            if (Files.isSymbolicLink(path)) {
                return Optional.empty();
            }
            Set<PosixFilePermission> now = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
            if (most.containsAll(now)) {
                return Optional.empty();
            }
            Set<PosixFilePermission> tight = java.util.EnumSet.noneOf(PosixFilePermission.class);
            tight.addAll(now);
            tight.retainAll(most);
            Files.setPosixFilePermissions(path, tight);
            String what = "tightened the permissions of " + path + " from " + PosixFilePermissions.toString(now)
                    + " to " + PosixFilePermissions.toString(tight);
            LOG.warn(what);
            return Optional.of(what);
        } catch (NoSuchFileException | UnsupportedOperationException absentOrNoPosix) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restrict the permissions of " + path + ": " + e.getMessage(), e);
        }
    }
}
