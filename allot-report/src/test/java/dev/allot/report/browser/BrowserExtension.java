package dev.allot.report.browser;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One headless Chromium ({@link Browser}) for a test class, as a JUnit extension: started before the class's first
 * test, while the class writes the pages it will open ({@link Browser#startWhile}: seconds of simulation beside the
 * browser's own start), and closed after its last test. Register it on a static field,
 * {@code @RegisterExtension static final BrowserExtension chromium = BrowserExtension.whileWriting(X::writePages);},
 * and use {@link #browser()}. The one place for the start and close each browser test class of the report had
 * written out; a browser that cannot start fails the class, as {@link Browser#start()} says, never skips it.
 */
public final class BrowserExtension implements BeforeAllCallback, AfterAllCallback {
    /** What a test class writes before its tests: the pages they open. */
    @FunctionalInterface
    public interface Pages {
        void write() throws IOException;
    }

    /** Null: nothing to write, the browser is started alone. */
    private final Pages pages;
    private Browser browser;

    private BrowserExtension(Pages pages) {
        this.pages = pages;
    }

    /** The browser, started while {@code pages} are written. */
    public static BrowserExtension whileWriting(Pages pages) {
        return new BrowserExtension(pages);
    }

    /** The browser alone, for tests that write their pages themselves. */
    public static BrowserExtension started() {
        return new BrowserExtension(null);
    }

    /** The class's browser; only from its tests and their set-up. */
    public Browser browser() {
        if (browser == null) {
            throw new IllegalStateException("no browser: BrowserExtension starts one before a class's tests; register"
                    + " it on a static field with @RegisterExtension");
        }
        return browser;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (pages == null) {
            browser = Browser.start();
            return;
        }
        browser = Browser.startWhile(() -> {
            try {
                pages.write();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (browser != null) {
            browser.close();
            browser = null;
        }
    }
}
