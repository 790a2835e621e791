package dev.allot.server.api;

import dev.allot.server.TestFolders;
import dev.allot.server.store.Store;
import dev.allot.server.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For each test, the API over a fresh store with {@link ApiFixture}'s small lab (no scheduling loop; for one see
 * {@link LoopApiExtension}), closed and removed after the test. Register it with
 * {@code @RegisterExtension final ApiExtension fx = new ApiExtension();} and use {@link #api}.
 *
 * <p>A test that needs a store of its own and an API with more than the lab's {@link ApiServer.Extras#none() none}
 * (an identity gate, nodes that come from a backend) registers {@link #over} instead; one whose API depends on
 * what the test decides first registers {@link #startedByEachTest} and calls {@link #start}. Either way the one
 * extension closes and removes what it started, so no test builds its server by hand.
 */
final class ApiExtension implements BeforeEachCallback, AfterEachCallback {
    ApiFixture api;
    private Path dataDir;
    /** What each test begins with, in the data directory; null: nothing until the test calls {@link #start}. */
    private final Function<Path, ApiFixture> first;
    private int started;

    /** The lab behind an API with no extras, before each test. */
    ApiExtension() {
        this(dir -> new ApiFixture(dir.resolve("fixed")));
    }

    private ApiExtension(Function<Path, ApiFixture> first) {
        this.first = first;
    }

    /** Before each test, a fresh store that {@code seed} fills (not the lab), behind an API with {@code extras}. */
    static ApiExtension over(Consumer<Store> seed, ApiServer.Extras extras) {
        return new ApiExtension(dir -> new ApiFixture(dir.resolve("own"), seed, extras));
    }

    /** No API until the test calls {@link #start} (with extras it decides first, e.g. its identity mode). */
    static ApiExtension startedByEachTest() {
        return new ApiExtension(null);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dataDir = Files.createTempDirectory("allot-api");
        api = first == null ? null : first.apply(dataDir);
    }

    /**
     * The API on a fresh store that {@code seed} fills, with {@code extras}, on the fixed clock; the one running
     * before, if any, is closed.
     */
    ApiFixture start(Consumer<Store> seed, ApiServer.Extras extras) {
        closeRunning();
        api = new ApiFixture(dataDir.resolve("started-" + ++started), seed, extras);
        return api;
    }

    /** The fixture again, on a fresh store, on a clock the test moves (the first one is closed). */
    MutableClock clocked() {
        closeRunning();
        MutableClock clock = new MutableClock(ApiFixture.NOW);
        api = new ApiFixture(dataDir.resolve("clocked"), clock, store -> WorkloadExplainer.NONE);
        return clock;
    }

    private void closeRunning() {
        if (api != null) {
            api.close();
            api = null;
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        closeAndRemove(api, dataDir);
    }

    /** Closes {@code api} (when there is one), then removes {@code dataDir} with everything in it. */
    static void closeAndRemove(ApiFixture api, Path dataDir) throws IOException {
        try {
            if (api != null) {
                api.close();
            }
        } finally {
            TestFolders.deleteTree(dataDir);
        }
    }
}
