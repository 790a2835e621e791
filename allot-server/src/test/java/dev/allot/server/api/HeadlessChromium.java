package dev.allot.server.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.JavascriptException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through Selenium, for tests that open the service's pages: load a URL, run
 * JavaScript, wait for a condition, count a canvas's drawn pixels, read the page's console errors, take screenshots.
 * As allot-report's browser harness: the binaries are the packages {@code chromium} and {@code chromium-driver}
 * ({@code ALLOT_CHROMIUM}, {@code ALLOT_CHROMEDRIVER} override the paths), handed to Selenium explicitly so it never
 * downloads anything; a missing binary fails with instructions rather than skipping. Fixed window size and scale
 * factor, so pixel counts are reproducible.
 */
final class HeadlessChromium implements AutoCloseable {
    private static final int WIDTH = 1400;
    private static final int HEIGHT = 1000;
    private static final Duration POLL = Duration.ofMillis(25);

    /** Pixels of a canvas's bitmap by kind: ink (not white, not transparent), coloured (saturated), red (preempted). */
    private static final String COUNT_PIXELS_JS = """
            const canvas = document.querySelector(arguments[0]);
            if (!(canvas instanceof HTMLCanvasElement)) throw new Error('no canvas matches ' + arguments[0]);
            if (canvas.width === 0 || canvas.height === 0) return 0;
            const rgba = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let count = 0;
            for (let i = 0; i < rgba.length; i += 4) {
              if (rgba[i + 3] === 0) continue;
              const [r, g, b] = [rgba[i], rgba[i + 1], rgba[i + 2]];
              const max = Math.max(r, g, b), min = Math.min(r, g, b);
              if (arguments[1] === 'ink' ? min < 255 : arguments[1] === 'coloured' ? max - min >= 60
                  : r >= 200 && g <= 40 && b <= 40) count++;
            }
            return count;
            """;

    private final ChromeDriver driver;
    private final List<String> errors = new ArrayList<>();

    private HeadlessChromium(ChromeDriver driver) {
        this.driver = driver;
    }

    static HeadlessChromium start() {
        Path chromium = binary("ALLOT_CHROMIUM", "/usr/bin/chromium", "Chromium");
        Path chromedriver = binary("ALLOT_CHROMEDRIVER", "/usr/bin/chromedriver", "ChromeDriver");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(chromedriver.toFile()).usingAnyFreePort().build();
        LoggingPreferences logging = new LoggingPreferences();
        logging.enable(LogType.BROWSER, Level.ALL);
        ChromeOptions options = new ChromeOptions().setBinary(chromium.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-dev-shm-usage", "--window-size=" + WIDTH + "," + HEIGHT,
                "--force-device-scale-factor=1");
        options.setCapability(ChromeOptions.LOGGING_PREFS, logging);
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        return new HeadlessChromium(driver);
    }

    /** Loads a URL; errors collected so far are dropped, so {@link #consoleErrors()} is about this page. */
    void open(String url) {
        drainLog();
        errors.clear();
        driver.get(url);
    }

    Object js(String script, Object... args) {
        return driver.executeScript(script, args);
    }

    /** Runs a script that signals completion by calling {@code arguments[arguments.length - 1]} with its result. */
    Object jsAsync(String script, Object... args) {
        return driver.executeAsyncScript(script, args);
    }

    long number(String expression) {
        return ((Number) js("return " + expression + ";")).longValue();
    }

    /** Polls until the expression is truthy; evaluation errors count as not yet. */
    void waitFor(String jsCondition, Duration timeout) {
        new WebDriverWait(driver, timeout, POLL).ignoring(JavascriptException.class)
                .withMessage("still not true after " + timeout + ": " + jsCondition)
                .until(d -> Boolean.TRUE.equals(js("return !!(" + jsCondition + ");")));
    }

    /** Pixels of the canvas that are {@code ink}, {@code coloured} or {@code red}. */
    long pixels(String canvasSelector, String kind) {
        return ((Number) js(COUNT_PIXELS_JS, canvasSelector, kind)).longValue();
    }

    /**
     * SEVERE browser-log entries since the last {@link #open}: uncaught errors, failed loads, console.error. A failed
     * {@code /favicon.ico} is left out: Chromium asks for it, late, after a JSON page such as the {@code /v1/health}
     * a test opens to reach the origin's sessionStorage, and the pages under test declare their icon.
     */
    List<String> consoleErrors() {
        drainLog();
        return errors.stream().filter(e -> !e.contains("/favicon.ico - ")).toList();
    }

    Path screenshot(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write screenshot " + file, e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }

    private void drainLog() {
        for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
                errors.add(entry.getMessage());
            }
        }
    }

    private static Path binary(String variable, String fallback, String what) {
        String value = System.getenv(variable);
        Path p = Path.of(value == null || value.isBlank() ? fallback : value);
        if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
            throw new IllegalStateException(what + " not found at " + p + " (set " + variable + " to override). Browser"
                    + " tests need Debian's `chromium` and `chromium-driver` packages: apt-get install -y chromium"
                    + " chromium-driver.");
        }
        return p;
    }
}
