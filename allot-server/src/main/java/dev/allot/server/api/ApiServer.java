package dev.allot.server.api;

import dev.allot.server.policy.LivePolicy;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.ConflictException;
import dev.allot.server.store.Node;
import dev.allot.server.store.NotFoundException;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's REST API, version 1, under {@code /v1}: submitting, listing, reading and cancelling workloads;
 * reading and editing the allocation tree (the budgets), its audit trail and its usage against entitlement; and
 * reading and setting the cluster's nodes, brakes and policy. A thin layer over the {@link Store}: every request is
 * checked (authentication, authorisation, input) and then answered with one or two store calls, so an acknowledged
 * submission is durable. The scheduling loop is not here; submissions are only stored, pending.
 *
 * <p>Authentication is a bearer token ({@code Authorization: Bearer <token>}) looked up in the store and refused
 * when revoked, expired or of a disabled user ({@link Authentication}); only {@code /v1/health} and
 * {@code /v1/openapi.json} need none. Who may do what is {@link Permissions}.
 *
 * <p>This class starts and stops the server, holds the route table, authenticates, and answers the health check and
 * the timeline itself; the other groups are classes of their own, which its route table sends to: workloads
 * ({@link WorkloadsApi}), campaigns ({@link CampaignsApi}), the allocation tree, its audit trail and usage
 * ({@link AllocationsApi}), the nodes, brakes and policy ({@link ClusterApi}), users and tokens ({@link UsersApi}),
 * the browser's session ({@link SessionApi}), the queue and drains ({@link QueueApi}), what-ifs ({@link WhatIfApi}).
 * They share its strict JSON ({@link JsonIo}), its reading of query parameters ({@link QueryParams}) and its caches
 * of the tree and the nodes, which the edits invalidate.
 *
 * <p>Every error is answered as JSON {@code {"error", "field", "hint"}} ({@link ApiError}): 400 for bad input
 * (naming the field), 401 without a valid token, 403 when the caller may not, 404 for an unknown id or route, 405
 * with {@code Allow} for a route asked with a method it does not answer, 409 when the store refuses for what it
 * holds, and 500, with a generic message, only for the server's own faults, which are logged. JSON is read and written with Jackson, strictly: unknown fields, duplicate keys and trailing
 * content are refused.
 *
 * <p>Where it listens (address, port, HTTPS) and the HTTP-level defences (request limits, bodies read without a
 * thread, methods and normalised paths checked before any route, Jetty's own errors as the same JSON) are
 * {@link HttpHardening}'s, set from an {@link HttpEndpoint}.
 *
 * <p>Not a singleton: each instance owns its own Jetty server and is closed by {@link #close()}; the store stays
 * the caller's to close.
 */
public final class ApiServer implements AutoCloseable {
    /** Where the hand-written OpenAPI document is, on the class path. */
    static final String OPENAPI_RESOURCE = "openapi.json";

    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    private static final String JSON = JsonIo.JSON;

    private final Store store;
    private final Clock clock;
    private final JsonIo io;
    private final byte[] openApi;
    private final Javalin app;
    private final Extras extras;
    /** How long the hot path may use what it read of the tree, the nodes and the tokens (see {@link Cached}). */
    static final long CACHE_TTL_NANOS = 1_000_000_000L;
    private final Cached<List<Allocation>> allocations;
    private final Cached<List<Node>> nodes;
    private final Authentication authentication;
    private final UsersApi usersApi;
    private final SessionApi sessionApi;
    private final QueueApi queueApi;
    private final AllocationsApi allocationsApi;
    private final ClusterApi clusterApi;
    private final WorkloadExplainer explainer;
    private final HttpEndpoint endpoint;
    private final LivePolicy policy;
    private final WorkloadIntake intake;
    private final CampaignsApi campaignsApi;
    private final WhatIfApi whatIfApi;
    private final WorkloadsApi workloadsApi;
    private final OutputApi outputApi;

    /**
     * What the service adds to the API: routes outside {@code /v1} (such as {@code /metrics}), registered after the
     * API's own, and a callback told after every change a request made to the store (a submission, a cancellation, an
     * edit of the tree or of a node), so that the scheduling loop can decide at once instead of at its next tick;
     * and one told after a cancellation (which the loop must look for among all the workloads it holds); and what
     * {@code GET /v1/health} reports beyond answering ({@link ServiceHealth}); and {@code nodesFromBackend}, the name
     * of the backend whose node list the service keeps in step with (local, slurm), or null when administrators
     * register the nodes ({@code PUT /v1/nodes/NAME} of a node that backend does not run is then refused).
     */
    public record Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed, Runnable cancelled,
                         Runnable topologyChanged, Runnable brakesChanged, IdentityGate identity,
                         ServiceHealth health, String nodesFromBackend, AttemptOutputs outputs) {
        public Extras {
            routes = List.copyOf(routes);
            Objects.requireNonNull(outputs, "outputs");
            Objects.requireNonNull(changed, "changed");
            Objects.requireNonNull(cancelled, "cancelled");
            Objects.requireNonNull(topologyChanged, "topologyChanged");
            Objects.requireNonNull(brakesChanged, "brakesChanged");
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(health, "health");
        }

        /** Extras whose attempts' output the API cannot read ({@link AttemptOutputs#NONE}). */
        public Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed, Runnable cancelled,
                      Runnable topologyChanged, Runnable brakesChanged, IdentityGate identity,
                      ServiceHealth health, String nodesFromBackend) {
            this(routes, changed, cancelled, topologyChanged, brakesChanged, identity, health, nodesFromBackend,
                    AttemptOutputs.NONE);
        }

        /** Extras whose nodes administrators register by hand. */
        public Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed, Runnable cancelled,
                      Runnable topologyChanged, Runnable brakesChanged, IdentityGate identity, ServiceHealth health) {
            this(routes, changed, cancelled, topologyChanged, brakesChanged, identity, health, null);
        }

        /** Extras that let every user submit and every change of users through ({@link IdentityGate#OPEN}). */
        public Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed, Runnable cancelled,
                      Runnable topologyChanged, Runnable brakesChanged, ServiceHealth health) {
            this(routes, changed, cancelled, topologyChanged, brakesChanged, IdentityGate.OPEN, health);
        }

        /** Extras with nothing to report to {@code /v1/health} but that the API answers, and no identity gate. */
        public Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed, Runnable cancelled,
                      Runnable topologyChanged, Runnable brakesChanged) {
            this(routes, changed, cancelled, topologyChanged, brakesChanged, IdentityGate.OPEN, ServiceHealth.OK);
        }

        /** Extras whose change of the brakes is told as a cancellation (both ask the loop to read every workload). */
        public Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed, Runnable cancelled,
                      Runnable topologyChanged) {
            this(routes, changed, cancelled, topologyChanged, cancelled);
        }

        /** Extras whose cancellations and edits of the tree and the nodes are told as any other change. */
        public Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed) {
            this(routes, changed, changed, changed);
        }

        public static Extras none() {
            return new Extras(List.of(), () -> { });
        }
    }

    private ApiServer(Store store, HttpEndpoint endpoint, Clock clock, Extras extras, WorkloadExplainer explainer,
                      LivePolicy policy) {
        this.policy = policy != null ? policy : new LivePolicy(
                ServicePolicy.defaults(), ServicePolicy.Reader.DEFAULTS_ONLY,
                store, clock, p -> { });
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.extras = Objects.requireNonNull(extras, "extras");
        this.allocations = new Cached<>(() -> store.allocations().allocations(), CACHE_TTL_NANOS);
        this.nodes = new Cached<>(() -> store.nodes().nodes(), CACHE_TTL_NANOS);
        this.authentication = new Authentication(store, clock, CACHE_TTL_NANOS);
        this.explainer = Objects.requireNonNull(explainer, "explainer");
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = new JsonIo();
        this.openApi = readOpenApi();
        this.intake = new WorkloadIntake(extras.identity(), clock, this.nodes::get);
        this.campaignsApi = new CampaignsApi(store, clock, io, intake, this.policy, extras.changed(),
                extras.cancelled());
        this.usersApi = new UsersApi(store, clock, authentication, io, extras.identity());
        this.sessionApi = new SessionApi(authentication, clock, io, endpoint.scheme().equals("https"));
        this.queueApi = new QueueApi(store, explainer, io, clock);
        this.allocationsApi = new AllocationsApi(store, clock, io, allocations, extras.topologyChanged());
        this.clusterApi = new ClusterApi(store, clock, io, nodes, this.policy, extras.topologyChanged(),
                extras.brakesChanged(), extras.nodesFromBackend());
        this.whatIfApi = new WhatIfApi(store, io, explainer, this.policy);
        this.workloadsApi = new WorkloadsApi(store, clock, io, allocations, intake, explainer, this.policy,
                extras.changed(), extras.cancelled());
        this.outputApi = new OutputApi(store, io, allocations, extras.outputs());
        this.app = Javalin.create(this::configure);
    }

    /**
     * Starts the API on a port (0 for any free one; {@link #port()} tells which), answering from the store and
     * stamping submissions with the clock.
     */
    public static ApiServer start(Store store, int port, Clock clock) {
        return start(store, port, clock, Extras.none());
    }

    /** Starts the API with the service's {@link Extras}. */
    public static ApiServer start(Store store, int port, Clock clock, Extras extras) {
        return start(store, port, clock, extras, WorkloadExplainer.NONE);
    }

    /** Starts the API with the service's {@link Extras} and the scheduler's explanations of workloads. */
    public static ApiServer start(Store store, int port, Clock clock, Extras extras, WorkloadExplainer explainer) {
        return start(store, HttpEndpoint.loopback(port), clock, extras, explainer);
    }

    /**
     * Starts the API where {@code endpoint} says (address, port, TLS, limits: {@link HttpHardening}); warns when it
     * is reachable from the network over plain HTTP.
     */
    public static ApiServer start(Store store, HttpEndpoint endpoint, Clock clock, Extras extras,
                                  WorkloadExplainer explainer) {
        return start(store, endpoint, clock, extras, explainer, null);
    }

    /**
     * Starts the API with the policy the service runs ({@code GET} and {@code PUT /v1/policy}); null: the defaults,
     * which {@code PUT} can only set again (a server started without the CLI's reader of {@code policy.yaml}).
     */
    public static ApiServer start(Store store, HttpEndpoint endpoint, Clock clock, Extras extras,
                                  WorkloadExplainer explainer, LivePolicy policy) {
        ApiServer server = new ApiServer(store, endpoint, clock, extras, explainer, policy);
        server.app.start();
        LOG.info("Allot API listening on {}", server.url());
        endpoint.plainTextWarning().ifPresent(w -> LOG.warn("{}", w));
        return server;
    }

    /** The port the server listens on. */
    public int port() {
        return app.port();
    }

    /** Where clients reach the API: its scheme, the address it is bound to and its port. */
    public String url() {
        String host = endpoint.bindAddress();
        return endpoint.scheme() + "://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port();
    }

    public HttpEndpoint endpoint() {
        return endpoint;
    }

    /** The socket address the server is bound to, as the kernel reports it. */
    public java.net.SocketAddress boundAddress() {
        org.eclipse.jetty.server.ServerConnector c =
                (org.eclipse.jetty.server.ServerConnector) app.jettyServer().server().getConnectors()[0];
        try {
            return ((java.nio.channels.ServerSocketChannel) c.getTransport()).getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops accepting requests and stops the server; the store is left open. */
    @Override
    public void close() {
        app.stop();
    }

    /**
     * Registers {@code handler} for GET and for HEAD, which answers as GET does without the body (the server sends
     * none to a HEAD): the same status, type and length. Every GET route of the API, the dashboard and the timeline is
     * registered here. Javalin itself answers HEAD on a GET route without running the handler, so a HEAD said
     * {@code Content-Length: 0} (of /v1/queue; of a page, with {@code Content-Type: application/json}), unlike its GET.
     */
    public static void getAndHead(JavalinConfig config, String path, io.javalin.http.Handler handler) {
        config.routes.get(path, handler);
        config.routes.head(path, handler);
    }

    private void configure(JavalinConfig config) {
        config.startup.showJavalinBanner = false;
        config.startup.showOldJavalinVersionWarning = false;
        config.http.defaultContentType = JSON;
        config.router.ignoreTrailingSlashes = true;
        // a known path asked with a method it does not answer is a 405 (methodNotAllowed), not "no such endpoint"
        config.http.prefer405over404 = true;
        HttpHardening.apply(config, endpoint);

        getAndHead(config, "/v1/health", this::health);
        // with its length (StaticDocument): at about 100 KB it went out in chunks with none
        StaticDocument openApiDocument = new StaticDocument(openApi, JSON, config.http.compressionStrategy);
        getAndHead(config, "/v1/openapi.json", ctx -> {
            QueryParams.none(ctx, "GET /v1/openapi.json");
            openApiDocument.answer(ctx);
        });
        config.routes.post("/v1/workloads", authed(workloadsApi::submit));
        config.routes.post("/v1/workloads/batch", authed(workloadsApi::submitBatch));
        getAndHead(config, "/v1/workloads", authed(workloadsApi::list));
        getAndHead(config, "/v1/workloads/{id}", authed(workloadsApi::show));
        config.routes.post("/v1/workloads/{id}/cancel", authed(workloadsApi::cancel));
        config.routes.post("/v1/workloads/{id}/progress", authed(workloadsApi::progress));
        getAndHead(config, "/v1/workloads/{id}/explain", authed(workloadsApi::explain));
        getAndHead(config, "/v1/workloads/{id}/output", authed(outputApi::output));
        config.routes.post("/v1/campaigns", authed(campaignsApi::create));
        getAndHead(config, "/v1/campaigns", authed(campaignsApi::list));
        getAndHead(config, "/v1/campaigns/{name}", authed(campaignsApi::show));
        config.routes.put("/v1/campaigns/{name}/brakes", authed(campaignsApi::putBrakes));
        config.routes.post("/v1/campaigns/{name}/retry", authed(campaignsApi::retry));
        config.routes.delete("/v1/campaigns/{name}", authed(campaignsApi::cancel));
        getAndHead(config, "/v1/allocations", authed(allocationsApi::allocations));
        // Allocation paths contain '/', so they are taken by a slash-accepting parameter: PUT /v1/allocations/lab/nlp.
        getAndHead(config, "/v1/allocations/usage", authed(allocationsApi::usage));
        config.routes.put("/v1/allocations/<path>", authed(allocationsApi::putAllocation));
        config.routes.delete("/v1/allocations/<path>", authed(allocationsApi::removeAllocation));
        getAndHead(config, "/v1/audit", authed(allocationsApi::audit));
        getAndHead(config, "/v1/me", authed(usersApi::me));
        config.routes.post("/v1/session", sessionApi::signIn);
        getAndHead(config, "/v1/session", sessionApi::current);
        config.routes.delete("/v1/session", sessionApi::signOut);
        getAndHead(config, "/v1/queue", authed(queueApi::queue));
        getAndHead(config, "/v1/drains", authed(queueApi::drains));
        getAndHead(config, "/v1/forecasts", authed(queueApi::forecasts));
        Dashboard.routes(config);
        getAndHead(config, "/v1/users", authed(usersApi::users));
        config.routes.put("/v1/users/{name}", authed(usersApi::putUser));
        getAndHead(config, "/v1/users/{name}/tokens", authed(usersApi::tokens));
        config.routes.post("/v1/users/{name}/tokens", authed(usersApi::createToken));
        config.routes.delete("/v1/users/{name}/tokens/{id}", authed(usersApi::revokeToken));
        getAndHead(config, "/v1/token-policy", authed(usersApi::tokenPolicy));
        config.routes.put("/v1/token-policy", authed(usersApi::putTokenPolicy));
        getAndHead(config, "/v1/timeline", authed(this::timeline));
        TimelinePage.register(config);
        getAndHead(config, "/v1/nodes", authed(clusterApi::listNodes));
        config.routes.put("/v1/nodes/{name}", authed(clusterApi::putNode));
        getAndHead(config, "/v1/brakes", authed(clusterApi::brakes));
        config.routes.put("/v1/brakes", authed(clusterApi::putBrakes));
        getAndHead(config, "/v1/policy", authed(clusterApi::showPolicy));
        config.routes.put("/v1/policy", authed(clusterApi::putPolicy));
        config.routes.post("/v1/nodes/{name}/health", authed(clusterApi::setHealth));
        config.routes.post("/v1/whatif", authed(whatIfApi::whatIf));
        for (java.util.function.Consumer<JavalinConfig> r : extras.routes()) {
            r.accept(config);
        }

        config.routes.exception(ApiException.class, (e, ctx) -> io.json(ctx, e.status(),
                new ApiError(e.getMessage(), e.field(), e.hint(), ApiError.of(e.violations()))));
        config.routes.exception(NotFoundException.class, (e, ctx) -> error(ctx, 404, e.getMessage(), null, null));
        config.routes.exception(ConflictException.class, (e, ctx) -> error(ctx, 409, e.getMessage(), null, null));
        config.routes.exception(HttpResponseException.class, (e, ctx) -> {
            if (e.getStatus() == 405) {
                methodNotAllowed(ctx, e);
                return;
            }
            if (e.getStatus() == 404 && Dashboard.wantsPage(ctx)) {
                Dashboard.noSuchPage(ctx);
                return;
            }
            error(ctx, e.getStatus(),
                    e.getStatus() == 404 ? "no such endpoint: " + ctx.method() + " " + ctx.path() : e.getMessage(), null,
                    e.getStatus() == 404 ? "GET /v1/openapi.json lists the endpoints" : null);
        });
        config.routes.exception(dev.allot.server.store.StoreUnavailableException.class, (e, ctx) -> {
            // the database could not be reached: nothing was done; the request may be retried
            LOG.warn("could not answer {} {}: {}", ctx.method(), ctx.path(), e.getMessage());
            error(ctx, 503, "the store is unavailable for now; nothing was changed", null,
                    "try again (another Allot instance on the same database may answer)");
        });
        config.routes.exception(Exception.class, (e, ctx) -> {
            LOG.error("unexpected error answering {} {}", ctx.method(), ctx.path(), e);
            error(ctx, 500, "internal server error; the server logged the details", null, null);
        });
    }

    /** What a backend not seen lately means for what the API shows and does. */
    static final String BACKEND_UNSEEN_NOTE = "the backend cannot be observed: running work is shown as last seen and"
            + " none of it is taken as ended (a failed probe is no answer); the service catches up when the backend"
            + " answers again";

    /**
     * {@code GET /v1/health}, no token: 200 {@code ok} while the service works ({@code degraded}, with
     * {@code backend}, while its backend has not been observed for {@code BackendSight.GRACE}); 503 while it does not (its scheduling
     * cycles fail), with the API's error fields (what, since when, the last failure's message) and the health fields
     * ({@code status} {@code failing}, {@code since}, {@code failures} in a row); both with {@code leader}, who leads
     * ({@link ServiceHealth.Leader}: this instance's role, name, the leader's name, the epoch).
     */
    private void health(Context ctx) {
        QueryParams.none(ctx, "GET /v1/health");
        String now = Views.instant(clock.millis());
        Optional<ServiceHealth.Problem> problem = extras.health().problem();
        ServiceHealth.Leader leader = extras.health().leader().orElse(null);
        if (problem.isEmpty()) {
            Views.BackendHealth backend = extras.health().backendUnseen(clock.millis()).map(u ->
                    new Views.BackendHealth(u.backend(), u.lastObservedMillis() < 0 ? null
                            : Views.instant(u.lastObservedMillis()), Views.instant(u.sinceMillis()), u.failures(),
                            u.lastError(), BACKEND_UNSEEN_NOTE)).orElse(null);
            io.json(ctx, 200, new Views.Health(backend == null ? "ok" : "degraded", now, leader, backend));
            return;
        }
        ServiceHealth.Problem p = problem.get();
        String since = Views.instant(p.sinceMillis());
        io.json(ctx, 503, new Views.Failing("failing", now, since, p.failures(), p.what() + " since " + since + " ("
                + p.failures() + " in a row); the last failure: " + p.lastError(), null,
                "the service's log has the details; it answers ok again once the cause is gone", leader));
    }

    /** A handler that needs a signed-in user. */
    private interface AuthedHandler {
        void handle(Context ctx, User user) throws Exception;
    }

    private io.javalin.http.Handler authed(AuthedHandler h) {
        return ctx -> h.handle(ctx, authenticate(ctx));
    }

    private User authenticate(Context ctx) {
        return authentication.authenticate(ctx).user();
    }

    /**
     * {@code GET /v1/timeline?hours=N}: the per-GPU timeline of the last N hours (default 24, at most 31 days) in the
     * format the report's drawing code reads ({@link LiveTimeline}); for any signed-in user, as the workload list is,
     * the backend's words in an attempt's note only for those who may see its workload's details.
     */
    private void timeline(Context ctx, User user) {
        QueryParams.only(ctx, List.of("hours"), "the only parameter is hours");
        Map<String, List<String>> params = ctx.queryParamMap();
        long hours = QueryParams.number(params, "hours", 1, LiveTimeline.MAX_HOURS, LiveTimeline.DEFAULT_HOURS);
        long now = clock.millis();
        long since = now - hours * 3_600_000L;
        List<dev.allot.server.store.Allocation> tree = store.allocations().allocations();
        Permissions permissions = Permissions.of(tree);
        io.json(ctx, 200, LiveTimeline.of(tree, store.nodes().nodes(), store.attempts().attemptsBetween(since, now),
                store.nodes().healthChanges(since, now), since, now, w -> permissions.maySeeDetails(user, w)));
    }

    /** Refuses (403) a caller who is not an administrator, saying what it may not do. */
    static void requireAdmin(User user, String what) {
        if (user.role() != User.Role.ADMIN) {
            throw ApiException.forbidden("user '" + user.name() + "' may not " + what, "only administrators may");
        }
    }

    /**
     * A path the API has, asked with a method none of its routes answers ({@code DELETE /v1/me}): 405 with the
     * {@code Allow} header and an error naming the methods it answers. It was a 404 "no such endpoint", which says
     * the path does not exist. Javalin finds the methods of the path's routes ({@code prefer405over404}) and hands
     * them over joined in the exception's one detail; HEAD is answered wherever GET is. The methods are named in the
     * order GET, HEAD, POST, PUT, PATCH, DELETE.
     */
    private void methodNotAllowed(Context ctx, HttpResponseException e) {
        java.util.Set<String> allowed = new java.util.LinkedHashSet<>();
        for (String joined : e.getDetails().values()) {
            for (String method : joined.split(",")) {
                if (!method.isBlank()) {
                    allowed.add(method.strip().toUpperCase(java.util.Locale.ROOT));
                }
            }
        }
        if (allowed.contains("GET")) {
            allowed.add("HEAD");
        }
        List<String> order = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
        String methods = String.join(", ", allowed.stream().sorted(java.util.Comparator.comparingInt(m ->
                order.contains(m) ? order.indexOf(m) : order.size())).toList());
        ctx.header("Allow", methods);
        error(ctx, 405, "method not allowed: " + ctx.path() + " answers " + methods + ", not " + ctx.method(), null,
                "GET /v1/openapi.json lists the endpoints and their methods");
    }

    private void error(Context ctx, int status, String message, String field, String hint) {
        io.json(ctx, status, new ApiError(message, field, hint));
    }

    private static byte[] readOpenApi() {
        try (InputStream in = ApiServer.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document " + OPENAPI_RESOURCE + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
