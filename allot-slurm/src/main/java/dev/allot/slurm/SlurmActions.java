package dev.allot.slurm;

import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What Allot asks Slurm to do, through its commands: submit one attempt ({@code sbatch}), signal or end a job
 * ({@code scancel}), drain or resume a node ({@code scontrol update}). A command that fails says nothing certain
 * (Slurm has been seen to print errors for updates it applied): callers read the state back before concluding.
 * slurmrestd 0.0.38 cannot pin a job to nodes, drain a node or requeue a job, so actions always use the commands.
 */
class SlurmActions {
    /** sbatch's words for failures of the transport, not of the request: the outcome is unknown. */
    private static final List<String> TRANSIENT = List.of("Socket timed out", "Connection refused",
            "Connection reset", "Unable to contact slurm controller", "Zero Bytes were transmitted",
            "Slurm backup controller in standby mode", "Communication connection failure", "Transport endpoint",
            "Resource temporarily unavailable");

    private final Commands commands;
    private final SlurmConfig config;

    SlurmActions(Commands commands, SlurmConfig config) {
        this.commands = commands;
        this.config = config;
    }

    /** The sbatch options for one attempt (without the command), in a fixed order. */
    List<String> sbatchArgs(Launch launch) {
        List<String> a = new ArrayList<>();
        a.add("--parsable");
        a.add("--job-name=" + JobTag.name(launch.attempt()));
        a.add("--comment=" + JobTag.comment(config.instance()));
        String partition = launch.terms().unallocated() && config.freePartition() != null ? config.freePartition()
                : config.partition();
        if (partition != null) {
            a.add("--partition=" + partition);
        }
        String qos = launch.terms().unallocated() ? config.freeQos() : config.qos();
        if (qos != null) {
            a.add("--qos=" + qos);
        }
        if (config.account() != null) {
            a.add("--account=" + config.account());
        }
        List<String> nodes = new ArrayList<>();
        for (Launch.NodeGpus ng : launch.placement()) {
            nodes.add(ng.node());
        }
        boolean uniform = uniform(launch);
        int perNode = launch.placement().get(0).gpus().size();
        a.add("--nodelist=" + String.join(",", nodes));
        a.add("--nodes=" + nodes.size());
        if (uniform) {
            a.add("--gres=gpu:" + perNode);
        } else {
            // Different counts per node: one task per GPU, laid out node by node as the hostfile lists them (see
            // hostfile), so that each node gets exactly Allot's count. A job-wide --gpus=N would let Slurm choose
            // the split, and a split other than Allot's takes GPUs Allot gives to the next job.
            a.add("--ntasks=" + launch.gpus());
            a.add("--gpus-per-task=1");
            a.add("--distribution=arbitrary");
        }
        a.add("--requeue");
        a.add("--chdir=" + config.workDir());
        a.add("--output=" + config.workDir().resolve("allot-%j.out"));
        a.addAll(config.extraSbatchArgs());
        a.add("--wrap=" + shellCommand(launch.command()));
        return a;
    }

    /** The environment sbatch passes on to the job (it exports its own environment): the workload's and Allot's. */
    static Map<String, String> environment(Launch launch) {
        Map<String, String> env = new TreeMap<>(launch.environment());
        env.put("ALLOT_WORKLOAD_ID", launch.attempt().workloadId());
        env.put("ALLOT_ATTEMPT", Integer.toString(launch.attempt().attempt()));
        return env;
    }

    /** Whether every node of the placement has as many GPUs (then {@code --gres=gpu:N} says it all). */
    static boolean uniform(Launch launch) {
        return launch.placement().stream().map(ng -> ng.gpus().size()).distinct().count() == 1;
    }

    /**
     * The task layout of a placement with different counts per node, for {@code SLURM_HOSTFILE}: each node's name
     * once per GPU, in placement order.
     */
    static String hostfile(Launch launch) {
        StringBuilder b = new StringBuilder();
        for (Launch.NodeGpus ng : launch.placement()) {
            for (int i = 0; i < ng.gpus().size(); i++) {
                b.append(ng.node()).append('\n');
            }
        }
        return b.toString();
    }

