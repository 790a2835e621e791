package dev.allot.server.service;

import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.server.store.Node;
import dev.allot.server.store.NotFoundException;
import dev.allot.server.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the store's nodes in step with a backend that owns the list of nodes (Slurm): a node the backend has and the
 * store has not is added with its GPUs; a GPU count that changed is updated; a node the backend cannot run work on
 * (down, failed, drained by an operator) is marked unhealthy with the backend's reason, prefixed by the backend's
 * name, and marked healthy again once the backend can use it, but only if the backend was the one that made it
 * unhealthy: health set by a person or by the health check is theirs to undo. A GPU count that shrank under running
 * work is taken as it is: the scheduling loop ends the work on the GPUs that are gone as lost. A node the store has
 * and the backend does not list is left alone (logged once while it is absent): it is not one of the backend's, or
 * the backend does not know its state yet (Slurm's UNKNOWN after slurmctld restarted). A node the backend reports
 * without GPUs is not added (the store holds only nodes with GPUs). A failed probe changes nothing (a failed probe is
 * not a down node).
 */
public final class BackendNodeSync implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackendNodeSync.class);
    /** The actor the audit trail names for changes made by the backend's node sync. */
    public static final String ACTOR = "system:node-sync";

    private final Store store;
    private final Backend backend;
    private final Clock clock;
    private final Runnable changed;
    private final String prefix;
    private final Map<String, Boolean> missingLogged = new TreeMap<>();
    private final Map<String, Boolean> noGpusLogged = new TreeMap<>();
    private ScheduledExecutorService thread;

    public BackendNodeSync(Store store, Backend backend, Clock clock, Runnable changed) {
        this.store = store;
        this.backend = backend;
        this.clock = clock;
        this.changed = changed;
        this.prefix = Node.backendReasonPrefix(backend.name());
    }

    /** Whether the backend owns the list of nodes (else there is nothing to keep in step). */
    public static boolean applies(Backend backend) {
        try {
            return backend.nodes().isPresent();
        } catch (BackendException e) {
            return true; // it has nodes, it just could not say right now
        }
    }

    /** Waits between two tries of the first listing (a test passes one that does not sleep). */
    @FunctionalInterface
    public interface Pause {
        void pause(Duration d) throws InterruptedException;
    }

    /** How often the first listing is tried when the store has no node yet, and the first wait between tries. */
    public static final int FIRST_LISTING_TRIES = 5;
    public static final Duration FIRST_LISTING_WAIT = Duration.ofSeconds(1);

    /**
     * The pass a service makes as it starts. When the store already has nodes one try is enough: the service starts
     * on them and the periodic sync catches up. When it has none, the service has nothing to schedule on without the
     * backend's answer, so a failed listing (a probe cut short, slurmctld restarting, a timeout) is tried again up to
     * {@link #FIRST_LISTING_TRIES} times, waiting 1 s, 2 s, 4 s, 8 s between tries: a failed probe is not an
     * answer, and a service started together with its cluster should not refuse to start over one. Returns what the
     * last try returned: -1 if the backend could not be asked.
     */
    public int syncAtStart(Pause pause) throws InterruptedException {
        int tries = store.nodes().nodes().isEmpty() ? FIRST_LISTING_TRIES : 1;
        Duration wait = FIRST_LISTING_WAIT;
        for (int t = 1; ; t++) {
            int changes = syncOnce();
            if (changes >= 0 || t >= tries) {
                return changes;
            }
            LOG.warn("the {} backend could not list its nodes (try {} of {}) and the store has none yet; trying again"
                    + " in {} s", backend.name(), t, tries, wait.toSeconds());
            pause.pause(wait);
            wait = wait.multipliedBy(2);
        }
    }

    /** One pass. Returns how many stored nodes it added or changed, or -1 when the backend could not be asked. */
    public synchronized int syncOnce() {
        Optional<List<BackendNode>> reported;
        try {
            reported = backend.nodes();
        } catch (BackendException e) {
            LOG.warn("could not read the {} backend's nodes; leaving every node as it is: {}", backend.name(),
                    e.getMessage());
            return -1;
        }
        if (reported.isEmpty()) {
            return 0;
        }
        Map<String, Node> stored = new TreeMap<>();
        for (Node n : store.nodes().nodes()) {
            stored.put(n.name(), n);
        }
        int changes = 0;
        long now = clock.millis();
        Map<String, BackendNode> seen = new TreeMap<>();
        for (BackendNode b : reported.get()) {
            seen.put(b.name(), b);
        }
        for (BackendNode b : seen.values()) {
            Node s = stored.get(b.name());
            if (b.gpus() < 1) {
                // The store holds only nodes with GPUs. A CPU-only node of the same cluster is not added; a stored
                // node whose GPUs the backend no longer counts takes no new work (unhealthy, with the backend's
                // word for it) until they are back. The other nodes are synced either way.
                if (noGpusLogged.put(b.name(), Boolean.TRUE) == null) {
                    LOG.warn("node {} has no GPUs in the {} backend; {}", b.name(), backend.name(),
                            s == null ? "not added" : "unhealthy until it has");
                }
                if (s != null && s.healthy()) {
                    try {
                        store.nodes().setHealth(s.name(), false, prefix + "reports no GPUs on this node", now, ACTOR);
                        changes++;
                    } catch (NotFoundException e) {
                        // removed meanwhile
                    }
                }
                continue;
            }
            noGpusLogged.remove(b.name());
            String reason = b.usable() ? null : prefix + (b.reason() == null ? "not usable" : b.reason());
            if (s == null) {
                store.nodes().putNode(new Node(b.name(), b.gpus(), b.usable(), reason, now), ACTOR);
                LOG.info("node {} from the {} backend: {} GPUs{}", b.name(), backend.name(), b.gpus(),
                        b.usable() ? "" : ", unhealthy: " + reason);
                changes++;
                continue;
            }
            try {
                if (s.gpus() != b.gpus()) {
                    store.nodes().putNode(new Node(s.name(), b.gpus(), s.healthy(), s.reason(), now), ACTOR);
                    if (b.gpus() < s.gpus()) {
                        // The scheduling loop ends the work on the GPUs that are gone as lost (see SchedulerLoop).
                        LOG.warn("node {} now has {} GPUs (was {}), says the {} backend; work on the GPUs it no longer"
                                + " has ends as lost", s.name(), b.gpus(), s.gpus(), backend.name());
                    } else {
                        LOG.info("node {} now has {} GPUs (was {}), says the {} backend", s.name(), b.gpus(),
                                s.gpus(), backend.name());
                    }
                    changes++;
                }
                if (!b.usable() && s.healthy()) {
                    store.nodes().setHealth(s.name(), false, reason, now, ACTOR);
                    LOG.atWarn().addKeyValue("node", s.name()).addKeyValue("reason", reason)
                            .log("node {} is unhealthy: {}", s.name(), reason);
                    changes++;
                } else if (b.usable() && s.unhealthyIn(backend.name())) {
                    store.nodes().setHealth(s.name(), true, null, now, ACTOR);
                    LOG.info("node {} is usable again in the {} backend: healthy", s.name(), backend.name());
                    changes++;
                }
            } catch (NotFoundException e) {
                // removed meanwhile
            }
        }
        for (String name : stored.keySet()) {
            if (seen.containsKey(name)) {
                missingLogged.remove(name); // listed again: a later absence is told again
            } else if (missingLogged.put(name, Boolean.TRUE) == null) {
                LOG.warn("node {} is in the store but not in the {} backend's listing (not one of its nodes, or its"
                        + " state not known to it yet); left as it is", name, backend.name());
            }
        }
        if (changes > 0) {
            changed.run();
        }
        return changes;
    }

    /** Syncs every {@code period} on a daemon thread. */
    public synchronized void start(Duration period) {
        if (thread != null) {
            throw new IllegalStateException("the node sync is already running");
        }
        thread = dev.allot.server.Daemons.single("allot-backend-nodes");
        thread.scheduleWithFixedDelay(() -> {
            try {
                syncOnce();
            } catch (RuntimeException e) {
                LOG.warn("backend node sync failed: {}", e.toString());
            }
        }, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = thread;
            thread = null;
        }
        if (t != null) {
            dev.allot.server.Daemons.stop(t, Duration.ofSeconds(5), "the backend node sync thread");
        }
    }
}
