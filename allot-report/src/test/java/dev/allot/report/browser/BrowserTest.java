package dev.allot.report.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.TimeoutException;

/**
 * Proves that {@link Browser} can fail: each check that a report test will rely on (no console errors, ink on a
 * canvas, mouse input reaching the page, screenshots) is exercised on a tiny page where the right answer is known,
 * including pages that are broken on purpose.
 */
class BrowserTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final Path SCREENSHOTS = Path.of("target", "browser-test");

    /** A white canvas with a 100x50 red rectangle, sized for devicePixelRatio like uPlot does, and a blank one. */
    private static final String CANVAS_PAGE = """
            <!doctype html>
            <html><body style="margin:0">
            <canvas id="chart" style="width:300px;height:200px;display:block"></canvas>
            <canvas id="blank" style="width:300px;height:200px;display:block"></canvas>
            <script>
              const dpr = window.devicePixelRatio;
              for (const id of ['chart', 'blank']) {
                const canvas = document.getElementById(id);
                canvas.width = 300 * dpr;
                canvas.height = 200 * dpr;
              }
              const ctx = document.getElementById('chart').getContext('2d');
              ctx.scale(dpr, dpr);
              ctx.fillStyle = '#fff';
              ctx.fillRect(0, 0, 300, 200);
              ctx.fillStyle = '#f00';
              ctx.fillRect(20, 30, 100, 50);
            </script>
            </body></html>
            """;

    /** A 400x300 pad whose centre is at viewport (300, 250), reporting the mouse events it receives. */
    private static final String INPUT_PAGE = """
            <!doctype html>
            <html><body style="margin:0">
            <div id="pad" style="position:absolute;left:100px;top:100px;width:400px;height:300px;background:#eee"></div>
            <div id="move"></div><div id="wheel"></div><div id="drag"></div>
            <script>
              const pad = document.getElementById('pad');
              const show = (id, text) => document.getElementById(id).textContent = text;
              let pressed = null;
              let moves = 0;
              pad.addEventListener('mousemove', e => {
                show('move', e.clientX + ',' + e.clientY);
                if (pressed) moves++;
              });
              pad.addEventListener('wheel', e => {
                e.preventDefault();
                show('wheel', Math.sign(e.deltaY) + '@' + e.clientX + ',' + e.clientY);
              }, {passive: false});
              pad.addEventListener('mousedown', e => { pressed = e.clientX + ',' + e.clientY; moves = 0; });
              pad.addEventListener('mouseup', e => {
                show('drag', pressed + '->' + e.clientX + ',' + e.clientY + ' moves=' + moves);
                pressed = null;
              });
            </script>
            </body></html>
            """;

    @RegisterExtension
    static final BrowserExtension chromium = BrowserExtension.started();

    @Test
    void cleanCanvasPageHasInkWhereDrawnAndNoErrors(@TempDir Path dir) throws IOException {
        chromium.browser().open(page(dir, "canvas.html", CANVAS_PAGE));

        double dpr = ((Number) chromium.browser().js("return window.devicePixelRatio;")).doubleValue();
        assertThat(chromium.browser().consoleErrors()).isEmpty();
        assertThat(chromium.browser().inkPixels("#chart"))
                .isCloseTo(Math.round(100 * 50 * dpr * dpr), withinPercentage(2));
        assertThat(chromium.browser().inkPixels("#blank")).isZero();
    }

    @Test
    void errorThrownByInlineScriptIsReported(@TempDir Path dir) throws IOException {
        chromium.browser()
                .open(page(dir, "throws.html", "<script>throw new Error('kaput in inline script');</script>"));

        assertThat(chromium.browser().consoleErrors())
                .anySatisfy(error -> assertThat(error).contains("kaput in inline script"));
    }

    @Test
    void consoleErrorsAreCapturedAndAccumulate(@TempDir Path dir) throws IOException {
        chromium.browser().open(page(dir, "console.html", "<script>console.error('boom');</script>"));
        assertThat(chromium.browser().consoleErrors()).anySatisfy(error -> assertThat(error).contains("boom"));

        chromium.browser().js("console.error('second boom');");

        assertThat(chromium.browser().consoleErrors())
                .anySatisfy(error -> assertThat(error).contains("\"boom\""))
                .anySatisfy(error -> assertThat(error).contains("second boom"));
    }

    @Test
    void openingAPageForgetsErrorsOfThePreviousOne(@TempDir Path dir) throws IOException {
        chromium.browser().open(page(dir, "throws.html", "<script>throw new Error('old');</script>"));
        chromium.browser().open(page(dir, "clean.html", "<p>fine</p>"));

        assertThat(chromium.browser().consoleErrors()).isEmpty();
    }

    @Test
    void mouseInputReachesThePage(@TempDir Path dir) throws IOException {
        chromium.browser().open(page(dir, "input.html", INPUT_PAGE));

        chromium.browser().hover(250, 220);
        chromium.browser().waitFor("document.getElementById('move').textContent === '250,220'", WAIT);

        chromium.browser().wheel("#pad", 10, -20, 120);
        chromium.browser().waitFor("document.getElementById('wheel').textContent === '1@310,230'", WAIT);
        chromium.browser().wheel("#pad", 0, 0, -120);
        chromium.browser().waitFor("document.getElementById('wheel').textContent === '-1@300,250'", WAIT);

        chromium.browser().drag("#pad", -100, -50, 100, 50);
        assertThat(chromium.browser().js("return document.getElementById('drag').textContent;"))
                .isEqualTo("200,200->400,300 moves=5");
        assertThat(chromium.browser().consoleErrors()).isEmpty();
    }

    @Test
    void waitForFailsNamingTheCondition(@TempDir Path dir) throws IOException {
        chromium.browser().open(page(dir, "clean.html", "<p>fine</p>"));

        assertThatThrownBy(() -> chromium.browser().waitFor("window.neverSet.ready", Duration.ofMillis(200)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("window.neverSet.ready");
    }

    @Test
    void screenshotsArePngsOfWhatIsRendered(@TempDir Path dir) throws IOException {
        chromium.browser().open(page(dir, "canvas.html", CANVAS_PAGE));

        Path viewport = chromium.browser().screenshot(SCREENSHOTS.resolve("viewport.png"));

        BufferedImage image = ImageIO.read(viewport.toFile());
        assertThat(image.getWidth()).isEqualTo(1600);
        assertThat(image.getRGB(70, 55) & 0xFFFFFF).as("inside the red rectangle").isEqualTo(0xFF0000);
        assertThat(image.getRGB(200, 150) & 0xFFFFFF).as("on the white canvas").isEqualTo(0xFFFFFF);
    }

    @Test
    void fullPageScreenshotCoversTheDocumentAndRestoresTheWindow(@TempDir Path dir) throws IOException {
        chromium.browser().open(page(dir, "tall.html",
                "<body style='margin:0'><div style='height:3000px;background:linear-gradient(red,blue)'></div>"));
        Object viewportBefore = chromium.browser().js("return window.innerWidth + 'x' + window.innerHeight;");

        Path full = chromium.browser().fullPageScreenshot(SCREENSHOTS.resolve("full-page.png"));

        BufferedImage image = ImageIO.read(full.toFile());
        assertThat(image.getHeight()).isEqualTo(3000);
        assertThat(chromium.browser().js("return window.innerWidth + 'x' + window.innerHeight;"))
                .isEqualTo(viewportBefore);
    }

    @Test
    void missingBinariesFailWithInstallInstructions() {
        Path missing = Path.of("/nonexistent/chromium");

        assertThatThrownBy(() -> Browser.start(missing, missing))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/nonexistent/chromium")
                .hasMessageContaining("chromium-driver");
    }

    private static Path page(Path dir, String name, String html) throws IOException {
        return Files.writeString(dir.resolve(name), html);
    }
}
