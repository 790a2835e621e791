package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.testing.HeadlessChromium;
import dev.allot.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in real headless Chromium against a real API whose scheduler is a real scheduling loop (the core's
 * allocation policy on the simulated backend, a clock moved by hand): signing in as each role, each page showing the
 * numbers the API gives (the DOM's text compared with the API's JSON, formatted as the pages format), a manager's
 * share edit reaching the tree and the audit trail, a member seeing no edit controls and no other user's command,
 * CSRF refusals, and screenshots that are more than blank pages.
 *
 * <p>The story ({@link ApiFixture}'s lab; gpu-01 is the only healthy node, 8 GPUs): ms-member's detect workload
 * (8 GPUs, 1h minimum runtime) starts; member's pretrain (8 GPUs, 2h) waits for its protection, then preempts it;
 * owner, ms-member and member (unallocated) queue more work; then gpu-01 turns unhealthy, so it drains until
 * pretrain's protection ends. Stories that need a service of their own are in
 * {@link DashboardOwnServiceBrowserTest}.
 */
@ExtendWith(HeadlessChromium.class)
class DashboardBrowserTest {
    private static final String DETECT = "lab/vision/detect";
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    static Path dataDir;
    @TempDir
    static Path shots;

    static final MutableClock clock = new MutableClock(ApiFixture.NOW);
    static SchedulerLoop loop;
    static ApiFixture api;
    static HeadlessChromium browser;
    static String detect;
    static String pretrain;

    @BeforeAll
    static void start(HeadlessChromium chromium) {
        browser = chromium;
        api = ApiFixture.withSchedulingLoop(dataDir, clock);
        loop = api.loop;
        detect = submit("ms-member", body("allocation", "\"" + DETECT + "\"", "gpusPerNode", "0", "minRuntime", "\"1h\"",
                "duration", "\"1d\"", "command", "[\"python\", \"detect.py\", \"--secret-flag\"]"));
        loop.runOnce();
        pretrain = submit("member", body("gpusPerNode", "0", "minRuntime", "\"2h\"", "duration", "\"1d\""));
        loop.runOnce();
        clock.advance(Duration.ofMinutes(61));
        loop.runOnce();
        submit("owner", body("gpus", "2", "gpusPerNode", "0", "minRuntime", "\"2h\""));
        submit("ms-member", body("allocation", "\"" + DETECT + "\"", "gpus", "2", "gpusPerNode", "0"));
        submit("member", body("gpus", "1", "gpusPerNode", "0", "minRuntime", "\"0s\""));
        assertThat(api.post("/v1/workloads/" + pretrain + "/progress", "tok-member", "{\"done\": 300, \"total\": 1000}")
                .status()).isEqualTo(200);
        loop.runOnce();
        clock.advance(Duration.ofMinutes(10));
        assertThat(api.post("/v1/nodes/gpu-01/health", "tok-root", "{\"healthy\": false, \"reason\": \"ECC errors\"}")
                .status()).isEqualTo(200);
        loop.runOnce();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    private static String submit(String user, String body) {
        ApiFixture.Response r = api.submit(user, body);
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private static String base() {
        return "http://localhost:" + api.server.port();
    }

    /** Signs in through the sign-in page as {@code tok-<user>} and waits for the page it leads to. */
    private static void signIn(String user, String page) {
        if (!browser.url().startsWith(base())) {
            browser.open(base() + "/signin"); // cookies are cleared for the site the browser is on
        }
        browser.clearCookies();
        browser.signIn(base(), "tok-" + user, page);
        ready();
        assertThat(browser.url()).as("the token never reaches a URL").doesNotContain("tok-");
    }

    private static void open(String page) {
        browser.open(base() + page);
        ready();
    }

    private static void ready() {
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
    }

    private static JsonNode get(String path) {
        ApiFixture.Response r = api.get(path, "tok-root");
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        return r.json();
    }

    // The pages' number formats (dashboard.js fmt), so DOM text can be compared with the API's numbers.
    static String num(double x, int decimals) {
        return String.format(Locale.US, "%,." + decimals + "f", x);
    }

    static String pct(JsonNode x, int decimals) {
        return x.isNull() ? "\u2013" : num(x.asDouble() * 100, decimals) + "%";
    }

    static String gpuHours(JsonNode gpuSeconds, int decimals) {
        return num(gpuSeconds.asDouble() / 3600, decimals);
    }

    static String time(String iso) {
        return iso.replace('T', ' ').replaceAll("\\.\\d+Z$|Z$", "");
    }

    @Test
    void eachRoleSignsInAndSeesWhoItIs() {
        signIn("root", "/queue");
        assertThat(browser.text("#whoami")).isEqualTo("root (admin)");
        signIn("mp", "/allocations");
        assertThat(browser.text("#whoami")).isEqualTo("mp (manager)");
        signIn("member", "/nodes");
        assertThat(browser.text("#whoami")).isEqualTo("member (member)");
        assertThat(browser.texts("nav.top a")).containsExactly("Allot", "Queue", "Campaigns", "Allocations", "Timeline",
                "Nodes");
        assertThat(browser.one("nav.top a[href='/timeline']").isDisplayed()).isTrue();

        browser.one("#signout").click();
        browser.waitFor("location.pathname === '/signin'", WAIT);
        browser.open(base() + "/queue");
        browser.waitFor("location.pathname === '/signin'", WAIT);
        assertThat(browser.consoleErrors()).as("signed out, the queue page sends the browser to sign in")
                .allMatch(e -> e.contains("401"));
    }

    @Test
    void theQueuePageShowsTheApisServingOrderFairShareLevelsAndWhatEachWaitsFor() {
        signIn("member", "/queue");
        JsonNode queue = get("/v1/queue");
        List<String> ids = new ArrayList<>();
        queue.path("entries").forEach(e -> ids.add(e.path("id").asText()));
        assertThat(ids).hasSize(4).contains(detect);
        assertThat(browser.all("#queue tbody tr").stream().map(r -> r.getAttribute("data-id")).toList())
                .containsExactlyElementsOf(ids);
        for (JsonNode e : queue.path("entries")) {
            String row = "#queue tbody tr[data-id='" + e.path("id").asText() + "'] ";
            assertThat(browser.text(row + ".pos")).isEqualTo(e.path("position").asText());
            assertThat(browser.text(row + ".inalloc")).isEqualTo(e.path("positionInAllocation").asText());
            assertThat(browser.text(row + ".alloc")).isEqualTo(e.path("allocation").asText());
            assertThat(browser.text(row + ".user")).isEqualTo(e.path("user").asText());
            assertThat(browser.text(row + ".gpus")).isEqualTo(e.path("gpus").asText());
            assertThat(browser.text(row + ".state")).isEqualTo(e.path("state").asText());
            List<String> levels = new ArrayList<>();
            for (JsonNode l : queue.path("levels").path(e.path("allocation").asText())) {
                String name = l.path("name").asText();
                levels.add(name.substring(name.lastIndexOf('/') + 1) + " used " + gpuHours(l.path("usageGpuSeconds"), 1)
                        + " / entitled " + gpuHours(l.path("entitledGpuSeconds"), 1) + " GPU-h \u00b7 ratio "
                        + (l.path("ratio").isNull() ? "\u221e" : num(l.path("ratio").asDouble(), 4)) + " \u00b7 rank "
                        + l.path("rank").asInt() + "/" + l.path("siblings").asInt());
            }
            assertThat(levels).hasSize(3);
            assertThat(browser.texts(row + ".levels .lvl")).containsExactlyElementsOf(levels);
            // what it waits for: the explanation's kind and its last sentence about the wait
            JsonNode x = api.get("/v1/workloads/" + e.path("id").asText() + "/explain", "tok-member").json();
            browser.waitFor("document.querySelector(\"" + row + ".why\").dataset.loaded === 'true'", WAIT);
            assertThat(browser.text(row + ".why .kind")).isEqualTo(x.path("data").path("waitsFor").path("kind").asText());
            List<String> words = new ArrayList<>();
            for (int i = 1; i < x.path("summary").size(); i++) {
                String sentence = x.path("summary").get(i).asText();
                if (java.util.stream.Stream.of("Attempt ", "Over the last ", "Right now ", "It asks for more GPUs ",
                        "Forecast (", "There is no forecast ", dev.allot.core.explain.WaitExplanation.HOSTS_SENTENCE + " ")
                        .noneMatch(sentence::startsWith)) {
                    words.add(sentence);
                }
            }
            assertThat(browser.text(row + ".why .summary-text")).isEqualTo(words.get(words.size() - 1));
        }
        assertThat(browser.text("#c-waiting .v")).isEqualTo(queue.path("waiting").asText());

        // filters: the API's filters, positions those of the whole queue
        open("/queue?allocation=" + DETECT);
        JsonNode filtered = get("/v1/queue?allocation=" + DETECT);
        assertThat(filtered.path("entries").size()).isEqualTo(2);
        assertThat(browser.texts("#queue tbody tr .id")).containsExactly(filtered.path("entries").get(0).path("id")
                .asText(), filtered.path("entries").get(1).path("id").asText());
        assertThat(browser.texts("#queue tbody tr .pos")).containsExactly(filtered.path("entries").get(0)
                .path("position").asText(), filtered.path("entries").get(1).path("position").asText());
        open("/queue?user=owner&state=pending");
        assertThat(browser.texts("#queue tbody tr .user")).containsExactly("owner");
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void theQueueAndWorkloadPagesStayLiveWhileOpen() {
        // given the queue page open with the browser's refresh preference at one second
        signIn("member", "/queue");
        browser.js("localStorage.setItem('allot.refreshMs', '1000');");
        try {
            open("/queue");
            assertThat(browser.all("#queue tbody tr")).hasSize(4);
            // when member submits unallocated work, the open page shows it without a reload, where the API puts it
            String extra = submit("member", body("gpus", "1", "gpusPerNode", "0", "minRuntime", "\"0s\""));
            loop.runOnce();
            browser.waitFor("document.querySelector(\"#queue tbody tr[data-id='" + extra + "']\")", WAIT);
            List<String> ids = new ArrayList<>();
            get("/v1/queue").path("entries").forEach(e -> ids.add(e.path("id").asText()));
            browser.waitFor("document.querySelectorAll('#queue tbody tr').length === " + ids.size(), WAIT);
            assertThat(browser.all("#queue tbody tr").stream().map(r -> r.getAttribute("data-id")).toList())
                    .containsExactlyElementsOf(ids);
            assertThat(browser.text("#c-waiting .v")).isEqualTo(String.valueOf(ids.size()));
            // and when it is cancelled, it leaves the page
            assertThat(api.post("/v1/workloads/" + extra + "/cancel", "tok-member", "{}").status()).isEqualTo(200);
            loop.runOnce();
            browser.waitFor("!document.querySelector(\"#queue tbody tr[data-id='" + extra + "']\")", WAIT);
            assertThat(browser.all("#queue tbody tr")).hasSize(4);

            // a running workload's page reloads too (it has not ended); its attempts stay those of the API
            open("/workloads/" + pretrain);
            browser.waitFor("Number(document.body.dataset.refreshes || 0) >= 2", WAIT);
            assertThat(browser.all("#attempts tbody tr")).hasSize(get("/v1/workloads/" + pretrain).path("attempts").size());
            assertThat(browser.consoleErrors()).isEmpty();
        } finally {
            browser.js("localStorage.removeItem('allot.refreshMs');");
        }
    }

    @Test
    void theAllocationsPageShowsUsageAgainstEntitlementAndOwedPerNodeOverEachRange() {
        signIn("root", "/allocations");
        for (String range : List.of("24h", "7d", "30d")) {
            if (!range.equals("24h")) {
                browser.js("const s = document.getElementById('range'); s.value = arguments[0];"
                        + " s.dispatchEvent(new Event('change'));", range);
            }
            JsonNode usage = get("/v1/allocations/usage?since=" + range + "&step=1h");
            browser.waitFor("document.querySelectorAll('#tree tbody tr').length === " + usage.path("allocations").size()
                    + " && document.querySelector('.u-legend') !== null", WAIT);
            // the range has changed once the entitled GPU-hours of the root show the new window
            String root = "#tree tbody tr[data-path='lab'] ";
            browser.waitFor("document.querySelector(\"" + root + ".entitled\").textContent === '"
                    + gpuHours(usage.path("allocations").get(0).path("entitledGpuSeconds"), 2) + "'", WAIT);
            for (JsonNode r : usage.path("allocations")) {
                String row = "#tree tbody tr[data-path='" + r.path("path").asText() + "'] ";
                assertThat(browser.text(row + ".entitlement")).isEqualTo(pct(r.path("entitlement"), 1));
                assertThat(browser.text(row + ".allocated")).isEqualTo(gpuHours(r.path("gpuSeconds"), 2));
                assertThat(browser.text(row + ".unallocated")).isEqualTo(gpuHours(r.path("unallocatedGpuSeconds"), 2));
                assertThat(browser.text(row + ".entitled")).isEqualTo(gpuHours(r.path("entitledGpuSeconds"), 2));
                assertThat(browser.text(row + ".owed")).isEqualTo(gpuHours(r.path("owedGpuSeconds"), 2));
                assertThat(browser.text(row + ".paid")).isEqualTo(pct(r.path("paidFraction"), 0));
            }
            JsonNode detectRow = usage.path("allocations").get(4);
            assertThat(detectRow.path("path").asText()).isEqualTo(DETECT);
            assertThat(detectRow.path("gpuSeconds").asDouble()).as("detect ran 8 GPUs for an hour").isEqualTo(8 * 3660.0);
            assertThat(detectRow.path("series").size()).isEqualTo(Math.toIntExact(
                    dev.allot.core.model.Durations.parse(range).toHours()));
        }
        // the policy in force, setting by setting, as GET /v1/policy gives it
        JsonNode policy = get("/v1/policy");
        assertThat(browser.text("#policy-source")).isEqualTo("policy " + policy.path("policy").asText()
                + " \u00b7 source: " + policy.path("source").asText());
        List<String> settings = new ArrayList<>();
        policy.path("settings").fields().forEachRemaining(f -> {
            if (f.getValue().isObject()) {
                f.getValue().fields().forEachRemaining(g -> settings.add(f.getKey() + "." + g.getKey() + " " + g.getValue().asText()));
            } else {
                settings.add(f.getKey() + " " + f.getValue().asText());
            }
        });
        assertThat(settings).contains("lookback 7d", "allocation.reclaim-margin 0.1");
        assertThat(browser.all("#policy tbody tr").stream()
                .map(r -> r.findElement(org.openqa.selenium.By.cssSelector(".setting")).getText() + " "
                        + r.findElement(org.openqa.selenium.By.cssSelector(".value")).getText()).toList())
                .containsExactlyElementsOf(settings);
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void aManagersShareEditIsPreviewedThenShowsInTheTreeAndTheAuditTrail() {
        signIn("mp", "/allocations");
        // mp manages lab/nlp: it may edit what is below (pretrain), not lab/nlp itself nor the vision subtree
        assertThat(browser.all("input.share").stream().map(i -> i.getAttribute("data-path")).toList())
                .containsExactly(X);
        String row = "#tree tbody tr[data-path='" + X + "'] ";
        assertThat(browser.all(".preview-col").stream().noneMatch(e -> e.isDisplayed())).isTrue();
        browser.type(row + "input.share", "3");
        // lab/nlp/pretrain is nlp's only child, so its entitlement stays nlp's: the preview shows the same number
        browser.waitFor("!document.querySelector(\"" + row + ".preview\").hidden", WAIT);
        assertThat(browser.text(row + ".preview")).isEqualTo(browser.text(row + ".entitlement"));
        browser.click("#save");
        browser.waitFor("document.querySelector('#audit tbody tr .actor') !== null"
                + " && document.querySelector('#audit tbody tr .actor').textContent === 'mp'", WAIT);
        assertThat(browser.one(row + "input.share").getAttribute("value")).isEqualTo("3");
        JsonNode tree = get("/v1/allocations");
        double share = -1;
        for (JsonNode a : tree.path("allocations")) {
            if (a.path("path").asText().equals(X)) {
                share = a.path("share").asDouble();
            }
        }
        assertThat(share).isEqualTo(3.0);
        JsonNode audit = api.get("/v1/audit?limit=1", "tok-mp").json().path("entries").get(0);
        assertThat(audit.path("actor").asText()).isEqualTo("mp");
        assertThat(audit.path("subject").asText()).isEqualTo(X);
        assertThat(browser.text("#audit tbody tr .subject")).isEqualTo(X);
        assertThat(browser.text("#audit tbody tr .before")).isEqualTo("1.00");
        assertThat(browser.text("#audit tbody tr .after")).isEqualTo("3.00");
        // the administrator edits a root-level sibling share: the preview shows the entitlements it gives
        signIn("root", "/allocations");
        String vision = "#tree tbody tr[data-path='lab/vision'] ";
        browser.type(vision + "input.share", "2");
        browser.waitFor("!document.querySelector(\"" + vision + ".preview\").hidden", WAIT);
        assertThat(browser.text(vision + ".preview")).isEqualTo("50.0%"); // nlp 2, vision 2
        assertThat(browser.text("#tree tbody tr[data-path='lab/nlp'] .preview")).isEqualTo("50.0%");
        browser.click("#reset");
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void anEmptiedOrNonNumericShareIsRefusedOnThePageAndNeverSavedAsZero() {
        signIn("root", "/allocations");
        String vision = "#tree tbody tr[data-path='lab/vision'] ";
        double before = shareOf("lab/vision");
        // given a valid edit of nlp, then vision's share emptied (it was read as 0 and saved as share 0)
        browser.type("#tree tbody tr[data-path='lab/nlp'] input.share", "5");
        browser.type(vision + "input.share", org.openqa.selenium.Keys.BACK_SPACE.toString());

        // then Save waits, the page says which share is wrong and what is expected, and nothing changes
        browser.waitFor("!document.getElementById('share-error').hidden", WAIT);
        assertThat(browser.one("#save").isEnabled()).isFalse();
        assertThat(browser.text("#share-error")).contains("lab/vision").contains("must be a number of 0 or more");
        assertThat(browser.one(vision + "input.share").getAttribute("aria-invalid")).isEqualTo("true");
        browser.click("#save");
        assertThat(shareOf("lab/vision")).isEqualTo(before);
        // a share mended to a number is an edit again; Reset forgets both
        browser.type(vision + "input.share", "2");
        browser.waitFor("document.getElementById('share-error').hidden", WAIT);
        assertThat(browser.one("#save").isEnabled()).isTrue();
        browser.click("#reset");
        assertThat(browser.one("#save").isEnabled()).isFalse();
        assertThat(shareOf("lab/vision")).isEqualTo(before);
        assertThat(browser.consoleErrors()).isEmpty();
    }

    private double shareOf(String path) {
        for (JsonNode a : get("/v1/allocations").path("allocations")) {
            if (a.path("path").asText().equals(path)) {
                return a.path("share").asDouble();
            }
        }
        throw new AssertionError("no allocation " + path);
    }

    @Test
    void aWorkloadPageOfNoSuchWorkloadShowsTheErrorAlone() {
        signIn("member", "/queue");
        browser.open(base() + "/workloads/w-999");
        browser.waitFor("document.getElementById('error').textContent.length > 0", WAIT);

        // it showed the error, then empty Contract and Progress boxes and bare table headers
        assertThat(browser.text("#error")).contains("w-999");
        assertThat(browser.one("#contract").isDisplayed()).isFalse();
        assertThat(browser.one("#attempts").isDisplayed()).isFalse();
        assertThat(browser.all("main > h2").stream().noneMatch(h -> h.isDisplayed())).isTrue();
    }

    @Test
    void aMemberSeesNoEditControlsNoAuditTrailAndNotAnotherUsersCommand() {
        signIn("member", "/allocations");
        assertThat(browser.all("input.share")).isEmpty();
        assertThat(browser.one("#edit-controls").isDisplayed()).isFalse();
        assertThat(browser.one("#audit-section").isDisplayed()).isFalse();

        open("/workloads/" + detect);
        assertThat(browser.text("#command")).startsWith("hidden");
        assertThat((String) browser.js("return document.documentElement.outerHTML")).doesNotContain("detect.py")
                .doesNotContain("secret-flag");
        assertThat(api.get("/v1/workloads/" + detect, "tok-member").json().path("workload").path("redacted")
                .asBoolean()).isTrue();
        open("/workloads/" + pretrain);
        assertThat(browser.text("#command")).isEqualTo("python train.py --lr 3e-4");
        assertThat(browser.text("#progress-text")).isEqualTo("300 of 1,000 (30%)");
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void theWorkloadPageShowsTheContractAttemptsPreemptionsAndTheExplanation() {
        signIn("root", "/workloads/" + detect);
        JsonNode detail = get("/v1/workloads/" + detect);
        JsonNode x = get("/v1/workloads/" + detect + "/explain");
        assertThat(browser.text("#title")).isEqualTo("Workload " + detect);
        assertThat(browser.text("#command")).isEqualTo("python detect.py --secret-flag");
        assertThat(browser.text("dd.state")).isEqualTo(detail.path("workload").path("state").asText());
        assertThat(browser.text("dd.min-runtime")).isEqualTo("1h");
        assertThat(detail.path("campaign").isNull()).isTrue(); // no campaign's shard: no Campaign row
        assertThat(browser.all("dd.campaign")).isEmpty();
        JsonNode attempts = detail.path("attempts");
        assertThat(attempts.size()).isEqualTo(1);
        assertThat(browser.all("#attempts tbody tr")).hasSize(1);
        assertThat(browser.text("#attempts tbody tr .started")).isEqualTo(time(attempts.get(0).path("startedAt").asText()));
        assertThat(browser.text("#attempts tbody tr .ended")).isEqualTo(time(attempts.get(0).path("endedAt").asText()));
        assertThat(browser.text("#attempts tbody tr .gpus")).isEqualTo("8");
        JsonNode preemption = x.path("data").path("preemptions").get(0);
        assertThat(preemption.path("preemptor").asText()).isEqualTo(pretrain);
        assertThat(browser.text("#preemptions tbody tr .preemptor")).isEqualTo(pretrain);
        assertThat(browser.text("#preemptions tbody tr .reason")).isEqualTo(preemption.path("reason").asText())
                .isNotBlank();
        List<String> summary = new ArrayList<>();
        x.path("summary").forEach(s -> summary.add(s.asText()));
        assertThat(browser.texts("#summary li")).containsExactlyElementsOf(summary);
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void theNodesPageShowsHealthAndTheDrainInProgressWithWhenItCompletes() {
        signIn("member", "/nodes");
        JsonNode drains = get("/v1/drains");
        JsonNode gpu01 = drains.path("nodes").get(0);
        assertThat(gpu01.path("node").asText()).isEqualTo("gpu-01");
        assertThat(gpu01.path("status").asText()).isEqualTo("draining");
        // pretrain started at 10:01 with a 2h minimum runtime
        assertThat(gpu01.path("completesAt").asText()).isEqualTo("2026-03-01T12:01:00.000Z");
        String row = "#nodes tbody tr[data-node='gpu-01'] ";
        assertThat(browser.text(row + ".health")).isEqualTo("unhealthy");
        assertThat(browser.text(row + ".reason")).isEqualTo("ECC errors");
        assertThat(browser.text(row + ".drain")).isEqualTo("draining");
        assertThat(browser.text(row + ".running")).isEqualTo(pretrain);
        assertThat(browser.text(row + ".completes")).isEqualTo("2026-03-01 12:01:00 UTC");
        assertThat(browser.text("#nodes tbody tr[data-node='gpu-02'] .drain")).isEqualTo("drained");
        assertThat(browser.text("#nodes tbody tr[data-node='gpu-02'] .reason")).isEqualTo("fan failure");
        assertThat(browser.text("#c-draining .v")).isEqualTo("1");
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void aCookieAuthenticatedChangeWithoutTheCsrfHeaderIsRefused() {
        signIn("root", "/queue");
        String call = "const done = arguments[arguments.length - 1];"
                + " fetch('/v1/allocations/lab/vision', {method: 'PUT', credentials: 'same-origin',"
                + " headers: Object.assign({'Content-Type': 'application/json'}, arguments[0]),"
                + " body: JSON.stringify({share: 1, managers: ['ms'], members: []})}).then(r => done(r.status));";
        assertThat(((Number) browser.jsAsync(call, java.util.Map.of())).intValue()).isEqualTo(403);
        assertThat(((Number) browser.jsAsync(call, java.util.Map.of("X-CSRF-Token", "forged"))).intValue())
                .isEqualTo(403);
        String csrf = (String) browser.jsAsync("const done = arguments[arguments.length - 1];"
                + " fetch('/v1/session', {credentials: 'same-origin'}).then(r => r.json()).then(s => done(s.csrfToken));");
        assertThat(((Number) browser.jsAsync(call, java.util.Map.of("X-CSRF-Token", csrf))).intValue()).isEqualTo(200);
        // reads need no header: the session cookie authenticates the timeline's fetch('/v1/...') as any other GET
        assertThat(((Number) browser.jsAsync("const done = arguments[arguments.length - 1];"
                + " fetch('/v1/nodes', {credentials: 'same-origin'}).then(r => done(r.status));")).intValue())
                .isEqualTo(200);
    }

    @Test
    void everyPageIsMoreThanABlankPage() {
        signIn("root", "/queue");
        for (String page : List.of("/queue", "/allocations", "/nodes", "/workloads/" + detect, "/signin")) {
            if (page.equals("/signin")) {
                browser.open(base() + page);
                // signed in: who is, with the way on and Sign out, in the form's place
                browser.waitFor("!document.getElementById('signed-in').hidden", WAIT);
            } else {
                open(page);
            }
            HeadlessChromium.Screenshot shot = browser.screenshot(shots.resolve(page.substring(1).replace('/', '-')
                    + ".png"));
            System.out.printf(Locale.ROOT, "screenshot %s: %dx%d, %d colours, %d non-white pixels%n", page,
                    shot.width(), shot.height(), shot.distinctColours(), shot.inkPixels());
            assertThat(shot.distinctColours()).as(page).isGreaterThan(page.equals("/signin") ? 20 : 100);
            // the sign-in page is a small box on an empty page; the others are full of tables and text
            assertThat(shot.inkPixels()).as(page).isGreaterThan((long) shot.width() * shot.height()
                    / (page.equals("/signin") ? 400 : 50));
        }
    }
}
