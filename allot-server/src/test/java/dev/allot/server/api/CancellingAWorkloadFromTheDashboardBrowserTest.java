package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cancelling a workload from its dashboard page, in real headless Chromium against a real API and scheduling loop
 * ({@link ApiFixture}'s lab, a service of each story's own): the walk-through found no way to cancel from the
 * dashboard although the API has {@code POST /v1/workloads/{id}/cancel}. Its owner and a manager above it have a
 * Cancel button while it waits or runs, which asks first and then shows it cancelled (a running one: cancel
 * requested, then cancelled once the scheduler has stopped it); someone else has no button, and the API still refuses
 * them when they try anyway.
 */
@ExtendWith(HeadlessChromium.class)
class CancellingAWorkloadFromTheDashboardBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** member's workload filling the lab's one healthy node (8 GPUs), started; a second one of member's waits. */
    private record Lab(ApiFixture api, String running, String waiting) {
        String origin() {
            return "http://localhost:" + api.server.port();
        }

        String state(String id) {
            return api.get("/v1/workloads/" + id, "tok-root").json().path("workload").path("state").asText();
        }
    }

    private static Lab lab(Path dir) {
        ApiFixture api = ApiFixture.withSchedulingLoop(dir, new MutableClock(ApiFixture.NOW));
        String running = submit(api, body("gpusPerNode", "0", "minRuntime", "\"1h\"", "duration", "\"1d\""));
        api.loop.runOnce();
        String waiting = submit(api, body("gpus", "2", "gpusPerNode", "0"));
        api.loop.runOnce();
        Lab lab = new Lab(api, running, waiting);
        assertThat(lab.state(running)).isEqualTo("running");
        assertThat(lab.state(waiting)).isEqualTo("pending");
        return lab;
    }

    private static String submit(ApiFixture api, String body) {
        ApiFixture.Response r = api.submit("member", body);
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private static void open(HeadlessChromium browser, Lab lab, String user, String id) {
        browser.open(lab.origin() + "/signin"); // cookies are cleared for the site the browser is on
        browser.clearCookies();
        browser.signIn(lab.origin(), "tok-" + user, "/workloads/" + id);
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
    }

    @Test
    void anOwnerCancelsTheirWaitingWorkloadFromItsPageAfterSayingYesAndThePageShowsItCancelled(
            HeadlessChromium browser, @TempDir Path dir) {
        Lab lab = lab(dir);
        try (ApiFixture api = lab.api()) {
            open(browser, lab, "member", lab.waiting());
            assertThat(browser.one("#cancel").isDisplayed()).isTrue();
            assertThat(browser.text("#cancel")).isEqualTo("Cancel workload");

            // Cancel asks first; "Keep it" cancels nothing
            browser.click("#cancel");
            assertThat(browser.one("#cancel-confirm").isDisplayed()).isTrue();
            assertThat(browser.text("#cancel-question")).startsWith("Cancel workload " + lab.waiting() + "?");
            browser.click("#cancel-no");
            assertThat(browser.one("#cancel-confirm").isDisplayed()).isFalse();
            assertThat(lab.state(lab.waiting())).isEqualTo("pending");

            // "Yes, cancel it" cancels it, and the page says so without a reload; the button is gone
            browser.click("#cancel");
            browser.click("#cancel-yes");
            browser.waitFor("document.querySelector('dd.state').textContent === 'cancelled'", WAIT);
            assertThat(lab.state(lab.waiting())).isEqualTo("cancelled");
            assertThat(browser.one("#actions").isDisplayed()).isFalse();
            assertThat(browser.text("#error")).isEmpty();
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void aManagerCancelsARunningWorkloadBelowThemAndThePageFollowsItUntilTheSchedulerHasStoppedIt(
            HeadlessChromium browser, @TempDir Path dir) {
        Lab lab = lab(dir);
        try (ApiFixture api = lab.api()) {
            // mp manages lab/nlp, above member's allocation
            open(browser, lab, "mp", lab.running());
            browser.js("localStorage.setItem('allot.refreshMs', '1000');");
            try {
                browser.click("#cancel");
                browser.click("#cancel-yes");

                // asked for: it runs until the scheduler stops it, and the page says so
                browser.waitFor("document.querySelector('dd.state').textContent === 'running, cancel requested'",
                        WAIT);
                assertThat(api.get("/v1/workloads/" + lab.running(), "tok-root").json().path("workload")
                        .path("cancelRequested").asBoolean()).isTrue();
                assertThat(browser.one("#actions").isDisplayed()).isFalse();

                // when the scheduler has stopped it, the open page shows it cancelled
                api.loop.runOnce();
                api.loop.runOnce();
                assertThat(lab.state(lab.running())).isEqualTo("cancelled");
                browser.waitFor("document.querySelector('dd.state').textContent === 'cancelled'", WAIT);
                assertThat(browser.consoleErrors()).isEmpty();
            } finally {
                browser.js("localStorage.removeItem('allot.refreshMs');");
            }
        }
    }

    @Test
    void someoneWhoMayNotCancelAWorkloadHasNoCancelButtonAndTheApiStillRefusesThem(HeadlessChromium browser,
                                                                                  @TempDir Path dir) {
        Lab lab = lab(dir);
        try (ApiFixture api = lab.api()) {
            // ms manages lab/vision, a sibling subtree: they read the workload but may not cancel it
            open(browser, lab, "ms", lab.running());
            assertThat(browser.text("dd.state")).isEqualTo("running");
            assertThat(browser.all("#actions")).hasSize(1);
            assertThat(browser.one("#actions").isDisplayed()).isFalse();

            // the same call the button makes, from the page, is refused and cancels nothing
            @SuppressWarnings("unchecked")
            Map<String, Object> refused = (Map<String, Object>) browser.jsAsync("const done = arguments[1];"
                    + " Allot.api('/v1/workloads/' + arguments[0] + '/cancel', { method: 'POST', body: {} })"
                    + ".then(() => done({ status: 200 }), e => done({ status: e.status, message: e.message }));",
                    lab.running());
            assertThat(((Number) refused.get("status")).intValue()).isEqualTo(403);
            assertThat((String) refused.get("message")).contains("may not cancel workload " + lab.running());
            assertThat(lab.state(lab.running())).isEqualTo("running");

            // nor does its owner have one once it has ended
            assertThat(api.post("/v1/workloads/" + lab.waiting() + "/cancel", "tok-member", "{}").status())
                    .isEqualTo(200);
            open(browser, lab, "member", lab.waiting());
            assertThat(browser.text("dd.state")).isEqualTo("cancelled");
            assertThat(browser.one("#actions").isDisplayed()).isFalse();
        }
    }
}
