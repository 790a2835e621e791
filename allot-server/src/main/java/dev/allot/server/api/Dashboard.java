package dev.allot.server.api;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The dashboard's files: plain HTML, CSS and JavaScript kept as class-path resources under
 * {@code dev/allot/server/dashboard/} (no build step), plus uPlot from its webjar for the charts. Served on the API's
 * port outside {@code /v1}: the pages at {@code /queue}, {@code /allocations}, {@code /workloads/{id}},
 * {@code /campaigns}, {@code /campaigns/{name}}, {@code /nodes} and {@code /signin} ({@code /} leads to the queue),
 * their assets under {@code /dashboard/}.
 *
 * <p>The files are public (they hold no data); every number on a page is fetched by the page from the {@code /v1}
 * API with the session cookie ({@link SessionApi}), so the pages show exactly what the API gives the signed-in user.
 * Each answer carries a strict Content-Security-Policy (scripts and data from this origin only, no framing) so that
 * text from the API, which the pages insert as text, could not run even if it were inserted as markup.
 */
public final class Dashboard {
    static final String ROOT = "/dev/allot/server/dashboard/";
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/";
    private static final Pattern ASSET = Pattern.compile("[a-z][a-z0-9-]*\\.(js|css|html)");
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
            + " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
    private static final Map<String, byte[]> CACHE = new ConcurrentHashMap<>();

    private Dashboard() {
    }

    /** Registers the pages and their assets. */
    static void routes(JavalinConfig config) {
        // Javalin's redirect answers the body "Redirected" under the API's default type, application/json: plain
        // text says what it is
        ApiServer.getAndHead(config, "/", ctx -> {
            ctx.redirect("/queue");
            ctx.contentType("text/plain; charset=utf-8").result("see /queue\n");
        });
        ApiServer.getAndHead(config, "/signin", ctx -> page(ctx, "signin.html"));
        ApiServer.getAndHead(config, "/queue", ctx -> page(ctx, "queue.html"));
        ApiServer.getAndHead(config, "/allocations", ctx -> page(ctx, "allocations.html"));
        ApiServer.getAndHead(config, "/nodes", ctx -> page(ctx, "nodes.html"));
        ApiServer.getAndHead(config, "/workloads/{id}", ctx -> page(ctx, "workload.html"));
        ApiServer.getAndHead(config, "/campaigns", ctx -> page(ctx, "campaigns.html"));
        ApiServer.getAndHead(config, "/campaigns/{name}", ctx -> page(ctx, "campaign.html"));
        ApiServer.getAndHead(config, "/dashboard/{file}", Dashboard::asset);
    }

    /**
     * Whether a request that found no route is a browser's for a page (a GET outside {@code /v1/} that accepts HTML):
     * it is answered with a page saying so, not with the API's JSON error, which a browser showed as raw text.
     */
    static boolean wantsPage(Context ctx) {
        String accept = ctx.header("Accept");
        return "GET".equals(ctx.method().name()) && !ctx.path().startsWith("/v1/") && accept != null
                && accept.contains("text/html");
    }

    /**
     * A 404 page for a browser: what was not found and where the dashboard's pages are (every page of the navigation
     * bar, in its order: dashboard.js {@code frame}).
     */
    static void noSuchPage(Context ctx) {
        String path = ctx.path().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
        ctx.status(404).contentType("text/html; charset=utf-8").result("<!DOCTYPE html>\n<html lang=\"en\"><head>"
                + "<meta charset=\"utf-8\"><title>No such page - Allot</title>"
                + "<link rel=\"stylesheet\" href=\"/dashboard/dashboard.css\"></head><body><main>"
                + "<h1>No such page</h1><p>There is no page at <code>" + path + "</code>. The dashboard's pages: "
                + "<a href=\"/queue\">Queue</a>, <a href=\"/campaigns\">Campaigns</a>,"
                + " <a href=\"/allocations\">Allocations</a>, <a href=\"/timeline\">Timeline</a>,"
                + " <a href=\"/nodes\">Nodes</a>.</p></main></body></html>\n");
    }

    /** Answers with one of the dashboard's HTML pages (for routes other classes add, such as the timeline). */
    public static void page(Context ctx, String file) {
        serve(ctx, ROOT + file, "text/html; charset=utf-8");
    }

    private static void asset(Context ctx) {
        String file = ctx.pathParam("file");
        if (file.equals("uplot.js") || file.equals("uplot.css")) {
            String dist = UPLOT + uplotVersion() + "/dist/uPlot." + (file.endsWith(".js") ? "iife.min.js" : "min.css");
            serve(ctx, dist, file.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
            return;
        }
        if (!ASSET.matcher(file).matches() || Dashboard.class.getResource(ROOT + file) == null) {
            throw ApiException.notFound("no dashboard file '" + file + "'", "the dashboard starts at /");
        }
        String type = file.endsWith(".js") ? "text/javascript" : file.endsWith(".css") ? "text/css" : "text/html";
        serve(ctx, ROOT + file, type + "; charset=utf-8");
    }

    private static void serve(Context ctx, String resource, String contentType) {
        byte[] bytes = CACHE.computeIfAbsent(resource, Dashboard::read);
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-cache");
        ctx.status(200).contentType(contentType).result(bytes);
    }

    private static byte[] read(String resource) {
        try (InputStream in = Dashboard.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard file " + resource + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String uplotVersion() {
        try (InputStream in = Dashboard.class.getResourceAsStream(
                "/META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("uPlot's webjar is missing from the class path");
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
