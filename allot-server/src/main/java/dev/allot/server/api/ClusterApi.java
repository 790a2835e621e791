package dev.allot.server.api;

import dev.allot.server.policy.LivePolicy;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The cluster's own settings ({@link ApiServer} routes them here): its nodes, its safety brakes and its scheduling
 * policy. Anyone signed in reads them; only administrators change them, and every change is audited by the store.
 * <ul>
 *   <li>{@code GET /v1/nodes}, {@code PUT /v1/nodes/{name}}, {@code POST /v1/nodes/{name}/health}: registering a
 *   node drops the API's cached nodes (so the next submission's shape is checked against them); registering and
 *   marking are told to the scheduling loop as a change of the topology.</li>
 *   <li>{@code GET|PUT /v1/brakes}: the brakes' limits; a change is told to the loop, which re-checks the held
 *   workloads at once.</li>
 *   <li>{@code GET|PUT /v1/policy}: the policy the service runs ({@link LivePolicy}), set as {@code policy.yaml}
 *   text; the loop applies it at its next cycle.</li>
 * </ul>
 * Apart from the workloads' and the allocation tree's handlers because these are what an administrator sets up the
 * cluster with, not what its users do with it.
 */
final class ClusterApi {
    private final Store store;
    private final Clock clock;
    private final JsonIo io;
    private final Cached<List<Node>> nodes;
    private final LivePolicy policy;
    private final Runnable topologyChanged;
    private final Runnable brakesChanged;

    /**
     * @param nodes the API's cached nodes, invalidated when a node is registered
     * @param topologyChanged told after a node is registered or marked ({@link ApiServer.Extras#topologyChanged()})
     * @param brakesChanged told after the brakes change ({@link ApiServer.Extras#brakesChanged()})
     */
    ClusterApi(Store store, Clock clock, JsonIo io, Cached<List<Node>> nodes, LivePolicy policy,
               Runnable topologyChanged, Runnable brakesChanged, String nodesFromBackend) {
        this.nodesFromBackend = nodesFromBackend;
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = Objects.requireNonNull(io, "io");
        this.nodes = Objects.requireNonNull(nodes, "nodes");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.topologyChanged = Objects.requireNonNull(topologyChanged, "topologyChanged");
        this.brakesChanged = Objects.requireNonNull(brakesChanged, "brakesChanged");
    }

    /** The backend whose node list the service keeps in step with, or null when nodes are registered by hand. */
    private final String nodesFromBackend;

    /** {@code GET /v1/nodes}: the registered nodes, for any signed-in user. */
    void listNodes(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/nodes");
        io.json(ctx, 200, new Views.NodeList(store.nodes().nodes().stream().map(Views::node).toList()));
    }

    /** {@code PUT /v1/nodes/{name}}: administrators register a node, or change its GPU count (201 when new). */
    void putNode(Context ctx, User user) {
        ApiServer.requireAdmin(user, "register nodes");
        String name = Edits.nodeName(ctx.pathParam("name"));
        Edits.NodeRegistration r = Edits.NodeRegistration.parse(io.body(ctx));
        Optional<Node> before = findNode(name);
        if (before.isEmpty() && nodesFromBackend != null) {
            // work placed on a node the backend does not run fails when it launches
            throw new ApiException(409, "the " + nodesFromBackend + " backend runs no node '" + name + "': its nodes"
                    + " come from the backend, which the service keeps in step with", null,
                    "GET /v1/nodes lists them; PUT changes the GPU count of one of those");
        }
        // A node registered again keeps its health; only its GPU count changes.
        Node node = new Node(name, r.gpus(), before.map(Node::healthy).orElse(true),
                before.map(Node::reason).orElse(null), clock.millis());
        store.nodes().putNode(node, user.name());
        nodes.invalidate();
        topologyChanged.run();
        io.json(ctx, before.isPresent() ? 200 : 201, Views.node(node));
    }

