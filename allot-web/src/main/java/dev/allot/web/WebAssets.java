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
 * The timeline's elements ({@link #timelineMarkup}, the ids timeline.js looks up) and their styles
 * ({@link #TIMELINE_CSS}) live here too, so both pages lay out the same timeline from one copy.
 */
public final class WebAssets {
    /**
     * format.js: formatting and DOM helpers; model.js: the document read once, a run's timeline decoded;
     * run-words.js: a run in words (the timeline's tooltip); timeline.js: the canvas timeline. In dependency order.
     */
    public static final List<String> TIMELINE_SCRIPTS = List.of("format.js", "model.js", "run-words.js",
            "timeline.js");
    /**
     * The timeline's styles: toolbar, legend, box and tooltip. The page sets the box's height ({@code #tl-box}) and
     * the colours {@code --line} and {@code --panel}.
     */
    public static final String TIMELINE_CSS = "timeline.css";
    private static final String SPAN_SLOT = "{{span}}";

    private WebAssets() {
    }

    /**
     * The timeline's elements (toolbar, legend, canvas box and tooltip: timeline.html), for a page to put where the
     * timeline goes; {@code span} names what the "Whole ..." button shows all of, such as "run" or "window".
     */
    public static String timelineMarkup(String span) {
        if (span.isBlank() || span.contains("<") || span.contains("&") || span.contains("\"")) {
            throw new IllegalArgumentException("the timeline's span is a plain word such as 'run', got '" + span + "'");
        }
        String html = text("timeline.html");
        if (!html.contains(SPAN_SLOT)) {
            throw new IllegalStateException("dev/allot/web/timeline.html has no " + SPAN_SLOT + " slot");
        }
        return html.replace(SPAN_SLOT, span);
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
