package dev.allot.it;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A class-data-sharing archive of {@code allot serve}'s classes for the stories' service processes
 * ({@link Story#startProcess}), which then start in about half the time (measured back to back on an overloaded
 * 2-core machine, {@code allot serve} to {@code service.json}: 4.9 s instead of 9.9-12.5 s; 16-20 s instead of
 * 30-38 s). Until the test run has one, every service is started to write one when it exits
 * ({@code -XX:ArchiveClassesAtExit}; a JVM writes it only on a normal exit, so a SIGKILLed service writes none, and the
 * one that does takes a few seconds more to stop, once); the first written is kept for the run, and every service
 * started after it reads its classes from it ({@code -XX:SharedArchiveFile}): in a whole run the fault story's
 * second service writes it, the high-availability and identity stories' six starts read it. Same classes, same code:
 * a JVM that finds the archive unusable says so in the service's log and starts as without it.
 *
 * <p>The JVM refuses to start with an archive option while a non-empty directory precedes a jar on its class path, so
 * the service gets the test class path with this module's own test classes (which it does not use) moved last, and
 * no archive at all if another directory remains (reactor modules not packaged yet, under {@code mvn test}).
 */
final class ServeClassArchive {
    private static final Path DIR = tempDir();
    private static final Path ARCHIVE = DIR.resolve("allot-serve.jsa");
    private static final AtomicInteger DUMPS = new AtomicInteger();

    /** One service's start: its class path, its archive options, and where it writes an archive (null: it writes none). */
    record Start(String classPath, List<String> options, Path writes) {
    }

    private ServeClassArchive() {
    }

    /** For a service about to start. */
    static Start next() {
        List<String> entries = new ArrayList<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        String own = ownTestClasses();
        if (entries.remove(own)) {
            entries.add(own);
        }
        String classPath = String.join(File.pathSeparator, entries);
        boolean jarsFirst = entries.subList(0, entries.size() - 1).stream().noneMatch(e -> Files.isDirectory(Path.of(e)));
        if (!jarsFirst) {
            return new Start(classPath, List.of(), null);
        }
        if (Files.isRegularFile(ARCHIVE)) {
            return new Start(classPath, List.of("-XX:SharedArchiveFile=" + ARCHIVE), null);
        }
        Path writes = DIR.resolve("dump-" + DUMPS.incrementAndGet() + ".jsa");
        return new Start(classPath, List.of("-XX:ArchiveClassesAtExit=" + writes), writes);
    }

    /**
     * After the service's JVM is gone: if it exited on its own terms ({@code normalExit}; not SIGKILLed, which may cut
     * an archive short), what it wrote becomes the run's archive, unless there is one already.
     */
    static void exited(Start start, boolean normalExit) {
        if (start == null || start.writes() == null) {
            return;
        }
        try {
            if (normalExit && Files.isRegularFile(start.writes()) && !Files.exists(ARCHIVE)) {
                Files.move(start.writes(), ARCHIVE, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.deleteIfExists(start.writes());
        } catch (IOException e) {
            // no archive kept: later services start without one, as before
        }
    }

    private static String ownTestClasses() {
        try {
            return Path.of(ServeClassArchive.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path tempDir() {
        try {
            Path dir = Files.createTempDirectory("allot-it-cds");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                    Files.deleteIfExists(dir);
                } catch (IOException ignored) {
                    // a temporary folder left behind
                }
            }));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
