package dev.allot.server.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.service.Service;
import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's queue and workload pages show the forecast start the API gives, with what it assumes, in headless
 * Chromium against the whole service: a workload declared to run 1h holds the node from 09:00, the next (declared
 * 2h) is expected at 10:00.
 */
@ExtendWith(HeadlessChromium.class)
class ForecastDashboardBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void theQueueAndWorkloadPagesShowTheExpectedStart(HeadlessChromium browser) throws Exception {
        MutableClock clock = new MutableClock(ForecastFixture.T0);
        try (Service s = ForecastFixture.start(dir, clock, Duration.ofHours(1))) {
            ForecastFixture.submit(s, "1h");
            s.loop().runOnce();
            String next = ForecastFixture.submit(s, "2h");
            String unforecast = ForecastFixture.submit(s, "1h");
            s.loop().runOnce();
            s.forecaster().forecastNow().orElseThrow();
            String late = ForecastFixture.submit(s, "1h"); // after the forecast: none for it yet
            s.loop().runOnce();

            browser.clearCookies();
            browser.signIn(s.url(), "tok-alice", "/queue");
            browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
            assertThat(browser.text("#queue tbody tr[data-id='" + next + "'] .expected"))
                    .isEqualTo("2026-03-02 10:00:00");
            assertThat(browser.text("#queue tbody tr[data-id='" + unforecast + "'] .expected"))
                    .isEqualTo("2026-03-02 12:00:00");
            assertThat(browser.text("#queue tbody tr[data-id='" + late + "'] .expected")).isEqualTo("\u2013");
            assertThat(browser.text("#forecast-note")).contains("10 futures", "allocation (defaults)",
                    "new work: no new work");

            browser.open(s.url() + "/workloads/" + next);
            browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
            JsonNode f = ForecastFixture.get(s, "/v1/workloads/" + next + "/explain").path("forecast");
            assertThat(f.path("likelyStart").asText()).isEqualTo("2026-03-02T10:00:00.000Z");
            assertThat(browser.text("#forecast-start")).isEqualTo("Likely 2026-03-02 10:00:00 UTC; p10-p90"
                    + " 2026-03-02 10:00:00 to 2026-03-02 10:00:00 UTC.");
            assertThat(browser.text("#forecast-assumes")).contains("Its duration: declared;", "else 1h");
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }
}
