package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.await;
import static dev.allot.server.service.ServiceTestSupport.submission;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.service.ServiceTestSupport.Answer;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.WorkloadState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work that died while the service was down is lost, not failed: given three running workloads on the local backend
 * and the service closed (its workloads keep running), when one resumable workload's process is killed together with
 * its wrapper (no exit code recorded), another resumable one's command is killed by SIGINT (the wrapper records 130,
 * what Ctrl-C in a shared terminal did) and a non-resumable one is killed with its wrapper, then the restarted service
 * requeues both resumable workloads (attempt 1 lost, with a reason saying it died while the service was down; they run
 * again as attempt 2) and fails the non-resumable one with that reason.
 */
class DiedWhileDownStoryTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Records its start with its pid, then sleeps (exec: SIGINT reaches the sleep itself). */
    private static final String WORK = "echo \"$$\" > \"$OUT/$ALLOT_WORKLOAD_ID-$ALLOT_ATTEMPT\"; exec sleep 120";

    @TempDir
    Path dir;

    private Service service;
    private Path out;

    @AfterEach
    void cleanUp() throws Exception {
        if (service != null) {
            service.close();
        }
        List<Long> pids = launchedHere();
        pids.forEach(ServiceTestSupport::killTree);
        await("the test's processes to be gone", WAIT, () -> pids.stream().noneMatch(ServiceTestSupport::alive));
    }

    @Test
    void givenWorkThatDiedWhileTheServiceWasDown_whenItRestarts_thenResumableWorkIsRequeuedAndTheRestFailsSayingWhy()
            throws Exception {
        Path data = dir.resolve("data");
        out = ServiceTestSupport.sharedDirectory(dir.resolve("out"));
        ServiceTestSupport.seed(data);
        service = start(data);
        Client http = new Client(service.url());
        String killed = submit(http, true);
        String interrupted = submit(http, true);
        String plain = submit(http, false);
        for (String id : List.of(killed, interrupted, plain)) {
            await(id + " runs", WAIT, () -> Files.exists(out.resolve(id + "-1")) && state(id) == WorkloadState.RUNNING);
        }
        service.close();
        service = null;

        killWithWrapper(killed);
        ProcessHandle sleeper = ProcessHandle.of(pidOf(interrupted)).orElseThrow();
        new ProcessBuilder("kill", "-INT", Long.toString(sleeper.pid())).start().waitFor();
        Path exitFile = data.resolve("attempts").resolve(interrupted + "-1.exit");
        await("the wrapper records the interrupted command's exit code", WAIT, () -> Files.exists(exitFile));
        assertThat(Files.readString(exitFile).trim()).isEqualTo("130");
        killWithWrapper(plain);

        service = start(data);

        for (String id : List.of(killed, interrupted)) {
            await(id + " runs again as attempt 2", WAIT, () -> Files.exists(out.resolve(id + "-2")));
            Attempt first = service.store().attempts().attempts(id).get(0);
            assertThat(first.outcome()).as("%s attempt 1: %s", id, first.reason()).isEqualTo(AttemptOutcome.LOST);
            assertThat(first.reason()).startsWith("its process died while the service was down");
        }
        assertThat(service.store().attempts().attempts(killed).get(0).reason())
                .contains("without recording an exit code");
        assertThat(service.store().attempts().attempts(interrupted).get(0).reason())
                .contains("killed by SIGINT (exit code 130) without a stop being asked for");
        await(plain + " ends", WAIT, () -> state(plain).ended());
        assertThat(state(plain)).isEqualTo(WorkloadState.FAILED);
        Attempt only = service.store().attempts().attempts(plain).get(0);
        assertThat(only.outcome()).isEqualTo(AttemptOutcome.LOST);
        assertThat(only.reason()).startsWith("its process died while the service was down, without recording an exit"
                + " code");
        assertThat(service.store().attempts().attempts(plain)).as("not resumable: never run again").hasSize(1);
    }

    private Service start(Path data) {
        return Service.start(ServiceConfig.defaults(data).withPort(0).withVirtualGpus(4)
                .withTick(Duration.ofMillis(100)).withGrace(Duration.ofMillis(1000))
                .withSecurity(ServiceTestSupport.workloadSecurity(dir)), Clock.systemUTC());
    }

    private String submit(Client http, boolean resumable) throws Exception {
        Answer a = http.post("/v1/workloads", "tok-alice", submission("lab/a", "1s", resumable,
                List.of("sh", "-c", WORK, "work"), Map.of("OUT", out.toString()), null));
        assertThat(a.status()).as("submission: %s", a.json()).isEqualTo(201);
        return a.json().path("id").asText();
    }

    private WorkloadState state(String id) {
        return service.store().workloads().workload(id).orElseThrow().state();
    }

    private long pidOf(String id) throws IOException {
        return Long.parseLong(Files.readString(out.resolve(id + "-1")).trim());
    }

    /** SIGKILL to the command's wrapper first (so it records nothing), then to the command. */
    private void killWithWrapper(String id) throws Exception {
        ProcessHandle command = ProcessHandle.of(pidOf(id)).orElseThrow();
        ProcessHandle wrapper = command.parent().orElseThrow();
        assertThat(wrapper.info().arguments().map(a -> String.join(" ", a)).orElse("")).contains("allot:");
        wrapper.destroyForcibly();
        command.destroyForcibly();
        await(id + "'s processes are gone", WAIT, () -> !ServiceTestSupport.alive(wrapper.pid())
                && !ServiceTestSupport.alive(command.pid()));
    }

    /** Every process the backend launched for this test: found by the token (naming this test's directory). */
    private List<Long> launchedHere() {
        return ServiceTestSupport.launchedUnder(dir, out == null ? null : "OUT=" + out);
    }
}
