package dev.allot.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Slurm cluster of its own, in {@code MODE=qos} (MariaDB, slurmdbd, preemption by QOS), started and stopped by a
 * test through {@code tools/slurm-cluster.sh} with extra {@code slurm.conf} lines and {@code sacctmgr} commands (the
 * output of {@code allot slurm-config}), where Slurm alone decides. The CI's shared cluster is in partition mode, so
 * this one runs beside it on its own ports: {@code ALLOT_TEST_SLURM_QOS_PORTS=ctld,slurmd0,dbd,db} (default
 * 6917,17400,6919,13406). Skipped where it cannot run (not root, no slurmdbd or MariaDB, no script), failed instead
 * under {@code ALLOT_REQUIRE_SLURM=1}, as the other Slurm stories.
 */
final class QosCluster implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LOG_TIME = Pattern.compile("^\\[(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3})\\]");

    final Path base;
    final Path conf;
    private final Path script;

    private QosCluster(Path base, Path script) {
        this.base = base;
        this.conf = base.resolve("etc/slurm.conf");
        this.script = script;
    }

    /** Starts a cluster under {@code parent}/slurm (its folders must be searchable by all users, for munged). */
    static QosCluster start(Path parent, Path confExtra, Path sacctmgrScript) throws Exception {
        Path script = findScript();
        boolean required = "1".equals(System.getenv("ALLOT_REQUIRE_SLURM"));
        String missing = script == null ? "tools/slurm-cluster.sh not found"
                : !"root".equals(System.getProperty("user.name")) ? "not root (the daemons need it)"
                : !onPath("slurmdbd") || !onPath("mariadbd") || !onPath("slurmctld") ? "slurmctld, slurmdbd or"
                        + " mariadbd is not installed (apt-get install slurmctld slurmd slurmdbd mariadb-server)"
                : null;
        if (missing != null) {
            if (required) {
                throw new AssertionError("ALLOT_REQUIRE_SLURM=1 but a QOS-mode Slurm cannot start here: " + missing);
            }
            assumeTrue(false, "no QOS-mode Slurm: " + missing);
        }
        String[] ports = System.getenv().getOrDefault("ALLOT_TEST_SLURM_QOS_PORTS", "6917,17400,6919,13406").split(",");
        if (ports.length != 4) {
            throw new AssertionError("ALLOT_TEST_SLURM_QOS_PORTS: expected ctld,slurmd0,dbd,db ports, got "
                    + System.getenv("ALLOT_TEST_SLURM_QOS_PORTS"));
        }
        parent.toFile().setExecutable(true, false);
        parent.toFile().setReadable(true, false);
        QosCluster c = new QosCluster(parent.resolve("slurm"), script);
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), "start").redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("BASE", c.base.toString());
        env.put("MODE", "qos");
        env.put("CTLD_PORT", ports[0].strip());
        env.put("SLURMD_PORT0", ports[1].strip());
        env.put("DBD_PORT", ports[2].strip());
        env.put("DB_PORT", ports[3].strip());
        env.put("CONF_EXTRA", confExtra.toString());
        env.put("SACCTMGR_SCRIPT", sacctmgrScript.toString());
        env.remove("REST");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(180, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("slurm-cluster.sh start (MODE=qos) failed:\n" + out);
        }
        System.out.print(out);
        return c;
    }

    private static Path findScript() {
        String env = System.getenv("ALLOT_TEST_SLURM_SCRIPT");
        for (Path p : env == null ? List.of(Path.of("..", "tools", "slurm-cluster.sh"), Path.of("tools", "slurm-cluster.sh"))
                : List.of(Path.of(env))) {
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath().normalize();
            }
        }
        return null;
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", command));
    }

    /** Runs a Slurm command against this cluster and returns its output; fails the test if it fails. */
    String run(List<String> cmd) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().put("SLURM_CONF", conf.toString());
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError(cmd + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * When slurmctld last recalculated usage and Fair Tree (its decay thread logs the tree with
     * {@code DebugFlags=Priority}), in epoch milliseconds; -1 before the first time.
     */
    long lastPriorityRecalculationMillis() throws IOException {
        long last = -1;
        for (String line : Files.readAllLines(base.resolve("log/slurmctld.log"), StandardCharsets.UTF_8)) {
            if (line.contains("_ft_debug")) {
                Matcher m = LOG_TIME.matcher(line);
                if (m.find()) {
                    last = LocalDateTime.parse(m.group(1)).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
                }
            }
        }
        return last;
    }

    /** One job's record in accounting: every attempt (sacct -D), merged by job name. */
    record Accounted(String name, long submitEpochSeconds, long firstStartEpochSeconds, int attempts, String state) {
    }

    /** Every job slurmdbd recorded, by name: first submission, first start, number of attempts, last state. */
    Map<String, Accounted> accounting() {
        JsonNode root;
        try {
            root = JSON.readTree(run(List.of("sacct", "-X", "-D", "-a", "--json")));
        } catch (IOException e) {
            throw new AssertionError("sacct printed no JSON", e);
        }
        Map<String, List<JsonNode>> byName = new TreeMap<>();
        for (JsonNode j : root.path("jobs")) {
            byName.computeIfAbsent(j.path("name").asText(), k -> new ArrayList<>()).add(j);
        }
        Map<String, Accounted> out = new TreeMap<>();
        byName.forEach((name, records) -> {
            long submit = Long.MAX_VALUE;
            long start = Long.MAX_VALUE;
            int attempts = 0;
            String state = "";
            long lastStart = -1;
            for (JsonNode r : records) {
                submit = Math.min(submit, r.path("time").path("submission").asLong());
                long s = r.path("time").path("start").asLong(0);
                if (s > 0) {
                    attempts++;
                    start = Math.min(start, s);
                    if (s >= lastStart) {
                        lastStart = s;
                        state = r.path("state").path("current").asText();
                    }
                }
            }
            out.put(name, new Accounted(name, submit, start == Long.MAX_VALUE ? -1 : start, attempts, state));
        });
        return out;
    }

    @Override
    public void close() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), "stop").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("BASE", base.toString());
        Process p = pb.start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("slurm-cluster.sh stop did not end within 90 s (BASE=" + base + ")");
        }
    }
}
