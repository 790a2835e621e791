package dev.allot.cli;

import dev.allot.core.model.Durations;
import dev.allot.server.identity.IdentityMode;
import dev.allot.server.api.PemKeyStore;
import dev.allot.server.service.LogFormat;
import dev.allot.server.service.Service;
import dev.allot.server.service.ServiceConfig;
import dev.allot.server.service.ServiceFiles;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code allot serve}: runs the Allot service ({@link Service}) in this process until SIGINT or SIGTERM, then shuts
 * it down cleanly (the local backend's processes keep running, to be adopted at the next start). Prints where it
 * listens, the first administrator's token on a new store, and with {@code --demo} the demo's token and commands to
 * try; writes the client configuration so the client commands find the server (and, in demo mode, the token).
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the Allot service: the scheduler, its REST API under /v1, Prometheus metrics at /metrics.",
                "Runs until interrupted (Ctrl-C or SIGTERM). A new store gets a user 'admin' whose token is printed once"
                        + " and written to DIR/admin-token."})
final class ServeCommand implements Callable<Integer> {
    static final String DB_PASSWORD_ENV = "ALLOT_DB_PASSWORD";

    /** Running serves, so tests can stop them (a signal stops the process). */
    private static final Set<CountDownLatch> RUNNING = ConcurrentHashMap.newKeySet();

