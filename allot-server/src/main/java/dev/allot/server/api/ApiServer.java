package dev.allot.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.allot.core.model.Durations;
import dev.allot.server.policy.LivePolicy;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.AuditEntry;
import dev.allot.server.store.ConflictException;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.NotFoundException;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's REST API, version 1, under {@code /v1}: submitting, listing, reading and cancelling workloads;
 * reading and editing the allocation tree (the budgets), its audit trail and its usage against entitlement; and
 * reading, registering and marking the nodes. A thin layer over the {@link Store}: every request is checked
 * (authentication, authorisation, input) and then answered with one or two store calls, so an acknowledged
 * submission is durable. The scheduling loop is not here; submissions are only stored, pending.
 *
 * <p>Authentication is a bearer token ({@code Authorization: Bearer <token>}) looked up in the store and refused
 * when revoked, expired or of a disabled user ({@link Authentication}); only {@code /v1/health} and
 * {@code /v1/openapi.json} need none. Who may do what is {@link Permissions}; the users, tokens and token-policy
 * endpoints are {@link UsersApi}.
 *
 * <p>Every error is answered as JSON {@code {"error", "field", "hint"}} ({@link ApiError}): 400 for bad input
 * (naming the field), 401 without a valid token, 403 when the caller may not, 404 for an unknown id or route, 409
 * when the store refuses for what it holds, and 500, with a generic message, only for the server's own faults,
 * which are logged. JSON is read and written with Jackson, strictly: unknown fields, duplicate keys and trailing
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
    static final int DEFAULT_LIMIT = 1000;
    static final Set<String> LIST_PARAMS = Set.of("state", "allocation", "user", "limit", "after");
    static final int DEFAULT_AUDIT_LIMIT = 100;
    static final int MAX_AUDIT_LIMIT = 10_000;
    static final String DEFAULT_USAGE_WINDOW = "7d";

    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    private static final String JSON = "application/json";

    private final Store store;
    private final Clock clock;
    private final ObjectMapper mapper;
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
    private final WorkloadExplainer explainer;
    private final HttpEndpoint endpoint;
    private final LivePolicy policy;

    /**
     * What the service adds to the API: routes outside {@code /v1} (such as {@code /metrics}), registered after the
     * API's own, and a callback told after every change a request made to the store (a submission, a cancellation, an
     * edit of the tree or of a node), so that the scheduling loop can decide at once instead of at its next tick;
     * and one told after a cancellation (which the loop must look for among all the workloads it holds); and what
     * {@code GET /v1/health} reports beyond answering ({@link ServiceHealth}).
     */
    public record Extras(List<java.util.function.Consumer<JavalinConfig>> routes, Runnable changed, Runnable cancelled,
                         Runnable topologyChanged, Runnable brakesChanged, IdentityGate identity,
                         ServiceHealth health) {
        public Extras {
            routes = List.copyOf(routes);
            Objects.requireNonNull(changed, "changed");
            Objects.requireNonNull(cancelled, "cancelled");
            Objects.requireNonNull(topologyChanged, "topologyChanged");
            Objects.requireNonNull(brakesChanged, "brakesChanged");
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(health, "health");
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
        this.mapper = JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .build();
        this.openApi = readOpenApi();
        UsersApi.Io io = new UsersApi.Io() {
            @Override
            public JsonNode body(Context ctx) {
                return readBody(ctx);
            }

            @Override
            public void json(Context ctx, int status, Object body) {
                ApiServer.this.json(ctx, status, body);
            }
        };
        this.usersApi = new UsersApi(store, clock, authentication, io, extras.identity());
        this.sessionApi = new SessionApi(authentication, clock, io, endpoint.scheme().equals("https"));
        this.queueApi = new QueueApi(store, explainer, io);
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

    private void configure(JavalinConfig config) {
        config.startup.showJavalinBanner = false;
        config.startup.showOldJavalinVersionWarning = false;
        config.http.defaultContentType = JSON;
        config.router.ignoreTrailingSlashes = true;
        HttpHardening.apply(config, endpoint);

        config.routes.get("/v1/health", this::health);
        config.routes.get("/v1/openapi.json", ctx -> ctx.status(200).contentType(JSON).result(openApi));
        config.routes.post("/v1/workloads", authed(this::submit));
        config.routes.post("/v1/workloads/batch", authed(this::submitBatch));
        config.routes.get("/v1/workloads", authed(this::list));
        config.routes.get("/v1/workloads/{id}", authed(this::show));
        config.routes.post("/v1/workloads/{id}/cancel", authed(this::cancel));
        config.routes.post("/v1/workloads/{id}/progress", authed(this::progress));
        config.routes.get("/v1/workloads/{id}/explain", authed(this::explain));
        config.routes.get("/v1/allocations", authed((ctx, user) -> json(ctx, 200, new Views.AllocationList(
                store.allocations().allocations().stream().map(Views::allocation).toList()))));
        // Allocation paths contain '/', so they are taken by a slash-accepting parameter: PUT /v1/allocations/lab/nlp.
        config.routes.get("/v1/allocations/usage", authed(this::usage));
        config.routes.put("/v1/allocations/<path>", authed(this::putAllocation));
        config.routes.delete("/v1/allocations/<path>", authed(this::removeAllocation));
        config.routes.get("/v1/audit", authed(this::audit));
        config.routes.get("/v1/me", authed(usersApi::me));
        config.routes.post("/v1/session", sessionApi::signIn);
        config.routes.get("/v1/session", sessionApi::current);
        config.routes.delete("/v1/session", sessionApi::signOut);
        config.routes.get("/v1/queue", authed(queueApi::queue));
        config.routes.get("/v1/drains", authed(queueApi::drains));
        Dashboard.routes(config);
        config.routes.get("/v1/users", authed(usersApi::users));
        config.routes.put("/v1/users/{name}", authed(usersApi::putUser));
        config.routes.get("/v1/users/{name}/tokens", authed(usersApi::tokens));
        config.routes.post("/v1/users/{name}/tokens", authed(usersApi::createToken));
        config.routes.delete("/v1/users/{name}/tokens/{id}", authed(usersApi::revokeToken));
        config.routes.get("/v1/token-policy", authed(usersApi::tokenPolicy));
        config.routes.put("/v1/token-policy", authed(usersApi::putTokenPolicy));
        config.routes.get("/v1/timeline", authed(this::timeline));
        TimelinePage.register(config);
        config.routes.get("/v1/nodes", authed((ctx, user) -> json(ctx, 200, new Views.NodeList(
                store.nodes().nodes().stream().map(Views::node).toList()))));
        config.routes.put("/v1/nodes/{name}", authed(this::putNode));
        config.routes.get("/v1/brakes", authed((ctx, user) -> json(ctx, 200, brakesView(store.settings().brakes()))));
        config.routes.put("/v1/brakes", authed(this::putBrakes));
        config.routes.get("/v1/policy", authed((ctx, user) -> json(ctx, 200, policyView(policy.current()))));
        config.routes.put("/v1/policy", authed(this::putPolicy));
        config.routes.post("/v1/nodes/{name}/health", authed(this::setHealth));
        for (java.util.function.Consumer<JavalinConfig> r : extras.routes()) {
            r.accept(config);
        }

        config.routes.exception(ApiException.class, (e, ctx) -> json(ctx, e.status(),
                new ApiError(e.getMessage(), e.field(), e.hint(), ApiError.of(e.violations()))));
        config.routes.exception(NotFoundException.class, (e, ctx) -> error(ctx, 404, e.getMessage(), null, null));
        config.routes.exception(ConflictException.class, (e, ctx) -> error(ctx, 409, e.getMessage(), null, null));
        config.routes.exception(HttpResponseException.class, (e, ctx) -> error(ctx, e.getStatus(),
                e.getStatus() == 404 ? "no such endpoint: " + ctx.method() + " " + ctx.path() : e.getMessage(), null,
                e.getStatus() == 404 ? "GET /v1/openapi.json lists the endpoints" : null));
        config.routes.exception(Exception.class, (e, ctx) -> {
            LOG.error("unexpected error answering {} {}", ctx.method(), ctx.path(), e);
            error(ctx, 500, "internal server error; the server logged the details", null, null);
        });
    }

    /**
     * {@code GET /v1/health}, no token: 200 {@code ok} while the service works; 503 while it does not (its scheduling
     * cycles fail), with the API's error fields (what, since when, the last failure's message) and the health fields
     * ({@code status} {@code failing}, {@code since}, {@code failures} in a row).
     */
    private void health(Context ctx) {
        String now = Views.instant(clock.millis());
        Optional<ServiceHealth.Problem> problem = extras.health().problem();
        if (problem.isEmpty()) {
            json(ctx, 200, new Views.Health("ok", now));
            return;
        }
        ServiceHealth.Problem p = problem.get();
        String since = Views.instant(p.sinceMillis());
        json(ctx, 503, new Views.Failing("failing", now, since, p.failures(), p.what() + " since " + since + " ("
                + p.failures() + " in a row); the last failure: " + p.lastError(), null,
                "the service's log has the details; it answers ok again once the cause is gone"));
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

    private void submit(Context ctx, User user) {
        NewWorkload w = checked(readBody(ctx), user, Permissions.of(allocations.get()));
        Workload stored = store.workloads().submit(w);
        extras.changed().run();
        json(ctx, 201, Views.workload(stored, scheduling()));
    }

    /** At most this many workloads in one batch submission. */
    static final int MAX_BATCH = 1_000;

    /**
     * {@code POST /v1/workloads/batch}: many workloads in one request and one transaction (a sweep, a job array), all
     * or nothing: each is checked as a single submission is, and the first refused names its index.
     */
    private void submitBatch(Context ctx, User user) {
        JsonNode body = readBody(ctx);
        if (body == null || !body.isObject() || !body.has("workloads") || body.size() != 1
                || !body.get("workloads").isArray()) {
            throw ApiException.badRequest("the body must be {\"workloads\": [submission, ...]}",
                    "each submission is what POST /v1/workloads takes; GET /v1/openapi.json describes it");
        }
        JsonNode items = body.get("workloads");
        if (items.isEmpty() || items.size() > MAX_BATCH) {
            throw ApiException.badField("workloads", "expected 1 to " + MAX_BATCH + " submissions, got " + items.size(),
                    "split larger sweeps into several requests");
        }
        Permissions permissions = Permissions.of(allocations.get());
        List<NewWorkload> batch = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            try {
                batch.add(checked(items.get(i), user, permissions));
            } catch (ApiException e) {
                throw e.within("workloads[" + i + "]");
            }
        }
        List<Workload> stored = store.workloads().submitAll(batch);
        extras.changed().run();
        json(ctx, 201, new Views.WorkloadList(stored.stream().map(w -> Views.workload(w, scheduling())).toList()));
    }

    /** A submission checked in full (fields, allocation, permission, shape) as the workload to store. */
    private NewWorkload checked(JsonNode body, User user, Permissions permissions) {
        Submission s = Submission.parse(body);
        extras.identity().requireMaySubmit(user.name());
        if (permissions.allocation(s.allocation()).isEmpty()) {
            throw ApiException.badField("allocation", "unknown allocation '" + s.allocation() + "'",
                    "GET /v1/allocations lists them; use the full path, e.g. \"lab/nlp/pretrain\"");
        }
        if (!permissions.maySubmit(user, s.allocation())) {
            throw ApiException.forbidden("user '" + user.name() + "' may not submit to allocation '" + s.allocation() + "'",
                    "ask a manager of the allocation to add you to its members");
        }
        if (permissions.hasChildren(s.allocation())) {
            throw ApiException.badField("allocation", "'" + s.allocation() + "' is not a leaf of the allocation tree;"
                    + " workloads run in leaves", "GET /v1/allocations lists them; name one of its leaves");
        }
        requireShapeFits(s);
        try {
            return new NewWorkload(s.allocation(), user.name(), s.gpus(), s.gpusPerNode(), s.durationSeconds(),
                    s.minRuntimeSeconds(), s.resumable(), s.priority(), s.kind(), s.command(), s.environment(),
                    clock.millis(), IdempotencyKeys.scoped(user.name(), s.idempotencyKey()));
        } catch (IllegalArgumentException e) {
            // Submission checks everything NewWorkload does; this is a second line, so bad input never becomes a 500.
            throw ApiException.badRequest(e.getMessage(), null);
        }
    }

    private void list(Context ctx, User user) {
        Map<String, List<String>> params = ctx.queryParamMap();
        for (String name : params.keySet()) {
            if (!LIST_PARAMS.contains(name)) {
                throw ApiException.badField(name, "unknown query parameter",
                        "the filters are " + LIST_PARAMS.stream().sorted().collect(Collectors.joining(", ")));
            }
        }
        Set<WorkloadState> states = EnumSet.noneOf(WorkloadState.class);
        for (String value : params.getOrDefault("state", List.of())) {
            for (String label : value.split(",", -1)) {
                try {
                    states.add(WorkloadState.parse(label.trim()));
                } catch (IllegalArgumentException e) {
                    throw ApiException.badField("state", "unknown state '" + label.trim() + "'", "expected one of "
                            + Arrays.stream(WorkloadState.values()).map(WorkloadState::label)
                            .collect(Collectors.joining(", ")) + ", repeated or comma-separated");
                }
            }
        }
        String allocation = single(params, "allocation");
        String owner = single(params, "user");
        int limit = (int) number(params, "limit", 1, WorkloadFilter.MAX_LIMIT, DEFAULT_LIMIT);
        long after = number(params, "after", 0, Long.MAX_VALUE, 0);
        WorkloadFilter filter;
        try {
            filter = new WorkloadFilter(states, allocation, owner, after, limit);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("allocation", e.getMessage(), "an allocation path such as \"lab/nlp\"; it"
                    + " selects that allocation and everything below it");
        }
        Permissions permissions = Permissions.of(allocations.get());
        dev.allot.core.state.SchedulerConfig scheduling = scheduling();
        json(ctx, 200, new Views.WorkloadList(store.workloads().workloads(filter).stream()
                .map(w -> Views.workload(w, permissions.maySeeDetails(user, w), scheduling)).toList()));
    }

    /** A workload and its attempts; its command and environment only for those who may see them. */
    private void show(Context ctx, User user) {
        Workload w = requireWorkload(ctx.pathParam("id"));
        boolean details = Permissions.of(allocations.get()).maySeeDetails(user, w);
        json(ctx, 200, new Views.WorkloadDetail(Views.workload(w, details, scheduling()),
                store.attempts().attempts(w.id()).stream().map(Views::attempt).toList()));
    }

    /** Refuses a shape the registered nodes could never hold, as the scheduler would (it would wait forever). */
    private void requireShapeFits(Submission s) {
        List<Node> nodes = this.nodes.get();
        if (nodes.isEmpty()) {
            return; // nothing registered yet: the scheduler decides once nodes come
        }
        Optional<dev.allot.core.rules.Violation> misfit = dev.allot.core.rules.ShapeFit.check(
                dev.allot.server.store.ClusterSpecs.of(nodes), s.gpus(), s.gpusPerNode());
        if (misfit.isPresent()) {
            throw ApiException.violations(List.of(misfit.get()), "GET /v1/nodes lists the nodes; ask for fewer GPUs or"
                    + " a smaller gang");
        }
    }

    /** Why a workload waits, runs or was preempted; readable by whoever may read the workload (any signed-in user). */
    private void explain(Context ctx, User user) {
        Workload w = requireWorkload(ctx.pathParam("id"));
        json(ctx, 200, Explanations.of(w, store.attempts().attempts(w.id()), explainer.explain(w.id()), mapper,
                scheduling()));
    }

    private void cancel(Context ctx, User user) {
        Workload w = requireWorkload(ctx.pathParam("id"));
        Permissions permissions = Permissions.of(store.allocations().allocations());
        if (!permissions.mayCancel(user, w)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not cancel workload " + w.id(),
                    "its owner, a manager of allocation '" + w.allocationPath() + "' or above, or an administrator may");
        }
        Workload cancelled = store.workloads().requestCancel(w.id());
        extras.cancelled().run();
        json(ctx, 200, Views.workload(cancelled, scheduling()));
    }

    private void progress(Context ctx, User user) {
        Workload w = requireWorkload(ctx.pathParam("id"));
        Permissions permissions = Permissions.of(store.allocations().allocations());
        if (!permissions.mayCancel(user, w)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not report the progress of workload " + w.id(),
                    "its owner, a manager of allocation '" + w.allocationPath() + "' or above, or an administrator may");
        }
        Edits.Progress p = Edits.Progress.parse(readBody(ctx));
        store.workloads().reportProgress(w.id(), p.done(), p.total());
        explainer.progressReported(w.id());
        json(ctx, 200, Views.workload(requireWorkload(w.id()), scheduling()));
    }

    private void putAllocation(Context ctx, User user) {
        String path = Edits.path(ctx.pathParam("path"));
        Permissions permissions = Permissions.of(store.allocations().allocations());
        requireMayEdit(permissions, user, path);
        Edits.AllocationEdit edit = Edits.AllocationEdit.parse(readBody(ctx));
        Set<String> users = store.access().users().stream().map(User::name).collect(Collectors.toSet());
        requireKnownUsers("managers", edit.managers(), users);
        requireKnownUsers("members", edit.members(), users);
        boolean existed = permissions.allocation(path).isPresent();
        Allocation allocation = new Allocation(path, edit.share(), edit.managers(), edit.members());
        store.allocations().putAllocation(allocation, user.name(), clock.millis());
        allocations.invalidate();
        extras.topologyChanged().run();
        json(ctx, existed ? 200 : 201, Views.allocation(allocation));
    }

    private void removeAllocation(Context ctx, User user) {
        String path = Edits.path(ctx.pathParam("path"));
        Permissions permissions = Permissions.of(store.allocations().allocations());
        if (permissions.allocation(path).isEmpty()) {
            throw ApiException.notFound("no allocation '" + path + "'", "GET /v1/allocations lists them");
        }
        requireMayEdit(permissions, user, path);
        store.allocations().removeAllocation(path, user.name(), clock.millis());
        allocations.invalidate();
        extras.topologyChanged().run();
        ctx.status(204);
    }

    private static void requireMayEdit(Permissions permissions, User user, String path) {
        if (!permissions.mayEditAllocation(user, path)) {
            int slash = path.lastIndexOf('/');
            throw ApiException.forbidden("user '" + user.name() + "' may not edit allocation '" + path + "'",
                    slash < 0 ? "only administrators may create, change or remove a root allocation"
                            : "administrators, and managers of '" + path.substring(0, slash) + "' or above, may;"
                            + " a manager may not edit the node they manage, only what is below it");
        }
    }

    private static void requireKnownUsers(String field, List<String> names, Set<String> users) {
        for (String name : names) {
            if (!users.contains(name)) {
                throw ApiException.badField(field, "unknown user '" + name + "'",
                        "name users that exist; an administrator creates them");
            }
        }
    }

    private void audit(Context ctx, User user) {
        Map<String, List<String>> params = ctx.queryParamMap();
        for (String name : params.keySet()) {
            if (!name.equals("limit")) {
                throw ApiException.badField(name, "unknown query parameter", "the only parameter is limit");
            }
        }
        int limit = (int) number(params, "limit", 1, MAX_AUDIT_LIMIT, DEFAULT_AUDIT_LIMIT);
        Permissions permissions = Permissions.of(store.allocations().allocations());
        if (!permissions.mayReadAudit(user)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not read the audit trail",
                    "administrators may, and managers of an allocation may read the entries about it and below");
        }
        List<AuditEntry> visible = new ArrayList<>();
        // The store reads the newest n entries; a manager sees only some of them, so read further until enough.
        for (int n = limit; ; n = (int) Math.min((long) n * 4, Integer.MAX_VALUE)) {
            List<AuditEntry> newest = store.allocations().audit(n);
            visible = newest.stream()
                    .filter(e -> e.action().startsWith("allocation.") ? permissions.maySeeAudit(user, e.subject())
                            : user.role() == User.Role.ADMIN) // users and tokens: administrators only
                    .limit(limit).toList();
            if (visible.size() == limit || newest.size() < n || n == Integer.MAX_VALUE) {
                break;
            }
        }
        json(ctx, 200, new Views.AuditList(visible.stream().map(e -> Views.audit(e, this::parseStored)).toList()));
    }

    private JsonNode parseStored(String json) {
        try {
            return mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the audit trail holds JSON that does not parse", e);
        }
    }

    /** At most this many steps in a usage series. */
    static final int MAX_USAGE_STEPS = 2_000;

    private void usage(Context ctx, User user) {
        Map<String, List<String>> params = ctx.queryParamMap();
        for (String name : params.keySet()) {
            if (!name.equals("since") && !name.equals("step")) {
                throw ApiException.badField(name, "unknown query parameter", "the parameters are since and step");
            }
        }
        long now = clock.millis();
        String text = Optional.ofNullable(single(params, "since")).orElse(DEFAULT_USAGE_WINDOW).trim();
        long since = since(text, now);
        String stepText = single(params, "step");
        long stepMillis = 0;
        if (stepText != null) {
            String hint = "a duration such as 1h or 1d; the window is cut into at most " + MAX_USAGE_STEPS + " steps";
            try {
                stepMillis = Durations.parse(stepText.trim()).toMillis();
            } catch (IllegalArgumentException e) {
                throw ApiException.badField("step", e.getMessage(), hint);
            } catch (ArithmeticException e) { // seconds that do not fit in a long of milliseconds
                throw ApiException.badField("step", "duration '" + stepText + "' is too large", hint);
            }
            if (stepMillis <= 0) {
                throw ApiException.badField("step", "expected a positive duration, got '" + stepText + "'", hint);
            }
            long window = now - since;
            if (window / stepMillis + (window % stepMillis == 0 ? 0 : 1) > MAX_USAGE_STEPS) {
                throw ApiException.badField("step", "'" + stepText + "' cuts the window into more than "
                        + MAX_USAGE_STEPS + " steps", hint);
            }
        }
        List<Allocation> tree = store.allocations().allocations();
        List<dev.allot.server.store.Attempts.ChargedRun> runs = store.attempts().chargedRuns(since, now);
        int clusterGpus = store.nodes().nodes().stream().mapToInt(Node::gpus).sum();
        List<Views.UsageRow> rows = Entitlements.rows(tree, runs, store.attempts().unallocatedRuns(since, now),
                store.attempts().allocatedDemand(since, now), since, now, clusterGpus, stepMillis);
        double total = runs.stream().mapToDouble(r -> r.gpuSecondsIn(since, now)).sum();
        json(ctx, 200, new Views.Usage(Views.instant(since), Views.instant(now), (now - since) / 1000, clusterGpus,
                stepText == null ? null : Durations.formatSeconds(stepMillis / 1000), total, rows));
    }

    /**
     * {@code GET /v1/timeline?hours=N}: the per-GPU timeline of the last N hours (default 24, at most 31 days) in the
     * format the report's drawing code reads ({@link LiveTimeline}); for any signed-in user, as the workload list is.
     */
    private void timeline(Context ctx, User user) {
        Map<String, List<String>> params = ctx.queryParamMap();
        for (String name : params.keySet()) {
            if (!name.equals("hours")) {
                throw ApiException.badField(name, "unknown query parameter", "the only parameter is hours");
            }
        }
        long hours = number(params, "hours", 1, LiveTimeline.MAX_HOURS, LiveTimeline.DEFAULT_HOURS);
        long now = clock.millis();
        long since = now - hours * 3_600_000L;
        json(ctx, 200, LiveTimeline.of(store.allocations().allocations(), store.nodes().nodes(),
                store.attempts().attemptsBetween(since, now), store.nodes().healthChanges(since, now), since, now));
    }

    /** The start of the usage window: an ISO-8601 instant, or a duration back from now. */
    private static long since(String text, long now) {
        String hint = "an ISO-8601 instant such as 2026-03-01T00:00:00Z, or a duration back from now such as 7d,"
                + " 12h or 1d12h";
        long since;
        if (!text.isEmpty() && Character.isDigit(text.charAt(0)) && text.contains("T")) {
            try {
                since = Instant.parse(text).toEpochMilli();
            } catch (DateTimeException | ArithmeticException e) {
                throw ApiException.badField("since", "not an ISO-8601 instant: '" + text + "'", hint);
            }
        } else {
            Duration d;
            try {
                d = Durations.parse(text);
            } catch (IllegalArgumentException e) {
                throw ApiException.badField("since", e.getMessage(), hint);
            }
            if (d.getSeconds() > now / 1000) {
                throw ApiException.badField("since", "the duration '" + text + "' reaches back before 1970", hint);
            }
            since = now - d.toMillis();
        }
        if (since >= now) {
            throw ApiException.badField("since", "the window must start before now (" + Views.instant(now)
                    + "), got '" + text + "'", hint);
        }
        return since;
    }

    private void putNode(Context ctx, User user) {
        requireAdmin(user, "register nodes");
        String name = Edits.nodeName(ctx.pathParam("name"));
        Edits.NodeRegistration r = Edits.NodeRegistration.parse(readBody(ctx));
        Optional<Node> before = findNode(name);
        // A node registered again keeps its health; only its GPU count changes.
        Node node = new Node(name, r.gpus(), before.map(Node::healthy).orElse(true),
                before.map(Node::reason).orElse(null), clock.millis());
        store.nodes().putNode(node, user.name());
        nodes.invalidate();
        extras.topologyChanged().run();
        json(ctx, before.isPresent() ? 200 : 201, Views.node(node));
    }

    private void setHealth(Context ctx, User user) {
        requireAdmin(user, "set the health of nodes");
        String name = ctx.pathParam("name");
        Edits.NodeHealth h = Edits.NodeHealth.parse(readBody(ctx));
        store.nodes().setHealth(name, h.healthy(), h.reason(), clock.millis(), user.name());
        extras.topologyChanged().run();
        json(ctx, 200, Views.node(findNode(name).orElseThrow(() -> ApiException.notFound("no node '" + name + "'",
                "GET /v1/nodes lists them"))));
    }

    private Optional<Node> findNode(String name) {
        return store.nodes().nodes().stream().filter(n -> n.name().equals(name)).findFirst();
    }

    /**
     * {@code PUT /v1/brakes}: administrators set the safety brakes' limits (audited); the loop re-checks the waiting
     * workloads at once, so raising a limit releases the held ones that no longer trip a brake.
     */
    private void putBrakes(Context ctx, User user) {
        requireAdmin(user, "change the brakes");
        Edits.BrakesEdit edit = Edits.BrakesEdit.parse(readBody(ctx));
        dev.allot.server.store.BrakeLimits limits = new dev.allot.server.store.BrakeLimits(edit.maxRequeues(),
                edit.maxGpuHoursPerWorkload());
        store.settings().putBrakes(limits, user.name(), clock.millis());
        extras.brakesChanged().run();
        json(ctx, 200, brakesView(limits));
    }

    /**
     * {@code PUT /v1/policy}: administrators set the scheduling policy's settings; the body is {@code policy.yaml}
     * text, read as {@code allot simulate} reads it (a bad one: 400 with the reader's message, naming line and field).
     * Audited and kept in the store ({@code policy.put}); the loop applies it at its next cycle.
     */
    private void putPolicy(Context ctx, User user) {
        requireAdmin(user, "change the scheduling policy");
        ServicePolicy p;
        try {
            p = policy.put(ctx.body(), user.name());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage(), "the body is policy.yaml text, as allot simulate reads it;"
                    + " GET /v1/policy shows the settings in force");
        }
        json(ctx, 200, policyView(p));
    }

    /** The shared settings in force (the minimum runtime a workload is counted with is capped by them). */
    private dev.allot.core.state.SchedulerConfig scheduling() {
        return policy.current().scheduler();
    }

    private static Views.PolicyView policyView(ServicePolicy p) {
        return new Views.PolicyView(ServicePolicy.POLICY, p.source(), p.settingsView(),
                p.text());
    }

    private static Views.BrakesView brakesView(dev.allot.server.store.BrakeLimits b) {
        return new Views.BrakesView(b.maxRequeues(), b.maxGpuHoursPerWorkload());
    }

    /** Refuses (403) a caller who is not an administrator, saying what it may not do. */
    static void requireAdmin(User user, String what) {
        if (user.role() != User.Role.ADMIN) {
            throw ApiException.forbidden("user '" + user.name() + "' may not " + what, "only administrators may");
        }
    }

    private Workload requireWorkload(String id) {
        return store.workloads().workload(id).orElseThrow(() -> ApiException.notFound("no workload '" + id + "'",
                "workload ids look like w-42; GET /v1/workloads lists them"));
    }

    private JsonNode readBody(Context ctx) {
        try {
            return mapper.readTree(ctx.body());
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            String field = duplicateField(e);
            if (field != null) {
                throw ApiException.badField(field, "given twice", "send each field once");
            }
            throw ApiException.badRequest("malformed JSON" + where + ": " + firstLine(e.getOriginalMessage()),
                    "the body must be one JSON object; GET /v1/openapi.json describes it");
        }
    }

    /** The name of the duplicated field when Jackson refused the body for one, else null. */
    private static String duplicateField(JsonProcessingException e) {
        String m = e.getOriginalMessage();
        String marker = "Duplicate field '";
        if (m != null && m.startsWith(marker) && m.indexOf('\'', marker.length()) > 0) {
            return m.substring(marker.length(), m.indexOf('\'', marker.length()));
        }
        return null;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String single(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        if (values == null) {
            return null;
        }
        if (values.size() != 1 || values.get(0).isBlank()) {
            throw ApiException.badField(name, "expected one non-blank value, got " + values.size() + " values"
                    + (values.size() == 1 ? " (blank)" : ""), "give " + name + " once, or not at all for any");
        }
        return values.get(0);
    }

    private static long number(Map<String, List<String>> params, String name, long min, long max, long absent) {
        String text = single(params, name);
        if (text == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(text.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through to the error below
        }
        throw ApiException.badField(name, "expected a whole number between " + min + " and " + max + ", got '" + text + "'",
                null);
    }

    private void json(Context ctx, int status, Object body) {
        byte[] bytes;
        try {
            bytes = mapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write the answer as JSON", e);
        }
        ctx.status(status).contentType(JSON).result(bytes);
    }

    private void error(Context ctx, int status, String message, String field, String hint) {
        json(ctx, status, new ApiError(message, field, hint));
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
