package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot serve} as a real process in a terminal's place: started with {@code setsid}, so that it leads a process
 * group of its own as a shell's foreground job does, and interrupted with SIGINT to that whole group, as Ctrl-C in the
 * terminal does. Given a running resumable workload, when the service's group gets SIGINT, then the service stops,
 * the workload (and its wrapper) keep running, a restarted service adopts it (no second attempt) and it completes.
 * Meanwhile a second {@code allot serve} on the same data directory is refused, naming the running one's pid and
 * address.
 */
class ServeProcessStoryTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Records its pid, waits for the test's go, records that it is done. */
    private static final String WORK = "echo $$ > \"$OUT/started-$ALLOT_ATTEMPT\"; "
            + "while [ ! -f \"$OUT/go\" ]; do sleep 0.2; done; echo done > \"$OUT/done-$ALLOT_ATTEMPT\"";

    @TempDir
    Path dir;

    private Path data;
    private Path out;
    private final List<Process> services = new ArrayList<>();
    private final Set<Long> workloads = new HashSet<>();
    private Function<String, String> realEnvironment;

    @BeforeEach
    void isolate() {
        realEnvironment = ClientOptions.useEnvironment(Map.of());
    }

    @AfterEach
    void stopEverything() throws Exception {
        ClientOptions.environment = realEnvironment;
        for (Process p : services) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        for (long pid : workloads) {
            ProcessHandle.of(pid).ifPresent(h -> {
                h.parent().filter(w -> w.info().commandLine().orElse("").contains("allot:"))
                        .ifPresent(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
        }
    }

    @Test
    void givenARunningWorkload_whenCtrlCReachesTheServicesGroup_thenTheWorkloadRunsOnAndTheNextServiceAdoptsIt()
            throws Exception {
        data = dir.resolve("data");
        out = dir.resolve("out");
        Files.createDirectories(out);
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxrwxrwx"));
        passable(dir);
        seed(data);

        Process first = serve("first.log");
        String url = url(first);
        Cli.Result submitted = Cli.run("submit", "--server", url, "--token", "tok-alice", "--allocation", "lab/a",
                "--gpus", "1", "--min-runtime", "1s", "--resumable", "--env", "OUT=" + out, "--", "sh", "-c", WORK);
        assertThat(submitted.exit()).as(submitted.err()).isZero();
        String id = submitted.out().split(" ")[1];
        await("the workload's process starts", () -> Files.exists(out.resolve("started-1")));
        long workload = Long.parseLong(Files.readString(out.resolve("started-1")).trim());
        workloads.add(workload);
        ProcessHandle wrapper = ProcessHandle.of(workload).flatMap(ProcessHandle::parent).orElseThrow();
        await("the store says it runs", () -> state(url, id).equals("running"));

        assertThat(groupOf(first.pid())).as("the service leads its own group, as a terminal's job").isEqualTo(
                first.pid());
        Process ctrlC = new ProcessBuilder("kill", "-INT", "--", "-" + first.pid()).inheritIO().start();
        assertThat(ctrlC.waitFor()).isZero();
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).as("the service stops on Ctrl-C").isTrue();

        assertThat(alive(workload)).as("the workload survives the terminal's SIGINT").isTrue();
        assertThat(alive(wrapper.pid())).as("so does its wrapper, which records its exit code").isTrue();

        Process second = serve("second.log");
        String url2 = url(second);

        // Meanwhile, a second service on the same data directory is refused, naming this one.
        Process third = serve("third.log");
        assertThat(third.waitFor(60, TimeUnit.SECONDS)).as("the other serve ends").isTrue();
        String refusal = Files.readString(dir.resolve("third.log"));
        assertThat(third.exitValue()).as(refusal).isEqualTo(2);
        assertThat(refusal).contains("allot: --data-dir: the data directory " + data.toAbsolutePath().normalize()
                + " is in use by another Allot service (pid " + second.pid() + ", listening on " + url2);

        Files.writeString(out.resolve("go"), "go\n");
        await("the adopted workload completes", () -> state(url2, id).equals("completed"));
        JsonNode shown = JSON.readTree(Cli.run("show", id, "--json", "--server", url2, "--token", "tok-alice").out());
        assertThat(shown.path("attempts")).as("adopted, never launched again: %s", shown).hasSize(1);
        assertThat(shown.path("attempts").get(0).path("outcome").asText()).isEqualTo("completed");
        assertThat(out.resolve("done-1")).exists();
        assertThat(out.resolve("started-2")).doesNotExist();
    }

    /** {@code setsid java ... allot serve} on the data directory, its output in {@code log}. */
    private Process serve(String log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of("setsid", java, "-Xmx192m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), AllotCommand.class.getName(),
                "serve", "--data-dir", data.toString(), "--port", "0", "--backend", "local", "--gpus", "2", "--node",
                "n1", "--tick", "200ms", "--grace", "2s"));
        if (dev.allot.server.identity.UnixAccounts.serviceUid() == 0) {
            Path accounts = dir.resolve("accounts");
            Files.writeString(accounts, "*: nobody\n");
            command.addAll(List.of("--accounts", accounts.toString()));
        } else {
            command.add("--single-user-host");
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(log).toFile());
        pb.environment().put(ClientConfig.CONFIG_ENV, dir.resolve("client.json").toString());
        Process p = pb.start();
        services.add(p);
        return p;
    }

    /** The URL the service writes to service.json once it listens. */
    private String url(Process service) throws Exception {
        Path json = data.resolve("service.json");
        await("the service listens (pid " + service.pid() + ")", () -> {
            if (!service.isAlive()) {
                throw new AssertionError("the service exited with " + service.exitValue());
            }
            try {
                return Files.exists(json) && JSON.readTree(json.toFile()).path("pid").asLong() == service.pid();
            } catch (IOException e) {
                return false;
            }
        });
        return JSON.readTree(json.toFile()).path("url").asText();
    }

    private static String state(String url, String id) {
        Cli.Result r = Cli.run("show", id, "--json", "--server", url, "--token", "tok-alice");
        try {
            return r.exit() == 0 ? JSON.readTree(r.out()).path("workload").path("state").asText() : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static void seed(Path data) {
        try (Store store = Store.sqlite(data)) {
            long t = System.currentTimeMillis();
            for (User u : List.of(new User("root", User.Role.ADMIN), new User("alice", User.Role.USER))) {
                store.access().putUser(u);
                store.access().addToken(u.name(), "tok-" + u.name(), "test", t);
            }
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation("lab/a", 1, List.of(), List.of("alice")), "root", t);
        }
    }

    private static void passable(Path dir) throws IOException {
        Set<PosixFilePermission> p = new HashSet<>(Files.getPosixFilePermissions(dir));
        p.add(PosixFilePermission.GROUP_EXECUTE);
        p.add(PosixFilePermission.OTHERS_EXECUTE);
        Files.setPosixFilePermissions(dir, p);
    }

    /** A process's group, from /proc/PID/stat. */
    private static long groupOf(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
    }

    /** Alive and not a zombie. */
    private static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException | RuntimeException gone) {
            return false;
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(100);
        }
    }
}
