package dev.allot.server.service;

import dev.allot.core.backend.Backend;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.api.ApiServer;
import dev.allot.server.backend.LocalBackend;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running service: the composition root that opens the {@link Store}, makes the backend, starts the
 * {@link SchedulerLoop} with the core's {@code allocation} policy and the {@link ApiServer}, and closes them in the
 * reverse order. Nothing else wires these together; tests start a {@code Service} the way {@code allot serve} does.
 */
public final class Service implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Service.class);

    private final ServiceConfig config;
    private final Store store;
    private final Backend backend;
    private final SchedulerLoop loop;
    private final ApiServer api;

    private Service(ServiceConfig config, Store store, Backend backend, SchedulerLoop loop, ApiServer api) {
        this.config = config;
        this.store = store;
        this.backend = backend;
        this.loop = loop;
        this.api = api;
    }

    /** Starts everything; on failure closes what was opened and rethrows. */
    public static Service start(ServiceConfig config, Clock clock) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        Store store = config.databaseUrl() == null ? Store.sqlite(config.dataDir())
                : Store.open(config.databaseUrl(), config.databaseUser(), config.databasePassword());
        Backend backend = null;
        SchedulerLoop loop = null;
        try {
            backend = makeBackend(config, clock, store);
            PolicyFactory f = PolicyRegistry.standard().get("allocation");
            loop = new SchedulerLoop(store, backend, f.create(Settings.defaults(f.settings())),
                    SchedulerConfig.defaults(), clock, config.grace());
            loop.start(config.tick());
            SchedulerLoop started = loop;
            ApiServer api = ApiServer.start(store, config.port(), clock,
                    new ApiServer.Extras(java.util.List.of(), started::nudge), new LoopExplainer(started));
            LOG.info("Allot service started: backend {}, API on port {}", backend.name(), api.port());
            return new Service(config, store, backend, loop, api);
        } catch (RuntimeException e) {
            if (loop != null) {
                loop.close();
            }
            if (backend instanceof AutoCloseable c) {
                closeQuietly(c);
            }
            store.close();
            throw e;
        }
    }

    private static Backend makeBackend(ServiceConfig config, Clock clock, Store store) {
        if (config.backend().equals(ServiceConfig.SIMULATED)) {
            return new SimulatedBackend(clock, config.timeScale());
        }
        if (store.nodes().nodes().stream().noneMatch(n -> n.name().equals(config.nodeName()))) {
            store.nodes().putNode(new Node(config.nodeName(), config.virtualGpus(), true, null, clock.millis()));
        }
        return new LocalBackend(config.dataDir(), config.nodeName());
    }

    public int port() {
        return api.port();
    }

    public String url() {
        return "http://127.0.0.1:" + api.port();
    }

    public Store store() {
        return store;
    }

    public SchedulerLoop loop() {
        return loop;
    }

    public Backend backend() {
        return backend;
    }

    public ServiceConfig config() {
        return config;
    }

    /** Stops the API, then the loop, then the backend (whose processes keep running, to be adopted), then the store. */
    @Override
    public void close() {
        api.close();
        loop.close();
        if (backend instanceof AutoCloseable c) {
            closeQuietly(c);
        }
        store.close();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("could not close {}: {}", c, e.getMessage());
        }
    }
}
