package dev.allot.server.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.campaign.CampaignFixture.Response;
import dev.allot.server.testing.HeadlessChromium;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's campaign pages in real headless Chromium against the real API and a real scheduling loop
 * ({@link CampaignFixture}): the campaigns list and a campaign's page show the units, bars, tiers, phases, rates,
 * remaining times and ETAs the API gives (checked against the API's JSON and against the numbers the story fixes),
 * a shard leads to its workload and back, the page follows a promotion in place while open, its owner cancels it
 * from its page (no one else has the button), and a family name made of markup is shown as text.
 *
 * <p>The story (one node of 4 GPUs): alice's campaign {@code eval-3} in lab/a, one protected slot, shards of 300
 * ("fast"), 200 (a family named with markup) and 100 ("fast") units; bob's {@code bob.run_1} in lab/b, no protected
 * slot, one shard of 50. All four run; after 1000 s shard 0 reported 150 units and shard 1 40; bob's shard fails, so it
 * is held.
 */
@ExtendWith(HeadlessChromium.class)
class CampaignDashboardBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Shard 1's family: markup that would show an image and change the title if it were inserted as HTML. */
    static final String HOSTILE = "<img src=x onerror=alert(1)><script>document.title='pwned'</script>&amp;";

    @TempDir
    Path dir;

    /** The story above, told up to the point the pages are opened. */
    private static CampaignFixture story(Path dir) {
        CampaignFixture f = new CampaignFixture(dir, 4);
        Response eval = f.post("/v1/campaigns", "alice", CampaignStoryTest.campaign("eval-3", "\"protectedShards\": 1",
                "[{\"units\": 300, \"family\": \"fast\"}, {\"units\": 200, \"family\": \"" + HOSTILE + "\"},"
                        + " {\"units\": 100, \"family\": \"fast\"}]",
                "\"brakes\": {\"shardRequeues\": 3, \"campaignGpuHours\": 100}, \"failureRetries\": 2,"
                        + " \"environment\": {\"HF_HOME\": \"/scratch/hf\", \"DATASET\": \"eval-v3\"}"));
        assertThat(eval.status()).as("%s", eval.json()).isEqualTo(201);
        Response bob = f.post("/v1/campaigns", "bob", "{\"name\": \"bob.run_1\", \"allocation\": \"lab/b\","
                + " \"command\": [\"run\", \"{shard}\"], \"environment\": {\"WANDB_API_KEY\": \"s3cret-key\"},"
                + " \"gpus\": 1, \"minRuntime\": \"1h\", \"protectedShards\": 0,"
                + " \"shards\": [{\"units\": 50}]}");
        assertThat(bob.status()).as("%s", bob.json()).isEqualTo(201);
        f.cycle();
        f.advance(Duration.ofSeconds(1000));
        f.progress("eval-3", 0, 150);
        f.progress("eval-3", 1, 40);
        f.backend.exit(f.shard("bob.run_1", 0).path("workload").asText(), 3);
        f.cycle();
        f.cycle();
        assertThat(f.shard("bob.run_1", 0).path("phase").asText()).isEqualTo("held");
        return f;
    }

    private static void signIn(HeadlessChromium browser, CampaignFixture f, String user, String page) {
        browser.clearCookies();
        browser.signIn(origin(f), "tok-" + user, page);
        ready(browser);
    }

    private static String origin(CampaignFixture f) {
        return "http://localhost:" + f.api.port();
    }

    private static void ready(HeadlessChromium browser) {
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
    }

    // The pages' formats (dashboard.js fmt), so DOM text can be compared with the API's numbers.
    static String num(double x, int decimals) {
        return String.format(Locale.US, "%,." + decimals + "f", x);
    }

    static String time(JsonNode iso) {
        return iso.isNull() ? "\u2013" : iso.asText().replace('T', ' ').replaceAll("\\.\\d+Z$|Z$", "");
    }

    /** The value, maximum and accessible name of the progress bar under {@code css}. */
    private static List<String> bar(HeadlessChromium browser, String css) {
        @SuppressWarnings("unchecked")
        List<Object> v = (List<Object>) browser.js("const p = document.querySelector(arguments[0] + ' progress');"
                + " return [p.value, p.max, p.getAttribute('aria-label'), p.getAttribute('role') || p.tagName];", css);
        return v.stream().map(x -> x instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                ? String.valueOf(n.longValue()) : String.valueOf(x)).toList();
    }

    @Test
    void theCampaignsPageListsTheApisCampaignsWithUnitsAsBarsProtectedSlotsAndEtas(HeadlessChromium browser) {
        try (CampaignFixture f = story(dir)) {
            // alice reaches the page from the navigation bar and sees her campaign only
            signIn(browser, f, "alice", "/queue");
            browser.click("nav.top a[href='/campaigns']");
            browser.waitFor("location.pathname === '/campaigns' && document.body.dataset.ready === 'true'", WAIT);
            assertThat(browser.text("nav.top a.active")).isEqualTo("Campaigns");
            assertThat(browser.all("#campaigns tbody tr").stream().map(r -> r.getAttribute("data-name")).toList())
                    .containsExactly("eval-3");
            JsonNode eval = f.campaign("eval-3");
            assertThat(eval.path("unitsDone").asLong()).isEqualTo(190);
            String row = "#campaigns tbody tr[data-name='eval-3'] ";
            assertThat(browser.text(row + ".owner")).isEqualTo("alice");
            assertThat(browser.text(row + ".alloc")).isEqualTo("lab/a");
            assertThat(browser.text(row + ".state")).isEqualTo("running");
            assertThat(browser.text(row + ".units")).isEqualTo("190 of 600 (32%)");
            assertThat(bar(browser, row + ".units")).containsExactly("190", "600",
                    "campaign eval-3: 190 of 600 units done", "PROGRESS");
            assertThat(browser.text(row + ".slots")).isEqualTo("1 shard");
            assertThat(browser.text(row + ".shards")).isEqualTo("3");
            assertThat(browser.text(row + ".used")).isEqualTo(num(eval.path("gpuHoursUsed").asDouble(), 2))
                    .isEqualTo("0.83"); // three shards for 1000 s each
            assertThat(eval.path("etaAt").isNull()).isFalse();
            assertThat(browser.text(row + ".eta")).isEqualTo(time(eval.path("etaAt")));
            assertThat(browser.text("#c-units .v")).isEqualTo("190 of 600");
            assertThat(browser.consoleErrors()).isEmpty();

            // an administrator sees every campaign; bob's, with a held shard, has no ETA
            signIn(browser, f, "root", "/campaigns");
            assertThat(browser.texts("#campaigns tbody tr .name")).containsExactlyInAnyOrder("eval-3", "bob.run_1");
            String held = "#campaigns tbody tr[data-name='bob.run_1'] ";
            assertThat(f.campaign("bob.run_1").path("etaAt").isNull()).isTrue();
            assertThat(browser.text(held + ".eta")).isEqualTo("unknown");
            assertThat(browser.text(held + ".units")).isEqualTo("0 of 50 (0%)");
            assertThat(browser.text(held + ".slots")).isEqualTo("none");
            assertThat(browser.text("#c-running .v")).isEqualTo("2");

            // carol has none
            signIn(browser, f, "carol", "/campaigns");
            assertThat(browser.text("#campaigns tbody")).isEqualTo("You have no campaigns (this page lists your own and"
                    + " those in the allocations you manage; another user's opens at /campaigns/NAME). allot campaign submit FILE submits one (POST"
                    + " /v1/campaigns).");
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void theCampaignPageShowsEachShardAsTheApiGivesItAndLeadsToItsWorkload(HeadlessChromium browser) {
        try (CampaignFixture f = story(dir)) {
            signIn(browser, f, "alice", "/campaigns");
            browser.click("#campaigns tbody tr[data-name='eval-3'] .name a");
            browser.waitFor("location.pathname === '/campaigns/eval-3' && document.body.dataset.ready === 'true'",
                    WAIT);
            JsonNode c = f.campaign("eval-3");
            assertThat(browser.text("#title")).isEqualTo("Campaign eval-3");
            assertThat(browser.text("#c-units .v")).isEqualTo("190 of 600 (32%)");
            assertThat(bar(browser, "#c-units")).containsExactly("190", "600", "campaign eval-3: 190 of 600 units done",
                    "PROGRESS");
            assertThat(browser.text("#c-eta .v")).isEqualTo(time(c.path("etaAt"))).startsWith("2026-03-01 ");
            assertThat(browser.text("#c-used .v")).isEqualTo(num(c.path("gpuHoursUsed").asDouble(), 2));
            assertThat(browser.text("#c-charged .v")).isEqualTo(num(c.path("gpuHoursCharged").asDouble(), 2))
                    .isEqualTo("0.28"); // only the protected shard is charged
            assertThat(browser.text("#c-protected .v")).isEqualTo("1 (slots: 1 shard)");
            assertThat(browser.text("dd.brakes")).isEqualTo("a shard 3 requeues, the campaign 100.00 GPU-h");
            assertThat(browser.text("dd.failure-retries")).isEqualTo("a failed shard is queued again by itself up to"
                    + " 2 times");
            assertThat(browser.text("#command")).isEqualTo("eval --shard {shard}");
            // and how it launches: the walk-through found neither its environment nor its strategy on the page
            assertThat(browser.text("#environment")).isEqualTo("DATASET=eval-v3 HF_HOME=/scratch/hf");
            assertThat(c.path("strategy").asText()).isEqualTo("allot");
            assertThat(browser.text("dd.strategy"))
                    .isEqualTo("allot (longest remaining work first, promotion in place)");
            assertThat(browser.text("dd.launch")).startsWith("the command with {shard} replaced by its index;")
                    .contains("ALLOT_CAMPAIGN", "ALLOT_SHARD", "ALLOT_UNITS", "ALLOT_FAMILY", "ALLOT_RESUME_FROM");

            // per shard: what the story fixes, and the rest as the API says
            List<List<String>> fixed = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String row = "#shards tbody tr[data-index='" + i + "'] ";
                fixed.add(List.of(browser.text(row + ".tier"), browser.text(row + ".phase"),
                        browser.text(row + ".units"), browser.text(row + ".rate"), browser.text(row + ".source"),
                        browser.text(row + ".remaining")));
            }
            assertThat(fixed).containsExactly(
                    List.of("protected", "running", "150 of 300 (50%)", "6.67", "shard", "16m 40s"),
                    List.of("unallocated", "running", "40 of 200 (20%)", "25.00", "shard", "1h 06m"),
                    List.of("unallocated", "running", "0 of 100 (0%)", "6.67", "family", "11m 07s"));
            assertThat(bar(browser, "#shards tbody tr[data-index='1'] .units")).containsExactly("40", "200",
                    "shard 1: 40 of 200 units done", "PROGRESS");
            JsonNode shards = c.path("shards");
            assertThat(List.of(shards.get(0).path("remainingSeconds").asLong(), shards.get(1).path("remainingSeconds")
                    .asLong(), shards.get(2).path("remainingSeconds").asLong())).containsExactly(1000L, 4000L, 667L);
            for (JsonNode s : shards) {
                String row = "#shards tbody tr[data-index='" + s.path("index").asInt() + "'] ";
                assertThat(browser.text(row + ".index")).isEqualTo(s.path("index").asText());
                assertThat(browser.text(row + ".family")).isEqualTo(s.path("family").asText());
                assertThat(browser.text(row + ".tier")).isEqualTo(s.path("tier").asText());
                assertThat(browser.text(row + ".phase")).isEqualTo(s.path("phase").asText());
                assertThat(bar(browser, row + ".units").subList(0, 2)).containsExactly(s.path("unitsDone").asText(),
                        s.path("units").asText());
                assertThat(browser.text(row + ".rate")).isEqualTo(num(s.path("secondsPerUnit").asDouble(), 2));
                assertThat(browser.text(row + ".source")).isEqualTo(s.path("rateSource").asText());
                assertThat(s.path("etaAt").isNull()).isFalse();
                assertThat(browser.text(row + ".eta")).isEqualTo(time(s.path("etaAt")));
                assertThat(browser.text(row + ".used")).isEqualTo(num(s.path("gpuHoursUsed").asDouble(), 2))
                        .isEqualTo("0.28");
                assertThat(browser.text(row + ".requeues")).isEqualTo("0");
                assertThat(browser.text(row + ".failures")).isEqualTo("0");
                assertThat(browser.text(row + ".promoted")).isEqualTo("\u2013");
                assertThat(browser.text(row + ".held-reason")).isEmpty();
                assertThat(browser.text(row + ".workload")).isEqualTo(s.path("workload").asText()).startsWith("w-");
            }
            assertThat(browser.consoleErrors()).isEmpty();

            // a shard leads to its workload's page
            String w2 = shards.get(2).path("workload").asText();
            browser.click("#shards tbody tr[data-index='2'] .workload a");
            browser.waitFor("location.pathname === '/workloads/" + w2 + "' && document.body.dataset.ready === 'true'",
                    WAIT);
            assertThat(browser.text("#title")).isEqualTo("Workload " + w2);
            assertThat(browser.text("dd.kind")).isEqualTo("campaign");

            // bob's held shard says why and has no ETA; carol reads the campaign but not its command
            signIn(browser, f, "carol", "/campaigns/bob.run_1");
            JsonNode held = f.shard("bob.run_1", 0);
            String row = "#shards tbody tr[data-index='0'] ";
            assertThat(browser.text(row + ".phase")).isEqualTo("held");
            assertThat(browser.text(row + ".held-reason")).isEqualTo(held.path("heldReason").asText())
                    .contains("a failed shard is not resubmitted");
            assertThat(browser.text(row + ".eta")).isEqualTo("unknown");
            assertThat(browser.text(row + ".workload")).isEqualTo(held.path("workload").isNull() ? "\u2013"
                    : held.path("workload").asText());
            assertThat(browser.text("#c-eta .v")).isEqualTo("unknown");
            assertThat(browser.text("#command")).startsWith("hidden");
            assertThat(browser.text("#environment")).isEqualTo("hidden");
            assertThat((String) browser.js("return document.documentElement.outerHTML")).doesNotContain("run {shard}")
                    .doesNotContain("s3cret-key");
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void itsOwnerSeesTheSecretsInItsEnvironmentMaskedUntilAskingForThemWhole(HeadlessChromium browser) {
        // the owner's WANDB_API_KEY was shown whole on screen, where 'allot show' masks it (the workload page's fault)
        try (CampaignFixture f = story(dir)) {
            signIn(browser, f, "bob", "/campaigns/bob.run_1");
            assertThat(browser.text("#environment")).isEqualTo("WANDB_API_KEY=...[10 chars]");
            assertThat(browser.text("dd.secrets")).isEqualTo("masked Show");
            assertThat((String) browser.js("return document.documentElement.outerHTML")).doesNotContain("s3cret-key");

            browser.click("#show-secrets");
            assertThat(browser.text("#environment")).isEqualTo("WANDB_API_KEY=s3cret-key");
            assertThat(browser.text("dd.secrets")).isEqualTo("shown whole Hide");
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void anOpenCampaignPageFollowsAShardDoneAndAPromotionInPlace(HeadlessChromium browser) {
        try (CampaignFixture f = story(dir)) {
            signIn(browser, f, "alice", "/campaigns/eval-3");
            browser.js("localStorage.setItem('allot.refreshMs', '1000');");
            try {
                browser.open(origin(f) + "/campaigns/eval-3");
                ready(browser);
                assertThat(browser.text("#shards tbody tr[data-index='1'] .tier")).isEqualTo("unallocated");
                // when shard 0 finishes and its workload ends, the freed slot goes to shard 1 (4000 s left, the
                // longest), promoted where it runs
                String w1 = f.shard("eval-3", 1).path("workload").asText();
                f.advance(Duration.ofSeconds(1000));
                f.progress("eval-3", 0, 300);
                f.backend.exit(f.shard("eval-3", 0).path("workload").asText(), 0);
                f.cycle();
                JsonNode c = f.campaign("eval-3");
                JsonNode s1 = c.path("shards").get(1);
                assertThat(s1.path("promotedAt").asText()).isEqualTo("2026-03-01T09:33:20.000Z");
                assertThat(s1.path("workload").asText()).isEqualTo(w1);

                // then the open page shows it without a reload
                browser.waitFor("document.querySelector(\"#shards tbody tr[data-index='1'] .promoted\").textContent"
                        + " === '2026-03-01 09:33:20'", WAIT);
                String row0 = "#shards tbody tr[data-index='0'] ";
                String row1 = "#shards tbody tr[data-index='1'] ";
                assertThat(browser.text(row0 + ".phase")).isEqualTo("done");
                assertThat(browser.text(row0 + ".units")).isEqualTo("300 of 300 (100%)");
                assertThat(bar(browser, row0 + ".units").subList(0, 2)).containsExactly("300", "300");
                assertThat(browser.text(row0 + ".remaining")).isEqualTo("\u2013");
                assertThat(browser.text(row0 + ".eta")).isEqualTo("\u2013");
                assertThat(browser.text(row1 + ".tier")).isEqualTo("protected");
                assertThat(browser.text(row1 + ".phase")).isEqualTo("running");
                assertThat(browser.one(row1 + ".promoted").getAttribute("title"))
                        .isEqualTo(s1.path("promotionDetail").asText()).isNotBlank();
                assertThat(browser.text(row1 + ".eta")).isEqualTo(time(s1.path("etaAt")));
                assertThat(browser.text("#c-units .v")).isEqualTo("340 of 600 (57%)");
                assertThat(browser.text("#c-charged .v")).isEqualTo(num(c.path("gpuHoursCharged").asDouble(), 2));
                assertThat(browser.text("#c-protected .v")).isEqualTo("1 (slots: 1 shard)");
                assertThat(browser.number("Number(document.body.dataset.refreshes)")).isPositive();
                assertThat(browser.consoleErrors()).isEmpty();
            } finally {
                browser.js("localStorage.removeItem('allot.refreshMs');");
            }
        }
    }

    @Test
    void aShardsWorkloadPageLeadsToItsCampaignAlsoForSomeoneWhoMayNotSeeItsEnvironment(HeadlessChromium browser) {
        try (CampaignFixture f = story(dir)) {
            // the API names the campaign and shard of a shard's workload to everyone who may read it
            String w1 = f.shard("eval-3", 1).path("workload").asText();
            JsonNode detail = f.get("/v1/workloads/" + w1, "carol").json();
            assertThat(detail.path("workload").path("redacted").asBoolean()).isTrue();
            assertThat(detail.path("campaign").path("name").asText()).isEqualTo("eval-3");
            assertThat(detail.path("campaign").path("shard").asInt()).isEqualTo(1);

            // carol, who may not see its environment (where ALLOT_CAMPAIGN is), follows the link to the campaign
            signIn(browser, f, "carol", "/workloads/" + w1);
            assertThat(browser.text("dd.campaign")).isEqualTo("eval-3 (shard 1)");
            browser.click("dd.campaign a");
            browser.waitFor("location.pathname === '/campaigns/eval-3' && document.body.dataset.ready === 'true'",
                    WAIT);
            assertThat(browser.text("#title")).isEqualTo("Campaign eval-3");
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void anOwnerCancelsTheirCampaignFromItsPageAfterSayingYesAndSomeoneElseHasNoCancelButton(
            HeadlessChromium browser) {
        try (CampaignFixture f = story(dir)) {
            // carol reads alice's campaign but may not cancel it: no button
            signIn(browser, f, "carol", "/campaigns/eval-3");
            assertThat(browser.text("dd.state")).isEqualTo("running");
            assertThat(browser.one("#actions").isDisplayed()).isFalse();

            // alice's Cancel asks first; "Keep it" cancels nothing
            signIn(browser, f, "alice", "/campaigns/eval-3");
            assertThat(browser.text("#cancel")).isEqualTo("Cancel campaign");
            browser.click("#cancel");
            assertThat(browser.text("#cancel-question")).startsWith("Cancel campaign eval-3?");
            browser.click("#cancel-no");
            assertThat(browser.one("#cancel-confirm").isDisplayed()).isFalse();
            assertThat(f.campaign("eval-3").path("state").asText()).isEqualTo("running");

            // "Yes, cancel it" cancels it, and the page shows it cancelled without a reload
            browser.click("#cancel");
            browser.click("#cancel-yes");
            browser.waitFor("document.querySelector('dd.state').textContent === 'cancelled'", WAIT);
            assertThat(f.campaign("eval-3").path("state").asText()).isEqualTo("cancelled");
            assertThat(browser.one("#actions").isDisplayed()).isFalse();
            assertThat(browser.text("#error")).isEmpty();
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void aFamilyNamedWithMarkupIsShownAsTextAndNothingOfItRuns(HeadlessChromium browser) {
        try (CampaignFixture f = story(dir)) {
            assertThat(f.shard("eval-3", 1).path("family").asText()).isEqualTo(HOSTILE);
            signIn(browser, f, "alice", "/campaigns/eval-3");
            assertThat(browser.text("#shards tbody tr[data-index='1'] .family")).isEqualTo(HOSTILE);
            assertThat(browser.number("document.querySelectorAll('main img, main script').length")).isZero();
            assertThat(browser.js("return document.title;")).isEqualTo("Allot: campaign eval-3");
            // the page's own screenshot is more than a blank page
            HeadlessChromium.Screenshot shot = browser.screenshot(Path.of("target", "dashboard-campaign",
                    "campaign.png"));
            assertThat(shot.distinctColours()).isGreaterThan(100);
            assertThat(shot.inkPixels()).isGreaterThan((long) shot.width() * shot.height() / 50);
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }
}
