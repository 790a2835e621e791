package dev.allot.server.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local backend with real processes ({@code /bin/sh}, {@code sleep}, {@code env}): what reaches the process,
 * exit codes, stopping with and without a cooperative process, and adoption by a backend created after a "restart"
 * on the same data directory. Waits poll with generous timeouts; nothing asserts how fast a process is.
 */
class LocalBackendTest {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    @TempDir
    Path dataDir;

    private final List<LocalBackend> backends = new ArrayList<>();

    private LocalBackend backend() {
        LocalBackend backend = new LocalBackend(dataDir, "n1");
        backends.add(backend);
        return backend;
    }

    /**
     * Kills every process this test started ({@link OwnProcesses}: its wrappers name its data directory, its
     * workloads carry {@value #MARKER} in their environment), and no other test's.
     */
    @AfterEach
    void killLeftovers() throws java.io.IOException {
        backends.forEach(LocalBackend::close);
        new OwnProcesses(dataDir, MARKER).kill();
        for (Gate g : gates) {
            g.close();
        }
    }

    private final List<Gate> gates = new ArrayList<>();

    /** A new gate, removed after the test. */
    private Gate gate() throws java.io.IOException {
        Gate g = new Gate();
        gates.add(g);
        return g;
    }

    /** The variable every launch of this test carries, naming its data directory (found in /proc to clean up). */
    private static final String MARKER = "LOCAL_BACKEND_TEST";

    /**
     * The account the tests' launches run as: {@code nobody} when the tests run as root (as in CI; the backend never
     * runs a workload as root), none (the service's user) otherwise. The mechanics tested here (exit codes, stopping,
     * adoption) are then those of a workload under setpriv, as in production.
     */
    static final String ACCOUNT = UnixAccounts.serviceUid() == 0 ? "nobody" : null;

    /** When the tests' attempts were started, as the scheduling loop would stamp them. */
    static final long STARTED_AT_MILLIS = 1_796_198_400_123L;

    private Launch launch(String id, int attempt, String... command) {
        return launchOn(List.of(new Launch.NodeGpus("n1", List.of(0))), Map.of(), id, attempt, command);
    }

    private Launch launchOn(List<Launch.NodeGpus> placement, Map<String, String> environment, String id,
                            int attempt, String... command) {
        TreeMap<String, String> marked = new TreeMap<>(environment);
        marked.put(MARKER, dataDir.toAbsolutePath().toString());
        return new Launch(new AttemptKey(id, attempt), placement, List.of(command), marked, null,
                Launch.Terms.ALLOCATED, ACCOUNT, STARTED_AT_MILLIS);
    }

    /** A shell script as the user's command: the test's own use of a shell, not the backend's. */
    private Launch script(String id, int attempt, String script) {
        return launch(id, attempt, "sh", "-c", script);
    }

    private static AttemptStatus statusOf(LocalBackend backend, AttemptKey key) {
        return backend.observe().stream().filter(s -> s.attempt().equals(key)).findFirst()
                .orElseThrow(() -> new AssertionError(key + " is not observed: " + backend.observe()));
    }

