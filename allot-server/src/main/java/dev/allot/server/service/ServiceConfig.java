package dev.allot.server.service;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything {@link Service} needs to start, as values. Read from the command line by {@link ServiceMain} (and
 * {@code allot serve}); tests build it directly.
 *
 * @param dataDir      where the embedded SQLite file, the local backend's attempt files and {@code service.json} live
 * @param databaseUrl  a JDBC URL ({@code jdbc:postgresql://...}) to use instead of SQLite in the data directory; null
 *                     for SQLite
 * @param databaseUser user for {@code databaseUrl}; may be null
 * @param databasePassword password for {@code databaseUrl}; may be null
 * @param port         the API's port, 0 for any free one
 * @param backend      {@code local}, {@code simulated}, or one {@link Service#start(ServiceConfig, Clock, Map)} is
 *                     given a maker for ({@code slurm}, from the CLI)
 * @param nodeName     the name of this machine as a node, for the {@code local} backend
 * @param virtualGpus  GPUs the {@code local} backend's node has; 0 means: what {@code nvidia-smi} reports, else 8
 * @param timeScale    for the {@code simulated} backend: how many times faster than declared durations work ends
 * @param tick         time between two scheduling cycles
 * @param grace        how long a stopped workload may take to end before it is killed
 * @param demo         load the demo allocation tree, users and token when the store has no allocations
 * @param healthCheck  a shell command run for each node every {@code healthCheckEvery} (node name as {@code $1} and
 *                     in {@code ALLOT_NODE}): exit 0 healthy, another exit unhealthy; null for none
 * @param healthCheckEvery   time between two rounds of the health check
 * @param healthCheckTimeout time one probe may take before it counts as telling nothing
 * @param security     where the API listens and how, and as whom workloads run ({@link Security})
 * @param forecastInterval at least this long between two forecasts of waiting work's starts (off the scheduling
 *                     thread: {@link dev.allot.server.forecast.LiveForecaster}); zero turns forecasting off
 * @param ha           the leader lease's timing and where the local backend keeps its attempts, for several instances
 *                     on one PostgreSQL database ({@link HighAvailability})
 * @param settle       after a cycle sees work end, how long at most the policy waits for the ends the backend reports
 *                     a cycle later (zero: it decides at once; {@link dev.allot.server.sched.SchedulerLoop#settleEnds})
 */
public record ServiceConfig(Path dataDir, String databaseUrl, String databaseUser, String databasePassword, int port,
                            String backend, String nodeName, int virtualGpus, double timeScale, Duration tick,
                            Duration grace, boolean demo, String healthCheck, Duration healthCheckEvery,
                            Duration healthCheckTimeout, Security security, Duration forecastInterval,
                            HighAvailability ha, Duration settle) {
    /** The default time between two rounds of the health check. */
    public static final Duration DEFAULT_HEALTH_CHECK_EVERY = Duration.ofMinutes(1);

    public static final String LOCAL = "local";
    public static final String SIMULATED = "simulated";

    public ServiceConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(tick, "tick");
        Objects.requireNonNull(grace, "grace");
        if (!backend.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("a backend is named in lower case letters, digits and '-', such as "
                    + LOCAL + ", " + SIMULATED + " or slurm; got '" + backend + "'");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be between 0 (any free port) and 65535, got " + port);
        }
        if (virtualGpus < 0) {
            throw new IllegalArgumentException("virtual GPUs must be >= 0, got " + virtualGpus);
        }
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("time scale must be a finite number > 0, got " + timeScale);
        }
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("tick must be positive, got " + tick);
        }
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be negative, got " + grace);
        }
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(healthCheckEvery, "healthCheckEvery");
        Objects.requireNonNull(healthCheckTimeout, "healthCheckTimeout");
        if (healthCheck != null && healthCheck.isBlank()) {
            throw new IllegalArgumentException("the health check command must not be blank");
        }
        if (healthCheckEvery.isNegative() || healthCheckEvery.isZero()) {
            throw new IllegalArgumentException("the health check period must be positive, got " + healthCheckEvery);
        }
        if (healthCheckTimeout.isNegative() || healthCheckTimeout.isZero()) {
            throw new IllegalArgumentException("the health check timeout must be positive, got " + healthCheckTimeout);
        }
        Objects.requireNonNull(ha, "ha");
        Objects.requireNonNull(forecastInterval, "forecastInterval");
        Objects.requireNonNull(settle, "settle");
        if (settle.isNegative()) {
            throw new IllegalArgumentException("the settle time must not be negative (0 decides at once), got "
                    + settle);
        }
        if (forecastInterval.isNegative()) {
            throw new IllegalArgumentException("the forecast interval must not be negative (0 turns forecasting off),"
                    + " got " + forecastInterval);
        }
    }

    /** With forecasts every {@link dev.allot.server.forecast.LiveForecaster#DEFAULT_INTERVAL} (the shape before). */
    public ServiceConfig(Path dataDir, String databaseUrl, String databaseUser, String databasePassword, int port,
                         String backend, String nodeName, int virtualGpus, double timeScale, Duration tick,
                         Duration grace, boolean demo, String healthCheck, Duration healthCheckEvery,
                         Duration healthCheckTimeout, Security security) {
        this(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName, virtualGpus, timeScale,
                tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                dev.allot.server.forecast.LiveForecaster.DEFAULT_INTERVAL, HighAvailability.defaults(), Duration.ZERO);
    }

    /** With the default {@link HighAvailability} (the shape before it existed). */
    public ServiceConfig(Path dataDir, String databaseUrl, String databaseUser, String databasePassword, int port,
                         String backend, String nodeName, int virtualGpus, double timeScale, Duration tick,
                         Duration grace, boolean demo, String healthCheck, Duration healthCheckEvery,
                         Duration healthCheckTimeout, Security security, Duration forecastInterval) {
        this(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName, virtualGpus, timeScale,
                tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security, forecastInterval,
                HighAvailability.defaults(), Duration.ZERO);
    }

    /**
     * Several instances on one PostgreSQL database (with SQLite there is one instance, always the leader, and none of
     * this applies): the leader lease lasts {@code lease} from its last renewal and is renewed (or, by a standby,
     * tried) every {@code renewEvery}, which bounds a failover at {@code lease + renewEvery} plus one tick
     * ({@link dev.allot.server.sched.Leadership}).
     *
     * @param localBackendDir where the {@code local} backend keeps its files ({@code attempts/} in it); null: the data
     *                        directory. Instances that stand in for each other on one host must share it, so that a
     *                        new leader finds the processes the old one started
     */
    public record HighAvailability(Duration lease, Duration renewEvery, Path localBackendDir) {
        public HighAvailability {
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(renewEvery, "renewEvery");
            if (lease.compareTo(Duration.ofMillis(200)) < 0) {
                throw new IllegalArgumentException("the leader lease must last at least 200 ms, got " + lease.toMillis()
                        + " ms");
            }
            if (renewEvery.isNegative() || renewEvery.isZero() || renewEvery.compareTo(lease.dividedBy(2)) > 0) {
                throw new IllegalArgumentException("the leader lease must be renewed at least twice per lease: lease "
                        + lease.toMillis() + " ms, renewal every " + renewEvery.toMillis() + " ms");
            }
        }

        /** A 3 s lease renewed every second; the local backend's attempts in the data directory. */
        public static HighAvailability defaults() {
            return new HighAvailability(dev.allot.server.sched.Leadership.DEFAULT_LEASE,
                    dev.allot.server.sched.Leadership.DEFAULT_RENEW_EVERY, null);
        }
    }

    public ServiceConfig withHighAvailability(HighAvailability h) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, h, settle);
    }

    /**
     * What makes the service safe to share: the address the API binds to and its TLS material, and how workloads
     * are given their submitter's identity.
     *
     * @param bindAddress        the address the API listens on; loopback ({@value #LOOPBACK}) unless told otherwise
     * @param tlsCertificate     a PEM certificate (chain) to serve HTTPS with; null for plain HTTP
     * @param tlsKey             the PEM private key of {@code tlsCertificate}; null exactly when it is null
     * @param accountsFile       a file mapping Allot users to Unix accounts; null maps each user to the account of the
     *                           same name
     * @param singleUserHost     the operator acknowledges that, the service not being root, every workload runs as the
     *                           service's own Unix user, so more than one non-admin user may exist on the local backend
     * @param allowRootWorkloads a workload whose account is root (uid 0) may start; refused otherwise
     */
    public record Security(String bindAddress, Path tlsCertificate, Path tlsKey, Path accountsFile,
                           boolean singleUserHost, boolean allowRootWorkloads) {
        public static final String LOOPBACK = "127.0.0.1";

        public Security {
            Objects.requireNonNull(bindAddress, "bindAddress");
            if (bindAddress.isBlank()) {
                throw new IllegalArgumentException("the bind address must not be blank (default " + LOOPBACK + ")");
            }
            if ((tlsCertificate == null) != (tlsKey == null)) {
                throw new IllegalArgumentException("HTTPS needs both a PEM certificate and its PEM key; got "
                        + (tlsCertificate == null ? "only a key (" + tlsKey + ")"
                        : "only a certificate (" + tlsCertificate + ")"));
            }
        }

        /** Loopback, plain HTTP, each user as the Unix account of its name, no root workloads. */
        public static Security defaults() {
            return new Security(LOOPBACK, null, null, null, false, false);
        }

        public boolean tls() {
            return tlsCertificate != null;
        }
    }

    /** With the default {@link Security} (the shape before it existed). */
    public ServiceConfig(Path dataDir, String databaseUrl, String databaseUser, String databasePassword, int port,
                         String backend, String nodeName, int virtualGpus, double timeScale, Duration tick,
                         Duration grace, boolean demo, String healthCheck, Duration healthCheckEvery,
                         Duration healthCheckTimeout) {
        this(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName, virtualGpus, timeScale,
                tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, Security.defaults());
    }

    /** Without a health check (the shape before it existed). */
    public ServiceConfig(Path dataDir, String databaseUrl, String databaseUser, String databasePassword, int port,
                         String backend, String nodeName, int virtualGpus, double timeScale, Duration tick,
                         Duration grace, boolean demo) {
        this(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName, virtualGpus, timeScale,
                tick, grace, demo, null, DEFAULT_HEALTH_CHECK_EVERY, HealthChecker.DEFAULT_TIMEOUT);
    }

    /** The defaults: SQLite in {@code dataDir}, port 8080, the local backend with 8 virtual GPUs, a 1 s tick. */
    public static ServiceConfig defaults(Path dataDir) {
        return new ServiceConfig(dataDir, null, null, null, 8080, LOCAL, "local", 8, 1.0, Duration.ofSeconds(1),
                Duration.ofSeconds(30), false);
    }

    public ServiceConfig withPort(int p) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, p, backend, nodeName,
                virtualGpus, timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withBackend(String b) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, b, nodeName,
                virtualGpus, timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withVirtualGpus(int g) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName, g,
                timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withTick(Duration t) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, t, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withGrace(Duration g) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, tick, g, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withDemo(boolean d) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, tick, grace, d, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withDatabase(String url, String user, String password) {
        return new ServiceConfig(dataDir, url, user, password, port, backend, nodeName, virtualGpus, timeScale, tick,
                grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withNodeName(String n) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, n,
                virtualGpus, timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    /** Runs {@code command} for each node every {@code every}, each probe for at most {@code timeout}. */
    public ServiceConfig withHealthCheck(String command, Duration every, Duration timeout) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, tick, grace, demo, command, every, timeout, security, forecastInterval, ha, settle);
    }

    public ServiceConfig withSecurity(Security s) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, s,
                forecastInterval, ha, settle);
    }

    public ServiceConfig withTimeScale(double s) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, s, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, settle);
    }

    /** At least {@code every} between two forecasts; zero turns forecasting off. */
    public ServiceConfig withForecastInterval(Duration every) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                every, ha, settle);
    }

    /** After a cycle sees work end, wait at most {@code d} for the ends reported a cycle later; zero decides at once. */
    public ServiceConfig withSettle(Duration d) {
        return new ServiceConfig(dataDir, databaseUrl, databaseUser, databasePassword, port, backend, nodeName,
                virtualGpus, timeScale, tick, grace, demo, healthCheck, healthCheckEvery, healthCheckTimeout, security,
                forecastInterval, ha, d);
    }
}
