package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot serve} in this JVM (stopped through {@link ServeCommand#stopAll}), with the client configuration in
 * a temporary file ({@code ALLOT_CONFIG}), never the real home.
 */
class ServeCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    Path clientJson;
    Function<String, String> realEnvironment;

    @BeforeEach
    void isolate() {
        clientJson = dir.resolve("config").resolve("client.json");
        realEnvironment = ClientOptions.useEnvironment(Map.of(ClientConfig.CONFIG_ENV, clientJson.toString()));
    }

    @AfterEach
    void restore() {
        ServeCommand.stopAll();
        ClientOptions.environment = realEnvironment;
    }

    /** Starts {@code allot serve ARGS} and waits for {@code service.json}, the last file it writes. */
    CompletableFuture<Cli.Result> serve(Path data, String... args) throws Exception {
        Path marker = data.resolve("service.json");
        Files.deleteIfExists(marker);
        CompletableFuture<Cli.Result> run = CompletableFuture.supplyAsync(() -> Cli.run(args));
        for (int i = 0; i < 600 && !Files.exists(marker) && !run.isDone(); i++) {
            Thread.sleep(100);
        }
        assertThat(run.isDone()).as("serve ended early: %s", run.isDone() ? run.get() : null).isFalse();
        assertThat(clientJson).exists();
        return run;
    }

    Cli.Result stop(CompletableFuture<Cli.Result> run) throws Exception {
        ServeCommand.stopAll();
        Cli.Result r = run.get(60, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.err()).isZero();
        return r;
    }

    @Test
    void demoBootstrapsPrintsTokensOnceAndTheClientCommandsNeedNoFlags() throws Exception {
        Path data = dir.resolve("data");
        String[] args = {"serve", "--demo", "--port", "0", "--data-dir", data.toString(), "--backend", "simulated",
                "--node", "n1", "--gpus", "4", "--tick", "200ms", "--time-scale", "60"};
        CompletableFuture<Cli.Result> run = serve(data, args);
        JsonNode config = JSON.readTree(clientJson.toFile());
        String token = config.get("token").asText();
        assertThat(config.get("server").asText()).startsWith("http://127.0.0.1:");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(clientJson))).isEqualTo("rw-------");

        Cli.Result submit = Cli.run("submit", "--allocation", "lab/nlp/pretrain", "--gpus", "2", "--min-runtime", "10m",
                "--resumable", "--duration", "1h", "--", "sleep", "300");
        assertThat(submit.exit()).as(submit.err()).isZero();
        assertThat(submit.out()).contains("w-1");
        Cli.Result queue = Cli.run("queue");
        assertThat(queue.exit()).as(queue.err()).isZero();
        assertThat(queue.out()).contains("w-1", "lab/nlp/pretrain");
        Cli.Result nodes = Cli.run("nodes");
        assertThat(nodes.out()).contains("n1");

        Cli.Result first = stop(run);
        assertThat(first.out()).contains("Allot service listening on " + config.get("server").asText(),
                "Created user 'admin'", "Demo token (user demo; also in " + data.resolve("demo-token") + "):",
                "  " + token,
                "./allot submit --allocation lab/nlp/pretrain", "./allot queue", "./allot explain w-1",
                "Dashboard: " + config.get("server").asText() + "/ (sign in with an API token)",
                "Wrote " + clientJson, "allot serve: stopped");
        String adminToken = Files.readString(data.resolve("admin-token")).trim();
        assertThat(first.out()).contains("  " + adminToken);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("admin-token"))))
                .isEqualTo("rw-------");
        assertThat(Files.readString(data.resolve("demo-token")).trim()).isEqualTo(token);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("demo-token"))))
                .isEqualTo("rw-------");

        CompletableFuture<Cli.Result> again = serve(data, args);
        assertThat(JSON.readTree(clientJson.toFile()).get("token").asText()).as("kept").isEqualTo(token);
        Cli.Result second = stop(again);
        assertThat(second.out()).doesNotContain(token, adminToken, "Created user")
                .contains("already has allocations; left as they are. The demo token is the one in "
                        + data.resolve("demo-token") + ".");
        // it said "the server (in place of ..., which the client commands talked to until now) (a token written
        // before is kept)": two asides in a row
        assertThat(second.out()).contains(" and the demo token; the client commands need no --server or --token.")
                .doesNotContain(") (");
        assertThat(second.out()).doesNotContain("was set up by --demo");

        // restarted without --demo, its users' workloads no longer run as the demo ran them: it says so, and how back
        String[] withoutDemo = Arrays.stream(args).filter(a -> !a.equals("--demo")).toArray(String[]::new);
        Cli.Result plain = stop(serve(data, withoutDemo));
        assertThat(plain.out()).contains("Note: " + data + " was set up by --demo, which runs every user's workloads"
                + " as one account; started without --demo, they run as said above. Restart with --demo to keep the"
                + " demo as it was.");

        // when another server took the client configuration since and dropped the demo token (it does not know it,
        // and the demo printed it only once), a restart of the demo gives it back to the client commands
        Files.writeString(clientJson, "{\"server\": \"http://127.0.0.1:18093\"}\n");
        Cli.Result third = stop(serve(data, args));
        assertThat(JSON.readTree(clientJson.toFile()).get("token").asText()).isEqualTo(token);
        assertThat(third.out()).contains("(in place of http://127.0.0.1:18093, which the client commands talked to"
                + " until now) and the demo token;").doesNotContain(token);

        // and a data folder from before the token was kept (no demo-token) keeps what the configuration holds
        Files.delete(data.resolve("demo-token"));
        Cli.Result fourth = stop(serve(data, args));
        assertThat(fourth.out()).contains("(the demo token was printed at the first start)",
                ", keeping the token written before; the client commands need no --server or --token.");
        assertThat(JSON.readTree(clientJson.toFile()).get("token").asText()).isEqualTo(token);
    }

    @Test
    void withoutDemoItWritesTheServerOnly() throws Exception {
        CompletableFuture<Cli.Result> run = serve(dir.resolve("d"), "serve", "--port", "0", "--data-dir", dir.resolve("d").toString(),
                "--backend", "simulated", "--node", "n1", "--gpus", "2");
        JsonNode config = JSON.readTree(clientJson.toFile());
        assertThat(config.has("token")).isFalse();
        Cli.Result r = stop(run);
        assertThat(r.out()).contains("Created user 'admin'").doesNotContain("Demo");
    }

    @Test
    void aStartThatTakesTheClientConfigurationFromAnotherServerSaysWhichOne() throws Exception {
        // given a client configuration naming another service (the demo, say, still running on port 18093)
        Files.createDirectories(clientJson.getParent());
        Files.writeString(clientJson, "{\"server\": \"http://127.0.0.1:18093\"}\n");

        // when a second service starts
        CompletableFuture<Cli.Result> run = serve(dir.resolve("d"), "serve", "--port", "0", "--data-dir",
                dir.resolve("d").toString(), "--backend", "simulated", "--node", "n1", "--gpus", "2");
        String server = JSON.readTree(clientJson.toFile()).get("server").asText();
        Cli.Result r = stop(run);

        // then the banner names the server the client commands no longer talk to
        assertThat(server).isNotEqualTo("http://127.0.0.1:18093");
        assertThat(r.out()).contains("Wrote " + clientJson + ": the server (in place of http://127.0.0.1:18093, which"
                + " the client commands talked to until now).");
    }

    @Test
    void aTokenOfAnotherServerIsRemovedAndTheBannerSaysSoWhileThisServersOwnIsKept() throws Exception {
        // given a client configuration holding the token of another server (a demo started elsewhere, say)
        Files.createDirectories(clientJson.getParent());
        Files.writeString(clientJson, "{\"server\": \"http://127.0.0.1:18093\", \"token\": \"allot_elsewhere\"}\n");

        // when a service with its own new store starts
        Path data = dir.resolve("d");
        String[] args = {"serve", "--port", "0", "--data-dir", data.toString(), "--backend", "simulated", "--node",
                "n1", "--gpus", "2"};
        CompletableFuture<Cli.Result> run = serve(data, args);
        JsonNode config = JSON.readTree(clientJson.toFile());
        Cli.Result r = stop(run);

        // then the token, which signs in nowhere here, is gone, and the banner says why and what to do
        assertThat(config.has("token")).isFalse();
        assertThat(r.out()).contains("and removed the token it held, which this server does not know (give --token or"
                + " set ALLOT_TOKEN).");

        // and a token this server's store does know (its administrator's) stays through a restart
        String admin = Files.readString(data.resolve("admin-token")).trim();
        Files.writeString(clientJson, "{\"server\": \"http://127.0.0.1:18093\", \"token\": \"" + admin + "\"}\n");
        Cli.Result again = stop(serve(data, args));
        assertThat(JSON.readTree(clientJson.toFile()).get("token").asText()).isEqualTo(admin);
        assertThat(again.out()).doesNotContain("removed the token");
    }

    @Test
    void badValuesNameTheOptionAndExit2() {
        String d = dir.resolve("bad").toString();
        for (String[] bad : new String[][]{
                {"--tick", "soon", "--tick expects a duration such as 500ms, 30s, 2m or 1h30m, got 'soon'"},
                {"--grace", "-5s", "--grace expects a duration"},
                {"--settle", "-1s", "--settle expects a duration"},
                {"--health-check-every", "0s", "--health-check-every expects a duration > 0"},
                {"--forecast-interval", "often", "--forecast-interval expects a duration such as 500ms"},
                {"--backend", "kubernetes", "--backend expects one of local, simulated, slurm, got 'kubernetes'"},
                {"--backend", "slurm", "--slurm-conf", "/nonexistent/slurm.conf",
                        "--slurm-conf: /nonexistent/slurm.conf is not a file"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-observe", "both",
                        "--slurm-observe expects cli or rest, got 'both'"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-observe", "rest",
                        "--slurm-observe rest needs --slurm-rest-url and --slurm-rest-token-file"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-timeout", "soon",
                        "--slurm-timeout"},
                {"--port", "70000", "--port expects a port number between 0 (any free port) and 65535, got 70000"},
                {"--port", "http", "--port': expected a whole number, got 'http'"},
                {"--gpus", "0", "--gpus expects a whole number from 1 to 4,096 (the GPUs of one machine), got 0"},
                {"--gpus", "1000000000", "--gpus expects a whole number from 1 to 4,096 (the GPUs of one machine), got"
                        + " 1000000000"},
                {"--time-scale", "fast", "--time-scale expects a number > 0 such as 60, got 'fast'"},
                {"--log-format", "xml", "--log-format expects text or json, got 'xml'"},
                {"--db-url", "jdbc:mysql://x/y", "--db-url expects a PostgreSQL JDBC URL"},
                {"--db-user", "allot", "--db-user needs --db-url"},
                {"--accounts", "/nonexistent/accounts", "--accounts /nonexistent/accounts: no such file"},
                {"--accounts", "pom.xml", "pom.xml:1: expected 'USER: ACCOUNT'"}}) {
            // The options, then the message expected.
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("serve", "--data-dir", d));
            args.addAll(java.util.Arrays.asList(bad).subList(0, bad.length - 1));
            Cli.Result r = Cli.run(args.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", bad)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", bad)).contains(bad[bad.length - 1]);
        }
        assertThat(Path.of(d)).doesNotExist();
    }

    /** Runs {@code allot serve ARGS} that must be refused; one that starts instead is stopped and fails the test. */
    Cli.Result refused(String... args) throws Exception {
        CompletableFuture<Cli.Result> run = CompletableFuture.supplyAsync(() -> Cli.run(args));
        try {
            return run.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            ServeCommand.stopAll();
            throw new AssertionError("serve started instead of refusing: " + String.join(" ", args));
        }
    }

    @Test
    void givenAPortInUseServeRefusesItBeforeCreatingTheDataDirectory() throws Exception {
        Path data = dir.resolve("busy");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            Cli.Result r = refused("serve", "--port", Integer.toString(taken.getLocalPort()), "--data-dir",
                    data.toString(), "--backend", "simulated");
            assertThat(r.exit()).as(r.err()).isEqualTo(2);
            assertThat(r.err()).contains("--port " + taken.getLocalPort() + ": cannot listen on 127.0.0.1:"
                    + taken.getLocalPort());
        }
        assertThat(data).doesNotExist();
        assertThat(clientJson).doesNotExist();
    }

    @Test
    void givenOptionsThatDoNotGoTogetherOrCannotBeUsedServeRefusesThemBeforeCreatingAnything() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "not a folder");
        Path empty = Files.writeString(dir.resolve("empty.jwt"), "\n");
        Path data = dir.resolve("data");
        for (String[] bad : new String[][]{
                {"--slurm-partition", "gpu", "--slurm-partition needs --backend slurm"},
                {"--backend", "simulated", "--slurm-conf", "pom.xml", "--slurm-conf needs --backend slurm"},
                {"--time-scale", "60", "--time-scale needs --backend simulated"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--gpus", "4",
                        "--gpus does not apply to --backend slurm"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--node", "n1",
                        "--node does not apply to --backend slurm"},
                {"--health-check-every", "5m", "--health-check-every needs --health-check"},
                {"--lease", "5s", "--lease needs --db-url (with SQLite there is one service, always the leader)"},
                {"--lease-renew", "2s", "--lease-renew needs --db-url"},
                {"--backend", "simulated", "--local-backend-dir", "/tmp", "--local-backend-dir needs --backend local"},
                {"--db-url", "jdbc:postgresql://127.0.0.1:1/x", "--lease", "1s", "--lease-renew", "1s",
                        "--lease, --lease-renew: the leader lease must be renewed at least twice per lease"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-observe", "rest", "--slurm-rest-url",
                        "http://127.0.0.1:1", "--slurm-rest-token-file", "/nonexistent/token",
                        "--slurm-rest-token-file: /nonexistent/token is not a file; give a file holding a JWT for"
                                + " slurmrestd, e.g. from `scontrol token username=root lifespan=SECONDS`"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-bin", "/nonexistent",
                        "--slurm-bin: /nonexistent is not a directory; give the folder holding Slurm's commands"
                                + " (sbatch, squeue, scontrol), e.g. /usr/bin, or leave it out to find them on the PATH"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-observe", "rest", "--slurm-rest-url",
                        "http://127.0.0.1:1", "--slurm-rest-token-file", empty.toString(),
                        "--slurm-rest-token-file: " + empty + " is empty; write a token from `scontrol token"
                                + " username=root lifespan=SECONDS` to it"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-rest-url", "http://127.0.0.1:1",
                        "--slurm-rest-token-file", "pom.xml", "--slurm-rest-url needs --slurm-observe rest"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-observe", "cli",
                        "--slurm-rest-token-file", "pom.xml", "--slurm-rest-token-file needs --slurm-observe rest"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-observe", "rest", "--slurm-rest-url",
                        "not a url", "--slurm-rest-token-file", "pom.xml",
                        "--slurm-rest-url expects an http:// or https:// URL, got 'not a url'"},
                {"--backend", "slurm", "--slurm-conf", "pom.xml", "--slurm-workdir", file.toString(),
                        "--slurm-workdir: " + file + " is a file, not a folder"},
                {"--data-dir", file.toString(), "--data-dir: " + file + " is a file, not a folder"},
                {"--data-dir", file.resolve("data").toString(), "--data-dir: " + file + " is a file, not a folder"}}) {
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("serve", "--port", "0"));
            if (!bad[0].equals("--data-dir")) {
                args.addAll(java.util.List.of("--data-dir", data.toString()));
            }
            args.addAll(java.util.Arrays.asList(bad).subList(0, bad.length - 1));
            Cli.Result r = refused(args.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", bad) + ": " + r.err()).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", bad)).contains(bad[bad.length - 1]);
            assertThat(data).as(String.join(" ", bad)).doesNotExist();
        }
        assertThat(Files.readString(file)).isEqualTo("not a folder");
        assertThat(clientJson).doesNotExist();
    }

    @Test
    void givenADataDirectoryThatCannotBeCreated_thenServeNamesTheOptionAndWhyAndExits2() throws Exception {
        // '--data-dir /proc/d' said "allot: could not start the service: cannot create the directory /proc/d:
        // /proc/d" and exited 1; the README promises 2 and one line naming the option with a reason
        Cli.Result r = refused("serve", "--port", "0", "--data-dir", "/proc/d", "--backend", "simulated");
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        // and then "no such file or directory", of /proc: the true cause is said, as the CLI's outputs say it
        assertThat(r.err().strip()).isEqualTo("allot: --data-dir /proc/d: cannot create the directory: the folder"
                + " /proc takes no new files or folders (a virtual file system such as /proc or /sys)");
        assertThat(clientJson).doesNotExist();
    }

    @Test
    void givenAnExistingDataDirectoryABadOptionLeavesItUntouched() throws Exception {
        Path data = Files.createDirectories(dir.resolve("kept"));
        Files.writeString(data.resolve("notes.txt"), "mine");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            Cli.Result r = refused("serve", "--port", Integer.toString(taken.getLocalPort()), "--data-dir",
                    data.toString(), "--backend", "simulated");
            assertThat(r.exit()).as(r.err()).isEqualTo(2);
        }
        try (java.util.stream.Stream<Path> files = Files.list(data)) {
            assertThat(files.map(f -> f.getFileName().toString()).toList()).containsExactly("notes.txt");
        }
    }

    @Test
    void aBadAccountsFileIsNamedWithItsLineAndNothingIsCreated() throws Exception {
        Path accounts = dir.resolve("accounts");
        Files.writeString(accounts, "# users\nalice allot-alice\n");
        Path d = dir.resolve("acc");
        Cli.Result r = Cli.run("serve", "--data-dir", d.toString(), "--accounts", accounts.toString());
        assertThat(r.exit()).isEqualTo(2);
        if (dev.allot.server.identity.UnixAccounts.serviceUid() == 0) {
            assertThat(r.err()).contains(accounts + ":2: expected 'USER: ACCOUNT'", "got 'alice allot-alice'");
        } else {
            assertThat(r.err()).contains("--accounts " + accounts + " needs the service to run as root");
        }
        assertThat(d).doesNotExist();
    }

    @Test
    void asRootTheDemoSaysItsWorkloadsRunAsNobody() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.allot.server.identity.UnixAccounts.serviceUid() == 0,
                "as another user the service cannot switch accounts");
        Path data = dir.resolve("root-demo");
        CompletableFuture<Cli.Result> run = serve(data, "serve", "--demo", "--port", "0", "--data-dir",
                data.toString(), "--backend", "local", "--node", "n1", "--gpus", "2");
        Cli.Result r = stop(run);
        assertThat(r.out()).contains("every user's workloads run as the Unix account 'nobody'", "--accounts FILE");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data))).isEqualTo("rwx------");
    }

    @Test
    void clientOptionsPreferFlagThenEnvironmentThenTheFileThenTheDefault() throws Exception {
        ClientOptions o = new ClientOptions();
        assertThat(o.serverUri().toString()).isEqualTo(ClientOptions.DEFAULT_SERVER);
        ClientConfig.write(clientJson, "http://file:1", "tok-file");
        assertThat(o.serverUri().toString()).isEqualTo("http://file:1");
        assertThat(o.requireToken()).isEqualTo("tok-file");
        ClientOptions.useEnvironment(Map.of(ClientConfig.CONFIG_ENV, clientJson.toString(),
                ClientOptions.SERVER_ENV, "http://env:2", ClientOptions.TOKEN_ENV, "tok-env"));
        assertThat(o.serverUri().toString()).isEqualTo("http://env:2");
        assertThat(o.requireToken()).isEqualTo("tok-env");
        o.server = "http://flag:3";
        o.token = "tok-flag";
        assertThat(o.serverUri().toString()).isEqualTo("http://flag:3");
        assertThat(o.requireToken()).isEqualTo("tok-flag");

        ClientOptions.useEnvironment(Map.of("XDG_CONFIG_HOME", dir.resolve("xdg").toString(), "HOME", "/nonexistent"));
        assertThat(ClientConfig.path(ClientOptions.environment)).isEqualTo(dir.resolve("xdg/allot/client.json"));
        ClientOptions.useEnvironment(Map.of("HOME", "/home/someone"));
        assertThat(ClientConfig.path(ClientOptions.environment)).isEqualTo(Path.of("/home/someone/.config/allot/client.json"));

        Files.writeString(clientJson, "[1]");
        ClientOptions.useEnvironment(Map.of(ClientConfig.CONFIG_ENV, clientJson.toString()));
        Cli.Result r = Cli.run("queue");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("the client configuration " + clientJson + " must be a JSON object");

        // a field of the wrong type is refused naming it, not dropped (the commands then went to the default server)
        Files.writeString(clientJson, "{\"server\": 18087, \"token\": \"tok\"}");
        Cli.Result wrongType = Cli.run("queue");
        assertThat(wrongType.exit()).isEqualTo(2);
        assertThat(wrongType.err()).isEqualTo("allot: the client configuration " + clientJson + ": field 'server':"
                + " expected a string, e.g. \"http://127.0.0.1:8080\", got 18087; fix or remove it\n");
    }
}
