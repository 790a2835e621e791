package dev.allot.server.backend;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The processes one test started, found so that the test can kill them afterwards, and no others. The module's
 * process-spawning stories ({@code HighAvailabilityTest} and the like) run beside its other tests (see
 * {@code junit-platform.properties}), so a test that killed every descendant of the JVM would kill their services and
 * workloads too.
 *
 * <p>A process is the test's own when one of its arguments names the test's directory (the local backend's wrappers
 * carry their attempts directory in their token), or its environment holds {@code variable=directory} (a marker every
 * launch of the test carries: a workload whose wrapper died is nobody's descendant any more, but Linux's /proc still
 * shows its environment); and so is every process below one of those.
 *
 * @param dir      the test's directory, absolute
 * @param variable the environment variable the test's launches carry naming {@code dir}; null for none
 */
public record OwnProcesses(Path dir, String variable) {
    public OwnProcesses {
        dir = dir.toAbsolutePath();
    }

    /** The test's processes alive now (each once; those found by arguments or environment before their children). */
    public List<ProcessHandle> find() {
        String inDir = dir + "/";
        String marker = variable == null ? null : variable + "=" + dir;
        Set<ProcessHandle> found = new LinkedHashSet<>();
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            all.filter(p -> p.pid() != ProcessHandle.current().pid())
                    .filter(p -> p.info().arguments().map(a -> Arrays.stream(a).anyMatch(x -> x.contains(inDir)))
                            .orElse(false) || marker != null && environmentOf(p).contains(marker))
                    .forEach(found::add);
        }
        List<ProcessHandle> withChildren = new ArrayList<>();
        for (ProcessHandle p : found) {
            withChildren.add(p);
            p.descendants().forEach(withChildren::add);
        }
        return withChildren.stream().distinct().toList();
    }

    /** SIGKILLs every process of the test ({@link #find}). */
    public void kill() {
        find().forEach(ProcessHandle::destroyForcibly);
    }

    /** A process's environment, one {@code NAME=value} per entry; empty when it is gone or unreadable. */
    public static List<String> environmentOf(ProcessHandle process) {
        try {
            byte[] bytes = Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "environ"));
            return List.of(new String(bytes, StandardCharsets.ISO_8859_1).split("\0"));
        } catch (IOException | RuntimeException unreadable) {
            return List.of();
        }
    }
}
