package dev.allot.server.service;

import dev.allot.server.OwnerOnlyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One running service per data directory. Two services on one folder would adopt each other's attempts, schedule the
 * same GPUs twice and overwrite each other's {@code service.json}; so a service holds an exclusive lock on
 * {@value #FILE} in its data directory ({@link FileChannel#tryLock}, an OS lock) from before it touches anything there
 * until it is closed, and a second start on the same folder fails at once, naming the holder's pid and address (which
 * the holder writes into the file: {@code pid=}, {@code started=}, {@code url=} lines). The OS releases the lock
 * when its process ends, however it ends, so a lock left by a killed service never blocks the next start; the file
 * itself stays. The lock covers whatever lives in the data directory: the SQLite store, the local backend's attempt
 * files, the tokens and {@code service.json}. A PostgreSQL store is not in the folder: two services with different
 * data directories on one database are not stopped by it.
 */
public final class DataDirLock implements AutoCloseable {
    /** The lock file's name in the data directory. */
    public static final String FILE = "service.lock";

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final Instant started = Instant.now();

    private DataDirLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the data directory's lock for this process, creating the directory (0700) and the lock file (0600) if
     * missing, and records this process's pid in it.
     *
     * @throws IllegalStateException if another service holds it (in this process or another), naming it
     * @throws UncheckedIOException if the lock file cannot be created or locked
     */
    public static DataDirLock acquire(Path dataDir) {
        OwnerOnlyFiles.directory(dataDir);
        Path file = dataDir.resolve(FILE);
        OwnerOnlyFiles.file(file);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock = tryLock(channel);
            if (lock == null) {
                throw inUse(dataDir);
            }
            DataDirLock held = new DataDirLock(file, channel, lock);
            held.record(null);
            return held;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot lock the data directory " + dataDir + " (" + file + "): "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /**
     * Fails if a service holds the data directory's lock; creates nothing (a missing folder or lock file is free).
     *
     * @throws IllegalStateException naming the holder
     */
    public static void checkFree(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock = tryLock(channel);
            if (lock == null) {
                throw inUse(dataDir);
            }
            lock.release();
        } catch (NoSuchFileException gone) {
            // removed meanwhile: free
        } catch (IOException e) {
            throw new UncheckedIOException("cannot check the lock of the data directory " + dataDir + " (" + file
                    + "): " + e.getMessage(), e);
        }
    }

    /** The lock, or null when another holds it; a lock of this very process counts as another's. */
    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException heldInThisProcess) {
            return null;
        }
    }

    /** Records where this service listens, for the message a second start prints. */
    public void listening(String url) {
        record(url);
    }

    private synchronized void record(String url) {
        String text = "pid=" + ProcessHandle.current().pid() + "\nstarted=" + started + "\n"
                + (url == null ? "" : "url=" + url + "\n");
        try {
            channel.truncate(0);
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            long at = 0;
            while (bytes.hasRemaining()) {
                at += channel.write(bytes, at);
            }
            channel.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Who holds the lock, as far as the lock file (and, for the address, {@code service.json}) says. */
    private static IllegalStateException inUse(Path dataDir) {
        Map<String, String> holder = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(dataDir.resolve(FILE), StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    holder.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // described as unknown below
        }
        String pid = holder.get("pid");
        String url = Optional.ofNullable(holder.get("url")).orElseGet(() -> serviceJsonUrl(dataDir, pid));
        return new IllegalStateException("the data directory " + dataDir.toAbsolutePath().normalize()
                + " is in use by another Allot service (pid " + (pid == null ? "unknown" : pid)
                + (url == null ? ", not yet listening" : ", listening on " + url)
                + (holder.containsKey("started") ? ", started " + holder.get("started") : "")
                + "); stop it first, or give this one another --data-dir");
    }

    /** The url in {@code service.json} if it was written by {@code pid}. */
    private static String serviceJsonUrl(Path dataDir, String pid) {
        try {
            String json = Files.readString(dataDir.resolve(ServiceFiles.SERVICE_JSON), StandardCharsets.UTF_8);
            java.util.regex.Matcher url = java.util.regex.Pattern.compile("\"url\":\"([^\"]*)\"").matcher(json);
            java.util.regex.Matcher p = java.util.regex.Pattern.compile("\"pid\":(\\d+)").matcher(json);
            return url.find() && p.find() && p.group(1).equals(pid) ? url.group(1) : null;
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
    }

    /** Releases the lock (the file stays, for the next start to lock). */
    @Override
    public synchronized void close() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } catch (IOException e) {
            // the channel's close below releases it too
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing held that the OS does not release
        }
    }
}
