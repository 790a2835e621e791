package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * An in-memory Slurm for {@link SlurmBackend}: a job table the test edits, probes that can be told to fail, and
 * actions that act on the table and are recorded in {@link #log}. Job ids start at 100 (the first is the lock job).
 */
final class FakeSlurm implements SlurmProbe {
    /** Where sbatch would read a job's environment (never written: the fake only reads the options). */
    private static final Path ENV_FILE = Path.of("/tmp/allot-job-env.env");

    /** How the next {@code sbatch} turns out. */
    enum Submit { OK, APPLIED_BUT_UNAVAILABLE, UNAVAILABLE, APPLIED_BUT_REFUSED, REFUSED, LANDS_LATE }

    SlurmConfig config;
    final TestClock clock = new TestClock();
    Actions actions;
    final Map<Long, SlurmJob> jobs = new TreeMap<>();
    final Map<String, SlurmNode> nodes = new TreeMap<>();
    /** What was asked of Slurm: {@code submit w-1#1}, {@code cancel 101}, {@code signal 101 TERM}, ... */
    final List<String> log = new ArrayList<>();
    final Set<Long> hiddenFromListing = new HashSet<>();
    /** The placement each job was submitted with: what {@code scontrol -d} shows unless {@link #allocated} says. */
    final Map<Long, List<Launch.NodeGpus>> submittedPlacement = new TreeMap<>();
    /** What Slurm allocated to a job, when it is not its submitted placement. */
    final Map<Long, SlurmAllocation> allocated = new TreeMap<>();
    /** Each job's QOS, as {@code scontrol show job} shows it; {@code (null)} when not set (no accounting). */
    final Map<Long, String> qos = new TreeMap<>();
    /** What {@code scontrol update ... QOS=} prints and exits with; whether Slurm applies it to a job not pending. */
    String qosUpdateErr = "Job is no longer pending execution for job %d";
    int qosUpdateExit = 1;
    boolean qosChangesWhileRunning;
    /** Where {@code scontrol show job} says jobs write their output ({@code StdOut=DIR/allot-<id>.out}). */
    Path outputDir = Path.of("/srv/allot");
    /** Whom {@code scontrol show job} says jobs run as ({@code UserId=}). */
    String outputUser = "root(0)";
    /** {@code scontrol} cannot reach the controller: updates and {@code show job} fail. */
    boolean scontrolDown;
    /** {@code scontrol -d show job} fails (the allocation cannot be read). */
    boolean allocationUnreadable;
    private long nextId = 100;
    private int probesToFail;
    /** Listings still to come cut short before their newest job, at the end of a line: whole-looking, not whole. */
    private int listingsToCut;
    boolean lookupsFail;
    boolean cancelTakesEffect = true;
    /** scancel exits non-zero (whether or not it took effect, per cancelTakesEffect). */
    boolean cancelReportsFailure;
    /** Runs just before this instance's lock job is made (another instance racing it). */
    Runnable beforeSubmitLock = () -> { };
    int probeCalls;
    private Submit nextSubmit = Submit.OK;
    /** Runs inside the next {@code sbatch}, before its job exists: another service acting while it is in flight. */
    private Runnable duringNextSubmit = () -> { };
    /** Submissions whose sbatch gave up ({@link Submit#LANDS_LATE}) that slurmctld has not taken in yet. */
    private final List<Launch> late = new ArrayList<>();
    /** Jobs submitted with {@code --dependency=singleton}, as {@link SlurmActions#sbatchArgs} asked. */
    final Set<Long> singleton = new HashSet<>();
    /** Every job Slurm ever started (RUNNING at some moment): what ran its command. */
    final Set<Long> ran = new java.util.TreeSet<>();

    FakeSlurm(String instance) {
        // The service runs as root (SlurmActionsTest.passwd); its tests' launches name no account: allowed here.
        config = SlurmConfig.defaults(null, Path.of("/srv/allot"), instance).withRootWorkloads(true);
        actions = new Actions(config);
    }

    /** The same Slurm, its service refusing root jobs ({@code false}) or not. */
    FakeSlurm withRootWorkloads(boolean allowed) {
        config = config.withRootWorkloads(allowed);
        actions = new Actions(config);
        return this;
    }

    /** The same Slurm, allocated and unallocated work in these QOS (as with accounting). */
    FakeSlurm withQos(String allocated, String free) {
        config = config.withQos(allocated, free);
        actions = new Actions(config);
        return this;
    }

    /** A backend over this Slurm, holding the instance lock. */
    SlurmBackend backend() {
        SlurmBackend b = new SlurmBackend(config, this, actions, clock);
        b.takeLock(Duration.ZERO);
        return b;
    }

    static Launch launch(AttemptKey key) {
        return SlurmActionsTest.launch(key.workloadId(), key.attempt(), Launch.Terms.ALLOCATED, "n1", 2);
    }

    // ---- the job table ----

    /** A job with an attempt's tag, of this instance, pending. */
    Job job(AttemptKey key) {
        return new Job(JobTag.name(key)).comment(JobTag.comment(config.instance()));
    }

    long add(Job j) {
        long id = j.id > 0 ? j.id : nextId++;
        nextId = Math.max(nextId, id + 1);
        put(j.id(id).build());
        return id;
    }

    void set(long id, UnaryOperator<Job> change) {
        put(change.apply(Job.from(jobs.get(id))).build());
    }

    private void put(SlurmJob j) {
        jobs.put(j.id(), j);
        if (j.state().equals("RUNNING")) {
            ran.add(j.id());
        }
    }

    /**
     * One pass of Slurm's scheduler over the attempts' pending jobs, oldest first: each starts on its placement's
     * nodes unless it was submitted with {@code --dependency=singleton} and another job of its name (the fake has
     * one user) is running, or pending with a lower id; then it waits, reason {@code Dependency}. That is the test
     * Slurm 22.05 makes for a singleton (checked on the test cluster: the second of two such jobs pends with reason
     * Dependency while the first runs).
     */
    void schedule() {
        for (SlurmJob j : List.copyOf(jobs.values())) {
            if (!j.state().equals("PENDING") || JobTag.parse(j.name()).isEmpty()) {
                continue;
            }
            boolean blocked = singleton.contains(j.id()) && jobs.values().stream().anyMatch(o -> o.id() != j.id()
                    && o.name().equals(j.name()) && (o.state().equals("RUNNING") || o.state().equals("COMPLETING")
                    || o.state().equals("SUSPENDED") || (o.pending() && o.id() < j.id())));
            if (blocked) {
                set(j.id(), b -> b.reason("Dependency"));
            } else {
                String[] nodes = submittedPlacement.getOrDefault(j.id(), List.of()).stream()
                        .map(Launch.NodeGpus::node).toArray(String[]::new);
                set(j.id(), b -> b.state("RUNNING").reason("None").nodes(nodes));
            }
        }
    }

    /** The command of the job ends with exit 0. */
    void complete(long id) {
        set(id, b -> b.state("COMPLETED").exit(0));
    }

    /** Runs {@code r} inside the next sbatch, before its job exists (another service's call, a late landing). */
    void duringNextSubmit(Runnable r) {
        duringNextSubmit = r;
    }

    /** slurmctld takes in the sbatches that gave up ({@link Submit#LANDS_LATE}): their jobs exist from now. */
    void landLate() {
        for (Launch l : List.copyOf(late)) {
            late.remove(l);
            long id = add(job(l.attempt()));
            submittedPlacement.put(id, l.placement());
            if (actions.sbatchArgs(l, actions.identity(l), ENV_FILE).contains("--dependency=singleton")) {
                singleton.add(id);
            }
        }
    }

    List<SlurmJob> named(AttemptKey key) {
        return jobs.values().stream().filter(j -> j.name().equals(JobTag.name(key))).toList();
    }

    long idOf(AttemptKey key) {
        List<SlurmJob> js = named(key);
        if (js.size() != 1) {
            throw new AssertionError(key + " has " + js.size() + " jobs: " + js);
        }
        return js.get(0).id();
    }

    List<String> submissions() {
        return log.stream().filter(s -> s.startsWith("submit ")).toList();
    }

    void nextSubmit(Submit outcome) {
        nextSubmit = outcome;
    }

    void failNextProbes(int n) {
        probesToFail = n;
    }

    void cutNextListings(int n) {
        listingsToCut = n;
    }

    void node(String name, String state, String reason, String... flags) {
        nodes.put(name, new SlurmNode(name, 8, state, List.of(flags), reason));
    }

    // ---- SlurmProbe ----

    private void maybeFail(String what) {
        probeCalls++;
        if (probesToFail > 0) {
            probesToFail--;
            throw new BackendUnavailableException("squeue did not answer within 10000 ms (" + what + ")");
        }
    }

    @Override
    public List<SlurmJob> jobs() {
        maybeFail("jobs");
        List<SlurmJob> listed = jobs.values().stream().filter(j -> !hiddenFromListing.contains(j.id())).toList();
        if (listingsToCut > 0 && !listed.isEmpty()) {
            listingsToCut--;
            return listed.subList(0, listed.size() - 1);
        }
        return listed;
    }

    @Override
    public Optional<SlurmJob> job(long id) {
        maybeFail("job " + id);
        if (lookupsFail) {
            throw new BackendUnavailableException("scontrol show job " + id + " exited 1: Socket timed out");
        }
        return Optional.ofNullable(jobs.get(id));
    }

    @Override
    public List<SlurmNode> nodes() {
        maybeFail("nodes");
        return List.copyOf(nodes.values());
    }

    @Override
    public String name() {
        return "fake";
    }

    /** sbatch, scancel and scontrol update, on the table. */
    final class Actions extends SlurmActions {
        Actions(SlurmConfig config) {
            super(new Commands(config), config, SlurmActionsTest.passwd("root"));
        }

        @Override
        long submit(Launch launch, JobIdentity who) {
            AttemptKey key = launch.attempt();
            log.add("submit " + key + (who.switchUser() ? " as " + who.account().name() : ""));
            Submit outcome = nextSubmit;
            nextSubmit = Submit.OK;
            Runnable during = duringNextSubmit;
            duringNextSubmit = () -> { };
            during.run();
            long id = switch (outcome) {
                case OK, APPLIED_BUT_UNAVAILABLE -> add(job(key));
                case APPLIED_BUT_REFUSED -> add(job(key).state("FAILED").reason("BadConstraints").exit(1));
                default -> -1;
            };
            if (outcome == Submit.LANDS_LATE) {
                late.add(launch);
            }
            if (id > 0) {
                submittedPlacement.put(id, launch.placement());
                if (sbatchArgs(launch, who, ENV_FILE).contains("--dependency=singleton")) {
                    singleton.add(id);
                }
            }
            return switch (outcome) {
                case OK -> id;
                case APPLIED_BUT_UNAVAILABLE, UNAVAILABLE, LANDS_LATE -> throw new BackendUnavailableException(
                        "sbatch did not answer within 10000 ms (killed); its outcome is unknown");
                case APPLIED_BUT_REFUSED, REFUSED -> throw new BackendException("Slurm refused " + key
                        + ": Requested node configuration is not available");
            };
        }

        @Override
        boolean comment(long jobId, String comment) {
            log.add("comment " + jobId + " " + comment);
            set(jobId, b -> b.comment(comment));
            return true;
        }

        /** Comment always; QOS as {@link #qosChangesWhileRunning} says; partition only while pending. */
        @Override
        Commands.Result update(long jobId, String field, String value) {
            log.add("update " + jobId + " " + field + "=" + value);
            List<String> cmd = List.of("scontrol", "update", "JobId=" + jobId, field + "=" + value);
            if (scontrolDown) {
                throw new BackendUnavailableException("scontrol did not answer within 10000 ms (killed); its outcome"
                        + " is unknown");
            }
            SlurmJob j = jobs.get(jobId);
            switch (field) {
                case "Comment" -> set(jobId, b -> b.comment(value));
                case "QOS" -> {
                    if (j.pending() || qosChangesWhileRunning) {
                        qos.put(jobId, value);
                    }
                    if (!j.pending()) {
                        return new Commands.Result(cmd, qosUpdateExit, "", qosUpdateErr.formatted(jobId) + "\n");
                    }
                }
                case "Partition" -> {
                    if (!j.pending()) {
                        return new Commands.Result(cmd, 1, "", "Job is no longer pending execution for job " + jobId
                                + "\n");
                    }
                    set(jobId, b -> b.partition(value));
                }
                default -> throw new AssertionError("the fake does not update " + field);
            }
            return new Commands.Result(cmd, 0, "", "");
        }

        /** The fields Allot reads, in {@code scontrol -o show job}'s order and spelling. */
        @Override
        Optional<List<String>> showJob(long jobId) {
            log.add("show " + jobId);
            if (scontrolDown) {
                throw new BackendUnavailableException("could not read Slurm job " + jobId + ": scontrol -o ... exited"
                        + " 1: slurm_load_jobs error: Unable to contact slurm controller (connect failure)");
            }
            SlurmJob j = jobs.get(jobId);
            if (j == null) {
                return Optional.empty();
            }
            return Optional.of(List.of("JobId=" + jobId + " JobName=" + j.name() + " UserId=" + outputUser
                    + " Account=(null)"
                    + " QOS=" + qos.getOrDefault(jobId, "(null)") + " JobState=" + j.state() + " Reason=" + j.reason()
                    + " Requeue=1 Restarts=" + j.restarts() + " ExitCode=0:0 Partition=" + j.partition()
                    + " NodeList=" + (j.nodes().isEmpty() ? "(null)" : String.join(",", j.nodes()))
                    + " Comment=" + (j.comment().isEmpty() ? "(null)" : j.comment())
                    + " BatchHost=" + (j.nodes().isEmpty() ? "(null)" : j.nodes().get(0))
                    + " StdErr=" + outputDir.resolve("allot-" + jobId + ".out") + " StdIn=/dev/null"
                    + " StdOut=" + outputDir.resolve("allot-" + jobId + ".out") + " Power="));
        }

        @Override
        SlurmAllocation allocation(long jobId) {
            log.add("allocation " + jobId);
            if (allocationUnreadable) {
                throw new BackendUnavailableException("scontrol -o -d ... exited 1: Socket timed out");
            }
            if (allocated.containsKey(jobId)) {
                return allocated.get(jobId);
            }
            Map<String, SlurmAllocation.NodeGres> m = new TreeMap<>();
            for (Launch.NodeGpus ng : submittedPlacement.getOrDefault(jobId, List.of())) {
                m.put(ng.node(), new SlurmAllocation.NodeGres(ng.gpus().size(), ng.gpus()));
            }
            return new SlurmAllocation(m);
        }

        @Override
        boolean cancel(long jobId) {
            log.add("cancel " + jobId);
            SlurmJob j = jobs.get(jobId);
            if (cancelTakesEffect && j != null && !j.ended()) {
                set(jobId, b -> b.state("CANCELLED"));
            }
            return !cancelReportsFailure;
        }

        @Override
        boolean drain(String node, String reason) {
            log.add("drain " + node + " " + reason);
            SlurmNode n = nodes.get(node);
            List<String> flags = new ArrayList<>(n.flags());
            flags.add("DRAIN");
            nodes.put(node, new SlurmNode(node, n.gpus(), n.state(), flags, reason));
            return true;
        }

        @Override
        boolean resume(String node) {
            log.add("resume " + node);
            SlurmNode n = nodes.get(node);
            nodes.put(node, new SlurmNode(node, n.gpus(), n.state(),
                    n.flags().stream().filter(f -> !f.equals("DRAIN")).toList(), ""));
            return true;
        }

        @Override
        long submitLock() {
            beforeSubmitLock.run();
            log.add("submitLock");
            return add(new Job(JobTag.LOCK_NAME).comment(JobTag.comment(config.instance())).reason("JobHeldUser"));
        }
    }

    /** A job being written: {@code new Job("allot:w-1#1").state("RUNNING").nodes("n1", "n2")}. */
    static final class Job {
        private long id;
        private final String name;
        private String comment = "";
        private String state = "PENDING";
        private String reason = "None";
        private Integer exit = 0;
        private int restarts;
        private List<String> nodes = List.of();
        private String partition = SlurmConfig.DEFAULT_PARTITION;
        private long hetJobId;
        private int hetOffset;
        private Long endTimeMillis;

        Job(String name) {
            this.name = name;
        }

        static Job from(SlurmJob j) {
            Job b = new Job(j.name()).id(j.id()).comment(j.comment()).state(j.state()).reason(j.reason())
                    .exit(j.exitStatus()).restarts(j.restarts());
            b.nodes = j.nodes();
            b.partition = j.partition();
            b.hetJobId = j.hetJobId();
            b.hetOffset = j.hetOffset();
            b.endTimeMillis = j.endTimeMillis();
            return b;
        }

        Job id(long v) {
            id = v;
            return this;
        }

        Job comment(String v) {
            comment = v;
            return this;
        }

        Job state(String v) {
            state = v;
            return this;
        }

        Job reason(String v) {
            reason = v;
            return this;
        }

        /** The wait status, as squeue reports it: 768 is exit 3. */
        Job exit(Integer v) {
            exit = v;
            return this;
        }

        Job restarts(int v) {
            restarts = v;
            return this;
        }

        Job partition(String v) {
            partition = v;
            return this;
        }

        Job nodes(String... v) {
            nodes = List.of(v);
            return this;
        }

        /** Slurm's EndTime: when it ended, once ended. */
        Job endTime(Instant v) {
            endTimeMillis = v == null ? null : v.toEpochMilli();
            return this;
        }

        /** A component of heterogeneous job {@code leader} at {@code offset}. */
        Job het(long leader, int offset) {
            hetJobId = leader;
            hetOffset = offset;
            return this;
        }

        SlurmJob build() {
            return new SlurmJob(id, name, comment, state, reason, exit, restarts, nodes, partition, hetJobId, hetOffset,
                    endTimeMillis);
        }
    }

    /** A clock the test moves. */
    static final class TestClock extends Clock {
        private Instant now = Instant.parse("2026-12-01T10:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
