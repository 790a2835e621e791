package dev.allot.cli;

import dev.allot.server.service.Service;
import dev.allot.slurm.SlurmBackend;
import dev.allot.slurm.SlurmConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code allot serve --backend slurm}'s options: how to reach the cluster and how Allot's contract maps onto it.
 * The instance id that marks this Allot's jobs is made once and kept in {@code DATA_DIR/instance-id}.
 */
final class SlurmOptions {
    static final String INSTANCE_FILE = "instance-id";

    @Option(names = "--slurm-conf", paramLabel = "FILE",
            description = "slurm.conf, passed to every Slurm command as SLURM_CONF (default: $SLURM_CONF, else"
                    + " /etc/slurm/slurm.conf)")
    Path slurmConf;

    @Option(names = "--slurm-bin", paramLabel = "DIR",
            description = "where sbatch, squeue, scancel, scontrol, sinfo and sacct are (default: the PATH)")
    Path binDir;

    @Option(names = "--slurm-observe", paramLabel = "HOW", defaultValue = "cli",
            description = "read jobs and nodes with Slurm's commands (cli: scontrol -o show job, sinfo --json) or from slurmrestd (rest)"
                    + " (default: ${DEFAULT-VALUE})")
    String observe;

    @Option(names = "--slurm-rest-url", paramLabel = "URL", description = "slurmrestd, e.g. http://127.0.0.1:6820")
    String restUrl;

    @Option(names = "--slurm-rest-user", paramLabel = "USER", defaultValue = "root",
            description = "the user slurmrestd acts for (default: ${DEFAULT-VALUE})")
    String restUser;

    @Option(names = "--slurm-rest-token-file", paramLabel = "FILE",
            description = "a file holding a JWT from `scontrol token` (read at each request)")
    Path restTokenFile;

    @Option(names = "--slurm-partition", paramLabel = "NAME", defaultValue = SlurmConfig.DEFAULT_PARTITION,
            description = "partition for allocated work, protected from Slurm's preemption (default: ${DEFAULT-VALUE})")
    String partition;

    @Option(names = "--slurm-free-partition", paramLabel = "NAME", defaultValue = SlurmConfig.DEFAULT_FREE_PARTITION,
            description = "partition for unallocated work, preemptible (default: ${DEFAULT-VALUE})")
    String freePartition;

    @Option(names = "--slurm-qos", paramLabel = "NAME", description = "QOS for allocated work (needs accounting)")
    String qos;

    @Option(names = "--slurm-free-qos", paramLabel = "NAME", description = "QOS for unallocated work")
    String freeQos;

    @Option(names = "--slurm-account", paramLabel = "NAME", description = "the Slurm account jobs are charged to")
    String account;

    @Option(names = "--slurm-accounting", description = "sacct works here (slurmdbd): use it to confirm ended jobs")
    boolean accounting;

    @Option(names = "--slurm-workdir", paramLabel = "DIR",
            description = "task layouts, and the working directory and output files of jobs that run as the"
                    + " service's own user, on storage the nodes share (default: DATA_DIR/slurm-jobs); a job run as"
                    + " a user's account works in, and writes allot-JOBID.out to, that account's home")
    Path workDir;

    @Option(names = "--slurm-timeout", paramLabel = "DURATION", defaultValue = "10s",
            description = "how long a Slurm command may take before its outcome counts as unknown"
                    + " (default: ${DEFAULT-VALUE})")
    String timeout;

