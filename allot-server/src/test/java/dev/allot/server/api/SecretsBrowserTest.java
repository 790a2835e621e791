package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.rules.Secrets;
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
 * Secrets on the dashboard's workload page, in real headless Chromium against a real API ({@link ApiFixture}'s lab):
 * the walk-through found the owner's environment shown whole on screen (an {@code ALLOT_TOKEN}, a
 * {@code WANDB_API_KEY}), where {@code allot show} masks them. The page masks them by the same rule
 * ({@link Secrets}, mirrored by the dashboard's {@code secrets.js}, both held here to the same examples) until its
 * Show button asks for them whole; another user still gets them hidden by the API.
 */
@ExtendWith(HeadlessChromium.class)
class SecretsBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String TOKEN = "allot_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

    private static void open(HeadlessChromium browser, ApiFixture api, String user, String id) {
        String origin = "http://localhost:" + api.server.port();
        browser.open(origin + "/signin"); // cookies are cleared for the site the browser is on
        browser.clearCookies();
        browser.signIn(origin, "tok-" + user, "/workloads/" + id);
        browser.waitFor("document.body.dataset.ready === 'true'", WAIT);
    }

    private static String submit(ApiFixture api) {
        ApiFixture.Response r = api.submit("member", body(
                "command", "[\"report.sh\", \"--password=hunter2\", \"Bearer " + TOKEN + "\", \"--epochs=3\"]",
                "environment", "{\"ALLOT_TOKEN\": \"" + TOKEN + "\", \"WANDB_API_KEY\": \"0123456789abcdef0123\","
                        + " \"SEED\": \"7\"}"));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    @Test
    void theOwnerSeesTheSecretsMaskedAsAllotShowMasksThemUntilAskingForThemWhole(HeadlessChromium browser,
            @TempDir Path dir) {
        try (ApiFixture api = new ApiFixture(dir)) {
            String id = submit(api);
            open(browser, api, "member", id);

            assertThat(browser.text("#environment"))
                    .isEqualTo("ALLOT_TOKEN=allo...[38 chars] SEED=7 WANDB_API_KEY=0123...[20 chars]");
            assertThat(browser.text("#command"))
                    .isEqualTo("report.sh --password=...[7 chars] Bearer allo...[38 chars] --epochs=3");
            assertThat(browser.text("dd.secrets")).isEqualTo("masked Show");
            assertThat((String) browser.js("return document.documentElement.outerHTML"))
                    .doesNotContain(TOKEN, "hunter2", "0123456789abcdef0123");

            browser.click("#show-secrets");
            assertThat(browser.text("#environment"))
                    .isEqualTo("ALLOT_TOKEN=" + TOKEN + " SEED=7 WANDB_API_KEY=0123456789abcdef0123");
            assertThat(browser.text("#command")).isEqualTo("report.sh --password=hunter2 Bearer " + TOKEN + " --epochs=3");
            assertThat(browser.text("dd.secrets")).isEqualTo("shown whole Hide");

            browser.click("#show-secrets");
            assertThat(browser.text("#environment")).doesNotContain(TOKEN).contains("ALLOT_TOKEN=allo...[38 chars]");

            open(browser, api, "owner", id); // another member of the allocation: the API hides them
            assertThat(browser.text("#command")).startsWith("hidden");
            assertThat(browser.all("#show-secrets")).isEmpty();
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    @Test
    void thePagesRuleMasksExactlyWhatTheJavaRuleMasksOnTheSameExamples(HeadlessChromium browser, @TempDir Path dir) {
        List<String[]> variables = new ArrayList<>();
        for (String word : Secrets.SECRET_WORDS) {
            variables.add(new String[] {"MY_" + word + "_X", "v"});
            variables.add(new String[] {word.toLowerCase(Locale.ROOT) + "s", "a-value-of-20-chars!"});
        }
        for (String part : Secrets.SECRET_PARTS) {
            variables.add(new String[] {"SSH_" + part, "0123456789abcdef"});
            variables.add(new String[] {part + "BOARD", "plain"}); // a part only counts whole
            variables.add(new String[] {"a." + part.toLowerCase(Locale.ROOT) + "-b", "x"});
        }
        variables.add(new String[] {"SEED", "7"});
        variables.add(new String[] {"LOG", "sent " + TOKEN + " then " + TOKEN + "Z"});
        variables.add(new String[] {"NOTE", "allot_short"});
        variables.add(new String[] {"HF_TOKEN", "h\u00e9llo w\u00f6rld \ud83d\ude00\ud83d\ude00 and more"});
        variables.add(new String[] {"PGPASSWORD", ""});
        variables.add(new String[] {"PWD", "1"});
        List<String> words = List.of("--password=hunter2", "-api-key=0123456789abcdef0123", "--token=a\nb", "--epochs=3",
                "--password", "Bearer " + TOKEN, "--auth.file=x=y", "train.py", "--key=", "=x", "--secret-flag");

        try (ApiFixture api = new ApiFixture(dir)) {
            open(browser, api, "member", submit(api));
            for (String[] v : variables) {
                assertThat(browser.js("return Allot.secrets.variable(arguments[0], arguments[1])", v[0], v[1]))
                        .as("%s=%s", v[0], v[1]).isEqualTo(Secrets.variable(v[0], v[1]));
            }
            for (String w : words) {
                assertThat(browser.js("return Allot.secrets.word(arguments[0])", w)).as(w).isEqualTo(Secrets.word(w));
            }
        }
        assertThat(Secrets.variable("MY_TOKEN_X", "v")).as("the examples mask").isEqualTo("...[1 char]");
        assertThat(Secrets.word("--epochs=3")).as("and leave alone").isNull();
    }
}
