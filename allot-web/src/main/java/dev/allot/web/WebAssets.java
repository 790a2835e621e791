package dev.allot.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The shared browser code on the class path, under {@code dev/allot/web/}: the per-GPU timeline the simulator's
 * report and the service's live timeline page both draw with. The scripts declare top-level functions and share
 * them, so a page concatenates them in {@link #TIMELINE_SCRIPTS} order (then its own) inside one function scope.
 */
public final class WebAssets {
    /**
     * format.js: formatting and DOM helpers; model.js: the document read once, a run's timeline decoded;
     * timeline.js: the canvas timeline. In dependency order.
     */
    public static final List<String> TIMELINE_SCRIPTS = List.of("format.js", "model.js", "timeline.js");

    private WebAssets() {
    }

    /** The text of a file of {@code dev/allot/web/}, such as {@code timeline.js}. */
    public static String text(String name) {
        if (name.contains("/") || name.contains("\\")) {
            throw new IllegalArgumentException("a file of dev/allot/web/ by its bare name, got '" + name + "'");
        }
        try (InputStream in = WebAssets.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource dev/allot/web/" + name + " (a broken build of allot-web?)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
