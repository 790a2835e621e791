package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A link to the allocations page with a range the page does not offer ({@code /allocations?range=1d}, typed or
 * shared by someone who guessed): the page must still show the tree, over its default range, and say why, rather
 * than send an empty {@code since} to the API and show nothing but an error about a parameter the user never gave.
 * In real headless Chromium against a real API over {@link ApiFixture}'s lab.
 */
@ExtendWith(HeadlessChromium.class)
class DashboardLinkedRangeBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path dataDir;

    ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture(dataDir, new MutableClock(ApiFixture.NOW), store -> WorkloadExplainer.NONE);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void aLinkWithARangeThePageDoesNotOfferShowsTheTreeOverTwentyFourHoursAndSaysSo(HeadlessChromium browser) {
        String origin = "http://localhost:" + api.server.port();
        browser.open(origin + "/signin");
        browser.clearCookies();

        // when member follows a link asking for the last day as '1d'
        browser.signIn(origin, "tok-member", "/allocations?range=1d");
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);

        // then the tree is there, over 24 hours, and the page says the range asked for is not one it offers
        JsonNode allocations = api.get("/v1/allocations", "tok-member").json().path("allocations");
        assertThat(browser.all("#tree tbody tr")).hasSize(allocations.size());
        assertThat(browser.js("return document.getElementById('range').value;")).isEqualTo("24h");
        assertThat(browser.text("#error")).isEqualTo("no range '1d' on this page (it offers 24h, 7d, 30d): showing 24"
                + " hours");
        assertThat(browser.all("#policy tbody tr")).isNotEmpty();
    }
}
