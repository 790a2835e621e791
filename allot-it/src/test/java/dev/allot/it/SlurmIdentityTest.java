package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Workload identity on a real Slurm cluster: {@code allot serve --backend slurm}, run as root with alice and bob mapped
 * to the Unix accounts {@code allot-alice} and {@code allot-bob}, submits each one's jobs as that account. Alice's
 * workload then tries what a member's workload did in issue 13 to become admin or to spy on others: read the
 * service's admin token, its store and its environment, read bob's running workload's environment (where bob keeps a
 * secret), and kill bob's processes. Every try fails; it runs as allot-alice, in her home, with its declared
 * variables and none of the service's; its output file is hers alone. The test cluster's slurmd runs every job on this
 * machine ({@code proctrack/linuxproc}, {@code task/none}), so the {@code /proc} checks are real.
 *
 * <p>Needs the accounts {@code .ci/run} creates ({@code useradd --create-home --shell /bin/bash allot-alice}, and
 * {@code allot-bob}): skipped without them, failed under {@code ALLOT_REQUIRE_SLURM=1}.
 */
class SlurmIdentityTest extends SlurmStories {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ALICE = "allot-alice";
    private static final String BOB = "allot-bob";

    /**
     * Alice's workload: {@code probe DATA_DIR SERVICE_PID BOB_UID}. One line per try, {@code NAME: allowed} or
     * {@code NAME: denied: <error>}; then its identity and its whole environment, one {@code env:} line each.
     */
    private static final String PROBE = """
            data=$1 svc=$2 bob=$3
            try() {
              local name=$1 err; shift
              if err=$("$@" 2>&1 >/dev/null); then echo "$name: allowed"; else echo "$name: denied: ${err%%$'\\n'*}"; fi
            }
            try token cat "$data/admin-token"
            try store cat "$data/allot.db"
            try service-environ cat "/proc/$svc/environ"
            n=0
            for p in /proc/[0-9]*; do
              uid=
              { while read -r key uid _; do [ "$key" = Uid: ] && break; done < "$p/status"; } 2>/dev/null
              [ "$uid" = "$bob" ] || continue
              pid=${p#/proc/}; n=$((n + 1))
              try "bob-environ-$pid" cat "$p/environ"
              try "bob-kill-$pid" kill -KILL "$pid"
            done
            echo "bob-processes: $n"
            echo "uid: $(id -u)"
            echo "pwd: $(pwd)"
            env | sed 's/^/env:/'
            """;

    /** What Slurm itself adds to a job's environment (besides SLURM_*), and what bash adds to its own. */
    private static final Set<String> SLURM_AND_SHELL = Set.of("CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
            "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", "ENVIRONMENT", "HOSTNAME", "TMPDIR", "PWD", "OLDPWD",
            "SHLVL", "_");

    @Test
    void aMembersWorkloadRunsAsItsOwnAccountAndCannotReachTheServiceOrAnotherUsersWorkload() throws Exception {
        long aliceUid = uidOf(ALICE);
        long bobUid = uidOf(BOB);
        // Given the service's data directory protected as an operator makes it (0700; Allot's own modes for it are
        // tested with the local backend), under folders every account may pass through: only its mode protects it.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path data = Files.createDirectory(dir.resolve("data"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path accounts = Files.writeString(dir.resolve("accounts"), "alice: " + ALICE + "\nbob: " + BOB + "\n");
        String serviceSecret = secret();
        story = new Story(slurm, data, "it-identity").runningAs(accounts)
                .withServiceEnvironment("ALLOT_SERVICE_SECRET", serviceSecret).seed();
        // As a new store's first start leaves it (a seeded store gets none).
        Files.writeString(Files.createFile(data.resolve("admin-token"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))), "admin-secret\n");
        story.startProcess();

        // Bob runs a workload holding a secret in its environment.
        String bobSecret = secret();
        String bob = story.submit("bob", "lab/b", 1, List.of("bash", "-c", "exec sleep 600"),
                Map.of("BOB_SECRET", bobSecret));
        // (slurmstepd switches to bob's uid before it execs his job: until then the process holds slurmd's
        // environment, so wait for his command itself.)
        Story.await(bob + " runs in Slurm with a process of " + BOB + " holding his secret", WAIT,
                () -> story.runningInSlurm(bob, 1) && processesOf(bobUid).stream()
                        .anyMatch(pid -> bobSecret.equals(environ(pid).get("BOB_SECRET"))));

        // When alice's workload tries to reach the service and bob's workload,
        String alice = story.submit("alice", "lab/a", 1, List.of("bash", "-c", PROBE, "probe", data.toString(),
                Long.toString(story.servicePid()), Long.toString(bobUid)), Map.of("ALICE_NOTE", "declared by alice"));
        Story.until(alice + " completes", WAIT, () -> story.state(alice).equals("completed"));

