package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in real headless Chromium as people met it when trying it on a demo service: a session that ends
 * while a page is open (signed out in another tab, the token expired or revoked) must say why on the sign-in page it
 * lands on, not just show the form; a narrow window must keep the navigation and Sign out in view and scroll wide
 * tables in their own box, not the whole page sideways; a campaign page of no such campaign shows the error alone;
 * the Campaigns page of someone without campaigns says it lists only their own and how to submit one; the queue's
 * "waits for" follows a change of the queue at the next reload, not a minute later; the allocations page reloads
 * while open as the other pages do; the sign-in page of a browser already signed in says who is, with the way on or
 * out, not the form again; a workload or campaign link with a trailing slash opens it.
 * Stories of the shared lab are in {@link DashboardBrowserTest}.
 */
@ExtendWith(HeadlessChromium.class)
class DashboardAsUsersMeetItBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    static Path dataDir;

    static HeadlessChromium browser;
    static ApiFixture api;
    static String running;

    @BeforeAll
    static void start(HeadlessChromium chromium) {
        browser = chromium;
        api = ApiFixture.withSchedulingLoop(dataDir, new MutableClock(ApiFixture.NOW));
        ApiFixture.Response r = api.submit("member", body("gpusPerNode", "0", "minRuntime", "\"1h\"", "duration", "\"1d\"",
                "command", "[\"python\", \"train.py\", \"--data\", \"/a/very/long/path/that/does/not/fit/in/a/narrow/window\"]"));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        running = r.json().path("id").asText();
        api.loop.runOnce();
        assertThat(api.submit("owner", body("gpusPerNode", "0")).status()).isEqualTo(201);
        api.loop.runOnce();
    }

    private static String submit(String user, String body) {
        ApiFixture.Response r = api.submit(user, body);
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static String base() {
        return "http://localhost:" + api.server.port();
    }

    private static void signIn(String user, String page) {
        browser.open(base() + "/signin"); // cookies are cleared for the site the browser is on
        browser.clearCookies();
        browser.signIn(base(), "tok-" + user, page);
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
    }

    @Test
    void aSessionEndedWhileAPageIsOpenSaysWhyOnTheSignInPageItLandsOn() {
        // given the queue page open, reloading every second
        signIn("member", "/queue");
        browser.js("localStorage.setItem('allot.refreshMs', '1000');");
        browser.open(base() + "/queue");
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);

        // when the session ends elsewhere (signed out in another tab)
        browser.jsAsync("const done = arguments[arguments.length - 1];"
                + "fetch('/v1/session', {method: 'DELETE', headers: {'X-CSRF-Token': Allot.session.csrfToken}})"
                + ".then(r => done(r.status));");

        // then the next reload lands on the sign-in page, which says the session ended (it showed the bare form)
        browser.waitFor("location.pathname === '/signin'", WAIT);
        browser.waitFor("document.getElementById('error') && !document.getElementById('error').hidden", WAIT);
        assertThat(browser.text("#error")).startsWith("Signed out: ").contains("session ended while the page was open");
        assertThat(browser.url()).contains("next=%2Fqueue").doesNotContain("ended");
        // and says it once: signing out on purpose and coming back is not an ended session
        browser.open(base() + "/signin");
        assertThat(browser.one("#error").isDisplayed()).isFalse();
        browser.js("localStorage.removeItem('allot.refreshMs');");
    }

    @Test
    void aNarrowWindowKeepsSignOutInViewAndScrollsWideTablesInTheirOwnBox() {
        signIn("owner", "/queue");
        browser.resize(480, 900);
        try {
            for (String page : List.of("/queue", "/workloads/" + running, "/allocations", "/nodes", "/campaigns")) {
                browser.open(base() + page);
                browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
                long viewport = browser.number("document.documentElement.clientWidth");
                // the page scrolled sideways (1,300 px wide on the queue) and Sign out sat past the window's edge
                assertThat(browser.number("document.documentElement.scrollWidth")).as(page).isLessThanOrEqualTo(viewport);
                assertThat(browser.number("Math.ceil(document.getElementById('signout').getBoundingClientRect().right)"))
                        .as(page).isLessThanOrEqualTo(viewport);
                assertThat(browser.consoleErrors()).as(page).isEmpty();
            }
        } finally {
            browser.resize(HeadlessChromium.WIDTH, HeadlessChromium.HEIGHT);
        }
    }

    @Test
    void aCampaignPageOfNoSuchCampaignShowsTheErrorAlone() {
        signIn("member", "/campaigns");
        browser.open(base() + "/campaigns/nope");
        browser.waitFor("document.getElementById('error').textContent.length > 0", WAIT);

        // it showed the error, then an empty Contract box and the shards' bare table headers
        assertThat(browser.text("#error")).contains("nope");
        assertThat(browser.one("#contract").isDisplayed()).isFalse();
        assertThat(browser.one("#shards").isDisplayed()).isFalse();
        assertThat(browser.all("main > h2").stream().noneMatch(h -> h.isDisplayed())).isTrue();
    }

    @Test
    void aMemberWithoutCampaignsIsToldTheListHoldsOnlyTheirOwnAndTheCommandThatSubmitsOne() {
        signIn("member", "/campaigns");

        // it said "No campaigns. POST /v1/campaigns submits one.": a raw API call, and nothing of whose campaigns
        assertThat(browser.text("#no-campaigns")).startsWith("You have no campaigns (this page lists your own and those in the"
                + " allocations you manage;")
                .contains("allot campaign submit FILE");
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void whatAWaitingWorkloadWaitsForIsRefreshedAsSoonAsTheQueueChangesNotAMinuteLater() {
        // given, behind owner's waiting work, another allocated workload and an unallocated one, on the queue page
        String second = submit("owner", body("gpus", "1", "gpusPerNode", "0"));
        String free = submit("member", body("gpus", "1", "gpusPerNode", "0", "minRuntime", "\"0s\""));
        api.loop.runOnce();
        signIn("member", "/queue");
        browser.js("localStorage.setItem('allot.refreshMs', '1000');");
        browser.open(base() + "/queue");
        String why = "document.querySelector('tr[data-id=\"" + free + "\"] td.why').textContent";
        browser.waitFor(why + ".includes('(2 allocated workloads wait)')", WAIT);
        try {
            // when one of the allocated workloads ahead of it leaves the queue
            assertThat(api.post("/v1/workloads/" + second + "/cancel", "tok-owner", "{}").status()).isEqualTo(200);
            api.loop.runOnce();

            // then its row says so at the next reload (it kept the explanation of the old queue for a minute)
            browser.waitFor("!document.querySelector('tr[data-id=\"" + second + "\"]')", WAIT);
            browser.waitFor(why + ".includes('(1 allocated workload waits)')", Duration.ofSeconds(5));
        } finally {
            browser.js("localStorage.removeItem('allot.refreshMs');");
            api.post("/v1/workloads/" + free + "/cancel", "tok-member", "{}");
            api.loop.runOnce();
        }
    }

    @Test
    void anOpenAllocationsPageFollowsAShareChangedElsewhereAsTheOtherPagesFollowTheirs() {
        // given the allocations page open, reloading every second, as each page does at its interval
        signIn("member", "/allocations");
        browser.js("localStorage.setItem('allot.refreshMs', '1000');");
        browser.open(base() + "/allocations");
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
        String nlp = "#tree tbody tr[data-path='lab/nlp'] ";
        String vision = "#tree tbody tr[data-path='lab/vision'] ";
        assertThat(browser.text(vision + ".share-cell")).isEqualTo("1.00");
        assertThat(browser.text(nlp + ".entitlement")).isEqualTo("66.7%"); // lab/nlp has share 2
        try {
            // when an administrator triples lab/vision's share elsewhere
            assertThat(api.put("/v1/allocations/lab/vision", "tok-root",
                    "{\"share\": 3, \"managers\": [\"ms\"], \"members\": []}").status()).isEqualTo(200);

            // then the open page shows the new share and what it does to lab/nlp (it showed the old tree until
            // reloaded by hand)
            browser.waitFor("document.querySelector(\"" + vision + ".share-cell\").textContent === '3.00'", WAIT);
            browser.waitFor("document.querySelector(\"" + nlp + ".entitlement\").textContent === '40.0%'", WAIT);
            assertThat(browser.number("Number(document.body.dataset.refreshes)")).isPositive();
            assertThat(browser.consoleErrors()).isEmpty();
        } finally {
            browser.js("localStorage.removeItem('allot.refreshMs');");
            api.put("/v1/allocations/lab/vision", "tok-root",
                    "{\"share\": 1, \"managers\": [\"ms\"], \"members\": []}");
        }
    }

    @Test
    void theSignInPageOfABrowserAlreadySignedInSaysWhoAndLeadsOnToTheDashboardOrSignsOut() {
        // given owner signed in, who opens the sign-in page again (a bookmark, the browser's history)
        signIn("owner", "/queue");
        browser.open(base() + "/signin?next=/allocations");
        browser.waitFor("!document.getElementById('signed-in').hidden", WAIT);

        // it showed the token form, as if no one were signed in; now it says who is, and offers the way on
        assertThat(browser.one("#signin").isDisplayed()).isFalse();
        assertThat(browser.text("#signed-in-as")).isEqualTo("You are signed in as owner.");
        browser.click("#to-dashboard");
        browser.waitFor("location.pathname === '/allocations' && document.body.dataset.ready === 'true'", WAIT);
        assertThat(browser.text("#whoami")).startsWith("owner");

        // or signs out, and then the form is there
        browser.open(base() + "/signin");
        browser.waitFor("!document.getElementById('signed-in').hidden", WAIT);
        assertThat(browser.one("#to-dashboard").getAttribute("href")).isEqualTo(base() + "/queue");
        browser.click("#signed-in-signout");
        browser.waitFor("document.getElementById('signed-in').hidden"
                + " && document.getElementById('token').offsetParent !== null", WAIT);
        browser.open(base() + "/queue");
        browser.waitFor("location.pathname === '/signin'", WAIT);
        assertThat(browser.one("#token").isDisplayed()).isTrue();
        assertThat(browser.one("#signed-in").isDisplayed()).isFalse();

        // an administrator is told so
        signIn("root", "/queue");
        browser.open(base() + "/signin");
        browser.waitFor("!document.getElementById('signed-in').hidden", WAIT);
        assertThat(browser.text("#signed-in-as")).isEqualTo("You are signed in as root (administrator).");
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void aWorkloadLinkWithATrailingSlashOpensTheWorkload() {
        signIn("member", "/queue");
        browser.open(base() + "/workloads/" + running + "/");
        browser.waitFor("document.body.dataset.ready === 'true' || document.getElementById('error').textContent", WAIT);

        // it asked the API for workload 'w-1/' and showed "bad request: the path has an encoded '/' ..."
        assertThat(browser.text("#error")).isEmpty();
        assertThat(browser.text("#title")).isEqualTo("Workload " + running);
        browser.open(base() + "/campaigns/nope/");
        browser.waitFor("document.getElementById('error').textContent.length > 0", WAIT);
        assertThat(browser.text("#error")).contains("no campaign 'nope'");
    }
}
