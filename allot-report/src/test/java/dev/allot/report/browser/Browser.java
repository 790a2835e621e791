package dev.allot.report.browser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.interactions.WheelInput;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Test harness that drives Debian's headless Chromium through Selenium, for tests that open a generated HTML report
 * and check that it renders, reacts to the mouse and logs no errors.
 *
 * <p>Everything is local and offline. The browser and the driver are the Debian packages {@code chromium} and
 * {@code chromium-driver} (paths overridable with the environment variables {@code ALLOT_CHROMIUM} and
 * {@code ALLOT_CHROMEDRIVER}). Because the driver executable is handed to the {@link ChromeDriverService}
 * explicitly, Selenium's {@code DriverFinder} returns it as is and never runs Selenium Manager, which would
 * otherwise try to resolve (and download) a driver and browser into {@code ~/.cache/selenium}. If the binaries
 * are missing, {@link #start()} fails with instructions rather than letting a test be skipped unnoticed.
 *
 * <p>Page errors are read from Chrome's browser log ({@code goog:loggingPrefs}), which records console messages
 * and uncaught exceptions from the very first script of a page, inline scripts included, with no need to inject
 * anything into the page. The browser has a fixed size and device scale factor so pixel counts, coordinates and
 * screenshots are reproducible. One instance is meant to be shared by a test class; it is not thread-safe.
 */
public final class Browser implements AutoCloseable {

    private static final Path DEFAULT_CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DEFAULT_CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final int WIDTH = 1600;
    private static final int HEIGHT = 1200;
    private static final int MAX_FULL_PAGE_HEIGHT = 6000;
    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(25);
    /**
     * Duration of a wheel turn. Selenium's default (250 ms) only slows tests down: Chrome fires a single wheel event
     * either way. (Pointer moves have durations fixed by Selenium: 250 ms for a move to a location, 100 ms to an
     * element.)
     */
    private static final Duration WHEEL_DURATION = Duration.ZERO;
    /** Pointer moves between press and release in {@link #drag}, so handlers that track motion see a path. */
    private static final int DRAG_STEPS = 5;

    /**
     * Counts the bitmap pixels of a canvas that pass a test: {@code ink}, neither transparent nor pure white; or
     * {@code coloured}, not transparent and in a saturated colour (the largest and smallest channel at least 60
     * apart), which counts a chart's series and bars but not its grey axes, grid lines and labels. The canvas is
     * copied onto a fresh 2D canvas first, so it works whatever context the page drew with. It reads the whole
     * bitmap ({@code canvas.width} x {@code canvas.height}), which a devicePixelRatio-aware chart sizes at CSS size
     * times devicePixelRatio, so no drawn pixel is missed at any scale factor.
     */
    private static final String COUNT_PIXELS_JS = """
            const canvas = document.querySelector(arguments[0]);
            const coloured = arguments[1] === 'coloured';
            if (!(canvas instanceof HTMLCanvasElement)) {
              throw new Error('no canvas matches ' + arguments[0]);
            }
            if (canvas.width === 0 || canvas.height === 0) {
              return 0;
            }
            const copy = document.createElement('canvas');
            copy.width = canvas.width;
            copy.height = canvas.height;
            const context = copy.getContext('2d');
            context.drawImage(canvas, 0, 0);
            const rgba = context.getImageData(0, 0, copy.width, copy.height).data;
            let count = 0;
            for (let i = 0; i < rgba.length; i += 4) {
              if (rgba[i + 3] === 0) {
                continue;
              }
              const max = Math.max(rgba[i], rgba[i + 1], rgba[i + 2]);
              const min = Math.min(rgba[i], rgba[i + 1], rgba[i + 2]);
              if (coloured ? max - min >= 60 : min < 255) {
                count++;
              }
            }
            return count;
            """;

    /** Resolves after two animation frames: enough for a resize to be laid out and painted. */
    private static final String AFTER_PAINT_JS = """
            const done = arguments[arguments.length - 1];
            requestAnimationFrame(() => requestAnimationFrame(() => done()));
            """;

    private final ChromeDriver driver;
    private final List<String> errors = new ArrayList<>();

    private Browser(ChromeDriver driver) {
        this.driver = driver;
    }

    /** Launches headless Chromium with the binaries from {@code ALLOT_CHROMIUM} / {@code ALLOT_CHROMEDRIVER}. */
    public static Browser start() {
        return start(fromEnv("ALLOT_CHROMIUM", DEFAULT_CHROMIUM), fromEnv("ALLOT_CHROMEDRIVER", DEFAULT_CHROMEDRIVER));
    }

    /**
     * Launches headless Chromium with the given binaries.
     *
     * @throws IllegalStateException if either binary is not an executable file
     */
    public static Browser start(Path chromium, Path chromedriver) {
        requireExecutable(chromium, "Chromium", "ALLOT_CHROMIUM");
        requireExecutable(chromedriver, "ChromeDriver", "ALLOT_CHROMEDRIVER");

        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort()
                .build();

        LoggingPreferences logging = new LoggingPreferences();
        logging.enable(LogType.BROWSER, Level.ALL);
        ChromeOptions options = new ChromeOptions()
                .setBinary(chromium.toFile())
                .addArguments(
                        "--headless=new",
                        "--no-sandbox", // we run as root, where Chromium's sandbox cannot start
                        "--disable-dev-shm-usage", // containers often have a tiny /dev/shm
                        "--window-size=" + WIDTH + "," + HEIGHT,
                        "--force-device-scale-factor=1");
        options.setCapability(ChromeOptions.LOGGING_PREFS, logging);

        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(SCRIPT_TIMEOUT);
        return new Browser(driver);
    }

    /**
     * Starts the browser on another thread while {@code work} (writing the page it will open: seconds of simulation)
     * runs on this one, and returns it once both are done; if {@code work} fails, the browser is closed and the
     * failure thrown. A test class's set-up so saves the browser's own start (seconds on a loaded machine).
     */
    public static Browser startWhile(Runnable work) {
        java.util.concurrent.CompletableFuture<Browser> starting =
                java.util.concurrent.CompletableFuture.supplyAsync(Browser::start);
        try {
            work.run();
        } catch (RuntimeException | Error e) {
            starting.thenAccept(Browser::close);
            throw e;
        }
        try {
            return starting.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }

    /**
     * Loads a local HTML file and waits for its load event. Errors collected so far are discarded, so
     * {@link #consoleErrors()} reports only this page.
     */
    public void open(Path htmlFile) {
        drainLog();
        errors.clear();
        driver.get(htmlFile.toAbsolutePath().toUri().toString());
    }

    /**
     * The messages of the SEVERE browser-log entries since the last {@link #open}: uncaught exceptions (including
     * those thrown by inline scripts during load), unhandled rejections, {@code console.error} calls and failed
     * resource loads. Each message starts with the source location, e.g.
     * {@code file:///.../page.html 12:9 Uncaught Error: kaput}.
     */
    public List<String> consoleErrors() {
        drainLog();
        return List.copyOf(errors);
    }

    /** Runs {@code script} as the body of a function (use {@code return}); see {@code executeScript}. */
    public Object js(String script, Object... args) {
        return driver.executeScript(script, args);
    }

    /** Runs {@code script}, which signals completion by calling {@code arguments[arguments.length - 1]}. */
    public Object jsAsync(String script, Object... args) {
        return driver.executeAsyncScript(script, args);
    }

    /**
     * Polls until the JavaScript expression is truthy. Evaluation errors count as "not yet", so the expression may
     * refer to things the page has not created yet.
     *
     * @throws org.openqa.selenium.TimeoutException naming the expression (and the last evaluation error, if any)
     */
    public void waitFor(String jsCondition, Duration timeout) {
        new WebDriverWait(driver, timeout, POLL_INTERVAL)
                .ignoring(JavascriptException.class)
                .withMessage("JS condition still not truthy after " + timeout + ": " + jsCondition)
                .until(d -> Boolean.TRUE.equals(js("return !!(" + jsCondition + ");")));
    }

    /** The number of a canvas's pixels in a saturated colour (data, not axes); see {@link #COUNT_PIXELS_JS}. */
    public long colouredPixels(String cssSelectorOfCanvas) {
        return ((Number) js(COUNT_PIXELS_JS, cssSelectorOfCanvas, "coloured")).longValue();
    }

    /** The number of pixels of the canvas's bitmap that are neither transparent nor pure white. */
    public long inkPixels(String cssSelectorOfCanvas) {
        return ((Number) js(COUNT_PIXELS_JS, cssSelectorOfCanvas, "ink")).longValue();
    }

    /** Clicks the element the selector names, as a user would. */
    public void click(String cssSelector) {
        element(cssSelector).click();
    }

    /** Replaces the text of an input, then leaves it with Tab so that its change event fires. */
    public void type(String cssSelector, String text) {
        org.openqa.selenium.WebElement input = element(cssSelector);
        input.clear();
        input.sendKeys(text, org.openqa.selenium.Keys.TAB);
    }

    /** Moves the real (WebDriver) mouse to viewport coordinates, firing the usual mouse events. */
    public void hover(int clientX, int clientY) {
        new Actions(driver).moveToLocation(clientX, clientY).perform();
    }

    /** Turns the mouse wheel over a point given as an offset from the element's centre. */
    public void wheel(String cssSelector, int offsetXFromCenter, int offsetYFromCenter, int deltaY) {
        WheelInput.ScrollOrigin origin =
                WheelInput.ScrollOrigin.fromElement(element(cssSelector), offsetXFromCenter, offsetYFromCenter);
        new Actions(driver, WHEEL_DURATION).scrollFromOrigin(origin, 0, deltaY).perform();
    }

    /**
     * Presses the left button at one point and releases it at another, moving in a few steps in between. Points are
     * offsets from the element's centre.
     */
    public void drag(String cssSelector, int fromX, int fromY, int toX, int toY) {
        WebElement element = element(cssSelector);
        Actions actions = new Actions(driver).moveToElement(element, fromX, fromY).clickAndHold();
        for (int step = 1; step <= DRAG_STEPS; step++) {
            actions.moveToElement(element,
                    fromX + (toX - fromX) * step / DRAG_STEPS,
                    fromY + (toY - fromY) * step / DRAG_STEPS);
        }
        actions.release().perform();
    }

    /** Saves a PNG of the viewport, creating parent directories. */
    public Path screenshot(Path file) {
        byte[] png = driver.getScreenshotAs(OutputType.BYTES);
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            return Files.write(file, png);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write screenshot " + file, e);
        }
    }

    /**
     * Saves a PNG of the whole document (up to {@value #MAX_FULL_PAGE_HEIGHT} px tall) by growing the window to the
     * document's height for the shot, then restoring it. The page sees the resize (resize events, reflow).
     */
    public Path fullPageScreenshot(Path file) {
        Dimension original = driver.manage().window().getSize();
        long documentHeight = ((Number) js("return document.documentElement.scrollHeight;")).longValue();
        long viewportHeight = ((Number) js("return window.innerHeight;")).longValue();
        int frame = original.getHeight() - (int) viewportHeight;
        int height = (int) Math.min(documentHeight, MAX_FULL_PAGE_HEIGHT) + frame;
        try {
            driver.manage().window().setSize(new Dimension(original.getWidth(), height));
            jsAsync(AFTER_PAINT_JS);
            return screenshot(file);
        } finally {
            driver.manage().window().setSize(original);
            jsAsync(AFTER_PAINT_JS);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }

    private WebElement element(String cssSelector) {
        return driver.findElement(By.cssSelector(cssSelector));
    }

    /** Moves new SEVERE entries from the browser log (which the driver empties on each read) into {@link #errors}. */
    private void drainLog() {
        for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
                errors.add(entry.getMessage());
            }
        }
    }

    private static Path fromEnv(String variable, Path fallback) {
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? fallback : Path.of(value);
    }

    private static void requireExecutable(Path binary, String what, String variable) {
        if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
            throw new IllegalStateException(what + " not found at " + binary + " (set " + variable
                    + " to override). Browser tests need Debian's `chromium` and `chromium-driver` packages: "
                    + "apt-get install -y chromium chromium-driver (as .ci/run does).");
        }
    }
}
