package dev.allot.server.api;

import dev.allot.web.WebAssets;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The dashboard's GPU timeline page: {@code GET /timeline} (the page, dev/allot/server/dashboard/timeline.html, with
 * the timeline's elements from allot-web, {@link WebAssets#timelineMarkup}, in its {@code {{timeline}}} slot),
 * {@code GET /timeline.css} (the timeline's styles, allot-web's {@link WebAssets#TIMELINE_CSS}, as the report's) and
 * {@code GET /timeline.js} (its script: the report's timeline code from allot-web, {@link WebAssets#TIMELINE_SCRIPTS},
 * then timeline-page.js, concatenated inside one function scope as the report does, so nothing leaks into the page's
 * global scope but {@code allotTimeline}). All are static and need no sign-in; the data comes from
 * {@code GET /v1/timeline}, which does.
 */
final class TimelinePage {
    private static final String BASE = "/dev/allot/server/dashboard/";
    private static final String TIMELINE_SLOT = "{{timeline}}";
    /** Scripts from the page's own origin only; inline styles, which the timeline's legend uses. */
    private static final String CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:;"
            + " style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    private TimelinePage() {
    }

    static void register(JavalinConfig config) {
        byte[] html = page().getBytes(StandardCharsets.UTF_8);
        byte[] css = WebAssets.text(WebAssets.TIMELINE_CSS).getBytes(StandardCharsets.UTF_8);
        byte[] js = script().getBytes(StandardCharsets.UTF_8);
        ApiServer.getAndHead(config, "/timeline", ctx -> send(ctx, "text/html; charset=utf-8", html));
        ApiServer.getAndHead(config, "/timeline.css", ctx -> send(ctx, "text/css; charset=utf-8", css));
        ApiServer.getAndHead(config, "/timeline.js", ctx -> send(ctx, "text/javascript; charset=utf-8", js));
    }

    private static void send(Context ctx, String type, byte[] body) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-cache");
        ctx.status(200).contentType(type).result(body);
    }

    /** timeline.html with the timeline's elements in its slot. */
    static String page() {
        String html = resource("timeline.html");
        if (!html.contains(TIMELINE_SLOT)) {
            throw new IllegalStateException(BASE + "timeline.html has no " + TIMELINE_SLOT + " slot");
        }
        return html.replace(TIMELINE_SLOT, WebAssets.timelineMarkup("window"));
    }

    static String script() {
        StringBuilder js = new StringBuilder("(function () {\n'use strict';\n");
        for (String name : WebAssets.TIMELINE_SCRIPTS) {
            js.append("\n// ---- ").append(name).append('\n').append(WebAssets.text(name));
        }
        js.append("\n// ---- timeline-page.js\n").append(resource("timeline-page.js"));
        return js.append("})();\n").toString();
    }

    private static String resource(String name) {
        try (InputStream in = TimelinePage.class.getResourceAsStream(BASE + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + BASE + name + " (a broken build of allot-server?)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
