package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.store.NewWorkload;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The one path a submission takes to become a workload to store: its fields ({@link Submission}), the submitter's
 * identity ({@link IdentityGate}), the allocation (it exists, is a leaf, the user may submit there) and its shape (the
 * registered nodes could hold it). {@code POST /v1/workloads} and its batch take it, and so does the service when it
 * submits on a user's behalf (a campaign's shards, {@link #onBehalfOf}), so that every workload is checked the same
 * way whoever submitted it.
 */
public final class WorkloadIntake {
    private final IdentityGate identity;
    private final Clock clock;
    private final Supplier<List<Node>> nodes;

    WorkloadIntake(IdentityGate identity, Clock clock, Supplier<List<Node>> nodes) {
        this.identity = Objects.requireNonNull(identity, "identity");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.nodes = Objects.requireNonNull(nodes, "nodes");
    }

    /** The intake over the store's nodes as they are at each call (for submissions the service makes itself). */
    public static WorkloadIntake of(Store store, Clock clock, IdentityGate identity) {
        return new WorkloadIntake(identity, clock, () -> store.nodes().nodes());
    }

    /**
     * A submission made by the service on behalf of {@code userName} (a campaign's shard), checked in full against the
     * store's tree as it is now, as the workload to store, submitted at {@code atMillis} (the scheduling cycle's
     * time, so that it is never after the start the same cycle gives it).
     *
     * @throws IllegalArgumentException with the API's words when it would be refused (naming the field)
     */
    public NewWorkload onBehalfOf(Store store, String userName, JsonNode body, long atMillis) {
        Optional<User> user = store.access().user(userName);
        if (user.isEmpty() || user.get().disabled()) {
            throw new IllegalArgumentException("user '" + userName + "' " + (user.isEmpty() ? "no longer exists"
                    : "is disabled"));
        }
        try {
            return checked(body, user.get(), Permissions.of(store.allocations().allocations()), atMillis);
        } catch (ApiException e) {
            throw new IllegalArgumentException(e.getMessage() + (e.hint() == null ? "" : " (" + e.hint() + ")"), e);
        }
    }

    /** A submission checked in full (fields, identity, allocation, permission, shape) as the workload to store. */
    NewWorkload checked(JsonNode body, User user, Permissions permissions) {
        return checked(body, user, permissions, clock.millis());
    }

    private NewWorkload checked(JsonNode body, User user, Permissions permissions, long atMillis) {
        Submission s = Submission.parse(body);
        identity.requireMaySubmit(user.name());
        requireMaySubmitTo(permissions, user, s.allocation());
        requireShapeFits(s.gpus(), s.gpusPerNode());
        try {
            return new NewWorkload(s.allocation(), user.name(), s.gpus(), s.gpusPerNode(), s.durationSeconds(),
                    s.minRuntimeSeconds(), s.resumable(), s.priority(), s.kind(), s.command(), s.environment(),
                    atMillis, IdempotencyKeys.scoped(user.name(), s.idempotencyKey()));
        } catch (IllegalArgumentException e) {
            // Submission checks everything NewWorkload does; this is a second line, so bad input never becomes a 500.
            throw ApiException.badRequest(e.getMessage(), null);
        }
    }

    /** Refuses an allocation that does not exist, is not a leaf, or that the user may not submit to. */
    static void requireMaySubmitTo(Permissions permissions, User user, String allocation) {
        if (permissions.allocation(allocation).isEmpty()) {
            throw ApiException.badField("allocation", "unknown allocation '" + allocation + "'",
                    "GET /v1/allocations lists them; use the full path, e.g. \"lab/nlp/pretrain\"");
        }
        if (!permissions.maySubmit(user, allocation)) {
            throw ApiException.forbidden("user '" + user.name() + "' may not submit to allocation '" + allocation + "'",
                    "ask a manager of the allocation to add you to its members");
        }
        if (permissions.hasChildren(allocation)) {
            throw ApiException.badField("allocation", "'" + allocation + "' is not a leaf of the allocation tree;"
                    + " workloads run in leaves", "GET /v1/allocations lists them; name one of its leaves");
        }
    }

    /** Refuses a shape the registered nodes could never hold, as the scheduler would (it would wait forever). */
    void requireShapeFits(int gpus, int gpusPerNode) {
        List<Node> known = nodes.get();
        if (known.isEmpty()) {
            return; // nothing registered yet: the scheduler decides once nodes come
        }
        Optional<dev.allot.core.rules.Violation> misfit = dev.allot.core.rules.ShapeFit.check(
                dev.allot.server.store.ClusterSpecs.of(known), gpus, gpusPerNode);
        if (misfit.isPresent()) {
            throw ApiException.violations(List.of(misfit.get()), "GET /v1/nodes lists the nodes; ask for fewer GPUs or"
                    + " a smaller gang");
        }
    }
}
