package dev.allot.sim.input;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes a file whole or not at all: the content goes to a hidden file beside it, which is moved over the file only
 * once complete. A command interrupted while writing (Ctrl-C during {@code allot generate --preset big}, a failing
 * disk) left a truncated {@code workloads.csv} that read as a scenario with fewer workloads, or a report cut short;
 * now the file holds either its earlier content or the new one. The hidden file is deleted when the write fails and,
 * through a shutdown hook, when the JVM exits during it (Ctrl-C).
 *
 * <p>A path that is not a regular file (a pipe, a device) is written in place, as is a file whose folder the user may
 * not write (the file itself may be writable) and a link to nothing yet; a link to a file is followed, and the file it
 * names replaced. A path that names this process's standard output or error ({@code /dev/stdout}, {@code /dev/fd/1},
 * {@code /proc/self/fd/1}, and for 2) is written to the stream itself, after what the command printed: followed as a
 * link, {@code --workloads-out /dev/stdout > out.txt} replaced {@code out.txt} by a new file of the workloads alone,
 * and opened in place it would have been truncated over what was printed before.
 */
public final class WholeFiles {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private WholeFiles() {
    }

    /** What writes the content: given the path to write (the hidden file beside the target, or the target). */
    @FunctionalInterface
    public interface Content {
        void writeTo(Path file) throws IOException;
    }

    /** Writes {@code file} through {@code content}, whole or not at all. */
    public static void write(Path file, Content content) throws IOException {
        write(file, content, System.out, System.err);
    }

    /** {@link #write(Path, Content)} with the streams a path naming standard output or error is written to. */
    static void write(Path file, Content content, java.io.OutputStream out, java.io.OutputStream err)
            throws IOException {
        int fd = standardStream(file);
        if (fd > 0) {
            toStream(content, fd == 1 ? out : err);
            return;
        }
        boolean link = Files.isSymbolicLink(file);
        // not a regular file (a device, a pipe, /dev/stdout), or a link to nothing yet: written in place
        boolean inPlace = Files.exists(file) ? !Files.isRegularFile(file) : link;
        Path target = link && !inPlace ? file.toRealPath() : file;
        Path folder = target.toAbsolutePath().getParent();
        if (inPlace || folder == null || !Files.isWritable(folder)) {
            content.writeTo(file);
            return;
        }
        Path part = folder.resolve("." + target.getFileName() + "." + ProcessHandle.current().pid() + "-"
                + SEQUENCE.incrementAndGet() + ".part");
        Thread cleanup = new Thread(() -> deleteQuietly(part), "allot-partial-file-cleanup");
        boolean hooked = addHook(cleanup);
        boolean done = false;
        try {
            try {
                content.writeTo(part);
            } catch (IOException e) {
                if (Files.exists(part, LinkOption.NOFOLLOW_LINKS)) {
                    throw e;
                }
                // The hidden file could not even be made (a folder that takes no new files, such as /proc): the file
                // is written in place, and a failure is the file's own, not one naming a hidden file the user never
                // asked for.
                content.writeTo(file);
                done = true;
                return;
            }
            keepPermissions(target, part);
            try {
                Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
            }
            done = true;
        } finally {
            if (!done) {
                deleteQuietly(part);
            }
            if (hooked) {
                removeHook(cleanup);
            }
        }
    }

    /** 1 or 2 when {@code file} names this process's standard output or error, else 0. */
    static int standardStream(Path file) {
        String p = file.toAbsolutePath().normalize().toString();
        String self = "/proc/" + ProcessHandle.current().pid() + "/fd/";
        for (int fd = 1; fd <= 2; fd++) {
            if (p.equals(fd == 1 ? "/dev/stdout" : "/dev/stderr") || p.equals("/dev/fd/" + fd)
                    || p.equals("/proc/self/fd/" + fd) || p.equals(self + fd)) {
                return fd;
            }
        }
        return 0;
    }

    /**
     * The content written to a hidden temporary file, then copied to {@code stream} (flushed: after what was printed
     * before, and before what is printed after); the temporary file is deleted whatever happens.
     */
    private static void toStream(Content content, java.io.OutputStream stream) throws IOException {
        Path part = Files.createTempFile("allot-", ".part");
        Thread cleanup = new Thread(() -> deleteQuietly(part), "allot-partial-file-cleanup");
        boolean hooked = addHook(cleanup);
        try {
            content.writeTo(part);
            if (stream == System.out || stream == System.err) {
                System.out.flush();
                System.err.flush();
            }
            Files.copy(part, stream);
            stream.flush();
        } finally {
            deleteQuietly(part);
            if (hooked) {
                removeHook(cleanup);
            }
        }
    }

    /** A file written over keeps who may read it (the hidden file was created with the defaults). */
    private static void keepPermissions(Path target, Path part) {
        try {
            if (Files.exists(target)) {
                Files.setPosixFilePermissions(part, Files.getPosixFilePermissions(target));
            }
        } catch (IOException | UnsupportedOperationException e) {
            // the defaults then, as for a new file
        }
    }

    private static boolean addHook(Thread hook) {
        try {
            Runtime.getRuntime().addShutdownHook(hook);
            return true;
        } catch (IllegalStateException e) {
            return false; // the JVM is already exiting: the finally block cleans up if the write fails
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // exiting: the hook runs, and finds nothing to delete
        }
    }

    private static void deleteQuietly(Path part) {
        try {
            Files.deleteIfExists(part);
        } catch (IOException e) {
            // a hidden leftover beside the file; nothing reads it
        }
    }
}
