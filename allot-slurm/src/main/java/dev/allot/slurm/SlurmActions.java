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
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Allot asks Slurm to do, through its commands: submit one attempt ({@code sbatch}), signal or end a job
 * ({@code scancel}), drain or resume a node, note in a job's comment or move its QOS ({@code scontrol update}). A
 * command that fails says nothing certain (Slurm has been seen to print errors for updates it applied): callers read
 * the state back before concluding.
 * slurmrestd 0.0.38 cannot pin a job to nodes, drain a node or requeue a job, so actions always use the commands.
 *
 * <p><b>Who a job runs as.</b> A launch that names an account runs as it: {@code sbatch --uid=ACCOUNT
 * --gid=PRIMARY_GID} (Slurm lets only root do that), in the account's home ({@code --chdir}; {@code /tmp} for an
 * account without one, such as {@code nobody}), its output file {@code HOME/allot-JOBID.out} created by slurmstepd as
 * the account. A launch that names none runs as the service's
 * own user, in {@link SlurmConfig#workDir()}. Nothing runs as root unless {@link SlurmConfig#rootWorkloads()}.
 *
 * <p><b>What a job's environment is.</b> Built, never inherited ({@link #jobEnvironment}): {@code PATH}, {@code HOME}
 * and {@code USER} of the account, the workload's declared variables, {@code ALLOT_WORKLOAD_ID},
 * {@code ALLOT_ATTEMPT} and {@code ALLOT_ATTEMPT_STARTED_AT} (when Allot decided the start, epoch milliseconds: the
 * program starts about a second later); Slurm adds its own ({@code SLURM_*}, {@code CUDA_VISIBLE_DEVICES}, ...). It reaches Slurm
 * as an {@code --export-file} (NUL-separated, so any value passes), which on Slurm 22.05 is the job's whole
 * environment: sbatch's own environment is not merged into it, and slurmd does not load the account's login
 * environment (as it does for {@code --export=NONE} or a list of names, through {@code su -}, which cannot carry the
 * declared variables either). The declared variables never pass through sbatch's own environment, where
 * {@code SBATCH_*} and {@code SLURM_*} names would be read as sbatch options. sbatch itself runs with only
 * {@code SLURM_CONF} and umask 077, which Slurm gives the job: its output file is
 * 0600.
 */
class SlurmActions {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmActions.class);
    /** sbatch's words for failures of the transport, not of the request: the outcome is unknown. */
    private static final List<String> TRANSIENT = List.of("Socket timed out", "Connection refused",
            "Connection reset", "Unable to contact slurm controller", "Zero Bytes were transmitted",
            "Slurm backup controller in standby mode", "Communication connection failure", "Transport endpoint",
            "Resource temporarily unavailable");

    /** A job's PATH: Debian's login PATH for users (login.defs ENV_PATH), and for root (ENV_SUPATH). */
    static final String USER_PATH = "/usr/local/bin:/usr/bin:/bin";
    static final String ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** The variable names Slurm passes to a job; it drops any other from an export file without a word. */
    static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Commands commands;
    private final SlurmConfig config;
    private final UnixAccounts accounts;
    private UnixAccounts.Account self;

    SlurmActions(Commands commands, SlurmConfig config) {
        this(commands, config, UnixAccounts.getent(config.commandTimeout()));
    }

    SlurmActions(Commands commands, SlurmConfig config, UnixAccounts accounts) {
        this.commands = commands;
        this.config = config;
        this.accounts = accounts;
    }

    /**
     * Who a job runs as and where.
     *
     * @param account    the Unix account it runs as
     * @param switchUser sbatch must submit it as that account ({@code --uid}/{@code --gid}): it is not the service's
     * @param dir        its working directory, where its output file goes
     */
    record JobIdentity(UnixAccounts.Account account, boolean switchUser, Path dir) {
    }

    /**
     * Who {@code launch} runs as: its account, or the service's own user when it names none.
     *
     * @throws BackendException            if it must not or cannot run: the account does not exist here, it is root
     *                                     and root jobs are not allowed, or the service cannot switch users
     * @throws BackendUnavailableException if the passwd database could not be read (nothing is known)
     */
    /** Where a switched job of an account without a home works and writes its output (0600, its own). */
    static final Path NO_HOME = Path.of("/tmp");

    JobIdentity identity(Launch launch) {
        UnixAccounts.Account me = self();
        UnixAccounts.Account who = me;
        if (launch.account() != null) {
            who = accounts.find(launch.account()).orElseThrow(() -> new BackendException(launch.attempt()
                    + " runs as Unix account '" + launch.account() + "', which does not exist on the Allot host"
                    + " (getent passwd " + launch.account() + " found nothing); create it there and on every Slurm"
                    + " node, or map the user to an existing account"));
        }
        if (who.root() && !config.rootWorkloads()) {
            throw new BackendException(launch.attempt() + " would run as root ("
                    + (launch.account() != null ? "its account is '" + who.name() + "'"
                    : "it names no account and the service runs as " + me.name())
                    + "); Allot starts no workload as root unless the service is told to allow root workloads");
        }
        boolean switchUser = who.uid() != me.uid();
        if (switchUser && !me.root()) {
            throw new BackendException(launch.attempt() + " runs as Unix account '" + who.name() + "', but the"
                    + " service runs as " + me.name() + ", not root: Slurm lets only root submit a job as another"
                    + " user (sbatch --uid)");
        }
        // A job of the service's own account (none named, or the service's) needs no switch and works where the
        // service's jobs do; a switched one works in its account's home, or in /tmp when the account has none (the
        // demo as root maps every user to nobody, whose home /nonexistent makes slurmd refuse to start the job).
        Path dir = !switchUser ? config.workDir() : accounts.homeExists(who) ? who.home() : NO_HOME;
        return new JobIdentity(who, switchUser, dir);
    }

    private synchronized UnixAccounts.Account self() {
        if (self == null) {
            self = accounts.self();
        }
        return self;
    }

    /**
     * The environment a job starts with: the account's {@code PATH}, {@code HOME} and {@code USER}, then the
     * workload's declared variables (which may set those three too), then Allot's {@code ALLOT_*}.
     *
     * @throws BackendException if a declared name is one Slurm would drop (only letters, digits and '_' pass)
     */
    static SortedMap<String, String> jobEnvironment(Launch launch, UnixAccounts.Account account) {
        SortedMap<String, String> env = new TreeMap<>();
        env.put("PATH", account.root() ? ROOT_PATH : USER_PATH);
        env.put("HOME", account.home().toString());
        env.put("USER", account.name());
        for (Map.Entry<String, String> e : launch.environment().entrySet()) {
            if (!VARIABLE.matcher(e.getKey()).matches()) {
                throw new BackendException(launch.attempt() + ": Slurm passes only environment variables named"
                        + " with letters, digits and '_', not starting with a digit; got '" + e.getKey() + "'");
            }
            if (e.getValue().indexOf('\0') >= 0) {
                throw new BackendException(launch.attempt() + ": the value of " + e.getKey() + " contains a NUL"
                        + " character, which no environment can hold");
            }
            env.put(e.getKey(), e.getValue());
        }
        env.put("ALLOT_WORKLOAD_ID", launch.attempt().workloadId());
        env.put("ALLOT_ATTEMPT", Integer.toString(launch.attempt().attempt()));
        if (launch.startedAtMillis() != null) {
            env.put(Launch.STARTED_AT_VARIABLE, Long.toString(launch.startedAtMillis()));
        }
        return env;
    }

    /** An {@code --export-file}: each {@code NAME=value} followed by a NUL. */
    static byte[] exportFile(Map<String, String> env) {
        StringBuilder b = new StringBuilder();
        env.forEach((k, v) -> b.append(k).append('=').append(v).append('\0'));
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The sbatch options for one attempt run as {@code who} with the environment in {@code exportFile}: one job
     * with {@code --gres=gpu:N} per node when every node of the placement has N GPUs; otherwise a heterogeneous
     * job, one component per node ({@code --nodelist=NODE --nodes=1 --gres=gpu:N}, components separated by
     * {@code :}), each component repeating the job-wide options (Slurm reads them per component), the script last.
     * Why not one job: Slurm 22.05 has no request for different GPU counts on different nodes of one job. A job-wide
     * {@code --gpus=N} lets Slurm choose the split, and so does one task per GPU laid out by a hostfile
     * ({@code SLURM_HOSTFILE}, {@code --distribution=arbitrary}, {@code --gpus-per-task=1}): the hostfile lays out
     * tasks, it is no per-node request, and the allocation takes the tasks' GPUs where Slurm's selection finds them
     * (on the test cluster a 6 + 2 placement got {@code gpu:7(IDX:0-6)} + {@code gpu:1(IDX:0)}, taking a GPU Allot
     * had given the next job, which then waited in Slurm); {@code --gpus-per-node} and {@code --gres} are one count
     * for every node. A component's {@code --gres=gpu:N} is a per-node count Slurm honours or does not start the
     * job. Slurm 22.05 cannot be asked for particular GPU indexes: it takes the lowest free ones of a node, as Allot's
     * lanes do ({@code GpuLanes}), and {@link SlurmBackend} checks what it took ({@link SlurmAllocation}). The job's
     * script runs on the first component's node; {@code srun --het-group=0-K} reaches them all
     * ({@code SLURM_JOB_NODELIST_HET_GROUP_I} names each).
     */
    List<String> sbatchArgs(Launch launch, JobIdentity who, Path exportFile) {
        List<String> common = new ArrayList<>();
        common.add("--job-name=" + JobTag.name(launch.attempt()));
        common.add("--comment=" + JobTag.comment(config.instance()));
        String partition = launch.terms().unallocated() && config.freePartition() != null ? config.freePartition()
                : config.partition();
        if (partition != null) {
            common.add("--partition=" + partition);
        }
        String qos = launch.terms().unallocated() ? config.freeQos() : config.qos();
        if (qos != null) {
            common.add("--qos=" + qos);
        }
        if (config.account() != null) {
            common.add("--account=" + config.account());
        }
        common.add("--requeue");
        common.addAll(config.extraSbatchArgs());
        // Identity and environment come after the operator's extra options, which cannot override them.
        if (who.switchUser()) {
            common.add("--uid=" + who.account().name());
            common.add("--gid=" + who.account().gid());
        }
        common.add("--chdir=" + who.dir());
        common.add("--output=" + who.dir().resolve("allot-%j.out"));
        common.add("--export-file=" + exportFile);

        List<String> a = new ArrayList<>();
        a.add("--parsable");
        if (uniform(launch)) {
            List<String> nodes = new ArrayList<>();
            for (Launch.NodeGpus ng : launch.placement()) {
                nodes.add(ng.node());
            }
            a.addAll(common);
            a.add(SINGLETON);
            a.add("--nodelist=" + String.join(",", nodes));
            a.add("--nodes=" + nodes.size());
            a.add("--gres=gpu:" + launch.placement().get(0).gpus().size());
        } else {
            for (Launch.NodeGpus ng : launch.placement()) {
                if (a.size() > 1) {
                    a.add(":");
                }
                a.addAll(common);
                a.add("--nodelist=" + ng.node());
                a.add("--nodes=1");
                a.add("--gres=gpu:" + ng.gpus().size());
            }
        }
        a.add("--wrap=" + OnceGuard.script(launch.attempt(), config.instance(), commands.executable("squeue"),
                shellCommand(launch.command()), uniform(launch)));
        return a;
    }

    /**
     * At most one job of a name and user runs at a time: a second submission of one attempt (same name, same account)
     * waits in Slurm, reason {@code Dependency}, while the first is pending with a lower id or running, and the
     * observer cancels it there ({@link SlurmObserver}). Only on a job that is not heterogeneous: on a heterogeneous
     * one Slurm 22.05 puts the dependency on a later component, which its own leader (pending, lower id) then holds
     * for ever (tried on the test cluster: both components pending, the later one for {@code Dependency}).
     */
    static final String SINGLETON = "--dependency=singleton";

    /** Whether every node of the placement has as many GPUs (then one job with {@code --gres=gpu:N} says it all). */
    static boolean uniform(Launch launch) {
        return launch.placement().stream().map(ng -> ng.gpus().size()).distinct().count() == 1;
    }

    /**
     * Submits one attempt as {@code who} ({@link #identity}) and returns its job id.
     *
     * @throws BackendException when sbatch refused the request itself (a bad partition, nodes that cannot hold it)
     * @throws BackendUnavailableException when the outcome is unknown (sbatch failed to talk to the controller,
     *                                     timed out, or printed no job id): the job may or may not exist
     */
    long submit(Launch launch, JobIdentity who) {
        SortedMap<String, String> jobEnv = jobEnvironment(launch, who.account());
        // sbatch's own environment: what it needs to submit, nothing of the service's (see the class comment).
        Map<String, String> sbatchEnv = new TreeMap<>();
        Path exportFile;
        try {
            // A new temporary file is 0600 on POSIX: the declared values may be secrets. sbatch reads it at once.
            exportFile = Files.createTempFile("allot-job-env", ".env");
        } catch (IOException e) {
            throw new BackendUnavailableException("could not write the environment of " + launch.attempt() + " for"
                    + " sbatch: " + e.getMessage(), e);
        }
        Commands.Result r;
        try {
            Files.write(exportFile, exportFile(jobEnv));
            r = commands.runIsolated("sbatch", sbatchArgs(launch, who, exportFile), sbatchEnv);
        } catch (IOException e) {
            throw new BackendUnavailableException("could not write the environment of " + launch.attempt() + " for"
                    + " sbatch: " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(exportFile);
            } catch (IOException e) {
                LOG.warn("could not delete {}, the environment of {} for sbatch: {}", exportFile, launch.attempt(),
                        e.getMessage());
            }
        }
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

    /**
     * Sets a job's comment ({@code scontrol update JobId=ID Comment=...}), e.g. to say why Allot stops it, so that
     * {@code squeue}, {@code scontrol show job} and accounting show it; true if scontrol said ok.
     */
    boolean comment(long jobId, String comment) {
        return update(jobId, "Comment", comment).ok();
    }

    /**
     * Asks Slurm to change one field of a job ({@code scontrol update JobId=ID FIELD=VALUE}) and returns what scontrol
     * said, which proves nothing either way (it has printed "Access/permission denied" for a change it applied): the
     * caller reads the job back ({@link #showJob}).
     *
     * @throws BackendUnavailableException if scontrol could not be run or did not answer in time (outcome unknown)
     */
    Commands.Result update(long jobId, String field, String value) {
        return commands.run("scontrol", List.of("update", "JobId=" + jobId, field + "=" + value));
    }

    /**
     * A job as {@code scontrol -o show job ID} shows it: one line of {@code Key=Value} pairs per component (one line
     * for a job that is not heterogeneous), or empty when Slurm says it does not know the job ("Invalid job id").
     *
     * @throws BackendUnavailableException if scontrol failed in any other way: nothing is known
     */
    Optional<List<String>> showJob(long jobId) {
        Commands.Result r = commands.run("scontrol", List.of("-o", "show", "job", Long.toString(jobId)));
        if (r.exit() == 1 && r.err().contains("Invalid job id")) {
            return Optional.empty();
        }
        List<String> lines = r.out().lines().filter(l -> l.startsWith("JobId=")).toList();
        if (!r.ok() || lines.isEmpty()) {
            throw new BackendUnavailableException("could not read Slurm job " + jobId + ": " + r.summary()
                    + (r.ok() ? " (printed no job)" : ""));
        }
        return Optional.of(lines);
    }

    /**
     * What Slurm allocated to a running job, node by node ({@code scontrol -o -d show job ID}).
     *
     * @throws BackendUnavailableException if scontrol failed or printed no allocation: nothing is known
     */
    SlurmAllocation allocation(long jobId) {
        Commands.Result r = commands.run("scontrol", List.of("-o", "-d", "show", "job", Long.toString(jobId)));
        if (!r.ok()) {
            throw new BackendUnavailableException("could not read what Slurm allocated to job " + jobId + ": "
                    + r.summary());
        }
        try {
            return SlurmAllocation.parse(r.out());
        } catch (IllegalArgumentException e) {
            throw new BackendUnavailableException("job " + jobId + ": " + e.getMessage());
        }
    }

    /**
     * Ends a job ({@code scancel ID}: Slurm marks it CANCELLED at once, sends SIGCONT and SIGTERM to its script and
     * steps, SIGKILL after its {@code KillWait}); true if scancel said ok. Of a heterogeneous job, the leader's id
     * ends every component.
     */
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
        Commands.Result r = commands.runIsolated("sbatch", a, Map.of());
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
