package dev.allot.server.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * How the service-process stories start a {@link ServiceMain} JVM ({@link ServiceTestSupport#startServiceProcess}):
 * with a class-data-sharing archive (AppCDS) of the classes a service loads, made once per test JVM. A service JVM
 * spends most of its start loading and verifying some 6,000 classes (Jetty, Jackson, Jdbi, Flyway, Allot's own); the
 * high-availability and crash-safety stories start 40 or so and mostly wait for them (a round of kills waits for a
 * replacement to listen). Mapped from the archive, a start took some 40% less on this project's loaded 2-core machine
 * (2.7-3.0 s against 4.4-5.5 s, alternated); making it costs 6-10 s once. Nothing a story proves depends on how fast
 * a service starts: the same command, the same classes, only loaded from the archive.
 *
 * <p>The JDK archives classes only from jar files, so the test class path's directories ({@code target/classes} of the
 * modules) are packed into jars first, in the same order. The archive is dumped by one service run on a throwaway
 * SQLite data directory, stopped with SIGTERM (the JVM writes the archive as it exits). If anything of this fails the
 * services start as before, without an archive, and the reason is printed once; a JVM that cannot map the archive
 * runs without it ({@code -Xshare:auto}, the default).
 */
final class ServiceJvm {
    /** The options every service JVM of the tests runs with: a small heap, quick to start. */
    private static final List<String> OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final Duration DUMP_WAIT = Duration.ofSeconds(180);

    /** The options and class path of the service JVMs, made on first use; null until then. */
    private static List<String> prefix;

    private ServiceJvm() {
    }

    /** {@code java}, its options and class path, up to the main class: what a service JVM's command starts with. */
    static synchronized List<String> command() {
        if (prefix == null) {
            prefix = make();
        }
        List<String> c = new ArrayList<>();
        c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        c.addAll(prefix);
        return c;
    }

    private static List<String> make() {
        String classPath = System.getProperty("java.class.path");
        List<String> plain = new ArrayList<>(OPTIONS);
        plain.addAll(List.of("-cp", classPath));
        long t0 = System.nanoTime();
        try {
            Path dir = Files.createTempDirectory("allot-service-jvm");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(dir)));
            String jarred = jarDirectories(classPath, dir);
            Path archive = dir.resolve("service.jsa");
            dump(jarred, archive, dir);
            List<String> shared = new ArrayList<>(OPTIONS);
            shared.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-cp", jarred));
            System.out.printf("ServiceJvm: service JVMs start with a class-data-sharing archive (%d MB, made in %d"
                    + " ms)%n", Files.size(archive) >> 20, (System.nanoTime() - t0) / 1_000_000);
            return shared;
        } catch (IOException | RuntimeException e) {
            System.out.println("ServiceJvm: service JVMs start without a class-data-sharing archive: " + e);
            return plain;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return plain;
        }
    }

    /** The class path with each directory on it replaced by a jar of its files, in {@code into}. */
    private static String jarDirectories(String classPath, Path into) throws IOException {
        List<String> out = new ArrayList<>();
        int n = 0;
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            if (!Files.isDirectory(p)) {
                out.add(entry);
                continue;
            }
            Path jar = into.resolve("classes-" + ++n + ".jar");
            try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(jar));
                 Stream<Path> files = Files.walk(p)) {
                for (Path f : files.filter(f -> !f.equals(p)).sorted().toList()) {
                    String name = p.relativize(f).toString().replace(java.io.File.separatorChar, '/');
                    // directories too: what looks resources up by their folder needs them (Flyway's migrations)
                    boolean folder = Files.isDirectory(f);
                    j.putNextEntry(new JarEntry(folder ? name + "/" : name));
                    if (!folder) {
                        Files.copy(f, j);
                    }
                    j.closeEntry();
                }
            }
            out.add(jar.toString());
        }
        return String.join(java.io.File.pathSeparator, out);
    }

    /** Runs a service on a throwaway SQLite data directory until it listens, then stops it: it writes the archive. */
    private static void dump(String classPath, Path archive, Path dir) throws IOException, InterruptedException {
        Path data = dir.resolve("data");
        Path log = dir.resolve("dump.log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(OPTIONS);
        command.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-cp", classPath, ServiceMain.class.getName(),
                "--data-dir", data.toString(), "--port", "0", "--backend", "local", "--gpus", "8", "--tick-ms",
                "100", "--single-user-host", "true"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Path json = data.resolve(ServiceFiles.SERVICE_JSON);
        try {
            ServiceTestSupport.await("the archiving service listens (log: " + log + ")", DUMP_WAIT, () -> {
                if (!p.isAlive()) {
                    throw new IllegalStateException("the archiving service exited with " + p.exitValue() + "; "
                            + tail(log));
                }
                return Files.exists(json);
            });
        } catch (AssertionError timedOut) {
            throw new IllegalStateException(timedOut.getMessage());
        } finally {
            p.destroy(); // SIGTERM: the JVM exits, writing the archive
            if (!p.waitFor(DUMP_WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
        if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
            throw new IllegalStateException("the archiving service wrote no archive; " + tail(log));
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return "its log ends: " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
        } catch (IOException e) {
            return "its log is unreadable: " + e.getMessage();
        }
    }

    private static void deleteQuietly(Path dir) {
        try {
            dev.allot.server.TestFolders.deleteTree(dir);
        } catch (RuntimeException e) {
            // a temporary directory left behind
        }
    }
}