        // then every try failed for lack of permission, and bob's workload runs on.
        SlurmCluster.Job job = story.jobs(alice, 1).get(0);
        Path out = Path.of("/home", ALICE, "allot-" + job.id() + ".out");
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        Map<String, String> tries = new TreeMap<>();
        Map<String, String> env = new TreeMap<>();
        for (String line : lines) {
            if (line.startsWith("env:")) {
                int eq = line.indexOf('=');
                env.put(line.substring(4, eq), line.substring(eq + 1));
            } else if (line.contains(": ")) {
                tries.put(line.substring(0, line.indexOf(": ")), line.substring(line.indexOf(": ") + 2));
            }
        }
        assertThat(tries).as("alice's workload's output %s", out).containsKeys("token", "store", "service-environ");
        assertThat(tries.get("token")).startsWith("denied:").contains("Permission denied");
        assertThat(tries.get("store")).startsWith("denied:").contains("Permission denied");
        assertThat(tries.get("service-environ")).startsWith("denied:").contains("Permission denied");
        int bobProcesses = Integer.parseInt(tries.get("bob-processes"));
        List<String> onBob = tries.keySet().stream()
                .filter(k -> k.startsWith("bob-environ-") || k.startsWith("bob-kill-")).toList();
        assertThat(bobProcesses).as("bob's processes alice found").isPositive();
        assertThat(onBob).as("tries on bob's processes").hasSize(2 * bobProcesses);
        for (String k : onBob) {
            assertThat(tries.get(k)).as(k).startsWith("denied:")
                    .contains(k.startsWith("bob-kill") ? "Operation not permitted" : "Permission denied");
        }
        assertThat(story.state(bob)).isEqualTo("running");
        assertThat(story.runningInSlurm(bob, 1)).isTrue();

        // It ran as allot-alice, in her home, with what she declared and Allot's variables, and none of the service's.
        assertThat(tries.get("uid")).isEqualTo(Long.toString(aliceUid));
        assertThat(tries.get("pwd")).isEqualTo("/home/" + ALICE);
        assertThat(env).containsEntry("ALICE_NOTE", "declared by alice").containsEntry("USER", ALICE)
                .containsEntry("HOME", "/home/" + ALICE).containsEntry("PATH", "/usr/local/bin:/usr/bin:/bin")
                .containsEntry("ALLOT_WORKLOAD_ID", alice).containsEntry("ALLOT_ATTEMPT", "1").containsKey("ALLOT_ATTEMPT_STARTED_AT")
                .doesNotContainKey("ALLOT_SERVICE_SECRET").doesNotContainValue(serviceSecret);
        Set<String> unexpected = new TreeSet<>(env.keySet());
        unexpected.removeIf(k -> k.startsWith("SLURM") || SLURM_AND_SHELL.contains(k)
                || Set.of("ALICE_NOTE", "USER", "HOME", "PATH", "ALLOT_WORKLOAD_ID", "ALLOT_ATTEMPT",
                        "ALLOT_ATTEMPT_STARTED_AT").contains(k));
        assertThat(unexpected).as("variables in alice's job that neither she, Allot nor Slurm set").isEmpty();
        // Its output file is hers, and hers alone.
        assertThat(Files.getOwner(out).getName()).isEqualTo(ALICE);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out))).isEqualTo("rw-------");
        // Bob's job runs as allot-bob, with his secret and nothing of the service's either.
        assertThat(processesOf(bobUid)).allSatisfy(pid -> assertThat(environ(pid))
                .doesNotContainKey("ALLOT_SERVICE_SECRET").containsEntry("USER", BOB));
        story.cancel("bob", bob);
        Files.delete(out);
        for (SlurmCluster.Job j : story.jobs(bob, 1)) {
            Files.deleteIfExists(Path.of("/home", BOB, "allot-" + j.id() + ".out"));
        }
    }

    /** The uid of a Unix account; skips (fails under ALLOT_REQUIRE_SLURM=1) if there is none. */
    private static long uidOf(String account) throws Exception {
        Process p = new ProcessBuilder("id", "-u", account).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0) {
            String why = "no Unix account " + account + " (" + out + "); create it as .ci/run does: useradd"
                    + " --create-home --shell /bin/bash " + account;
            if ("1".equals(System.getenv("ALLOT_REQUIRE_SLURM"))) {
                throw new AssertionError("ALLOT_REQUIRE_SLURM=1 but " + why);
            }
            assumeTrue(false, why);
        }
        return Long.parseLong(out);
    }

    /** The processes of this uid (as root sees them). */
    private static List<Long> processesOf(long uid) {
        List<Long> out = new ArrayList<>();
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(q -> q.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    if (((Number) Files.getAttribute(p, "unix:uid")).longValue() == uid) {
                        out.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc: " + e, e);
        }
        return out;
    }

    private static Map<String, String> environ(long pid) {
        Map<String, String> m = new TreeMap<>();
        try {
            for (String e : Files.readString(Path.of("/proc", Long.toString(pid), "environ"),
                    StandardCharsets.UTF_8).split("\0")) {
                int eq = e.indexOf('=');
                if (eq > 0) {
                    m.put(e.substring(0, eq), e.substring(eq + 1));
                }
            }
        } catch (IOException gone) {
            // ended meanwhile: an empty environment
        }
        return m;
    }

    private static String secret() {
        byte[] b = new byte[8];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
