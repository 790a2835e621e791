package dev.allot.server.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import dev.allot.server.identity.UnixAccounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * As whom and with what the local backend starts a workload, on a backend run by root (as in CI; skipped otherwise,
 * the stories in {@code WorkloadIsolationStoryTest} insist on root where required): as its account through setpriv,
 * with an environment built from the launch and the account and nothing of the service's, in the account's home,
 * with a log the account owns; never as root unless allowed.
 */
class LocalBackendIdentityTest {
    private static final Duration PATIENCE = Duration.ofSeconds(15);

    @TempDir
    Path dataDir;

    private final List<LocalBackend> backends = new ArrayList<>();
    private UnixAccounts.Account nobody;

    @BeforeEach
    void requireRoot() {
        assumeTrue(UnixAccounts.serviceUid() == 0, "these tests switch users: they need root");
        nobody = new UnixAccounts().lookup("nobody").orElseThrow();
    }

    @AfterEach
    void close() {
        backends.forEach(LocalBackend::close);
        new OwnProcesses(dataDir, null).kill(); // its own only: other tests' processes may run beside it
    }

    private LocalBackend backend(boolean allowRoot) {
        LocalBackend b = new LocalBackend(dataDir, "n1", new UnixAccounts(), allowRoot);
        backends.add(b);
        return b;
    }

    private static Launch launch(String id, String account, Map<String, String> environment, String... command) {
        return new Launch(new AttemptKey(id, 1), List.of(new Launch.NodeGpus("n1", List.of(3))), List.of(command),
                new TreeMap<>(environment), null, Launch.Terms.ALLOCATED, account);
    }

    private static AttemptStatus awaitEnd(LocalBackend backend, AttemptKey key) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            AttemptStatus s = backend.observe().stream().filter(x -> x.attempt().equals(key)).findFirst().orElseThrow();
            if (s.ended()) {
                return s;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(key + " did not end within " + PATIENCE);
    }

    @Test
    void aWorkloadRunsAsItsAccountInItsHomeWithABuiltEnvironmentAndOwnsItsLog() throws Exception {
        LocalBackend backend = backend(false);
        AttemptKey key = new AttemptKey("w-id", 1);
        backend.start(launch("w-id", "nobody", Map.of("FOO", "it's \"quoted\" $HOME `x`\nline two"),
                "sh", "-c", "echo uid=$(id -u) gid=$(id -g) cwd=$(pwd); env"));

        AttemptStatus done = awaitEnd(backend, key);

        String log = Files.readString(backend.logFile(key));
        assertThat(done.exitCode()).as(log).isZero();
        assertThat(log).contains("uid=" + nobody.uid() + " gid=" + nobody.gid() + " cwd=/\n");
        List<String> names = log.lines().skip(1).filter(l -> l.matches("[A-Za-z_][A-Za-z0-9_]*=.*"))
                .map(l -> l.substring(0, l.indexOf('='))).toList();
        assertThat(names).as("the whole environment: built, nothing of the service's")
                .containsExactlyInAnyOrder("PATH", "HOME", "USER", "LOGNAME", "SHELL", "CUDA_VISIBLE_DEVICES",
                        "ALLOT_WORKLOAD_ID", "ALLOT_ATTEMPT", "FOO", "PWD");
        assertThat(log).contains("PATH=" + LocalBackend.DEFAULT_PATH + "\n", "HOME=" + nobody.home() + "\n",
                "USER=nobody\n", "LOGNAME=nobody\n", "SHELL=" + nobody.shell() + "\n", "CUDA_VISIBLE_DEVICES=3\n",
                "FOO=it's \"quoted\" $HOME `x`\nline two\n");
        assertThat(System.getenv()).as("the service's environment is not empty: the check above means something")
                .containsKey("PATH");
        assertThat(((Number) Files.getAttribute(backend.logFile(key), "unix:uid")).longValue())
                .isEqualTo(nobody.uid());
        assertThat(dataDir.resolve("attempts/w-id-1.env")).as("the environment file is gone once read")
                .doesNotExist();
    }