    /** The configuration from the options; a bad value names its option. */
    SlurmConfig config(Path dataDir, String instance) {
        SlurmConfig.Observe how = switch (observe.trim()) {
            case "cli" -> SlurmConfig.Observe.CLI;
            case "rest" -> SlurmConfig.Observe.REST;
            default -> throw new IllegalArgumentException("--slurm-observe expects cli or rest, got '" + observe + "'");
        };
        if (how == SlurmConfig.Observe.CLI && (restUrl != null || restTokenFile != null)) {
            // Taken silently, the operator would believe Allot observes through slurmrestd while it runs scontrol.
            throw new IllegalArgumentException((restUrl != null ? "--slurm-rest-url" : "--slurm-rest-token-file")
                    + " needs --slurm-observe rest (Allot observes with Slurm's commands unless told otherwise)");
        }
        Path conf = slurmConf;
        if (conf == null) {
            String env = System.getenv("SLURM_CONF");
            conf = env != null && !env.isBlank() ? Path.of(env) : Path.of("/etc/slurm/slurm.conf");
        }
        if (!Files.isRegularFile(conf)) {
            throw new IllegalArgumentException("--slurm-conf: " + conf + " is not a file; give the cluster's"
                    + " slurm.conf (or set SLURM_CONF)");
        }
        if (binDir != null && !Files.isDirectory(binDir)) {
            throw new IllegalArgumentException("--slurm-bin: " + binDir + " is not a directory; give the folder"
                    + " holding Slurm's commands (sbatch, squeue, scontrol), e.g. /usr/bin, or leave it out to find"
                    + " them on the PATH");
        }
        if (workDir != null && Files.exists(workDir) && !Files.isDirectory(workDir)) {
            throw new IllegalArgumentException("--slurm-workdir: " + workDir + " is a file, not a folder");
        }
        Duration t = ServeCommand.duration("--slurm-timeout", timeout, false);
        Path work = (workDir != null ? workDir : dataDir.resolve("slurm-jobs")).toAbsolutePath();
        SlurmConfig c = SlurmConfig.defaults(conf.toAbsolutePath(), work, instance).withBinDir(binDir)
                .withPartitions(blankToNull(partition), blankToNull(freePartition))
                .withQos(blankToNull(qos), blankToNull(freeQos)).withAccount(blankToNull(account))
                .withCommandTimeout(t).withAccounting(accounting);
        if (how == SlurmConfig.Observe.REST) {
            if (restUrl == null || restTokenFile == null) {
                throw new IllegalArgumentException("--slurm-observe rest needs --slurm-rest-url and"
                        + " --slurm-rest-token-file");
            }
            if (!validHttpUrl(restUrl)) {
                throw new IllegalArgumentException("--slurm-rest-url expects an http:// or https:// URL, got '"
                        + restUrl + "'");
            }
            if (!Files.isRegularFile(restTokenFile)) {
                throw new IllegalArgumentException("--slurm-rest-token-file: " + restTokenFile + " is not a file;"
                        + " give a file holding a JWT for slurmrestd, e.g. from `scontrol token username=" + restUser
                        + " lifespan=SECONDS`");
            }
            if (blankFile(restTokenFile)) {
                throw new IllegalArgumentException("--slurm-rest-token-file: " + restTokenFile + " is empty; write a"
                        + " token from `scontrol token username=" + restUser + " lifespan=SECONDS` to it");
            }
            c = c.withRest(restUrl, restUser, restTokenFile.toAbsolutePath());
        }
        return c;
    }

    /** The maker {@link Service#start} calls once the store is open. */
    Map<String, Service.BackendMaker> makers(Path dataDir) {
        return Map.of("slurm", (cfg, store) -> {
            // A job as root only when the operator allowed root workloads for the whole service.
            SlurmConfig c = config(dataDir, instanceId(dataDir))
                    .withRootWorkloads(cfg.security().allowRootWorkloads());
            try {
                Files.createDirectories(c.workDir());
            } catch (IOException e) {
                throw new IllegalStateException("could not make the Slurm jobs' directory " + c.workDir() + ": "
                        + e.getMessage(), e);
            }
            return SlurmBackend.connect(c, Clock.systemUTC());
        });
    }

    /** This data directory's instance id, made on first use. */
    static String instanceId(Path dataDir) {
        Path f = dataDir.resolve(INSTANCE_FILE);
        try {
            if (Files.exists(f)) {
                String id = Files.readString(f, StandardCharsets.UTF_8).strip();
                if (!id.isEmpty()) {
                    return id;
                }
            }
            byte[] b = new byte[6];
            new SecureRandom().nextBytes(b);
            String id = HexFormat.of().formatHex(b);
            Files.createDirectories(dataDir);
            Files.writeString(f, id + "\n", StandardCharsets.UTF_8);
            return id;
        } catch (IOException e) {
            throw new IllegalStateException("could not read or write the instance id " + f + ": " + e.getMessage(), e);
        }
    }

    private static boolean validHttpUrl(String url) {
        try {
            java.net.URI u = new java.net.URI(url.trim());
            return (u.getScheme() != null && (u.getScheme().equals("http") || u.getScheme().equals("https")))
                    && u.getHost() != null;
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    /** A file that holds nothing but white space (slurmrestd would refuse every request with it). */
    private static boolean blankFile(Path f) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8).isBlank();
        } catch (IOException e) {
            throw new IllegalArgumentException("--slurm-rest-token-file: cannot read " + f + ": " + e.getMessage());
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    static List<String> backends() {
        return List.of("local", "simulated", "slurm");
    }
}
