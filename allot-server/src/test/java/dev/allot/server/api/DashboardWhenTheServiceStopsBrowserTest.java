package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard, open in a real headless Chromium, when the service behind it stops (restarted by its operator,
 * crashed, the machine gone): the page must say that the service does not answer, that what it shows is as of its
 * last answer and that it keeps trying, rather than the browser's bare "Failed to fetch" over rows that look live;
 * and signing in must say why it did not happen rather than do nothing.
 */
@ExtendWith(HeadlessChromium.class)
class DashboardWhenTheServiceStopsBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static HeadlessChromium browser;

    @TempDir
    Path dataDir;

    final MutableClock clock = new MutableClock(ApiFixture.NOW);
    ApiFixture api;
    String origin;
    boolean stopped;

    @BeforeAll
    static void theBrowser(HeadlessChromium chromium) {
        browser = chromium;
    }

    @BeforeEach
    void aRunningService() {
        api = ApiFixture.withSchedulingLoop(dataDir, clock);
        origin = "http://localhost:" + api.server.port();
        assertThat(api.submit("member", ApiFixture.body("gpusPerNode", "0")).status()).isEqualTo(201);
        api.loop.runOnce();
        assertThat(api.submit("member", ApiFixture.body("gpusPerNode", "0")).status()).isEqualTo(201);
        api.loop.runOnce();
    }

    @AfterEach
    void stopIt() {
        if (!stopped) {
            api.close();
        }
    }

    private void stopTheService() {
        api.close();
        stopped = true;
    }

    @Test
    void theOpenQueuePageSaysTheServiceDoesNotAnswerAndSinceWhenItsRowsAreOld() {
        // given member on the queue page, refreshed every second, showing the waiting workload
        browser.open(origin + "/signin");
        browser.clearCookies();
        browser.js("localStorage.setItem('allot.refreshMs', '1000');");
        try {
            browser.signIn(origin, "tok-member", "/queue");
            browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
            browser.waitFor("document.querySelectorAll('#queue tbody tr').length === 1", WAIT);

            // when the service stops
            stopTheService();

            // then the page says the service does not answer, that the rows are as of its last answer, and that it
            // tries again; the rows stay
            browser.waitFor("(document.getElementById('error') || {}).textContent", WAIT);
            String error = browser.text("#error");
            assertThat(error).startsWith("no answer from the Allot service at " + origin + " to GET /v1/queue: it is"
                    + " stopped or restarting").contains(". The page shows what it had at ", " UTC and tries again every 1s.")
                    .doesNotContain("Failed to fetch");
            assertThat(browser.all("#queue tbody tr")).hasSize(1);
        } finally {
            browser.js("localStorage.removeItem('allot.refreshMs');");
        }
    }

    @Test
    void signingOutWhileTheServiceIsDownSaysWhy() {
        // given member on the nodes page (not refreshed within the test)
        browser.open(origin + "/signin");
        browser.clearCookies();
        browser.signIn(origin, "tok-member", "/nodes");
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);

        // when the service stops and member signs out
        stopTheService();
        browser.click("#signout");

        // then the page says the sign-out did not reach the service, and stays
        browser.waitFor("(document.getElementById('error') || {}).textContent", WAIT);
        assertThat(browser.text("#error")).startsWith("no answer from the Allot service at " + origin
                + " to DELETE /v1/session");
        assertThat(browser.url()).endsWith("/nodes");
    }

    @Test
    void signingInWhileTheServiceIsDownSaysWhyAndKeepsTheToken() {
        // given the sign-in page, loaded while the service ran
        browser.open(origin + "/signin?next=/queue");
        browser.waitFor("document.getElementById('token') !== null", WAIT);

        // when the service stops and the user signs in
        stopTheService();
        browser.one("#token").sendKeys("tok-member");
        browser.one("#signin-button").click();

        // then the page says the service does not answer, and the token is still there to try again
        browser.waitFor("!document.getElementById('error').hidden", WAIT);
        assertThat(browser.text("#error")).startsWith("Not signed in: no answer from the Allot service at " + origin
                + " to POST /v1/session: it is stopped or restarting");
        assertThat(browser.js("return document.getElementById('token').value;")).isEqualTo("tok-member");
        assertThat(browser.url()).contains("/signin");
    }
}
