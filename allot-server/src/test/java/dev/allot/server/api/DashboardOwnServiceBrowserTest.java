package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in real headless Chromium on services of their own, each test with its own story apart from
 * {@link DashboardBrowserTest}'s lab: a backend that has accepted a start and not yet confirmed it (the workload page
 * says starting, then running), and a new service with users and nothing else (the Allocations and Nodes pages say
 * there are none yet and how an administrator adds them), and a start deferred until the work it preempted has
 * stopped (the queue page says pending (about to start), as {@code allot queue} does).
 */
@ExtendWith(HeadlessChromium.class)
class DashboardOwnServiceBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    static HeadlessChromium browser;

    @BeforeAll
    static void start(HeadlessChromium chromium) {
        browser = chromium;
    }

    private static void ready() {
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
    }

    @Test
    void aWorkloadWhoseStartTheBackendHasNotConfirmedIsShownStartingUntilItIsSeenRunning(@TempDir Path ownData) {
        // given a service of its own whose backend has accepted owner's workload but not yet reported it running
        StartingWorkloadApiTest.UnconfirmedBackend[] backend = new StartingWorkloadApiTest.UnconfirmedBackend[1];
        MutableClock ownClock = new MutableClock(ApiFixture.NOW);
        try (ApiFixture own = ApiFixture.withSchedulingLoop(ownData, ownClock,
                simulated -> backend[0] = new StartingWorkloadApiTest.UnconfirmedBackend(simulated))) {
            ApiFixture.Response submitted = own.submit("owner", body("gpus", "1", "gpusPerNode", "0"));
            assertThat(submitted.status()).as("%s", submitted.json()).isEqualTo(201);
            String id = submitted.json().path("id").asText();
            own.loop.runOnce();
            ownClock.advance(Duration.ofSeconds(5));
            own.loop.runOnce();
            assertThat(own.get("/v1/workloads/" + id, "tok-owner").json().path("workload").path("starting")
                    .asBoolean()).isTrue();
            String origin = "http://localhost:" + own.server.port();
            browser.open(origin + "/signin");
            browser.clearCookies();
            browser.signIn(origin, "tok-owner", "/workloads/" + id);
            ready();

            // then its page says starting (it said running), and why when asked
            assertThat(browser.text("dd.state")).isEqualTo("starting");
            assertThat(browser.one("dd.state span").getAttribute("title"))
                    .contains("the backend has not yet confirmed its start");

            // when the backend reports it running, the page says running
            backend[0].confirming = true;
            ownClock.advance(Duration.ofSeconds(5));
            own.loop.runOnce();
            browser.open(origin + "/workloads/" + id);
            ready();
            assertThat(browser.text("dd.state")).isEqualTo("running");
            assertThat(browser.all("dd.state span")).isEmpty();
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void aWorkloadWhoseStartIsDeferredIsShownPendingAboutToStartOnTheQueuePageAsAllotQueueSaysIt(@TempDir Path ownData) {
        // given a service of its own where pretrain preempted detect and waits for detect's process to stop
        DeferredStartExplainTest.HoldsStops[] backend = new DeferredStartExplainTest.HoldsStops[1];
        MutableClock ownClock = new MutableClock(ApiFixture.NOW);
        try (ApiFixture own = ApiFixture.withSchedulingLoop(ownData, ownClock,
                simulated -> backend[0] = new DeferredStartExplainTest.HoldsStops(simulated))) {
            String detect = submitted(own, "ms-member", body("allocation", "\"lab/vision/detect\"", "gpusPerNode", "0",
                    "minRuntime", "\"1h\"", "duration", "\"1d\""));
            own.loop.runOnce();
            String pretrain = submitted(own, "member", body("gpusPerNode", "0", "minRuntime", "\"2h\"", "duration",
                    "\"1d\""));
            own.loop.runOnce();
            ownClock.advance(Duration.ofHours(1));
            own.loop.runOnce();
            assertThat(backend[0].stopped).containsExactly(detect);
            assertThat(own.loop.deferredLaunches()).containsExactly(pretrain);

            // when the queue page is opened
            String origin = "http://localhost:" + own.server.port();
            browser.open(origin + "/signin");
            browser.clearCookies();
            browser.signIn(origin, "tok-member", "/queue");
            ready();

            // then pretrain is pending (about to start), with no place, as allot queue prints it (it said pending)
            String row = "#queue tbody tr[data-id='" + pretrain + "'] ";
            assertThat(browser.text(row + ".state")).isEqualTo("pending (about to start)");
            assertThat(browser.text(row + ".pos")).isEqualTo("\u2013");
            assertThat(browser.one(row + ".state span").getAttribute("title"))
                    .isEqualTo("the scheduler has given it GPUs that work it stopped still holds, and starts it as"
                            + " soon as that work has ended");
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    private static String submitted(ApiFixture own, String user, String body) {
        ApiFixture.Response r = own.submit(user, body);
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    @Test
    void aNewServiceWithoutAllocationsOrNodesSaysSoAndHowAnAdministratorAddsThem(@TempDir Path ownData) {
        // given a service of its own with users and nothing else: no allocation, no node
        try (ApiFixture own = ApiFixture.withSchedulingLoopAndUsersOnly(ownData, new MutableClock(ApiFixture.NOW))) {
            own.loop.runOnce();
            String origin = "http://localhost:" + own.server.port();
            browser.open(origin + "/signin");
            browser.clearCookies();
            browser.signIn(origin, "tok-member", "/allocations");
            ready();

            // then the allocations page says there are none yet and the command that makes them, with no empty chart
            assertThat(browser.all("#tree tbody tr")).hasSize(1);
            assertThat(browser.text("#no-allocations")).startsWith("No allocations yet.")
                    .contains("allot budget set PATH --share W");
            assertThat(browser.one("#chart").isDisplayed()).isFalse();
            // and the nodes page that there are none yet and what registers them, as the README's service section says
            browser.open(origin + "/nodes");
            ready();
            assertThat(browser.all("#nodes tbody tr")).hasSize(1);
            assertThat(browser.text("#no-nodes")).startsWith("No nodes registered yet.")
                    .contains("allot serve", "allot nodes set NAME --gpus N (PUT /v1/nodes/NAME {\"gpus\": N})",
                            "Slurm's node list");
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }
}
