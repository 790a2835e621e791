package dev.allot.server.testing;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through Selenium, for the dashboard's browser tests, as a JUnit extension: a
 * test class that registers it ({@code @ExtendWith(HeadlessChromium.class)}) gets one browser for all its tests (a
 * parameter of type {@link HeadlessChromium}, in {@code @BeforeAll} or a test), quit after the class.
 *
 * <p>The browser and driver are the packages {@code chromium} and {@code chromium-driver} ({@code ALLOT_CHROMIUM},
 * {@code ALLOT_CHROMEDRIVER} override the paths); the driver is handed to Selenium explicitly, so Selenium Manager
 * never tries to download one. Missing binaries fail the test with what to install, never skip it. The window has a
 * fixed size and scale so screenshots are comparable; page errors are read from the browser's log.
 */
public final class HeadlessChromium implements ParameterResolver, AfterAllCallback, AutoCloseable {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(HeadlessChromium.class);
    /** The window's size at launch (see {@link #resize}). */
    public static final int WIDTH = 1500;
    public static final int HEIGHT = 1000;

    private final ChromeDriver driver;
    private final List<String> errors = new ArrayList<>();

    /** For JUnit, which instantiates the extension; the browser itself is made per class, on first use. */
    public HeadlessChromium() {
        this.driver = null;
    }

    private HeadlessChromium(ChromeDriver driver) {
        this.driver = driver;
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
        return p.getParameter().getType() == HeadlessChromium.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext c) {
        ExtensionContext classContext = c.getTestClass().isPresent() && c.getTestMethod().isPresent()
                ? c.getParent().orElse(c) : c;
        return classContext.getStore(NS).getOrComputeIfAbsent("browser", k -> launch(), HeadlessChromium.class);
    }

    @Override
    public void afterAll(ExtensionContext c) {
        HeadlessChromium b = c.getStore(NS).remove("browser", HeadlessChromium.class);
        if (b != null) {
            b.close();
        }
    }

    /** Launches a browser. */
    public static HeadlessChromium launch() {
        Path chromium = binary("ALLOT_CHROMIUM", "/usr/bin/chromium");
        Path chromedriver = binary("ALLOT_CHROMEDRIVER", "/usr/bin/chromedriver");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort().build();
        LoggingPreferences logging = new LoggingPreferences();
        logging.enable(LogType.BROWSER, Level.ALL);
        ChromeOptions options = new ChromeOptions().setBinary(chromium.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-dev-shm-usage", "--window-size=" + WIDTH + "," + HEIGHT,
                "--force-device-scale-factor=1");
        options.setCapability(ChromeOptions.LOGGING_PREFS, logging);
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
        return new HeadlessChromium(driver);
    }

