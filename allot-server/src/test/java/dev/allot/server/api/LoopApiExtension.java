package dev.allot.server.api;

import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For each test, the API in front of a real scheduling loop on a fresh store ({@link ApiFixture#withSchedulingLoop}),
 * on a clock the test moves, closed and removed after the test. Register it with
 * {@code @RegisterExtension final LoopApiExtension fx = new LoopApiExtension();} and use {@link #api}, {@link #loop}
 * and {@link #clock}.
 */
final class LoopApiExtension implements BeforeEachCallback, AfterEachCallback {
    final MutableClock clock = new MutableClock(ApiFixture.NOW);
    ApiFixture api;
    SchedulerLoop loop;
    private Path dataDir;

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dataDir = Files.createTempDirectory("allot-api-loop");
        api = ApiFixture.withSchedulingLoop(dataDir, clock);
        loop = api.loop;
    }

    /**
     * The fixture again on a fresh store, its simulated backend seen through {@code backend} (e.g. one that refuses
     * starts or reports them unconfirmed); the first one is closed.
     */
    ApiFixture with(java.util.function.UnaryOperator<dev.allot.core.backend.Backend> backend) {
        api.close();
        api = ApiFixture.withSchedulingLoop(dataDir.resolve("with"), clock, backend);
        loop = api.loop;
        return api;
    }

    /** The fixture again on a fresh store over the real local backend ({@link ApiFixture#onTheLocalBackend}). */
    ApiFixture onTheLocalBackend() {
        api.close();
        api = ApiFixture.onTheLocalBackend(dataDir.resolve("local"), clock);
        loop = api.loop;
        return api;
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        ApiExtension.closeAndRemove(api, dataDir);
    }
}
