package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.server.testing.SecondLane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * One service per data directory ({@link DataDirLock}): a second start on a folder a running service holds fails
 * before it touches anything, naming the holder's pid and address, whether the holder runs in this process or in
 * another; a lock left by a killed service does not block the next start.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class DataDirLockTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Process other;

    @AfterEach
    void stopTheOtherProcess() throws InterruptedException {
        if (other != null && other.isAlive()) {
            other.destroyForcibly().waitFor();
        }
    }

    private ServiceConfig config(Path data) {
        return ServiceConfig.defaults(data).withPort(0).withVirtualGpus(2).withNodeName("n1")
                .withTick(Duration.ofMillis(200)).withSecurity(ServiceTestSupport.workloadSecurity(dir));
    }

    @Test
    void givenAServiceInThisProcess_whenASecondStartsOnItsDataDirectory_thenItFailsNamingTheFirstAndChangesNothing()
            throws Exception {
        Path data = dir.resolve("data");
        ServiceTestSupport.seed(data);
        long me = ProcessHandle.current().pid();
        try (Service first = Service.start(config(data), Clock.systemUTC())) {
            ServiceFiles.writeServiceJson(data, first.url(), first.port(), me);
            String serviceJson = Files.readString(data.resolve(ServiceFiles.SERVICE_JSON));
            long nodesBefore = first.store().nodes().nodes().size();

            assertThatThrownBy(() -> Service.start(config(data).withNodeName("n2"), Clock.systemUTC()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("the data directory " + data.toAbsolutePath().normalize() + " is in use by another"
                            + " Allot service (pid " + me + ", listening on " + first.url() + ", started "
                            + lockLine(data, "started") + "); stop it first, or give this one another --data-dir");

            assertThat(Files.readString(data.resolve(ServiceFiles.SERVICE_JSON))).isEqualTo(serviceJson);
            assertThat(first.store().nodes().nodes()).as("the second registered no node n2").hasSize((int) nodesBefore);
            assertThatThrownBy(() -> DataDirLock.checkFree(data)).hasMessageContaining("pid " + me);
        }
        DataDirLock.checkFree(data);
        try (Service again = Service.start(config(data), Clock.systemUTC())) {
            assertThat(again.port()).isPositive();
        }
    }

    @Test
    void givenAServiceInAnotherProcess_whenASecondStarts_thenItFailsNamingItsPidAndAddress_andOnceKilledItsLockIsFree()
            throws Exception {
        Path data = dir.resolve("data");
        ServiceTestSupport.seed(data);
        other = serviceMain(data, dir.resolve("first.log"));
        Process first = other;
        Path json = data.resolve(ServiceFiles.SERVICE_JSON);
        ServiceTestSupport.await("the first service listens", WAIT, () -> {
            if (!first.isAlive()) {
                throw new AssertionError("the first service exited; see " + dir.resolve("first.log"));
            }
            return Files.exists(json) && lockLine(data, "url") != null;
        });
        String url = lockLine(data, "url");
        assertThat(lockLine(data, "pid")).isEqualTo(Long.toString(first.pid()));

        Process second = serviceMain(data, dir.resolve("second.log"));
        assertThat(second.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("the second process ends").isTrue();
        assertThat(second.exitValue()).isNotZero();
        assertThat(Files.readString(dir.resolve("second.log"))).contains("is in use by another Allot service (pid "
                + first.pid() + ", listening on " + url);
        assertThat(ServiceTestSupport.JSON.readTree(json.toFile()).path("pid").asLong()).as("service.json is the"
                + " first's").isEqualTo(first.pid());

        assertThatThrownBy(() -> Service.start(config(data), Clock.systemUTC()))
                .hasMessageContaining("(pid " + first.pid() + ", listening on " + url);

        first.destroyForcibly().waitFor(); // SIGKILL: nothing released the lock but the OS
        try (Service after = Service.start(config(data), Clock.systemUTC())) {
            assertThat(lockLine(data, "pid")).isEqualTo(Long.toString(ProcessHandle.current().pid()));
            assertThat(lockLine(data, "url")).isEqualTo(after.url());
        }
    }

    private Process serviceMain(Path data, Path log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), ServiceMain.class.getName(), "--data-dir",
                data.toString(), "--port", "0", "--backend", "simulated", "--gpus", "2");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        return pb.start();
    }

    /** A {@code name=value} line of the lock file, or null. */
    private static String lockLine(Path data, String name) {
        try {
            List<String> lines = Files.readAllLines(data.resolve(DataDirLock.FILE));
            return lines.stream().filter(l -> l.startsWith(name + "=")).map(l -> l.substring(name.length() + 1))
                    .findFirst().orElse(null);
        } catch (java.io.IOException e) {
            return null;
        }
    }
}