    /**
     * Submits one attempt and returns its job id.
     *
     * @throws BackendException when sbatch refused the request itself (a bad partition, nodes that cannot hold it)
     * @throws BackendUnavailableException when the outcome is unknown (sbatch failed to talk to the controller,
     *                                     timed out, or printed no job id): the job may or may not exist
     */
    long submit(Launch launch) {
        Map<String, String> env = environment(launch);
        if (!uniform(launch)) {
            Path hosts = config.workDir().resolve(".hostfiles").resolve(launch.attempt().workloadId() + "-"
                    + launch.attempt().attempt() + ".hosts");
            try {
                Files.createDirectories(hosts.getParent());
                Files.writeString(hosts, hostfile(launch), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new BackendException("could not write the task layout " + hosts + " for " + launch.attempt()
                        + ": " + e.getMessage(), e);
            }
            env.put("SLURM_HOSTFILE", hosts.toString());
        }
        Commands.Result r = commands.run("sbatch", sbatchArgs(launch), env);
        if (r.ok()) {
            String id = r.out().strip().split(";")[0];
            if (!id.isEmpty() && id.chars().allMatch(Character::isDigit) && id.length() < 19) {
                return Long.parseLong(id);
            }
            throw new BackendUnavailableException("sbatch printed no job id for " + launch.attempt() + " (got '"
                    + abbreviate(r.out()) + "'); whether it submitted is unknown");
        }
        String err = r.err();
        int at = err.indexOf("Batch job submission failed:");
        if (at >= 0 && TRANSIENT.stream().noneMatch(err::contains)) {
            String why = err.substring(at + "Batch job submission failed:".length()).strip();
            int nl = why.indexOf('\n');
            throw new BackendException("Slurm refused " + launch.attempt() + ": " + (nl < 0 ? why : why.substring(0, nl)));
        }
        throw new BackendUnavailableException("sbatch failed for " + launch.attempt() + "; whether it submitted is"
                + " unknown: " + r.summary());
    }

    /** Sends a signal to a job's batch script and steps ({@code scancel --full --signal}); true if scancel said ok. */
    boolean signal(long jobId, String signal) {
        return commands.run("scancel", List.of("--full", "--signal=" + signal, Long.toString(jobId))).ok();
    }

    /** Ends a job (SIGTERM, then SIGKILL after Slurm's KillWait); true if scancel said ok. */
    boolean cancel(long jobId) {
        return commands.run("scancel", List.of(Long.toString(jobId))).ok();
    }

    /** Drains a node with a reason; true if scontrol said ok. */
    boolean drain(String node, String reason) {
        return commands.run("scontrol", List.of("update", "nodename=" + node, "state=drain", "reason=" + reason)).ok();
    }

    /** Resumes a drained node; true if scontrol said ok. */
    boolean resume(String node) {
        return commands.run("scontrol", List.of("update", "nodename=" + node, "state=resume")).ok();
    }

    /** A held placeholder job whose comment names this instance ({@link InstanceLock}); returns its id. */
    long submitLock() {
        List<String> a = new ArrayList<>(List.of("--parsable", "--hold", "--job-name=" + JobTag.LOCK_NAME,
                "--comment=" + JobTag.comment(config.instance())));
        String partition = config.freePartition() != null ? config.freePartition() : config.partition();
        if (partition != null) {
            a.add("--partition=" + partition);
        }
        if (config.account() != null) {
            a.add("--account=" + config.account());
        }
        a.add("--chdir=" + config.workDir());
        a.add("--output=/dev/null");
        a.add("--wrap=true");
        Commands.Result r = commands.run("sbatch", a);
        String id = r.out().strip().split(";")[0];
        if (r.ok() && !id.isEmpty() && id.chars().allMatch(Character::isDigit)) {
            return Long.parseLong(id);
        }
        throw new BackendUnavailableException("could not submit the instance lock job: " + r.summary());
    }

    /** The command as one shell line for {@code --wrap}, each argument single-quoted. */
    static String shellCommand(List<String> command) {
        StringBuilder b = new StringBuilder();
        for (String arg : command) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append('\'').append(arg.replace("'", "'\\''")).append('\'');
        }
        return b.toString();
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() > 200 ? t.substring(0, 200) + "..." : t;
    }
}
