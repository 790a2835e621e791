package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's GPU count is what one machine holds: an administrator's typo of it (1000000000 for 1000) is refused, naming
 * the field and the most a node may have. It was taken, and the scheduler, which keeps books for every GPU, ran out of
 * memory at its next cycle and at every cycle after (GET /v1/health: failing, OutOfMemoryError).
 */
class NodeGpuCountApiTest {
    @TempDir
    Path dataDir;

    private ApiFixture api;

    @AfterEach
    void stop() {
        if (api != null) {
            api.close();
        }
    }

    @Test
    void givenARunningService_whenAnAdministratorMistypesANodesGpuCount_thenItIsRefusedNamingTheLimitAndTheNodeKeepsItsCount() {
        // given the fixture's lab and its node gpu-01 of 8 GPUs, scheduled by a loop
        api = ApiFixture.withSchedulingLoop(dataDir, new MutableClock(ApiFixture.NOW));
        api.loop.runOnce();

        // when an administrator sets its count to a billion GPUs
        Response r = api.put("/v1/nodes/gpu-01", "tok-root", "{\"gpus\": 1000000000}");

        // then it is refused with a 400 naming the field and the most one node may have
        assertThat(r.status()).as("%s", r.json()).isEqualTo(400);
        assertThat(r.field()).isEqualTo("gpus");
        assertThat(r.error()).isEqualTo("field 'gpus': expected a whole number from 1 to 4,096 (the GPUs of one"
                + " machine), got 1000000000");
        // and the node keeps its 8 GPUs, the next cycle running as before
        api.loop.runOnce();
        assertThat(api.get("/v1/nodes", "tok-root").json().toString()).contains("\"gpus\":8");
        // while the most a node may have is taken
        assertThat(api.put("/v1/nodes/gpu-01", "tok-root", "{\"gpus\": 4096}").status()).isEqualTo(200);
    }
}
