package dev.allot.server.sched;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The loop's scenario tests' shared set-up, as a JUnit extension ({@code @RegisterExtension final LoopFixtures loops
 * = new LoopFixtures();}): {@link Fixture}s opened in a fresh folder per test, each in a sub-folder of its name, all
 * closed and the folder deleted after the test. It replaces the same eight lines (a temporary folder, a list of
 * fixtures, an after-each that closes them, a helper that opens one) copied into each test class.
 */
final class LoopFixtures implements BeforeEachCallback, AfterEachCallback {
    private final List<Fixture> opened = new ArrayList<>();
    private Path dir;

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("allot-loop-test");
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        opened.forEach(Fixture::close);
        opened.clear();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** A fixture of these teams (one allocation each, share 1) and nodes of these GPU counts, in folder {@code name}. */
    Fixture open(String name, List<String> teams, int... nodeGpus) {
        Fixture f = new Fixture(dir.resolve(name), teams, nodeGpus);
        opened.add(f);
        return f;
    }

    /** {@link #open(String, List, int...)} with one team, {@code a}. */
    Fixture open(String name, int... nodeGpus) {
        return open(name, List.of("a"), nodeGpus);
    }

    /** The fixtures opened in this test, in order. */
    List<Fixture> opened() {
        return List.copyOf(opened);
    }
}