    @Test
    void theProgramIsFoundOnTheDeclaredPath() throws Exception {
        Path bin = Files.createDirectories(dataDir.resolve("bin"));
        Path tool = bin.resolve("allot-test-tool");
        Files.writeString(tool, "#!/bin/sh\necho tool ran as $(id -u)\n");
        tool.toFile().setReadable(true, false);
        tool.toFile().setExecutable(true, false);
        bin.toFile().setExecutable(true, false);
        dataDir.toFile().setExecutable(true, false); // nobody may pass through the test's directory to bin/
        LocalBackend backend = backend(false);
        AttemptKey key = new AttemptKey("w-path", 1);
        backend.start(launch("w-path", "nobody", Map.of("PATH", bin + ":/usr/bin:/bin"), "allot-test-tool"));

        AttemptStatus done = awaitEnd(backend, key);

        assertThat(Files.readString(backend.logFile(key))).isEqualTo("tool ran as " + nobody.uid() + "\n");
        assertThat(done.exitCode()).isZero();
    }

    @Test
    void rootIsNeverStartedUnlessAllowed() throws Exception {
        LocalBackend backend = backend(false);

        assertThatThrownBy(() -> backend.start(launch("w-root", "root", Map.of(), "id", "-u")))
                .isInstanceOf(BackendException.class).hasMessageContaining("'root'").hasMessageContaining("uid 0")
                .hasMessageContaining("--allow-root-workloads");
        assertThatThrownBy(() -> backend.start(launch("w-none", null, Map.of(), "id", "-u")))
                .isInstanceOf(BackendException.class).hasMessageContaining("no Unix account")
                .hasMessageContaining("runs as root");
        assertThat(backend.observe()).isEmpty();

        LocalBackend allowing = backend(true);
        AttemptKey key = new AttemptKey("w-allowed", 1);
        allowing.start(launch("w-allowed", null, Map.of(), "id", "-u"));
        awaitEnd(allowing, key);
        assertThat(Files.readString(allowing.logFile(key))).isEqualTo("0\n");
    }

    @Test
    void anUnknownAccountOrAnUnexportableVariableIsRefused() throws Exception {
        LocalBackend backend = backend(false);

        assertThatThrownBy(() -> backend.start(launch("w-ghost", "allot-no-such-account", Map.of(), "true")))
                .isInstanceOf(BackendException.class).hasMessageContaining("allot-no-such-account")
                .hasMessageContaining("getent passwd");
        backend.start(launch("w-badname", "nobody", Map.of("NOT-A-NAME", "x"), "true"));
        AttemptStatus bad = awaitEnd(backend, new AttemptKey("w-badname", 1));
        assertThat(bad.phase()).isEqualTo(Phase.FAILED_TO_START);
        assertThat(bad.detail()).contains("NOT-A-NAME");
    }

    @Test
    void stopReachesTheWorkloadRunningAsAnotherAccount() throws Exception {
        LocalBackend backend = backend(false);
        AttemptKey key = new AttemptKey("w-stop", 1);
        backend.start(launch("w-stop", "nobody", Map.of(),
                "sh", "-c", "trap 'echo got TERM as $(id -u); exit 0' TERM; echo ready; sleep 60 & wait"));
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!log(backend, key).contains("ready") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }

        backend.stop(key, Duration.ofSeconds(60));
        AttemptStatus stopped = awaitEnd(backend, key);

        assertThat(stopped.phase()).isEqualTo(Phase.STOPPED);
        assertThat(log(backend, key)).contains("got TERM as " + nobody.uid());
    }

    private static String log(LocalBackend backend, AttemptKey key) throws IOException {
        return Files.exists(backend.logFile(key)) ? Files.readString(backend.logFile(key)) : "";
    }
}
