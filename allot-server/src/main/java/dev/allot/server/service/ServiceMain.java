package dev.allot.server.service;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the service in this JVM until it is killed: {@code java -cp ... dev.allot.server.service.ServiceMain
 * --data-dir DIR [--port N] [--backend local|simulated] [--gpus N] [--tick-ms N] [--grace-ms N] [--accounts FILE]
 * [--single-user-host true|false] [--database-url JDBC-URL [--database-user USER]] [--ha-lease-ms N]
 * [--ha-renew-ms N] [--local-backend-dir DIR]}, the database's password
 * from {@code ALLOT_DB_PASSWORD} (as {@code allot serve}); without a URL the store is SQLite in the data directory.
 * When it listens it
 * writes {@code DIR/service.json} ({@code url}, {@code port}, {@code pid}). {@code allot serve} is the user's entry
 * point; this one is for tests that must run the service as a separate process (to kill it).
 */
public final class ServiceMain {
    private ServiceMain() {
    }

    public static void main(String[] args) throws Exception {
        ServiceConfig config = null;
        Path dataDir = null;
        int port = 0;
        String backend = ServiceConfig.LOCAL;
        int gpus = 8;
        long tickMs = 1000;
        long graceMs = 30_000;
        Path accounts = null;
        boolean singleUserHost = false;
        String databaseUrl = null;
        String databaseUser = null;
        Duration lease = dev.allot.server.sched.Leadership.DEFAULT_LEASE;
        Duration renew = dev.allot.server.sched.Leadership.DEFAULT_RENEW_EVERY;
        Path backendDir = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            switch (a) {
                case "--data-dir" -> dataDir = Path.of(v);
                case "--port" -> port = Integer.parseInt(v);
                case "--backend" -> backend = v;
                case "--gpus" -> gpus = Integer.parseInt(v);
                case "--tick-ms" -> tickMs = Long.parseLong(v);
                case "--grace-ms" -> graceMs = Long.parseLong(v);
                case "--accounts" -> accounts = Path.of(v);
                case "--single-user-host" -> singleUserHost = Boolean.parseBoolean(v);
                case "--database-url" -> databaseUrl = v;
                case "--database-user" -> databaseUser = v;
                case "--ha-lease-ms" -> lease = Duration.ofMillis(Long.parseLong(v));
                case "--ha-renew-ms" -> renew = Duration.ofMillis(Long.parseLong(v));
                case "--local-backend-dir" -> backendDir = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + a
                        + "; valid: --data-dir, --port, --backend, --gpus, --tick-ms, --grace-ms, --accounts,"
                        + " --single-user-host, --database-url, --database-user, --ha-lease-ms, --ha-renew-ms,"
                        + " --local-backend-dir");
            }
            i++;
        }
        if (dataDir == null) {
            throw new IllegalArgumentException("--data-dir is required");
        }
        config = ServiceConfig.defaults(dataDir).withPort(port).withBackend(backend).withVirtualGpus(gpus)
                .withTick(Duration.ofMillis(tickMs)).withGrace(Duration.ofMillis(graceMs))
                .withSecurity(new ServiceConfig.Security(ServiceConfig.Security.LOOPBACK, null, null, accounts,
                        singleUserHost, false))
                .withHighAvailability(new ServiceConfig.HighAvailability(lease, renew, backendDir));
        if (databaseUrl != null) {
            config = config.withDatabase(databaseUrl, databaseUser, System.getenv("ALLOT_DB_PASSWORD"));
        }
        Service service = Service.start(config, Clock.systemUTC());
        ServiceFiles.writeServiceJson(dataDir, service.url(), service.port(), ProcessHandle.current().pid());
        Runtime.getRuntime().addShutdownHook(new Thread(service::close, "allot-shutdown"));
        new CountDownLatch(1).await();
    }
}
