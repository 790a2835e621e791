package dev.allot.slurm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How Allot reaches one Slurm cluster and how it maps its scheduling contract onto Slurm.
 *
 * @param slurmConf        the cluster's {@code slurm.conf}, passed to every Slurm command as {@code SLURM_CONF}
 *                         (without it the commands look the controller up in DNS); null to inherit the environment's
 * @param binDir           where {@code sbatch}, {@code squeue}, {@code scancel}, {@code scontrol}, {@code sinfo}
 *                         and {@code sacct} are; null for the {@code PATH}
 * @param observe          how jobs and nodes are read: the commands' {@code --json} output, or slurmrestd
 * @param restUrl          slurmrestd's address, e.g. {@code http://127.0.0.1:6820}, for {@link Observe#REST}
 * @param restUser         the user slurmrestd acts for ({@code X-SLURM-USER-NAME})
 * @param restTokenFile    a file holding a JWT from {@code scontrol token} ({@code X-SLURM-USER-TOKEN}); read at
 *                         each request, so a renewed token is picked up
 * @param partition        the partition for allocated work (protected: Slurm never preempts it)
 * @param freePartition    the partition for unallocated work (preemptible)
 * @param qos              the QOS for allocated work, null for none (needs accounting)
 * @param freeQos          the QOS for unallocated work, null for none
 * @param account          the Slurm account jobs are charged to, null for the user's default
 * @param workDir          the service's own directory for Slurm: task layouts ({@code .hostfiles}), and the working
 *                         directory and output files ({@code allot-JOBID.out}) of jobs that run as the service's own
 *                         user; a job run as another account works in, and writes to, that account's home
 * @param instance         this Allot instance's id, written in every job's comment: jobs of another instance are
 *                         never taken for ours, and a second instance on the same cluster is refused
 * @param commandTimeout   how long a Slurm command or request may take before it counts as failed (unknown)
 * @param accounting       whether {@code sacct} works here (slurmdbd): then it confirms jobs gone from squeue
 * @param extraSbatchArgs  more {@code sbatch} options, as given (e.g. {@code --mem=0})
 * @param rootWorkloads    a job may run as root (uid 0): a launch's account is root, or it names none and the service
 *                         runs as root; refused otherwise (the operator's explicit, documented choice)
 */
public record SlurmConfig(Path slurmConf, Path binDir, Observe observe, String restUrl, String restUser,
                          Path restTokenFile, String partition, String freePartition, String qos, String freeQos,
                          String account, Path workDir, String instance, Duration commandTimeout, boolean accounting,
                          List<String> extraSbatchArgs, boolean rootWorkloads) {
    /** How jobs and nodes are observed. Actions (submit, signal, cancel, drain) always use the commands. */
    public enum Observe {
        /** {@code scontrol -o show job} (every job), {@code sinfo --json}, {@code scontrol -o show job ID}. */
        CLI,
        /** slurmrestd's {@code /slurm/v0.0.38/jobs}, {@code /job/{id}} and {@code /nodes}. */
        REST
    }

    /** The partitions {@code tools/slurm-cluster.sh} makes. */
    public static final String DEFAULT_PARTITION = "allot";
    public static final String DEFAULT_FREE_PARTITION = "allot-free";

    public SlurmConfig {
        Objects.requireNonNull(observe, "observe");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        extraSbatchArgs = List.copyOf(extraSbatchArgs);
        if (instance == null || !instance.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")) {
            throw new IllegalArgumentException("the Allot instance id must be 1-64 letters, digits, '_', '.' or '-',"
                    + " got '" + instance + "'");
        }
        if (partition == null && qos == null) {
            throw new IllegalArgumentException("allocated work needs a partition or a QOS; neither was given");
        }
        if (observe == Observe.REST && (restUrl == null || restUser == null || restTokenFile == null)) {
            throw new IllegalArgumentException("observing through slurmrestd needs its URL, user and token file;"
                    + " got url=" + restUrl + ", user=" + restUser + ", token file=" + restTokenFile);
        }
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("the command timeout must be positive, got " + commandTimeout);
        }
    }

    /**
     * Defaults: the commands on the PATH, partitions {@code allot} and {@code allot-free}, a 10 s timeout, no job
     * as root.
     */
    public static SlurmConfig defaults(Path slurmConf, Path workDir, String instance) {
        return new SlurmConfig(slurmConf, null, Observe.CLI, null, null, null, DEFAULT_PARTITION,
                DEFAULT_FREE_PARTITION, null, null, null, workDir, instance, Duration.ofSeconds(10), false, List.of(),
                false);
    }

    public SlurmConfig withBinDir(Path dir) {
        return new SlurmConfig(slurmConf, dir, observe, restUrl, restUser, restTokenFile, partition, freePartition, qos,
                freeQos, account, workDir, instance, commandTimeout, accounting, extraSbatchArgs, rootWorkloads);
    }

    public SlurmConfig withRest(String url, String user, Path tokenFile) {
        return new SlurmConfig(slurmConf, binDir, Observe.REST, url, user, tokenFile, partition, freePartition, qos,
                freeQos, account, workDir, instance, commandTimeout, accounting, extraSbatchArgs, rootWorkloads);
    }

    public SlurmConfig withPartitions(String allocated, String free) {
        return new SlurmConfig(slurmConf, binDir, observe, restUrl, restUser, restTokenFile, allocated, free, qos,
                freeQos, account, workDir, instance, commandTimeout, accounting, extraSbatchArgs, rootWorkloads);
    }

    public SlurmConfig withQos(String allocated, String free) {
        return new SlurmConfig(slurmConf, binDir, observe, restUrl, restUser, restTokenFile, partition, freePartition,
                allocated, free, account, workDir, instance, commandTimeout, accounting, extraSbatchArgs,
                rootWorkloads);
    }

    public SlurmConfig withAccount(String a) {
        return new SlurmConfig(slurmConf, binDir, observe, restUrl, restUser, restTokenFile, partition, freePartition,
                qos, freeQos, a, workDir, instance, commandTimeout, accounting, extraSbatchArgs, rootWorkloads);
    }

    public SlurmConfig withCommandTimeout(Duration d) {
        return new SlurmConfig(slurmConf, binDir, observe, restUrl, restUser, restTokenFile, partition, freePartition,
                qos, freeQos, account, workDir, instance, d, accounting, extraSbatchArgs, rootWorkloads);
    }

    public SlurmConfig withAccounting(boolean on) {
        return new SlurmConfig(slurmConf, binDir, observe, restUrl, restUser, restTokenFile, partition, freePartition,
                qos, freeQos, account, workDir, instance, commandTimeout, on, extraSbatchArgs, rootWorkloads);
    }

    public SlurmConfig withExtraSbatchArgs(List<String> args) {
        return new SlurmConfig(slurmConf, binDir, observe, restUrl, restUser, restTokenFile, partition, freePartition,
                qos, freeQos, account, workDir, instance, commandTimeout, accounting, args, rootWorkloads);
    }

    public SlurmConfig withRootWorkloads(boolean allowed) {
        return new SlurmConfig(slurmConf, binDir, observe, restUrl, restUser, restTokenFile, partition, freePartition,
                qos, freeQos, account, workDir, instance, commandTimeout, accounting, extraSbatchArgs, allowed);
    }
}