    private static AttemptStatus await(LocalBackend backend, AttemptKey key, Predicate<AttemptStatus> condition,
                                       String what) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        AttemptStatus last = null;
        while (System.nanoTime() < deadline) {
            last = statusOf(backend, key);
            if (condition.test(last)) {
                return last;
            }
            Thread.sleep(20);
        }
        return fail(key + " never became " + what + " within " + PATIENCE + "; last seen " + last);
    }

    private static AttemptStatus awaitPhase(LocalBackend backend, AttemptKey key, Phase phase)
            throws InterruptedException {
        return await(backend, key, s -> s.phase() == phase, phase.toString());
    }

    private void awaitLog(LocalBackend backend, AttemptKey key, String text) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            if (log(backend, key).contains(text)) {
                return;
            }
            Thread.sleep(20);
        }
        fail(key + "'s log never showed '" + text + "': " + log(backend, key));
    }

    private static String log(LocalBackend backend, AttemptKey key) throws IOException {
        Path log = backend.logFile(key);
        return Files.exists(log) ? Files.readString(log) : "";
    }

    private static void awaitGone(ProcessHandle process) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (process.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(process.isAlive()).as("process %d still alive", process.pid()).isFalse();
    }

    /** The wrapper recorded in the attempt's pid file. */
    private ProcessHandle wrapperOf(AttemptKey key) throws IOException {
        String pidFile = Files.readString(dataDir.resolve("attempts").resolve(key.workloadId() + "-" + key.attempt()
                + ".pid"));
        long pid = AttemptFiles.PidRecord.parse(pidFile).pid();
        return ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("no process " + pid));
    }

    /** Processes running this attempt's wrapper, found by the attempt's token among their arguments. */
    /**
     * The wrappers of the attempt that run: processes with its token in their arguments, not counting one whose parent
     * has it too (a wrapper's own subshell, which a shell forks for a moment with the same arguments: seen counted as a
     * second wrapper under load).
     */
    private long wrappersRunning(AttemptKey key) {
        String token = new AttemptFiles(dataDir.toAbsolutePath().resolve("attempts"), key).wrapperToken();
        java.util.function.Predicate<ProcessHandle> carries =
                p -> p.info().arguments().map(a -> Arrays.asList(a).contains(token)).orElse(false);
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            return all.filter(ProcessHandle::isAlive)
                    .filter(carries)
                    .filter(p -> p.parent().filter(carries).isEmpty())
                    .count();
        }
    }

    /** Waits until no process runs the attempt's wrapper (one just ended may linger a moment unreaped). */
    private void awaitNoWrapper(AttemptKey key) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (wrappersRunning(key) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(wrappersRunning(key)).as("wrappers of %s still running", key).isZero();
    }

    // ------------------------------------------------------------------------------------ running work

    @Test
    void gpusIdentityAndEnvironmentReachTheProcess() throws Exception {
        LocalBackend backend = backend();
        AttemptKey key = new AttemptKey("w-env", 2);
        backend.start(launchOn(List.of(new Launch.NodeGpus("n1", List.of(2, 5))), Map.of("FOO", "bar baz",
                "ALLOT_ATTEMPT_STARTED_AT", "5"), "w-env", 2, "env"));

        AttemptStatus done = awaitPhase(backend, key, Phase.EXITED);

        assertThat(done.exitCode()).isZero();
        assertThat(log(backend, key).lines()).contains("CUDA_VISIBLE_DEVICES=2,5", "ALLOT_WORKLOAD_ID=w-env",
                "ALLOT_ATTEMPT=2", "ALLOT_ATTEMPT_STARTED_AT=" + STARTED_AT_MILLIS, "FOO=bar baz");
        assertThat(backend.logFile(key)).isEqualTo(dataDir.toAbsolutePath().resolve("attempts/w-env-2.log"));
    }

    @Test
    void theCommandIsNotInterpretedByAShell() throws Exception {
        LocalBackend backend = backend();
        AttemptKey key = new AttemptKey("literal", 1);
        backend.start(launch("literal", 1, "echo", "$HOME; echo injected", "*", "`id`"));

        awaitPhase(backend, key, Phase.EXITED);

        assertThat(log(backend, key)).isEqualTo("$HOME; echo injected * `id`\n");
    }

    @Test
    void exitCodesAreReportedAndStderrGoesToTheLog() throws Exception {
        LocalBackend backend = backend();
        backend.start(script("fails", 1, "echo oops >&2; exit 3"));
        backend.start(script("ok", 1, "exit 0"));

        AttemptStatus failed = awaitPhase(backend, new AttemptKey("fails", 1), Phase.EXITED);
        AttemptStatus ok = awaitPhase(backend, new AttemptKey("ok", 1), Phase.EXITED);

        assertThat(failed.exitCode()).isEqualTo(3);
        assertThat(ok.exitCode()).isZero();
        assertThat(log(backend, new AttemptKey("fails", 1))).isEqualTo("oops\n");
        assertThat(backend.observe()).extracting(AttemptStatus::attempt)
                .containsExactly(new AttemptKey("fails", 1), new AttemptKey("ok", 1));
    }

    @Test
    void aMissingProgramFailsToStartWithTheReason() throws Exception {
        LocalBackend backend = backend();
        backend.start(launch("abs", 1, "/nonexistent/allot-no-such-program"));
        backend.start(launch("onpath", 1, "allot-no-such-program-on-path"));

        AttemptStatus abs = statusOf(backend, new AttemptKey("abs", 1));
        AttemptStatus onPath = statusOf(backend, new AttemptKey("onpath", 1));

        assertThat(abs.phase()).isEqualTo(Phase.FAILED_TO_START);
        assertThat(abs.detail()).contains("/nonexistent/allot-no-such-program", "No such file or directory");
        assertThat(onPath.phase()).isEqualTo(Phase.FAILED_TO_START);
        assertThat(onPath.detail()).contains("allot-no-such-program-on-path", "not found");
        assertThat(abs.ended()).isTrue();
    }

    @Test
    void aPlacementElsewhereIsRefused() {
        LocalBackend backend = backend();
        assertThatThrownBy(() -> backend.start(launchOn(List.of(new Launch.NodeGpus("n2", List.of(0))), Map.of(),
                "elsewhere", 1, "true")))
                .isInstanceOf(BackendException.class).hasMessageContaining("n2").hasMessageContaining("n1");
        assertThatThrownBy(() -> backend.start(launchOn(List.of(new Launch.NodeGpus("n1", List.of(0)),
                new Launch.NodeGpus("n2", List.of(0))), Map.of(), "two", 1, "true")))
                .isInstanceOf(BackendException.class).hasMessageContaining("2 nodes");
        assertThat(backend.observe()).isEmpty();
        assertThat(dataDir.resolve("attempts")).isEmptyDirectory();
    }

    @Test
    void aWorkloadIdThatIsNoFileNameIsRefused() {
        LocalBackend backend = backend();
        assertThatThrownBy(() -> backend.start(launch("../escape", 1, "true")))
                .isInstanceOf(BackendException.class).hasMessageContaining("../escape");
    }

    // ---------------------------------------------------------------------------------------- stopping

    @Test
    void stopSendsTermToTheUserProcess() throws Exception {
        LocalBackend backend = backend();
        AttemptKey key = new AttemptKey("polite", 1);
        backend.start(script("polite", 1, "trap 'echo got TERM; exit 0' TERM; echo ready; sleep 60 & wait"));
        awaitLog(backend, key, "ready");

        backend.stop(key, Duration.ofSeconds(60)); // the kill would come long after PATIENCE
        AttemptStatus stopped = awaitPhase(backend, key, Phase.STOPPED);

        assertThat(log(backend, key)).contains("got TERM");
        assertThat(stopped.detail()).contains("exited with code 0").doesNotContain("SIGKILL");
        assertThat(stopped.exitCode()).isNull();
        backend.stop(key, Duration.ZERO); // idempotent: nothing left to stop
        assertThat(statusOf(backend, key)).isEqualTo(stopped);
    }

    @Test
    void givenAListener_whenAStoppedProcessExits_thenTheBackendCallsIt_soTheSchedulerNeedNotWaitForItsTick()
            throws Exception {
        LocalBackend backend = backend();
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        backend.onEnd(calls::incrementAndGet);
        AttemptKey key = new AttemptKey("woken", 1);
        backend.start(script("woken", 1, "echo ready; sleep 60"));
        awaitLog(backend, key, "ready");
        Thread.sleep(200);
        assertThat(calls.get()).as("nothing ended yet").isZero();

        backend.stop(key, Duration.ofSeconds(60)); // SIGTERM ends sleep; the kill would come long after PATIENCE
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (calls.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(calls.get()).as("calls after the process exited").isPositive();
        // When told, the end is there to observe.
        assertThat(statusOf(backend, key).phase()).isEqualTo(Phase.STOPPED);
    }

    @Test
    void givenAListener_whenAnAdoptedProcessExits_thenTheBackendCallsItToo() throws Exception {
        AttemptKey key = new AttemptKey("adopted-end", 1);
        LocalBackend first = backend();
        first.start(script("adopted-end", 1, "echo ready; sleep 60"));
        awaitLog(first, key, "ready");
        first.close();
        LocalBackend second = backend();
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        second.onEnd(calls::incrementAndGet);

        second.stop(key, Duration.ofSeconds(60));
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (calls.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(calls.get()).as("calls after the adopted process exited").isPositive();
        assertThat(statusOf(second, key).phase()).isEqualTo(Phase.STOPPED);
    }

    @Test
    void aProcessIgnoringTermIsKilledAfterTheGrace() throws Exception {
        LocalBackend backend = backend();
        AttemptKey key = new AttemptKey("stubborn", 1);
        backend.start(script("stubborn", 1, "trap '' TERM; echo ready; sleep 60; echo survived"));
        awaitLog(backend, key, "ready");
        ProcessHandle wrapper = wrapperOf(key);
        List<ProcessHandle> tree = new ArrayList<>(wrapper.descendants().toList());
        tree.add(wrapper);

        backend.stop(key, Duration.ofMillis(500));
        AttemptStatus stopped = awaitPhase(backend, key, Phase.STOPPED);

        assertThat(stopped.detail()).contains("SIGKILL");
        for (ProcessHandle process : tree) {
            awaitGone(process);
        }
        assertThat(log(backend, key)).doesNotContain("survived");
    }

    /**
     * Given stops that come just after their starts (while the wrapper has not yet forked the command, or is removing
     * the environment file), then each attempt still ends on its SIGTERM, far within its grace, and leaves no process
     * behind. Before the stop followed up on the wrapper's children, a quarter of such stops lost the SIGTERM (the
     * command ran until the SIGKILL at the end of the grace: a debug start waited a whole grace period for its
     * victim), and some left the command running without its wrapper (its GPU taken for free).
     */
    @Test
    void aStopJustAfterTheStartEndsTheCommandOnItsTermWithoutLeavingItBehind() throws Exception {
        LocalBackend backend = backend();
        Duration grace = Duration.ofSeconds(20);
        for (int i = 0; i < 24; i++) {
            AttemptKey key = new AttemptKey("early-" + i, 1);
            backend.start(launch("early-" + i, 1, "sleep", "600"));
            Thread.sleep(i % 12); // 0-11 ms: the wrapper's first instants, where the SIGTERM used to be lost
            long asked = System.nanoTime();
            backend.stop(key, grace);
            AttemptStatus stopped = awaitPhase(backend, key, Phase.STOPPED);
            long tookMillis = (System.nanoTime() - asked) / 1_000_000;
            assertThat(stopped.detail()).as(key + " ended on its SIGTERM").doesNotContain("SIGKILL");
            assertThat(tookMillis).as(key + " ended long before its grace (" + grace + ")")
                    .isLessThan(grace.toMillis() / 2);
            backend.forget(key);
        }
        String marker = MARKER + "=" + dataDir.toAbsolutePath();
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            assertThat(all.filter(p -> p.isAlive() && OwnProcesses.environmentOf(p).contains(marker)).toList())
                    .as("processes of the stopped attempts still running").isEmpty();
        }
    }

    @Test
    void anAttemptIsStoppingUntilItEnds() throws Exception {
        LocalBackend backend = backend();
        AttemptKey key = new AttemptKey("lingering", 1);
        backend.start(script("lingering", 1, "trap 'echo got TERM' TERM; echo ready; while :; do sleep 0.1; done"));
        awaitLog(backend, key, "ready");

        backend.stop(key, Duration.ofSeconds(Long.MAX_VALUE)); // a grace too long to add to now is cut short
        awaitLog(backend, key, "got TERM");
        assertThat(statusOf(backend, key).phase()).isEqualTo(Phase.STOPPING);
        backend.stop(key, Duration.ZERO); // already stopping: the first grace stands
        assertThat(statusOf(backend, key).phase()).isEqualTo(Phase.STOPPING);

        wrapperOf(key).descendants().forEach(ProcessHandle::destroyForcibly); // it ends some other way
        AttemptStatus stopped = awaitPhase(backend, key, Phase.STOPPED);
        assertThat(stopped.detail()).doesNotContain("SIGKILL");
    }

    @Test
    void forgetDropsEndedAttemptsOnlyAndForGood() throws Exception {
        LocalBackend backend = backend();
        AttemptKey done = new AttemptKey("done", 1);
        AttemptKey busy = new AttemptKey("busy", 1);
        backend.start(script("done", 1, "echo ran"));
        backend.start(launch("busy", 1, "sleep", "30"));
        awaitPhase(backend, done, Phase.EXITED);

        assertThatThrownBy(() -> backend.forget(busy)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("busy#1").hasMessageContaining("RUNNING");
        backend.forget(done);
        backend.forget(done);
        assertThat(backend.observe()).extracting(AttemptStatus::attempt).containsExactly(busy);

        backend.close();
        LocalBackend restarted = backend();
        assertThat(restarted.observe()).extracting(AttemptStatus::attempt).containsExactly(busy);
        restarted.start(script("done", 1, "echo ran")); // known on disk: back in view, not run again
        assertThat(statusOf(restarted, done).phase()).isEqualTo(Phase.EXITED);
        assertThat(log(restarted, done)).isEqualTo("ran\n");
    }

    // ---------------------------------------------------------------------------------------- adoption

    @Test
    void aRestartedBackendAdoptsARunningAttemptWithoutRelaunchingIt() throws Exception {
        AttemptKey key = new AttemptKey("long", 1);
        Launch sleeper = script("long", 1, "echo started; sleep 30");
        LocalBackend first = backend();
        first.start(sleeper);
        awaitLog(first, key, "started");
        long pid = wrapperOf(key).pid();
        first.close(); // the scheduler goes away without stopping anything

        LocalBackend second = backend();
        AttemptStatus adopted = statusOf(second, key);
        assertThat(adopted.phase()).isEqualTo(Phase.RUNNING);
        assertThat(adopted.detail()).contains("adopted");

        second.start(sleeper);
        assertThat(wrappersRunning(key)).isEqualTo(1);
        assertThat(wrapperOf(key).pid()).isEqualTo(pid);

        second.stop(key, Duration.ofSeconds(5));
        awaitPhase(second, key, Phase.STOPPED);
        awaitNoWrapper(key);
        assertThat(log(second, key)).containsOnlyOnce("started");

        second.close();
        assertThat(statusOf(backend(), key).phase()).as("the stop outlives a restart").isEqualTo(Phase.STOPPED);
    }

    @Test
    void givenARunningAttempt_thenItsWrapperAndCommandAreInASessionAndGroupOfTheirOwn_soTheTerminalsSignalsMissThem()
            throws Exception {
        AttemptKey key = new AttemptKey("own-session", 1);
        LocalBackend backend = backend();
        backend.start(script("own-session", 1, "echo started; sleep 30"));
        awaitLog(backend, key, "started");
        ProcessHandle wrapper = wrapperOf(key);
        List<ProcessHandle> commands = wrapper.descendants().toList();
        long[] service = groupAndSession(ProcessHandle.current().pid());

        assertThat(wrapper.info().arguments().orElseThrow()[0]).as("setsid exec'd the wrapper: same pid")
                .isEqualTo("-c");
        assertThat(groupAndSession(wrapper.pid())).as("the wrapper leads its own group and session")
                .containsExactly(wrapper.pid(), wrapper.pid());
        assertThat(commands).isNotEmpty();
        for (ProcessHandle command : commands) {
            assertThat(groupAndSession(command.pid())).as("the command %d is in the wrapper's group and session",
                    command.pid()).containsExactly(wrapper.pid(), wrapper.pid());
        }
        assertThat(service[0]).as("not the service's process group").isNotEqualTo(wrapper.pid());
        assertThat(statusOf(backend, key).detail()).doesNotContain("setsid");

        backend.stop(key, Duration.ofSeconds(5));
        assertThat(awaitPhase(backend, key, Phase.STOPPED).detail()).isEqualTo("stopped; the command exited with code"
                + " 143");
        awaitNoWrapper(key);
    }

    /** A process's group and session ids, from {@code /proc/PID/stat} (fields 5 and 6). */
    private static long[] groupAndSession(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(after[2]), Long.parseLong(after[3])};
    }

    @Test
    void anAttemptThatExitedWhileTheSchedulerWasDownIsReportedWithItsCode() throws Exception {
        AttemptKey key = new AttemptKey("brief", 1);
        LocalBackend first = backend();
        first.start(script("brief", 1, "sleep 0.3; exit 3"));
        first.close();
        Path exitFile = dataDir.resolve("attempts/brief-1.exit");
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!Files.exists(exitFile) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        // The wrapper writes the file just before it exits: until it is gone, a backend would find it running.
        awaitNoWrapper(key);

        long exitedAt = Files.getLastModifiedTime(exitFile).toMillis();
        Thread.sleep(1_100); // the restarted backend looks a while after the end

        AttemptStatus status = statusOf(backend(), key);

        assertThat(status.phase()).isEqualTo(Phase.EXITED);
        assertThat(status.exitCode()).isEqualTo(3);
        assertThat(status.endedAtMillis()).as("when it exited, not when the restarted backend looked")
                .isEqualTo(exitedAt).isLessThan(System.currentTimeMillis() - 1_000);
    }

    @Test
    void anAttemptKilledWithItsWrapperWhileTheSchedulerWasDownHasAnUnknownExitCode() throws Exception {
        AttemptKey key = new AttemptKey("killed", 1);
        LocalBackend first = backend();
        first.start(launch("killed", 1, "sleep", "30"));
        first.close();
        ProcessHandle wrapper = wrapperOf(key);
        List<ProcessHandle> tree = new ArrayList<>(List.of(wrapper));
        tree.addAll(wrapper.descendants().toList());
        tree.forEach(ProcessHandle::destroyForcibly); // the wrapper first, so it cannot record the exit code
        for (ProcessHandle process : tree) {
            awaitGone(process);
        }

        AttemptStatus status = statusOf(backend(), key);

        assertThat(status.phase()).isEqualTo(Phase.EXITED);
        assertThat(status.exitCode()).isNull();
        assertThat(status.detail()).contains("unknown");
    }

    @Test
    void aWrapperWhosePidWasNeverRecordedIsFoundByItsToken() throws Exception {
        AttemptKey key = new AttemptKey("unrecorded", 1);
        LocalBackend first = backend();
        first.start(launch("unrecorded", 1, "sleep", "30"));
        long pid = wrapperOf(key).pid();
        first.close();
        Files.delete(dataDir.resolve("attempts/unrecorded-1.pid")); // as if the scheduler died mid-launch

        LocalBackend second = backend();

        assertThat(statusOf(second, key).phase()).isEqualTo(Phase.RUNNING);
        assertThat(wrapperOf(key).pid()).isEqualTo(pid);
        second.start(launch("unrecorded", 1, "sleep", "30"));
        assertThat(wrappersRunning(key)).isEqualTo(1);
    }

    @Test
    void aPidThatNowBelongsToAnotherProcessIsNotTakenForTheAttempt() throws Exception {
        // The right pid and arguments but another start instant: the recorded process ended, the pid was reused.
        AttemptKey restarted = new AttemptKey("restarted", 1);
        LocalBackend first = backend();
        first.start(launch("restarted", 1, "sleep", "30"));
        first.close();
        Path pidFile = dataDir.resolve("attempts/restarted-1.pid");
        long pid = AttemptFiles.PidRecord.parse(Files.readString(pidFile)).pid();
        Files.writeString(pidFile, new AttemptFiles.PidRecord(pid, Instant.EPOCH).format());
        // The right start instant but not a wrapper's arguments: this test's own JVM.
        ProcessHandle self = ProcessHandle.current();
        Files.writeString(dataDir.resolve("attempts/impostor-1.pid"),
                new AttemptFiles.PidRecord(self.pid(), self.info().startInstant().orElse(null)).format());

        LocalBackend second = backend();

        assertThat(second.observe()).hasSize(2).allSatisfy(status -> {
            assertThat(status.phase()).as(status.toString()).isEqualTo(Phase.EXITED);
            assertThat(status.exitCode()).isNull();
        });
        assertThat(wrappersRunning(restarted)).as("never signalled, it runs on").isEqualTo(1);
    }

    @Test
    void aFailedStartIsRememberedAcrossARestart() {
        AttemptKey key = new AttemptKey("missing", 1);
        LocalBackend first = backend();
        first.start(launch("missing", 1, "/nonexistent/program"));
        first.close();

        LocalBackend second = backend();
        second.start(launch("missing", 1, "/nonexistent/program"));

        AttemptStatus status = statusOf(second, key);
        assertThat(status.phase()).isEqualTo(Phase.FAILED_TO_START);
        assertThat(status.detail()).contains("No such file or directory");
    }

    @Test
    void anUnreadablePidFileIsUnknownNotEnded() throws Exception {
        Path attempts = Files.createDirectories(dataDir.resolve("attempts"));
        Files.writeString(attempts.resolve("garbled-1.pid"), "not a pid record");

        AttemptStatus status = statusOf(backend(), new AttemptKey("garbled", 1));

        assertThat(status.phase()).isEqualTo(Phase.UNKNOWN);
        assertThat(status.ended()).isFalse();
    }
    @Test
    void aLaunchInterruptedBeforeItsProcessRanIsNotAdoptedAndIsLaunchedByTheNextStart() throws Exception {
        // A scheduler killed after the log was opened and before the wrapper ran leaves only the (empty) log.
        Path attempts = Files.createDirectories(dataDir.resolve("attempts"));
        Files.writeString(attempts.resolve("w-cut-1.log"), "");
        AttemptKey key = new AttemptKey("w-cut", 1);

        LocalBackend restarted = backend();
        assertThat(restarted.observe()).as("never ran: not reported, in particular not as ended").isEmpty();

        restarted.start(script("w-cut", 1, "echo ran $ALLOT_ATTEMPT"));
        AttemptStatus done = awaitPhase(restarted, key, Phase.EXITED);
        assertThat(done.exitCode()).isZero();
        assertThat(log(restarted, key)).isEqualTo("ran 1\n");
    }

    @Test
    void aLaunchResumedAfterAnotherLaunchOfTheSameAttemptRanItRunsNothingAndTheFirstRunIsFollowed() throws Exception {
        // given a scheduler paused inside its launch of w-race#1, after it opened the log and before it spawned the
        // wrapper (past every lease check): a standby that took over sees an interrupted launch and launches it
        Path attempts = Files.createDirectories(dataDir.resolve("attempts"));
        Files.writeString(attempts.resolve("w-race-1.log"), "");
        AttemptKey key = new AttemptKey("w-race", 1);
        // the command's output goes to the attempt's log, which every wrapper of it appends to
        Gate gate = gate();
        Launch launch = script("w-race", 1, "echo ran; " + gate.waitLine());
        LocalBackend standby = backend();
        standby.start(launch);
        awaitPhase(standby, key, Phase.RUNNING);
        awaitContent(attempts.resolve("w-race-1.log"), "ran\n");

        // when the paused scheduler resumes and its launch spawns a wrapper of the same attempt
        Process late = racedWrapper(launch, new AttemptFiles(attempts, key));

        // then that wrapper finds the attempt claimed, runs nothing and records nothing; the command ran once
        assertThat(ends(late)).isTrue();
        assertThat(late.exitValue()).isEqualTo(WorkloadLauncher.LOST_CLAIM_STATUS);
        assertThat(statusOf(standby, key).phase()).isEqualTo(Phase.RUNNING);
        gate.open();
        AttemptStatus done = awaitPhase(standby, key, Phase.EXITED);
        assertThat(done.exitCode()).isZero();
        assertThat(log(standby, key)).isEqualTo("ran\n");
    }

    @Test
    void aWrapperThatLostTheClaimHandsItsAttemptToTheWinnerAfterARestart() throws Exception {
        // given w-won#1 running under a backend, and a second wrapper of it (a raced launch) whose pid the pid file
        // names, as when the losing launch wrote its pid last
        Path attempts = Files.createDirectories(dataDir.resolve("attempts"));
        AttemptKey key = new AttemptKey("w-won", 1);
        Gate gate = gate();
        Launch launch = script("w-won", 1, gate.waitLine() + "; exit 3");
        LocalBackend first = backend();
        first.start(launch);
        awaitPhase(first, key, Phase.RUNNING);
        // the backend says RUNNING once it spawned the wrapper, which claims the attempt a moment later; on a loaded
        // machine the raced wrapper below could claim it first, run the gated command and never end
        awaitClaimed(attempts.resolve("w-won-1.claim"));
        Process loser = racedWrapper(launch, new AttemptFiles(attempts, key));
        assertThat(ends(loser)).isTrue();
        AttemptFiles.writeAtomically(attempts.resolve("w-won-1.pid"),
                new AttemptFiles.PidRecord(loser.pid(), loser.toHandle().info().startInstant().orElse(null)).format());

        // when a restarted backend adopts it, then it follows the winner to its real end, not "gone, code unknown"
        LocalBackend restarted = backend();
        assertThat(statusOf(restarted, key).phase()).isEqualTo(Phase.RUNNING);
        gate.open();
        AttemptStatus done = awaitPhase(restarted, key, Phase.EXITED);
        assertThat(done.exitCode()).isEqualTo(3);
    }

    /**
     * Given w-env#1 running under a backend (its wrapper holds the claim), when a raced launch of it spawns a second
     * wrapper, then that launch's environment file is its own and the losing wrapper deletes it: the two launches
     * wrote one file, the second deleting and re-creating it while the first wrapper opened it (that wrapper then ran
     * nothing and ended with status 2: two clean-clone runs failed so), and the loser left its copy, secrets
     * included, on disk. The winner runs on with its own environment.
     */
    @Test
    void aRacedLaunchWritesAnEnvironmentFileOfItsOwnAndTheLosingWrapperDeletesIt() throws Exception {
        Path attempts = Files.createDirectories(dataDir.resolve("attempts"));
        AttemptKey key = new AttemptKey("w-env", 1);
        Gate gate = gate();
        Launch launch = launchOn(List.of(new Launch.NodeGpus("n1", List.of(0))), Map.of("SEED", "7"), "w-env", 1,
                "sh", "-c", "echo \"seed=$SEED\"; " + gate.waitLine() + "; exit 5");
        LocalBackend first = backend();
        first.start(launch);
        awaitContent(attempts.resolve("w-env-1.log"), "seed=7\n");

        Process loser = racedWrapper(launch, new AttemptFiles(attempts, key));

        assertThat(ends(loser)).isTrue();
        assertThat(loser.exitValue()).isEqualTo(WorkloadLauncher.LOST_CLAIM_STATUS);
        try (java.util.stream.Stream<Path> files = Files.list(attempts)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("environment files left on disk")
                    .noneMatch(name -> name.contains(".env"));
        }
        gate.open();
        AttemptStatus done = awaitPhase(first, key, Phase.EXITED);
        assertThat(done.exitCode()).isEqualTo(5);
    }

    @Test
    void aLaunchWhoseOwnWrapperLostTheClaimFollowsTheWinnerToItsEnd() throws Exception {
        // given two wrappers of w-lost#1 spawned by two launches, the second after the first claimed the attempt
        Path attempts = Files.createDirectories(dataDir.resolve("attempts"));
        AttemptKey key = new AttemptKey("w-lost", 1);
        Gate gate = gate();
        Launch launch = script("w-lost", 1, gate.waitLine() + "; exit 4");
        AttemptFiles files = new AttemptFiles(attempts, key);
        Process winner = racedWrapper(launch, files);
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (files.claimant().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Process loser = racedWrapper(launch, files);
        assertThat(ends(loser)).isTrue();

        // when the launch that spawned the loser asks what its attempt is
        LocalAttempt followed = new LocalAttempt(files);
        followed.process = loser;
        followed.wrapper = loser.toHandle();

        // then it runs (the winner's run), and ends with the winner's exit code, its pid file naming the winner
        assertThat(followed.status().phase()).isEqualTo(Phase.RUNNING);
        assertThat(AttemptFiles.PidRecord.parse(Files.readString(files.pid())).pid()).isEqualTo(winner.pid());
        gate.open();
        assertThat(ends(winner)).isTrue();
        AttemptStatus done = followed.status();
        assertThat(done.phase()).isEqualTo(Phase.EXITED);
        assertThat(done.exitCode()).isEqualTo(4);
    }

    /**
     * A gate a test's command waits at until the test opens it: the race stories need their winner still running
     * while a loser is spawned and a backend restarts, which a fixed sleep did not ensure on a loaded machine. It is a
     * file in a folder under /tmp that every account may search ({@link #ACCOUNT} may be {@code nobody}).
     */
    private static final class Gate implements AutoCloseable {
        private final Path dir;

        Gate() throws java.io.IOException {
            dir = Files.createTempDirectory("allot-gate-");
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        /** The shell line that waits until the gate is open. */
        String waitLine() {
            return "while [ ! -e '" + dir.resolve("open") + "' ]; do sleep 0.05; done";
        }

        void open() throws java.io.IOException {
            Files.writeString(dir.resolve("open"), "");
        }

        @Override
        public void close() throws java.io.IOException {
            Files.deleteIfExists(dir.resolve("open"));
            Files.deleteIfExists(dir);
        }
    }

    /**
     * A wrapper of {@code launch} spawned as a launch already past the backend's checks spawns it: another
     * scheduler's, or one paused inside its launch. No backend knows it.
     */
    private static Process racedWrapper(Launch launch, AttemptFiles files) throws WorkloadLauncher.NotStarted {
        WorkloadLauncher launcher = new WorkloadLauncher(new UnixAccounts(), false);
        return launcher.start(launch, "0", launcher.runAs(launch), files);
    }

    /** Whether {@code process} ends within the test's patience. */
    private static boolean ends(Process process) throws InterruptedException {
        return process.waitFor(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Waits until a wrapper holds the attempt's claim: its claim file names its pid. */
    private static void awaitClaimed(Path claim) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!Files.exists(claim) || Files.readString(claim).isBlank()) {
            if (System.nanoTime() > deadline) {
                fail("no wrapper claimed " + claim + " within " + PATIENCE);
            }
            Thread.sleep(20);
        }
    }

    private static void awaitContent(Path file, String content) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!Files.readString(file).equals(content)) {
            if (System.nanoTime() > deadline) {
                fail(file + " holds '" + Files.readString(file) + "', not '" + content + "'");
            }
            Thread.sleep(20);
        }
    }
}