    /** {@code POST /v1/nodes/{name}/health}: administrators mark a node healthy or not, with a reason. */
    void setHealth(Context ctx, User user) {
        ApiServer.requireAdmin(user, "set the health of nodes");
        String name = ctx.pathParam("name");
        Edits.NodeHealth h = Edits.NodeHealth.parse(io.body(ctx));
        // looked up first: the store's own refusal of an unknown node came without the hint
        Node before = findNode(name).orElseThrow(() -> ApiException.notFound("no node '" + name + "'",
                "GET /v1/nodes lists them"));
        if (h.healthy() && before.unhealthyIn(nodesFromBackend)) {
            // Marked healthy here, the backend's next listing made it unhealthy again within a second, after a 200
            // that said healthy; work placed on it meanwhile waited in the backend (Slurm: a drained node).
            throw new ApiException(409, "node '" + name + "' is unhealthy in the " + nodesFromBackend + " backend ("
                    + before.reason() + "): the service marks it healthy once the backend can use it again", null,
                    "make it usable in " + nodesFromBackend + " (on Slurm, for a node drained by an operator: scontrol"
                            + " update nodename=" + name + " state=resume); the service follows within seconds");
        }
        store.nodes().setHealth(name, h.healthy(), h.reason(), clock.millis(), user.name());
        topologyChanged.run();
        io.json(ctx, 200, Views.node(findNode(name).orElseThrow(() -> ApiException.notFound("no node '" + name + "'",
                "GET /v1/nodes lists them"))));
    }

    private Optional<Node> findNode(String name) {
        return store.nodes().nodes().stream().filter(n -> n.name().equals(name)).findFirst();
    }

    /** {@code GET /v1/brakes}: the safety brakes' limits in force, for any signed-in user. */
    void brakes(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/brakes");
        io.json(ctx, 200, brakesView(store.settings().brakes()));
    }

    /**
     * {@code PUT /v1/brakes}: administrators set the safety brakes' limits (audited); the loop re-checks the waiting
     * workloads at once, so raising a limit releases the held ones that no longer trip a brake.
     */
    void putBrakes(Context ctx, User user) {
        ApiServer.requireAdmin(user, "change the brakes");
        Edits.BrakesEdit edit = Edits.BrakesEdit.parse(io.body(ctx));
        dev.allot.server.store.BrakeLimits limits = new dev.allot.server.store.BrakeLimits(edit.maxRequeues(),
                edit.maxGpuHoursPerWorkload());
        store.settings().putBrakes(limits, user.name(), clock.millis());
        brakesChanged.run();
        io.json(ctx, 200, brakesView(limits));
    }

    /** {@code GET /v1/policy}: the scheduling policy in force, its source and text, for any signed-in user. */
    void showPolicy(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/policy");
        io.json(ctx, 200, policyView(policy.current()));
    }

    /**
     * {@code PUT /v1/policy}: administrators set the scheduling policy's settings; the body is {@code policy.yaml}
     * text, read as {@code allot simulate} reads it (a bad one: 400 with the reader's message, naming line and field).
     * Audited and kept in the store ({@code policy.put}); the loop applies it at its next cycle.
     */
    void putPolicy(Context ctx, User user) {
        ApiServer.requireAdmin(user, "change the scheduling policy");
        ServicePolicy p;
        try {
            p = policy.put(JsonIo.text(ctx), user.name());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage(), "the body is policy.yaml text, as allot simulate reads it;"
                    + " GET /v1/policy shows the settings in force");
        }
        io.json(ctx, 200, policyView(p));
    }

    private static Views.PolicyView policyView(ServicePolicy p) {
        return new Views.PolicyView(ServicePolicy.POLICY, p.source(), p.settingsView(),
                p.text());
    }

    private static Views.BrakesView brakesView(dev.allot.server.store.BrakeLimits b) {
        return new Views.BrakesView(b.maxRequeues(), b.maxGpuHoursPerWorkload());
    }
}
