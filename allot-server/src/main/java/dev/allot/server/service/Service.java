package dev.allot.server.service;

import dev.allot.core.backend.Backend;
import dev.allot.server.api.ApiServer;
import dev.allot.server.api.HttpEndpoint;
import dev.allot.server.api.PemKeyStore;
import dev.allot.server.backend.LocalBackend;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.forecast.LiveForecaster;
import dev.allot.server.identity.IdentityMode;
import dev.allot.server.identity.UnixAccounts;
import dev.allot.server.identity.WaitingWorkAccounts;
import dev.allot.server.identity.WorkloadIdentity;
import dev.allot.server.policy.LivePolicy;
import dev.allot.server.policy.PolicyOptions;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.sched.LeaderOnlyBackend;
import dev.allot.server.sched.Leadership;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.store.Store;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running service: the composition root that opens the {@link Store}, bootstraps it (the first administrator
 * and, with {@code demo}, the demo tree: {@link Bootstrap}), registers this machine as a node for the {@code local}
 * backend (its GPUs from {@code nvidia-smi} or the virtual count: {@link LocalGpus}), makes the backend, starts the
 * {@link SchedulerLoop} with the core's {@code allocation} policy (its settings from {@code policy.yaml}, read by the
 * caller, or set through the API: {@link LivePolicy}), its observers ({@link ServiceMetrics} and
 * {@link LoggingObserver}), the forecasts of waiting work's starts ({@link LiveForecaster}), the {@link ApiServer}
 * (with {@code /metrics}) and the optional {@link HealthChecker},
 * and closes them in the reverse order. First of all it decides as whom workloads run ({@link IdentityMode}: each as
 * its submitter's Unix account when the service is root; else all as the service's user, with the limits that
 * brings), locks the data directory against a second service ({@link DataDirLock}) and makes it the service's alone
 * (0700, its secrets 0600). Nothing else wires these together; tests start a {@code Service} the way
 * {@code allot serve} does.
 *
 * <p><b>Several instances.</b> On PostgreSQL ({@link Store#shared}) several services may run on one database: each
 * takes part in the leader lease ({@link Leadership}); only the leader's loop acts, through the store fenced by the
 * lease's epoch ({@link Store#fencedBy}) and a backend made anew for each term of leadership and refused to any other
 * ({@link LeaderOnlyBackend}); every instance serves the API and the dashboard from the database. With SQLite the one
 * instance is always the leader.
 */
public final class Service implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Service.class);
    /** The actor the audit trail names for changes made by the service at start (registering the local node). */
    public static final String STARTUP_ACTOR = "system:startup";
    /** The local node's GPUs when neither the configuration nor {@code nvidia-smi} says. */
    public static final int DEFAULT_VIRTUAL_GPUS = 8;
    /** How often a backend that owns the nodes (Slurm) is asked for them. */
    static final java.time.Duration NODE_SYNC_EVERY = java.time.Duration.ofSeconds(2);

    private final ServiceConfig config;
    private final Store store;
    private final Backend backend;
    private final SchedulerLoop loop;
    private final ApiServer api;
    private final ServiceMetrics metrics;
    private final HealthChecker health;
    private final BackendNodeSync nodeSync;
    private final String adminToken;
    /** The demo's token: created by this start, or kept by an earlier one ({@code dataDir/demo-token}); else null. */
    private final DemoToken demo;
    private final IdentityMode identity;
    private final DataDirLock lock;
    private final LiveForecaster forecaster;
    private final Leadership leadership;
    /** This machine's accounts, one cache for the API's checks and the local backend. */
    private static final UnixAccounts ACCOUNTS = new UnixAccounts();

    private Service(ServiceConfig config, Store store, Backend backend, SchedulerLoop loop, ApiServer api,
                    ServiceMetrics metrics, HealthChecker health, BackendNodeSync nodeSync, String adminToken,
                    DemoToken demo, IdentityMode identity, DataDirLock lock, LiveForecaster forecaster,
                    Leadership leadership) {
        this.forecaster = forecaster;
        this.leadership = leadership;
        this.identity = identity;
        this.lock = lock;
        this.nodeSync = nodeSync;
        this.config = config;
        this.store = store;
        this.backend = backend;
        this.loop = loop;
        this.api = api;
        this.metrics = metrics;
        this.health = health;
        this.adminToken = adminToken;
        this.demo = demo;
    }

    /** The demo user's token, and whether this start created it (else an earlier start did and kept it). */
    private record DemoToken(String token, boolean created) {
    }

    /**
     * Makes a backend the server does not carry itself (the server depends on no backend module; the CLI, which
     * depends on both, hands in the Slurm backend's maker). Called once the store is open; the service closes the
     * backend if it is {@link AutoCloseable}.
     */
    @FunctionalInterface
    public interface BackendMaker {
        Backend make(ServiceConfig config, Store store);
    }

    /** Starts everything with the built-in backends ({@code local}, {@code simulated}). */
    public static Service start(ServiceConfig config, Clock clock) {
        return start(config, clock, Map.of());
    }

    /**
     * Starts everything; {@code makers} adds backends by name. On failure closes what was opened and rethrows.
     *
     * @throws IllegalArgumentException if the configured backend is neither built in nor among {@code makers}
     */
    public static Service start(ServiceConfig config, Clock clock, Map<String, BackendMaker> makers) {
        return start(config, clock, makers, PolicyOptions.defaults());
    }

    /**
     * Starts everything, running the policy {@code policy} says ({@link LivePolicy#choose}: the one read from
     * {@code --policy-file}, else the one last set through the API, else the data directory's, else the defaults).
     */
    public static Service start(ServiceConfig config, Clock clock, Map<String, BackendMaker> makers,
                                PolicyOptions policy) {
        Objects.requireNonNull(config, "config");
        // Before anything is created: a bad --accounts file or an option that cannot apply is refused first.
        return start(config, clock, makers, IdentityMode.decide(config), policy);
    }

    /** Starts everything with the identity mode decided (for tests of a mode this process is not in). */
    static Service start(ServiceConfig config, Clock clock, Map<String, BackendMaker> makers, IdentityMode identity) {
        return start(config, clock, makers, identity, PolicyOptions.defaults());
    }

    private static Service start(ServiceConfig config, Clock clock, Map<String, BackendMaker> makers,
                                 IdentityMode identity, PolicyOptions policyOptions) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(policyOptions, "policyOptions");
        if (!config.backend().equals(ServiceConfig.LOCAL) && !config.backend().equals(ServiceConfig.SIMULATED)
                && !makers.containsKey(config.backend())) {
            java.util.TreeSet<String> valid = new java.util.TreeSet<>(makers.keySet());
            valid.add(ServiceConfig.LOCAL);
            valid.add(ServiceConfig.SIMULATED);
            throw new IllegalArgumentException("unknown backend '" + config.backend() + "'; valid backends: "
                    + String.join(", ", valid));
        }
        Objects.requireNonNull(clock, "clock");
        HttpEndpoint endpoint = endpoint(config); // bad TLS files are refused before anything is created
        // The data directory is this service's alone from here to close(): a second service on it stops here,
        // before it opens, adopts or writes anything.
        java.nio.file.Path madeFrom = NewDataDir.firstMissing(config.dataDir());
        DataDirLock lock = DataDirLock.acquire(config.dataDir());
        Store store;
        try {
            identity.notices().forEach(n -> LOG.info("identity: {}", n));
            dev.allot.server.OwnerOnlyFiles.secureDataDir(config.dataDir());
            store = config.databaseUrl() == null ? Store.sqlite(config.dataDir()) : openDatabase(config);
        } catch (RuntimeException e) {
            lock.close();
            NewDataDir.removeIfUnused(config.dataDir(), madeFrom, DataDirLock.FILE);
            throw e;
        }
        Backend backend = null;
        BackendNodeSync nodeSync = null;
        SchedulerLoop loop = null;
        ApiServer api = null;
        LiveForecaster forecaster = null;
        Leadership leadership = null;
        try {
            long now = clock.millis();
            identity.tooManyUsers(store.access().users()).ifPresent(why -> {
                throw new IllegalStateException(why);
            });
            WorkloadIdentity gate = new WorkloadIdentity(identity, ACCOUNTS);
            if (identity.switchesAccounts()) { // accepted work must not fail at launch for an option changed since
                WaitingWorkAccounts.problem(gate, store, Bootstrap.DEMO_USER,
                        config.dataDir().resolve(Bootstrap.DEMO_TOKEN_FILE), config.demo()).ifPresent(why -> {
                            throw new IllegalStateException(why);
                        });
            }
            String adminToken = Bootstrap.ensureAdmin(store, config.dataDir(), now).orElse(null);
            if (adminToken != null) {
                LOG.info("created user {} with a fresh token, also written to {}", Bootstrap.ADMIN,
                        config.dataDir().resolve(Bootstrap.ADMIN_TOKEN_FILE));
            }
            if (adminToken == null) {
                Bootstrap.renewAdminToken(store, config.dataDir(), now).ifPresent(name -> LOG.warn("no enabled"
                        + " administrator had a token that has not expired: wrote a fresh token of {} to {}", name,
                        config.dataDir().resolve(Bootstrap.ADMIN_TOKEN_FILE)));
            }
            String demoToken = config.demo() ? Bootstrap.ensureDemo(store, config.dataDir(), now).orElse(null) : null;
            if (demoToken != null) {
                LOG.info("created the demo allocation tree and users; the demo token is also in {}",
                        config.dataDir().resolve(Bootstrap.DEMO_TOKEN_FILE));
            }
            String keptDemoToken = config.demo() && demoToken == null
                    ? Bootstrap.keptDemoToken(store, config.dataDir()).orElse(null) : null;
            leadership = store.shared() ? Leadership.onLease(store.leases(), place(config), config.ha().lease(),
                    config.ha().renewEvery()) : Leadership.single(config.nodeName());
            String instance = leadership.instance();
            Backend loopBackend;
            Runnable termStart = null;
            if (!store.shared()) {
                backend = makers.containsKey(config.backend()) ? makers.get(config.backend()).make(config, store)
                        : makeBackend(config, clock, store, identity);
                loopBackend = backend;
            } else if (makers.containsKey(config.backend())) {
                // the service's own (for the nodes it lists), and one per term of leadership for the loop
                BackendMaker maker = makers.get(config.backend());
                backend = maker.make(config, store);
                loopBackend = new LeaderOnlyBackend(backend.name(), () -> maker.make(config, store), leadership,
                        backend.workMayDieWithTheService());
            } else {
                // a built-in backend is made only for a term of leadership: a standby touches no process, nor the GPU
                // count of the node the leader's work runs on (a standby started with another --gpus made the leader
                // stop that work as lost); it registers its node if new, and updates it only when its term begins
                OwnNode.register(config, clock, store, false);
                termStart = () -> OwnNode.register(config, clock, store, true);
                backend = new LeaderOnlyBackend(config.backend(), () -> newBackend(config, clock, identity, store),
                        leadership, config.backend().equals(ServiceConfig.LOCAL));
                loopBackend = backend;
            }
            if (BackendNodeSync.applies(backend)) {
                nodeSync = new BackendNodeSync(store, backend, clock, () -> { });
                if (firstListing(nodeSync) < 0 && store.nodes().nodes().isEmpty()) {
                    throw new IllegalStateException("the " + backend.name() + " backend could not list its nodes in "
                            + BackendNodeSync.FIRST_LISTING_TRIES + " tries over about 15 s and the store has none"
                            + " yet; is it reachable? (see the log above)");
                }
            }
            ServicePolicy policy = LivePolicy.choose(policyOptions, store);
            LOG.info("scheduling policy {} ({}): {}", ServicePolicy.POLICY, policy.source(), policy.settingsView());
            loop = new SchedulerLoop(store.shared() ? store.fencedBy(instance, leadership::actingEpoch,
                    config.ha().lease()) : store,
                    loopBackend, policy.create(), policy.scheduler(), clock, config.grace());
            loop.lead(leadership);
            if (termStart != null) {
                loop.atTermStart(termStart);
            }
            loop.settleEnds(config.settle());
            if (store.shared()) {
                loop.follow(store.readOnly()); // a standby explains and forecasts from a view that only reads
            }
            SchedulerLoop running = loop;
            LivePolicy live = new LivePolicy(policy, policyOptions.reader(), store, clock,
                    p -> running.usePolicy(p.create(), p.scheduler()));
            ServiceMetrics metrics = new ServiceMetrics(loop);
            metrics.watchBackend(backend);
            forecaster = new LiveForecaster(store, loop, live::current, LiveForecaster.serviceSettings(),
                    LiveForecaster.DEFAULT_DURATION, clock);
            forecaster.metrics(metrics.registry());
            loop.observe(new Observers(metrics, new LoggingObserver(), forecaster));
            if (identity.switchesAccounts()) {
                loop.runAs(identity.accounts());
            }
            loop.campaigns().identity(gate); // a campaign's shards are submissions of its owner's
            loop.start(config.tick());
            leadership.start();
            if (store.shared()) {
                LOG.info("high availability on PostgreSQL: this instance is {}; lease {} ms, renewed every {} ms",
                        instance, config.ha().lease().toMillis(), config.ha().renewEvery().toMillis());
            }
            SchedulerLoop started = loop;
            api = ApiServer.start(store, endpoint, clock,
                    new ApiServer.Extras(java.util.List.of(metrics.route()), started::nudge, started::nudge,
                            started::topologyChanged, started::brakesChanged, gate,
                            new LoopHealth(started), nodeSync != null || config.backend().equals(ServiceConfig.LOCAL)
                            ? backend.name() : null, dev.allot.server.api.AttemptOutputs.of(backend)),
                    new LoopExplainer(started, store, forecaster), live);
            forecaster.start(config.forecastInterval());
            if (nodeSync != null) {
                BackendNodeSync sync = new BackendNodeSync(store, backend, clock, started::topologyChanged);
                nodeSync = sync;
                sync.start(NODE_SYNC_EVERY);
            }
            HealthChecker health = null;
            if (config.healthCheck() != null) {
                health = new HealthChecker(store, config.healthCheck(), config.healthCheckTimeout(), clock,
                        started::topologyChanged);
                health.start(config.healthCheckEvery());
            }
            lock.listening(api.url());
            LOG.info("Allot service started: backend {}, API on {}", backend.name(), api.url());
            DemoToken demo = demoToken != null ? new DemoToken(demoToken, true)
                    : keptDemoToken != null ? new DemoToken(keptDemoToken, false) : null;
            return new Service(config, store, backend, loop, api, metrics, health, nodeSync, adminToken, demo,
                    identity, lock, forecaster, leadership);
        } catch (RuntimeException e) {
            if (forecaster != null) {
                forecaster.close();
            }
            if (nodeSync != null) {
                nodeSync.close();
            }
            if (api != null) {
                api.close();
            }
            if (loop != null) {
                loop.close();
            }
            if (leadership != null) {
                leadership.close();
            }
            if (backend instanceof AutoCloseable c) {
                closeQuietly(c);
            }
            store.close();
            lock.close();
            throw e;
        }
    }

    /** The PostgreSQL store of {@code --db-url}; a failure to open it says which option to look at and why. */
    private static Store openDatabase(ServiceConfig config) {
        try {
            return Store.open(config.databaseUrl(), config.databaseUser(), config.databasePassword());
        } catch (RuntimeException e) {
            throw DatabaseStartError.of(config.databaseUrl(), config.databaseUser(), e);
        }
    }

    /** Where the API listens: the configured address and port, HTTPS when given PEM files ({@link PemKeyStore}). */
    static HttpEndpoint endpoint(ServiceConfig config) {
        ServiceConfig.Security s = config.security();
        return new HttpEndpoint(s.bindAddress(), config.port(),
                s.tls() ? PemKeyStore.load(s.tlsCertificate(), s.tlsKey()) : null, HttpEndpoint.Limits.defaults());
    }

    private static Backend makeBackend(ServiceConfig config, Clock clock, Store store, IdentityMode identity) {
        OwnNode.register(config, clock, store, true);
        return newBackend(config, clock, identity, store);
    }

    /**
     * A built-in backend, the local one keeping its files in the data directory or the configured directory, the
     * simulated one remembering the runs the store has open ({@link SimulatedRestart}).
     */
    private static Backend newBackend(ServiceConfig config, Clock clock, IdentityMode identity, Store store) {
        if (config.backend().equals(ServiceConfig.SIMULATED)) {
            return SimulatedRestart.remembering(new SimulatedBackend(clock, config.timeScale()), store);
        }
        java.nio.file.Path dir = config.ha().localBackendDir() == null ? config.dataDir() : config.ha().localBackendDir();
        return new LocalBackend(dir, config.nodeName(), ACCOUNTS, identity.allowRootWorkloads());
    }

    /**
     * Where this service runs, as the start of its name in the leader lease: the host and the data directory. Only
     * one service runs on a data directory at a time ({@link DataDirLock}), so a lease held under a name with this
     * start was held by an earlier process of this service, gone; a restart takes its term over at once.
     */
    static String place(ServiceConfig config) {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = config.nodeName();
        }
        return host + ":" + config.dataDir().toAbsolutePath().normalize() + "#";
    }

    public int port() {
        return api.port();
    }

    /** Where clients reach the API: scheme, bound address and port. */
    public String url() {
        return api.url();
    }

    /** The socket address the API is bound to. */
    public java.net.SocketAddress apiAddress() {
        return api.boundAddress();
    }

    /** The warning to print at start when the API is reachable from the network over plain HTTP; else empty. */
    public java.util.Optional<String> plainTextWarning() {
        return api.endpoint().plainTextWarning();
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

    /** Whether this instance leads (schedules and talks to the backend) or stands by. */
    public Leadership leadership() {
        return leadership;
    }

    public ServiceConfig config() {
        return config;
    }

    /** As whom this service's workloads run ({@link IdentityMode}), with the notices {@code allot serve} prints. */
    public IdentityMode identity() {
        return identity;
    }

    public ServiceMetrics metrics() {
        return metrics;
    }

    /** Forecasts of the waiting work's starts (off when the configuration's forecast interval is 0). */
    public LiveForecaster forecaster() {
        return forecaster;
    }

    /** The token of the {@code admin} user when this start created it (a store without users), else empty. */
    public java.util.Optional<String> adminToken() {
        return java.util.Optional.ofNullable(adminToken);
    }

    /** The token of the {@code demo} user when this start created the demo, else empty. */
    public java.util.Optional<String> demoToken() {
        return java.util.Optional.ofNullable(demo != null && demo.created() ? demo.token() : null);
    }

    /**
     * On a restart of the demo, the demo user's token an earlier start kept in {@code dataDir/demo-token}, when the
     * store still knows it; else empty.
     */
    public java.util.Optional<String> keptDemoToken() {
        return java.util.Optional.ofNullable(demo != null && !demo.created() ? demo.token() : null);
    }

    /**
     * Stops the health check, the API, then the loop, then the backend (whose processes keep running, to be adopted),
     * then the store, and releases the data directory last.
     */
    @Override
    public void close() {
        if (health != null) {
            health.close();
        }
        if (nodeSync != null) {
            nodeSync.close();
        }
        forecaster.close();
        api.close();
        loop.close();
        leadership.close(); // the loop has stopped acting: a standby may take over at once
        if (backend instanceof AutoCloseable c) {
            closeQuietly(c);
        }
        store.close();
        lock.close();
    }

    /** The first node listing, tried again while the store has no node ({@link BackendNodeSync#syncAtStart}). */
    private static int firstListing(BackendNodeSync sync) {
        try {
            return sync.syncAtStart(d -> Thread.sleep(d.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the backend's first list of nodes", e);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("could not close {}: {}", c, e.getMessage());
        }
    }
}