    @Spec
    CommandSpec spec;

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "allot-data",
            description = "where the SQLite store, the local backend's files and admin-token live (default: ${DEFAULT-VALUE})")
    Path dataDir;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "the API's port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = ServiceConfig.Security.LOOPBACK,
            description = "the address the API listens on: an address of this machine, 0.0.0.0 for all; other"
                    + " machines reach it only when it is not loopback (default: ${DEFAULT-VALUE})")
    String bind;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "serve HTTPS with this PEM certificate (chain, the server's first); needs --tls-key")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE",
            description = "the PEM private key of --tls-cert (PKCS#8 'BEGIN PRIVATE KEY', RSA or EC; or PKCS#1 RSA)")
    Path tlsKey;

    @Option(names = "--db-url", paramLabel = "JDBC_URL",
            description = "use PostgreSQL instead of SQLite, e.g. jdbc:postgresql://localhost:5432/allot (password from $"
                    + DB_PASSWORD_ENV + ")")
    String dbUrl;

    @Option(names = "--db-user", paramLabel = "USER", description = "the PostgreSQL user")
    String dbUser;

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "3s",
            description = "with --db-url, several services may share the database, one of them the leader: how long"
                    + " the leader's lease lasts from its last renewal (with --lease-renew, it bounds a failover)"
                    + " (default: ${DEFAULT-VALUE})")
    String lease;

    @Option(names = "--lease-renew", paramLabel = "DURATION", defaultValue = "1s",
            description = "how often the leader renews its lease, and a standby tries to take it"
                    + " (default: ${DEFAULT-VALUE})")
    String leaseRenew;

    @Option(names = "--local-backend-dir", paramLabel = "DIR",
            description = "where the local backend keeps its attempts' files (default: --data-dir); services that"
                    + " stand in for each other on one machine share it")
    Path localBackendDir;

    @Option(names = "--backend", paramLabel = "BACKEND", defaultValue = "local",
            description = "local (run each workload as a process here), simulated (run nothing; end work after its"
                    + " declared duration) or slurm (a Slurm cluster runs the work) (default: ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--gpus", paramLabel = "N",
            description = "virtual GPUs of this node (default: what nvidia-smi reports, else 8)")
    Integer gpus;

    @Option(names = "--node", paramLabel = "NAME", description = "this machine's node name (default: the host name)")
    String node;

    @Option(names = "--time-scale", paramLabel = "X", defaultValue = "1",
            description = "simulated backend: work ends X times faster than declared (default: ${DEFAULT-VALUE})")
    String timeScale;

    @Option(names = "--policy-file", paramLabel = "FILE",
            description = "the scheduling policy's settings: a policy.yaml as allot simulate reads it; wins over the"
                    + " settings set through PUT /v1/policy (default: those, else DIR/policy.yaml when there is one,"
                    + " else the defaults)")
    Path policyFile;

    /** The policy read by {@link #config()} (checked before anything is created). */
    private dev.allot.server.policy.PolicyOptions policyOptions;

    @Option(names = "--tick", paramLabel = "DURATION", defaultValue = "1s",
            description = "time between scheduling cycles (default: ${DEFAULT-VALUE})")
    String tick;

    @Option(names = "--settle", paramLabel = "DURATION", defaultValue = "0s",
            description = "after a cycle sees work end, ask the policy only in a later cycle that sees no further end,"
                    + " or once this has passed since the first end, so that ends the backend reports a listing apart"
                    + " are decided on together, as the simulator does (for replays); 0 decides at once"
                    + " (default: ${DEFAULT-VALUE})")
    String settle;

    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "30s",
            description = "how long a stopped workload may take to exit before it is killed (default: ${DEFAULT-VALUE})")
    String grace;

    @Option(names = "--health-check", paramLabel = "CMD",
            description = "a shell command run for each node (its name as $1 and in ALLOT_NODE): exit 0 healthy,"
                    + " another exit unhealthy (first output line as the reason); a timeout (30s) changes nothing")
    String healthCheck;

    @Option(names = "--health-check-every", paramLabel = "DURATION", defaultValue = "1m",
            description = "time between health checks (default: ${DEFAULT-VALUE})")
    String healthCheckEvery;

    @Option(names = "--forecast-interval", paramLabel = "DURATION", defaultValue = "10s",
            description = "at least this long between two forecasts of when waiting work starts (made off the"
                    + " scheduling loop; shown by allot explain, allot queue, GET /v1/forecasts); 0 turns them off"
                    + " (default: ${DEFAULT-VALUE})")
    String forecastInterval;

    @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (one line per event, key=value pairs) or json (one object per line) (default: ${DEFAULT-VALUE})")
    String logFormat;

    @picocli.CommandLine.ArgGroup(exclusive = false, heading = "Slurm backend (--backend slurm):%n")
    SlurmOptions slurm = new SlurmOptions();

    @Option(names = "--demo", description = "on an empty store, create a demo allocation tree and users, print a demo"
            + " token and commands to try, and save the token in the client configuration")
    boolean demo;

    @Option(names = "--accounts", paramLabel = "FILE",
            description = "when run as root: the Unix account each user's workloads run as, one 'USER: ACCOUNT' per"
                    + " line, '*: ACCOUNT' for everyone else (default: the account of the user's own name)")
    Path accounts;

    @Option(names = "--single-user-host", description = "when not run as root: accept more than one non-admin user on"
            + " the local backend although every workload then runs as the service's own Unix user (--demo implies it)")
    boolean singleUserHost;

    @Option(names = "--allow-root-workloads", description = "DANGEROUS: let a user mapped to root (uid 0) run"
            + " workloads as root, with full control of the machine and the service; refused otherwise")
    boolean allowRootWorkloads;

    @Override
    public Integer call() throws Exception {
        // Nothing is created or opened (data directory, store, token, client configuration, socket) before every
        // option and every combination of them has been checked: config() reads and checks them all and creates
        // nothing; then what can be tried without creating anything is tried (checkBeforeCreating).
        ServiceConfig config = config();
        checkBeforeCreating(config);
        LogFormat format = LogFormat.parse(logFormat);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        format.apply();
        Service service;
        try {
            service = Service.start(config, Clock.systemUTC(), slurm.makers(dataDir), policyOptions);
        } catch (RuntimeException e) {
            err.println("allot: could not start the service: " + message(e));
            err.flush();
            return 1;
        }
        CountDownLatch stop = new CountDownLatch(1);
        AtomicBoolean closed = new AtomicBoolean();
        Runnable shutdown = () -> {
            if (closed.compareAndSet(false, true)) {
                service.close();
            }
            stop.countDown();
        };
        Thread hook = new Thread(shutdown, "allot-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        RUNNING.add(stop);
        try {
            ServeAnnouncement.print(this, service, config, out, err);
            // Last: whoever waits for service.json finds the client configuration written too.
            ServiceFiles.writeServiceJson(dataDir, service.url(), service.port(), ProcessHandle.current().pid());
            stop.await();
        } finally {
            RUNNING.remove(stop);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
                shutdown.run();
            } catch (IllegalStateException shuttingDown) {
                stop.await(); // the hook is closing the service
            }
        }
        out.println("allot serve: stopped");
        out.flush();
        return 0;
    }

    /**
     * Whether the data directory can be made under {@code existing}, its nearest folder that exists: made and removed
     * again, so that one that cannot be (under {@code /proc}, where even root may not) names the option and why and
     * exits 2 as a bad option does, and nothing is left. It said "could not start the service: cannot create the
     * directory /proc/d: /proc/d" and exited 1.
     */
    private static void probeCreating(Path given, Path data, Path existing) {
        try {
            Files.createDirectories(data);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--data-dir " + given + ": cannot create the directory: "
                    + dev.allot.server.OwnerOnlyFiles.reason(e), e);
        }
        try {
            for (Path p = data; p != null && !p.equals(existing); p = p.getParent()) {
                Files.deleteIfExists(p);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("could not remove " + data + " made to check --data-dir", e);
        }
    }

    /** Stops every {@code allot serve} running in this JVM (for tests; a signal does it for the process). */
    static void stopAll() {
        RUNNING.forEach(CountDownLatch::countDown);
    }

    /**
     * The service's configuration from the options; a bad value, or options that do not go together, name the
     * option (exit 2). Creates nothing: {@link #call} relies on it to check every option before anything is made.
     */
    ServiceConfig config() {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port expects a port number between 0 (any free port) and 65535, got "
                    + port);
        }
        if (!SlurmOptions.backends().contains(backend)) {
            throw new IllegalArgumentException("--backend expects one of " + String.join(", ", SlurmOptions.backends())
                    + ", got '" + backend + "'");
        }
        if (backend.equals("slurm")) {
            slurm.config(dataDir, "check"); // a bad Slurm option is reported before anything starts
        }
        if (gpus != null && !dev.allot.core.rules.NodeGpus.allowed(gpus)) {
            throw new IllegalArgumentException("--gpus expects " + dev.allot.core.rules.NodeGpus.EXPECTED + ", got "
                    + gpus);
        }
        double scale;
        try {
            scale = Double.parseDouble(timeScale.trim());
        } catch (NumberFormatException e) {
            scale = Double.NaN;
        }
        if (!(scale > 0) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException("--time-scale expects a number > 0 such as 60, got '" + timeScale + "'");
        }
        Duration tickD = duration("--tick", tick, false);
        Duration graceD = duration("--grace", grace, true);
        Duration settleD = duration("--settle", settle, true);
        Duration every = duration("--health-check-every", healthCheckEvery, false);
        Duration forecastEvery = duration("--forecast-interval", forecastInterval, true);
        if (healthCheck != null && healthCheck.isBlank()) {
            throw new IllegalArgumentException("--health-check expects a command, got an empty one");
        }
        if (dbUrl != null && !dbUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--db-url expects a PostgreSQL JDBC URL such as"
                    + " jdbc:postgresql://localhost:5432/allot, got '" + dbUrl + "'");
        }
        if (dbUser != null && dbUrl == null) {
            throw new IllegalArgumentException("--db-user needs --db-url (without it the store is SQLite in --data-dir)");
        }
        LogFormat.parse(logFormat);
        checkCombinations();
        Duration leaseD = duration("--lease", lease, false);
        Duration renewD = duration("--lease-renew", leaseRenew, false);
        ServiceConfig.HighAvailability ha;
        try {
            ha = new ServiceConfig.HighAvailability(leaseD, renewD, localBackendDir);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--lease, --lease-renew: " + e.getMessage());
        }
        policyOptions = ServePolicy.options(policyFile, dataDir); // a bad policy.yaml names file, line and field
        String nodeName = node != null ? node.trim() : hostName();
        if (nodeName.isEmpty()) {
            throw new IllegalArgumentException("--node expects a name, got an empty one");
        }
        ServiceConfig.Security security = security();
        ServiceConfig c = ServiceConfig.defaults(dataDir).withPort(port).withBackend(backend)
                .withVirtualGpus(gpus == null ? 0 : gpus).withNodeName(nodeName).withTimeScale(scale)
                .withTick(tickD).withGrace(graceD).withDemo(demo)
                .withHealthCheck(healthCheck, every, dev.allot.server.service.HealthChecker.DEFAULT_TIMEOUT)
                .withForecastInterval(forecastEvery).withHighAvailability(ha).withSettle(settleD);
        c = c.withSecurity(new ServiceConfig.Security(security.bindAddress(), security.tlsCertificate(),
                security.tlsKey(), accounts,
                singleUserHost, allowRootWorkloads));
        IdentityMode.decide(c); // a bad --accounts file (file:line) or one that cannot apply is named before anything starts
        if (dbUrl != null) {
            c = c.withDatabase(dbUrl, dbUser, ClientOptions.environment.apply(DB_PASSWORD_ENV));
        }
        return c;
    }

    /**
     * Options that mean something only with other options: the Slurm options need {@code --backend slurm}, {@code
     * --time-scale} the simulated backend, {@code --health-check-every} a {@code --health-check}; Slurm owns its
     * nodes, so {@code --gpus} and {@code --node} do not apply to it. Given otherwise they would be ignored in
     * silence, so they are refused.
     */
    private void checkCombinations() {
        picocli.CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (given == null) {
            return; // built directly, not parsed (nothing to compare)
        }
        for (picocli.CommandLine.Model.OptionSpec o : given.matchedOptions()) {
            String name = o.longestName();
            if (name.startsWith("--slurm-") && !backend.equals("slurm")) {
                throw new IllegalArgumentException(name + " needs --backend slurm (the backend is " + backend + ")");
            }
        }
        if (given.hasMatchedOption("--time-scale") && !backend.equals("simulated")) {
            throw new IllegalArgumentException("--time-scale needs --backend simulated (the backend is " + backend
                    + ")");
        }
        for (String local : new String[] {"--gpus", "--node"}) {
            if (given.hasMatchedOption(local) && backend.equals("slurm")) {
                throw new IllegalArgumentException(local + " does not apply to --backend slurm: Allot reads the nodes"
                        + " and their GPUs from Slurm");
            }
        }
        if (given.hasMatchedOption("--health-check-every") && healthCheck == null) {
            throw new IllegalArgumentException("--health-check-every needs --health-check");
        }
        for (String o : new String[] {"--lease", "--lease-renew"}) {
            if (given.hasMatchedOption(o) && dbUrl == null) {
                throw new IllegalArgumentException(o + " needs --db-url (with SQLite there is one service, always the"
                        + " leader)");
            }
        }
        if (given.hasMatchedOption("--local-backend-dir") && !backend.equals("local")) {
            throw new IllegalArgumentException("--local-backend-dir needs --backend local (the backend is " + backend
                    + ")");
        }
    }

    /**
     * What can be checked by trying without creating anything, once every option is known to be well formed: the
     * data directory can be made (or is a folder that can be written) and no other service holds it, and the API's
     * port is free on the address it will listen on.
     */
    static void checkBeforeCreating(ServiceConfig c) {
        Path data = c.dataDir().toAbsolutePath().normalize();
        try {
            dev.allot.server.service.DataDirLock.checkFree(data); // another service on it is named before the port
        } catch (IllegalStateException | java.io.UncheckedIOException inUse) {
            throw new IllegalArgumentException("--data-dir: " + inUse.getMessage(), inUse);
        }
        for (Path p = data; p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                if (!Files.isDirectory(p)) {
                    throw new IllegalArgumentException("--data-dir: " + p + " is a file, not a folder");
                }
                if (!Files.isWritable(p)) {
                    throw new IllegalArgumentException("--data-dir: " + p + " cannot be written (permission denied)");
                }
                if (!p.equals(data)) {
                    probeCreating(c.dataDir(), data, p);
                }
                break;
            }
        }
        if (c.port() != 0) {
            String address = c.security().bindAddress();
            try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                probe.bind(new java.net.InetSocketAddress(InetAddress.getByName(address), c.port()));
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException("--port " + c.port() + ": cannot listen on " + address + ":"
                        + c.port() + " (" + message(e) + "); is another service using it? --port 0 takes any free"
                        + " port");
            }
        }
    }

    /**
     * The bind address and TLS files, checked before anything is created: the address is one of this machine's, the
     * PEM files read and belong together ({@link PemKeyStore}); a bad one names its option and file.
     */
    private ServiceConfig.Security security() {
        String address = bind == null ? "" : bind.trim();
        InetAddress inet;
        try {
            inet = InetAddress.getByName(address);
        } catch (java.io.IOException e) {
            inet = null;
        }
        boolean local;
        try {
            local = inet != null && (inet.isAnyLocalAddress() || inet.isLoopbackAddress()
                    || java.net.NetworkInterface.getByInetAddress(inet) != null);
        } catch (java.net.SocketException e) {
            local = false;
        }
        if (address.isEmpty() || !local) {
            throw new IllegalArgumentException("--bind expects an address of this machine, such as "
                    + ServiceConfig.Security.LOOPBACK + " (this machine only) or 0.0.0.0 (all its addresses), got '"
                    + bind + "'" + (inet == null ? " (not an address, and no host of that name)" : ""));
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException(tlsCert == null ? "--tls-key needs --tls-cert (the certificate of the key)"
                    : "--tls-cert needs --tls-key (the private key of the certificate)");
        }
        if (tlsCert != null) {
            try {
                PemKeyStore.load(tlsCert, tlsKey);
            } catch (PemKeyStore.BadPem e) {
                throw new IllegalArgumentException((e.part() == PemKeyStore.Part.CERTIFICATE ? "--tls-cert " : "--tls-key ")
                        + e.getMessage());
            }
        }
        return new ServiceConfig.Security(address, tlsCert, tlsKey, null, false, false);
    }

    /** A duration such as 30s, 2m, 1h30m, or milliseconds such as 500ms. */
    static Duration duration(String option, String text, boolean zeroAllowed) {
        String t = text == null ? "" : text.trim();
        Duration d;
        try {
            if (t.endsWith("ms") && t.length() > 2 && t.substring(0, t.length() - 2).chars().allMatch(Character::isDigit)) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else {
                d = Durations.parse(t);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " expects a duration such as 500ms, 30s, 2m or 1h30m, got '"
                    + text + "'");
        }
        if (d.isNegative() || (!zeroAllowed && d.isZero())) {
            throw new IllegalArgumentException(option + " expects a duration " + (zeroAllowed ? ">= 0" : "> 0")
                    + " such as 500ms, 30s, 2m or 1h30m, got '" + text + "'");
        }
        return d;
    }

    private static String hostName() {
        try {
            String h = InetAddress.getLocalHost().getHostName();
            if (h != null && !h.isBlank()) {
                return h;
            }
        } catch (java.io.IOException e) {
            // fall through
        }
        String env = System.getenv("HOSTNAME");
        return env != null && !env.isBlank() ? env : "local";
    }

    static String message(Throwable e) {
        String m = e.getMessage();
        Throwable c = e.getCause();
        while ((m == null || m.isBlank()) && c != null) {
            m = c.getMessage();
            c = c.getCause();
        }
        return m == null ? e.toString() : m;
    }
}
