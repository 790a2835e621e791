package dev.allot.server.api;

import dev.allot.server.TestFolders;
import dev.allot.server.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For each test, the API over a fresh store with {@link ApiFixture}'s small lab (no scheduling loop; for one see
 * {@link LoopApiExtension}), closed and removed after the test. Register it with
 * {@code @RegisterExtension final ApiExtension fx = new ApiExtension();} and use {@link #api}.
 */
final class ApiExtension implements BeforeEachCallback, AfterEachCallback {
    ApiFixture api;
    private Path dataDir;

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dataDir = Files.createTempDirectory("allot-api");
        api = new ApiFixture(dataDir.resolve("fixed"));
    }

    /** The fixture again, on a fresh store, on a clock the test moves (the first one is closed). */
    MutableClock clocked() {
        api.close();
        MutableClock clock = new MutableClock(ApiFixture.NOW);
        api = new ApiFixture(dataDir.resolve("clocked"), clock, store -> WorkloadExplainer.NONE);
        return clock;
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
