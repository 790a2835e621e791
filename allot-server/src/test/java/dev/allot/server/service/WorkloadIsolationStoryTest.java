package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.await;
import static dev.allot.server.service.ServiceTestSupport.submission;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.allot.core.backend.AttemptKey;
import dev.allot.server.backend.LocalBackend;
import dev.allot.server.identity.UnixAccounts;
import dev.allot.server.service.ServiceTestSupport.Answer;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The escalation of issue 13, replayed against a real service run by root on the local backend: users alice and bob
 * map to the Unix accounts {@code allot-alice} and {@code allot-bob} (which {@code .ci/run} creates). Bob runs a
 * workload that declares a secret; alice's workload then tries everything a member used to be able to do: read the
 * admin token, the store, the service's environment and bob's workload's environment, list the attempts' files,
 * signal bob's process. Everything fails; it runs as allot-alice, with its declared variables and nothing of the
 * service's environment; its log belongs to allot-alice. The workload writes what it found to its own output and the
 * test reads that log.
 *
 * <p>Needs root and the two accounts: skipped without them, unless {@code ALLOT_REQUIRE_ROOT_STORIES=1} (set by
 * {@code .ci/run}), which makes their absence a failure.
 */
class WorkloadIsolationStoryTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String ALICE = "allot-alice";
    private static final String BOB = "allot-bob";

    /** What alice's workload tries; one line per try, then its whole environment between markers. */
    private static final String PROBE = String.join("\n",
            "echo \"uid=$(id -u)\"",
            "try() { name=$1; shift; if \"$@\" >/dev/null 2>&1; then echo \"$name=SUCCEEDED\";"
                    + " else echo \"$name=denied\"; fi; }",
            "try admin-token cat \"$DATA/admin-token\"",
            "try store cat \"$DATA/allot.db\"",
            "try data-dir ls \"$DATA\"",
            "try attempts ls \"$DATA/attempts\"",
            "try service-environ cat \"/proc/$SERVICE_PID/environ\"",
            "try bob-environ cat \"/proc/$BOB_PID/environ\"",
            "try kill-bob kill \"$BOB_PID\"",
            "try kill-service kill -0 \"$SERVICE_PID\"",
            "echo env-begin", "env", "echo env-end");

    @TempDir
    Path dir;

    private Service service;
    private long bobPid = -1;

    @BeforeEach
    void requireRootAndAccounts() {
        boolean required = "1".equals(System.getenv("ALLOT_REQUIRE_ROOT_STORIES"));
        UnixAccounts accounts = new UnixAccounts();
        List<String> missing = new ArrayList<>();
        if (UnixAccounts.serviceUid() != 0) {
            missing.add("root (the tests run as uid " + UnixAccounts.serviceUid() + ")");
        }
        for (String account : List.of(ALICE, BOB)) {
            if (accounts.lookup(account).isEmpty()) {
                missing.add("the Unix account " + account + " (useradd --create-home " + account + ")");
            }
        }
        if (!missing.isEmpty()) {
            String why = "the workload isolation story needs " + String.join(" and ", missing);
            if (required) {
                fail(why + "; ALLOT_REQUIRE_ROOT_STORIES=1 makes that a failure");
            }
            assumeTrue(false, why + " (set ALLOT_REQUIRE_ROOT_STORIES=1 to fail instead)");
        }
    }

    /**
     * Closes the service, then kills every process launched for the test, wrappers first found by their token (it
     * names this test's directory), and waits until they are gone: a wrapper outliving its workload would write its
     * exit file into the directory being deleted.
     */
    @AfterEach
    void stop() throws Exception {
        if (service != null) {
            service.close();
        }
        String token = "allot:" + dir;
        List<Long> pids = new ArrayList<>();
        ProcessHandle.allProcesses().filter(h -> h.info().arguments()
                .map(a -> java.util.Arrays.stream(a).anyMatch(x -> x.startsWith(token))).orElse(false))
                .forEach(h -> {
                    pids.add(h.pid());
                    h.descendants().forEach(d -> pids.add(d.pid()));
                });
        if (bobPid > 0) {
            pids.add(bobPid);
        }
        pids.forEach(ServiceTestSupport::killTree);
        await("the test's processes to be gone", WAIT, () -> pids.stream().noneMatch(ServiceTestSupport::alive));
    }

    @Test
    void aMembersWorkloadCannotReachTheServiceOrAnotherMembersWork() throws Exception {
        // Given a root service on the local backend, alice and bob mapped to their own accounts,
        // (the test's own directory is open to all, as /var/lib is: only the data directory's permissions protect it)
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path data = dir.resolve("data");
        ServiceTestSupport.seed(data);
        try (Store store = Store.sqlite(data)) {
            store.access().putUser(new User("carol", User.Role.USER));
            store.access().addToken("carol", "tok-carol", "test", System.currentTimeMillis());
        }
        Bootstrap.writeSecret(data.resolve(Bootstrap.ADMIN_TOKEN_FILE), "tok-root\n"); // as a first start writes it
        Path accountsFile = dir.resolve("accounts");
        Files.writeString(accountsFile, "# Allot user: Unix account\nalice: " + ALICE + "\nbob: " + BOB + "\n");
        service = Service.start(ServiceConfig.defaults(data).withPort(0).withVirtualGpus(4)
                .withTick(Duration.ofMillis(100)).withSecurity(new ServiceConfig.Security(
                        ServiceConfig.Security.LOOPBACK, null, null, accountsFile, false, false)), Clock.systemUTC());
        Client http = new Client(service.url());
        LocalBackend backend = (LocalBackend) service.backend();
        UnixAccounts accounts = new UnixAccounts();
        UnixAccounts.Account alice = accounts.lookup(ALICE).orElseThrow();
        UnixAccounts.Account bob = accounts.lookup(BOB).orElseThrow();

        // the data directory and its secrets are the service's alone,
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data))).isEqualTo("rwx------");
        for (String file : List.of("allot.db", Bootstrap.ADMIN_TOKEN_FILE)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve(file))))
                    .as(file).isEqualTo("rw-------");
        }

        // and bob runs a workload that declares a secret.
        String secret = "bob-secret-" + System.nanoTime();
        Answer b = http.post("/v1/workloads", "tok-bob", submission("lab/b", "10m", false,
                List.of("sh", "-c", "echo \"pid $$ uid $(id -u)\"; exec sleep 120", "bob"),
                Map.of("BOB_SECRET", secret), null));
        assertThat(b.status()).as("bob's submission: %s", b.json()).isEqualTo(201);
        AttemptKey bobKey = new AttemptKey(b.json().path("id").asText(), 1);
        await("bob's workload says its pid", WAIT, () -> log(backend, bobKey).startsWith("pid "));
        String[] bobLine = log(backend, bobKey).lines().findFirst().orElseThrow().split(" ");
        bobPid = Long.parseLong(bobLine[1]);
        assertThat(Long.parseLong(bobLine[3])).as("bob's workload runs as %s", BOB).isEqualTo(bob.uid());

        // When alice's workload tries to reach the service and bob's work,
        long servicePid = ProcessHandle.current().pid();
        Answer a = http.post("/v1/workloads", "tok-alice", submission("lab/a", "1m", false,
                List.of("sh", "-c", PROBE, "probe"),
                Map.of("DATA", data.toString(), "SERVICE_PID", Long.toString(servicePid),
                        "BOB_PID", Long.toString(bobPid), "ALICE_DECLARED", "yes"), null));
        assertThat(a.status()).as("alice's submission: %s", a.json()).isEqualTo(201);
        String aliceId = a.json().path("id").asText();
        AttemptKey aliceKey = new AttemptKey(aliceId, 1);
        await("alice's workload completes", WAIT, () -> {
            try {
                return http.get("/v1/workloads/" + aliceId, "tok-alice").json().path("workload").path("state")
                        .asText().equals("completed");
            } catch (Exception e) {
                return false;
            }
        });
        String log = log(backend, aliceKey);

        // then every try failed,
        assertThat(log).as("alice's log").contains("uid=" + alice.uid() + "\n", "admin-token=denied\n",
                "store=denied\n", "data-dir=denied\n", "attempts=denied\n", "service-environ=denied\n",
                "bob-environ=denied\n", "kill-bob=denied\n", "kill-service=denied\n").doesNotContain("SUCCEEDED");
        assertThat(ServiceTestSupport.alive(bobPid)).as("bob's workload survived alice's kill").isTrue();
        // it has what alice declared and nothing of the service's environment (nor bob's secret),
        String env = log.substring(log.indexOf("env-begin\n") + "env-begin\n".length(), log.indexOf("env-end\n"));
        assertThat(env).contains("ALICE_DECLARED=yes\n", "USER=" + ALICE + "\n", "HOME=" + alice.home() + "\n")
                .doesNotContain(secret, "BOB_SECRET");
        Set<String> built = Set.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD");
        System.getenv().forEach((name, value) -> {
            if (!built.contains(name)) {
                assertThat(env).as("alice's workload has %s of the service's environment", name)
                        .doesNotContain(name + "=");
            }
        });
        assertThat(System.getenv()).as("the service's environment has variables to leak")
                .containsKey("PATH").hasSizeGreaterThan(3);
        // and its output belongs to allot-alice.
        assertThat(((Number) Files.getAttribute(backend.logFile(aliceKey), "unix:uid")).longValue())
                .isEqualTo(alice.uid());
        assertThat(((Number) Files.getAttribute(backend.logFile(bobKey), "unix:uid")).longValue())
                .isEqualTo(bob.uid());

        // A user whose account does not exist, and the admin (account root), cannot submit at all.
        Answer carol = http.post("/v1/workloads", "tok-carol", submission("lab/a", "1m", false,
                List.of("true"), Map.of(), null));
        assertThat(carol.status()).isEqualTo(400);
        assertThat(carol.json().path("error").asText()).contains("'carol'", "account 'carol'");
        assertThat(carol.json().path("hint").asText()).contains("--accounts", "carol: ACCOUNT");
        Answer root = http.post("/v1/workloads", "tok-root", submission("lab/a", "1m", false,
                List.of("true"), Map.of(), null));
        assertThat(root.status()).isEqualTo(400);
        assertThat(root.json().path("error").asText()).contains("root (uid 0)");
    }

    private static String log(LocalBackend backend, AttemptKey key) {
        try {
            Path log = backend.logFile(key);
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