    private static Path binary(String variable, String fallback) {
        String v = System.getenv(variable);
        Path p = Path.of(v == null || v.isBlank() ? fallback : v);
        if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
            throw new IllegalStateException(p + " is not an executable (set " + variable + "). Browser tests need"
                    + " Debian's chromium and chromium-driver: apt-get install -y chromium chromium-driver");
        }
        return p;
    }

    /** Loads a URL; errors logged so far are dropped, so {@link #consoleErrors()} tells of this page. */
    public void open(String url) {
        drainLog();
        errors.clear();
        driver.get(url);
    }

    /** Forgets every cookie of the current site (signs out without the page). */
    public void clearCookies() {
        driver.manage().deleteAllCookies();
    }

    public Object js(String script, Object... args) {
        return driver.executeScript(script, args);
    }

    public Object jsAsync(String script, Object... args) {
        return driver.executeAsyncScript(script, args);
    }

    /** Polls until the JavaScript expression is truthy (errors count as not yet). */
    public void waitFor(String condition, Duration timeout) {
        new WebDriverWait(driver, timeout, Duration.ofMillis(25)).ignoring(JavascriptException.class)
                .withMessage("still not true after " + timeout + ": " + condition)
                .until(d -> Boolean.TRUE.equals(js("return !!(" + condition + ");")));
    }

    public List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    public WebElement one(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    /** The texts of the elements the selector names, in document order. */
    @SuppressWarnings("unchecked")
    public List<String> texts(String css) {
        return (List<String>) js("return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent.trim());",
                css);
    }

    /** The text of the first element the selector names; fails when there is none. */
    public String text(String css) {
        Object t = js("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;", css);
        if (t == null) {
            throw new org.openqa.selenium.NoSuchElementException("nothing matches " + css);
        }
        return (String) t;
    }

    /** Clicks the element, as a user would. */
    public void click(String css) {
        one(css).click();
    }

    /**
     * Replaces an input's text by typing it (selecting what was there first, so no change fires in between) and
     * leaves it with Tab, so its change event fires once.
     */
    public void type(String css, String text) {
        WebElement input = one(css);
        input.click();
        js("arguments[0].select();", input);
        input.sendKeys(text, org.openqa.selenium.Keys.TAB);
    }

    /** Resizes the browser's window (a narrow window's layout); {@link #WIDTH} by {@link #HEIGHT} at launch. */
    public void resize(int width, int height) {
        driver.manage().window().setSize(new org.openqa.selenium.Dimension(width, height));
    }

    public String url() {
        return driver.getCurrentUrl();
    }

    /**
     * Signs in through the dashboard's sign-in page at {@code origin} with an API token and waits until it has led
     * on to {@code next} (a path on the site; its query is kept). The browser must not be signed in there (clear its
     * cookies first). What the sign-in page logged (the 401 of its GET /v1/session, asking whether someone is signed
     * in) is dropped, so {@link #consoleErrors()} tells of the page led to, as after {@link #open}.
     */
    public void signIn(String origin, String token, String next) {
        open(origin + "/signin?next=" + java.net.URLEncoder.encode(next, java.nio.charset.StandardCharsets.UTF_8));
        waitFor("document.body.dataset.sessionChecked === 'true'", Duration.ofSeconds(20));
        drainLog();
        errors.clear();
        one("#token").sendKeys(token);
        one("#signin-button").click();
        new WebDriverWait(driver, Duration.ofSeconds(20), Duration.ofMillis(25))
                .withMessage("sign-in did not lead on to " + next)
                .until(d -> !d.getCurrentUrl().contains("/signin"));
    }

    /** The value of a JavaScript expression that yields a number. */
    public long number(String expression) {
        return ((Number) js("return " + expression + ";")).longValue();
    }

    /** Pixels of a canvas's bitmap that are {@code ink} (not white), {@code coloured} (saturated) or {@code red}. */
    public long pixels(String canvasSelector, String kind) {
        return ((Number) js(COUNT_PIXELS_JS, canvasSelector, kind)).longValue();
    }

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

    /** SEVERE entries of the browser's log since the last {@link #open}. */
    public List<String> consoleErrors() {
        drainLog();
        return List.copyOf(errors);
    }

    /** The viewport as a PNG, also written to {@code file}. */
    public Screenshot screenshot(Path file) {
        byte[] png = driver.getScreenshotAs(OutputType.BYTES);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.write(file, png);
            return Screenshot.of(png);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a screenshot holds: distinct colours and pixels that are not (near) white. */
    public record Screenshot(int width, int height, int distinctColours, long inkPixels) {
        static Screenshot of(byte[] png) throws IOException {
            BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
            Set<Integer> colours = new HashSet<>();
            long ink = 0;
            for (int y = 0; y < image.getHeight(); y++) {
                for (int x = 0; x < image.getWidth(); x++) {
                    int rgb = image.getRGB(x, y) & 0xFFFFFF;
                    colours.add(rgb);
                    int r = rgb >> 16 & 0xFF;
                    int g = rgb >> 8 & 0xFF;
                    int b = rgb & 0xFF;
                    if (Math.min(r, Math.min(g, b)) < 235) {
                        ink++;
                    }
                }
            }
            return new Screenshot(image.getWidth(), image.getHeight(), colours.size(), ink);
        }
    }

    @Override
    public void close() {
        if (driver != null) {
            driver.quit();
        }
    }

    private void drainLog() {
        for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
                errors.add(entry.getMessage());
            }
        }
    }
}
