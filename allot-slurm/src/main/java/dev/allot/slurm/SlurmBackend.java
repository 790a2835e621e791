package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Allot's attempts on a real Slurm cluster. Allot decides what runs where and when; Slurm starts, stops and
 * isolates the jobs.
 *
 * <p><b>Mapping.</b> Each attempt is one batch job on exactly the nodes the policy chose ({@code --nodelist},
 * {@code --gres=gpu:N} per node, or a heterogeneous job of one component per node when the counts differ: see
 * {@link SlurmActions#sbatchArgs}), named {@code allot:<workload>#<attempt>} with the instance in its comment
 * ({@link JobTag}), in the protected partition (or QOS) for allocated work and the preemptible one for unallocated
 * work. Slurm lists each component of a heterogeneous job as a job of its own; the backend reads them as one, the
 * leader's ({@link SlurmJob#joinComponents}).
 *
 * <p><b>Slurm runs what Allot placed, or it does not run.</b> The first time an attempt's job is seen running, what
 * Slurm allocated ({@code scontrol -o -d show job}: GPUs per node, and their indexes where gres.conf names devices)
 * is compared with the placement ({@link SlurmAllocation}); until then the attempt is reported starting. A job
 * that got other GPU counts is cancelled and its attempt reported {@link Phase#FAILED_TO_START}, naming what was
 * placed and what Slurm gave: run so, it would hold GPUs Allot gives to other work, which would then wait in Slurm
 * while Allot counts them running. Other indexes with the right counts are logged and counted
 * ({@code allocation_index_differences}), not failed: see {@link SlurmAllocation} for why.
 *
 * <p><b>Stopping.</b> Allot notes why in the job's comment ({@code allot:<instance> preempted by <workload>}), then
 * {@code scancel}s it: Slurm records it CANCELLED at once and sends SIGTERM, then SIGKILL after its
 * {@code KillWait}, which is the grace period on Slurm. (Signalling first, {@code scancel --full --signal=TERM},
 * and cancelling after Allot's own grace left every workload that exits on SIGTERM recorded as FAILED, reason
 * JobLaunchFailure, exit 0:15: a preemption read as a broken launch in Slurm's accounting.) Each job runs as its
 * launch's Unix account, with an environment built for it (see {@link SlurmActions}). A preempted resumable
 * workload is not requeued inside Slurm: its attempt ends, and its next attempt is a new job where and when Allot
 * decides (a Slurm requeue would let Slurm's scheduler pick the time and place, fighting Allot's).
 *
 * <p><b>Promotion in place.</b> When Allot makes a running attempt's unallocated work allocated ({@link #promote}),
 * its job keeps running where it is: {@link SlurmPromotion} moves its QOS when allocated work has one, and reads it
 * back; a running job's partition cannot change, and the answer says so. Its comment notes since when Allot
 * protects it. Nothing is requeued or resubmitted.
 *
 * <p><b>Never a failure read as an absence.</b> Every probe either parses a complete answer or throws
 * {@link BackendUnavailableException}, and then nothing is concluded: {@link #observe} throws (the loop skips what
 * depends on it), {@link #start} cannot tell whether a job exists and says so. A job Allot tracks that is missing
 * from a complete listing is looked up by id before it is reported ended; a lookup that fails reports it
 * {@link Phase#UNKNOWN}.
 *
 * <p><b>Exactly once.</b> Before submitting, {@link #start} looks for a job with the attempt's name (in a listing
 * taken after any submission whose outcome was unknown), so retries and restarts adopt rather than resubmit. Should
 * two jobs ever carry one attempt's name, all but the oldest are cancelled at once and counted. A held placeholder job
 * ({@link InstanceLock}) marks which Allot instance drives the cluster: a second instance is refused.
 *
 * <p><b>A cycle's commands together.</b> {@link #startAll} and {@link #stopAll} take the starts and the stops the
 * scheduler decided at one instant: what needs this backend's books (the listing, adoption, the identity checks) is
 * done one attempt after another as for a single call, and only the commands ({@code sbatch}; a stop's comment, then
 * its {@code scancel}) run at once ({@link CommandBatch}), their answers applied afterwards in the order given. One
 * after another, each command 0.1 to 0.8 s on a loaded machine, the last start of a busy instant reached Slurm seconds
 * after its decision, and a preemption's {@code scancel} could arrive after the workload had ended by itself.
 *
 * <p><b>Slurm's own requeues.</b> When Slurm requeues an attempt's job (its node failed), the requeued job is
 * cancelled before it can run again and the attempt is reported stopped: the loop counts it lost, and a resumable
 * workload gets a new attempt where Allot chooses.
 */
public final class SlurmBackend implements Backend, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmBackend.class);
    /** What a drain's reason starts with: Allot resumes only nodes it drained itself. */
    public static final String DRAIN_PREFIX = "allot: ";
    /** How old a listing {@link #start} may rely on to say that no job has an attempt's name. */
    static final long LISTING_FRESH_MILLIS = 2_000;
    /** How long after a failed probe {@link #start} fails at once rather than probing again. */
    static final long FAIL_FAST_MILLIS = 500;

    private final SlurmConfig config;
    private final SlurmProbe probe;
    private final SlurmActions actions;
    private final SlurmPromotion promotion;
    private final Clock clock;
    /** Runs a batch's sbatches or scancels at once. */
    private final CommandBatch commands = new CommandBatch();

    /** Attempts Allot knows the job of: started here, or found by name. */
    private final Map<AttemptKey, Tracked> tracked = new TreeMap<>();
    private final Set<AttemptKey> forgotten = new TreeSet<>();
    /** Duplicate jobs already counted in {@link Counters#duplicatesCancelled}. */
    private final Set<Long> duplicatesSeen = new TreeSet<>();
    /**
     * Attempts asked to stop that Slurm has no job for: they never started ({@link Phase#NEVER_STARTED}), whether their
     * sbatch failed here or they were launched by an Allot process that died before its sbatch (a restart).
     */
    private final Map<AttemptKey, AttemptStatus> neverStarted = new TreeMap<>();
    /** Attempts whose submission had an unknown outcome, and when: only a later listing can say. */
    private final Map<AttemptKey, Long> uncertainSince = new TreeMap<>();
    private List<SlurmJob> lastListing;
    private long lastListingAt = Long.MIN_VALUE / 2;
    private long lastProbeFailureAt = Long.MIN_VALUE / 2;
    private String lastProbeFailure;
    private final InstanceLock lock;
    private final Counters counters = new Counters();

    /** One attempt's job and what Allot asked of it. */
    private static final class Tracked {
        final long jobId;
        /** The placement it was launched with; null for a job found in a listing (nothing to compare with). */
        final List<Launch.NodeGpus> placement;
        SlurmJob last;
        boolean stopRequested;
        boolean killSent;
        boolean requeueCancelled;
        /** Slurm's allocation was found to be the placement. */
        boolean verified;
        /** How Slurm's allocation differs from the placement; the job is being cancelled. */
        String mismatch;

        Tracked(long jobId, List<Launch.NodeGpus> placement) {
            this.jobId = jobId;
            this.placement = placement;
        }
    }

    /** What the backend has had to deal with, for metrics. Read with {@link #counters()}. */
    static final class Counters {
        long probeFailures;
        long submissions;
        long adoptions;
        long duplicatesCancelled;
        long slurmRequeues;
        long missingConfirmed;
        long commandClaimsCorrected;
        long allocationMismatches;
        long allocationIndexDifferences;
        long promotionsMirrored;
        long promotionsNotMirrored;
    }

    SlurmBackend(SlurmConfig config, SlurmProbe probe, SlurmActions actions, Clock clock) {
        this.config = config;
        this.probe = probe;
        this.actions = actions;
        this.promotion = new SlurmPromotion(config, actions);
        this.clock = clock;
        this.lock = new InstanceLock(config.instance(), actions);
    }

    /**
     * Connects to the cluster the configuration names and takes its instance lock.
     *
     * @throws BackendException if another Allot instance drives the cluster, or Slurm cannot be reached
     */
    public static SlurmBackend connect(SlurmConfig config, Clock clock) {
        Commands commands = new Commands(config);
        CliProbe cli = new CliProbe(commands, config.accounting());
        SlurmProbe probe = config.observe() == SlurmConfig.Observe.REST ? new RestProbe(config, cli) : cli;
        SlurmBackend b = new SlurmBackend(config, probe, new SlurmActions(commands, config), clock);
        b.takeLock(Duration.ofSeconds(30));
        return b;
    }

    /** Takes the instance lock, probing again for up to {@code patience} while Slurm cannot be reached. */
    synchronized void takeLock(Duration patience) {
        long until = clock.millis() + patience.toMillis();
        while (true) {
            try {
                lock.acquire(this::listJobs);
                LOG.info("Slurm backend: instance {} holds lock job {}; observing with {}", config.instance(),
                        lock.jobId(), probe.name());
                return;
            } catch (BackendUnavailableException e) {
                if (clock.millis() >= until) {
                    throw new BackendException("could not reach Slurm to take the instance lock within "
                            + patience.toSeconds() + " s: " + e.getMessage(), e);
                }
                LOG.warn("Slurm not reachable yet ({}); trying again", e.getMessage());
                sleep(500);
            }
        }
    }

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public synchronized void start(Launch launch) {
        BackendException failed = startAll(List.of(launch), OPEN).get(launch.attempt());
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Starts the attempts as {@link #start} does each: every one looked for in a listing first (adopted if found), the
     * new ones refused or submitted. The {@code sbatch}es run at once ({@link CommandBatch}), each after
     * {@code gate}; what they answered is applied in the order given.
     */
    @Override
    public synchronized Map<AttemptKey, BackendException> startAll(List<Launch> launches, Runnable gate) {
        Map<AttemptKey, BackendException> failed = new TreeMap<>();
        List<Launch> submitting = new ArrayList<>();
        List<SlurmActions.JobIdentity> whos = new ArrayList<>();
        Set<AttemptKey> asked = new TreeSet<>();
        for (Launch launch : launches) {
            AttemptKey key = launch.attempt();
            if (!asked.add(key) || tracked.containsKey(key) || forgotten.contains(key) || neverStarted.containsKey(key)) {
                continue;
            }
            try {
                lock.checkNotFenced();
                Optional<SlurmJob> existing = find(listingFor(key), key);
                if (existing.isPresent()) {
                    adopt(key, existing.get(), launch.placement(), "found in Slurm before submitting; not submitting"
                            + " again");
                    continue;
                }
                // Refused before anything reaches Slurm: a missing account, root, or a service that cannot switch users.
                whos.add(actions.identity(launch));
                submitting.add(launch);
            } catch (BackendException e) {
                failed.put(key, e);
            }
        }
        List<Callable<Long>> sbatches = new ArrayList<>();
        for (int i = 0; i < submitting.size(); i++) {
            Launch launch = submitting.get(i);
            SlurmActions.JobIdentity who = whos.get(i);
            sbatches.add(() -> {
                gate.run();
                return actions.submit(launch, who);
            });
        }
        List<CommandBatch.Done<Long>> answers = commands.run(sbatches);
        for (int i = 0; i < submitting.size(); i++) {
            Launch launch = submitting.get(i);
            try {
                submitted(launch, whos.get(i), answers.get(i));
            } catch (BackendException e) {
                failed.put(launch.attempt(), e);
            }
        }
        return failed;
    }

    /** Applies what one {@code sbatch} answered: the job tracked, or the refusal read back, or the outcome unknown. */
    private void submitted(Launch launch, SlurmActions.JobIdentity who, CommandBatch.Done<Long> answer) {
        AttemptKey key = launch.attempt();
        long id;
        try {
            id = answer.get();
        } catch (BackendUnavailableException e) {
            uncertainSince.put(key, clock.millis());
            throw e;
        } catch (BackendException refused) {
            // Read it back: Slurm has printed errors for requests it carried out.
            uncertainSince.put(key, clock.millis());
            Optional<SlurmJob> after = find(listJobs(), key);
            if (after.isPresent() && after.get().ended() && after.get().nodes().isEmpty()) {
                // Slurm 22.05 keeps a refused submission as a FAILED job that never ran: it is the refusal itself.
                uncertainSince.remove(key);
                throw new BackendException(refused.getMessage() + " (Slurm job " + after.get().id() + ", "
                        + after.get().state() + " " + after.get().reason() + ", never ran)");
            }
            if (after.isPresent()) {
                counters.commandClaimsCorrected++;
                adopt(key, after.get(), launch.placement(), "sbatch reported a refusal, but Slurm has the job");
                return;
            }
            uncertainSince.remove(key);
            throw refused;
        } catch (RuntimeException e) {
            // Not an answer of sbatch's (a fault of this process): whether it submitted is unknown.
            uncertainSince.put(key, clock.millis());
            throw new BackendUnavailableException("submitting " + key + " failed: " + e, e);
        }
        uncertainSince.remove(key);
        tracked.put(key, new Tracked(id, launch.placement()));
        counters.submissions++;
        LOG.info("submitted {} as Slurm job {} on {}, as {}", key, id, launch.placement(), who.account().name());
    }

    /** A listing recent enough to say whether an attempt's job exists: fresh if a submission of it went unanswered. */
    private List<SlurmJob> listingFor(AttemptKey key) {
        long now = clock.millis();
        Long uncertain = uncertainSince.get(key);
        boolean fresh = lastListing != null && now - lastListingAt < LISTING_FRESH_MILLIS
                && (uncertain == null || lastListingAt > uncertain);
        if (fresh) {
            return lastListing;
        }
        if (now - lastProbeFailureAt < FAIL_FAST_MILLIS) {
            throw new BackendUnavailableException("Slurm could not be read a moment ago (" + lastProbeFailure
                    + "); cannot tell whether " + key + " was submitted");
        }
        return listJobs();
    }

    private Optional<SlurmJob> find(List<SlurmJob> listing, AttemptKey key) {
        String name = JobTag.name(key);
        SlurmJob ours = null;
        for (SlurmJob j : listing) {
            if (!j.name().equals(name)) {
                continue;
            }
            Optional<String> inst = JobTag.instance(j.comment());
            if (inst.isPresent() && !inst.get().equals(config.instance())) {
                if (!j.ended()) {
                    throw new BackendException("attempt " + key + " is already Slurm job " + j.id() + " of another"
                            + " Allot instance '" + inst.get() + "'; two Allot instances must not drive one Slurm"
                            + " cluster (this one is '" + config.instance() + "')");
                }
                continue;
            }
            if (ours == null || j.id() < ours.id()) {
                ours = j;
            }
        }
        return Optional.ofNullable(ours);
    }

    private void adopt(AttemptKey key, SlurmJob job, List<Launch.NodeGpus> placement, String why) {
        Tracked t = new Tracked(job.id(), placement);
        t.last = job;
        tracked.put(key, t);
        uncertainSince.remove(key);
        counters.adoptions++;
        LOG.info("attempt {} is Slurm job {} ({}): {}", key, job.id(), job.state(), why);
    }

    @Override
    public synchronized void stop(AttemptKey key, Duration grace) {
        stop(key, grace, null);
    }

    /**
     * Notes {@code why} in the job's comment, then cancels it; {@code grace} is Slurm's {@code KillWait} here (see
     * the class comment). A comment that cannot be set does not keep the job from being stopped.
     */
    @Override
    public synchronized void stop(AttemptKey key, Duration grace, String why) {
        BackendException failed = stopAll(List.of(new Stop(key, grace, why)), OPEN).get(key);
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Stops the attempts as {@link #stop(AttemptKey, Duration, String)} does each; the jobs' comments and
     * {@code scancel}s run at once ({@link CommandBatch}: per job its comment, then its cancel, after {@code gate}),
     * and what they answered is applied in the order given.
     */
    @Override
    public synchronized Map<AttemptKey, BackendException> stopAll(List<Stop> stops, Runnable gate) {
        Map<AttemptKey, BackendException> failed = new TreeMap<>();
        List<AttemptKey> cancelling = new ArrayList<>();
        List<String> whys = new ArrayList<>();
        List<Callable<Kill>> kills = new ArrayList<>();
        for (Stop s : stops) {
            AttemptKey key = s.attempt();
            try {
                Tracked t = stopping(key);
                if (t == null || cancelling.contains(key)) {
                    continue;
                }
                boolean first = !t.stopRequested;
                t.stopRequested = true;
                if ((t.last != null && t.last.ended()) || t.killSent) {
                    continue;
                }
                String comment = first && s.why() != null && !s.why().isBlank()
                        ? JobTag.comment(config.instance(), s.why()) : null;
                long jobId = t.jobId;
                cancelling.add(key);
                whys.add(s.why());
                kills.add(() -> {
                    gate.run();
                    boolean commented = comment == null || actions.comment(jobId, comment);
                    return new Kill(commented, kill(jobId));
                });
            } catch (BackendException e) {
                failed.put(key, e);
            }
        }
        List<CommandBatch.Done<Kill>> answers = commands.run(kills);
        for (int i = 0; i < cancelling.size(); i++) {
            AttemptKey key = cancelling.get(i);
            Tracked t = tracked.get(key);
            String why = whys.get(i);
            try {
                Kill k = answers.get(i).get();
                if (!k.commented()) {
                    LOG.warn("could not note in Slurm job {}'s comment that it is {}; cancelling it all the same",
                            t.jobId, why);
                }
                if (k.outcome() == KillOutcome.CORRECTED) {
                    counters.commandClaimsCorrected++;
                }
                t.killSent = k.outcome() != KillOutcome.NOT_SENT;
            } catch (BackendException e) {
                LOG.warn("stopping Slurm job {} ({}) failed: {}", t.jobId, key, e.getMessage());
            }
            if (!t.killSent) {
                failed.put(key, new BackendUnavailableException("scancel " + t.jobId + " for " + key + " failed;"
                        + " will try again"));
                continue;
            }
            LOG.info("cancelled Slurm job {} ({}){}: Slurm sends SIGTERM now, SIGKILL after its KillWait", t.jobId,
                    key, why == null ? "" : ", " + why);
        }
        return failed;
    }

    /**
     * The job of an attempt asked to stop, found in a listing if not tracked yet; null if there is nothing to stop (it
     * ended, or never started: then it is reported {@link Phase#NEVER_STARTED}).
     */
    private Tracked stopping(AttemptKey key) {
        if (forgotten.contains(key) || neverStarted.containsKey(key)) {
            return null;
        }
        Tracked t = tracked.get(key);
        if (t == null) {
            Optional<SlurmJob> j = find(listJobs(), key);
            if (j.isEmpty()) {
                uncertainSince.remove(key);
                neverStarted.put(key, new AttemptStatus(key, Phase.NEVER_STARTED, null, "Slurm has no job named "
                        + JobTag.name(key) + ": it never started"));
                LOG.info("asked to stop {}, which Slurm never started", key);
                return null;
            }
            adopt(key, j.get(), null, "found while stopping it");
            t = tracked.get(key);
        }
        return t;
    }

    /** What became of one stop's commands: whether its comment was set, and its cancel's outcome. */
    private record Kill(boolean commented, KillOutcome outcome) {
    }

    /** A cancel sent; not sent (try again); or said to have failed, but the job is ending or gone. */
    private enum KillOutcome { SENT, NOT_SENT, CORRECTED }

    /** Cancels a job; a failed scancel is read back: an ended or ending job needs nothing more. Touches no state. */
    private KillOutcome kill(long jobId) {
        if (actions.cancel(jobId)) {
            return KillOutcome.SENT;
        }
        try {
            Optional<SlurmJob> j = probe.job(jobId);
            if (j.isEmpty() || j.get().ended() || j.get().state().equals("COMPLETING")
                    || j.get().state().equals("CANCELLED")) {
                return KillOutcome.CORRECTED;
            }
        } catch (BackendUnavailableException e) {
            // leave it for the next cycle
        }
        return KillOutcome.NOT_SENT;
    }

    private void sendKill(Tracked t) {
        KillOutcome o = kill(t.jobId);
        if (o == KillOutcome.CORRECTED) {
            counters.commandClaimsCorrected++;
        }
        t.killSent = o != KillOutcome.NOT_SENT;
    }

    @Override
    public synchronized List<AttemptStatus> observe() {
        List<SlurmJob> jobs = listJobs();
        lock.check(jobs);
        Map<AttemptKey, List<SlurmJob>> mine = new TreeMap<>();
        for (SlurmJob j : jobs) {
            Optional<AttemptKey> key = JobTag.parse(j.name());
            if (key.isPresent() && JobTag.instance(j.comment()).filter(config.instance()::equals).isPresent()) {
                mine.computeIfAbsent(key.get(), k -> new ArrayList<>()).add(j);
            }
        }
        List<AttemptStatus> out = new ArrayList<>();
        for (Map.Entry<AttemptKey, List<SlurmJob>> e : mine.entrySet()) {
            AttemptKey key = e.getKey();
            if (forgotten.contains(key) || neverStarted.containsKey(key)) {
                // Allot counts this attempt ended (or never started): a live job of it runs unseen on GPUs Allot
                // thinks are free (an sbatch whose answer was lost reached Slurm after all). It must not run.
                for (SlurmJob j : e.getValue()) {
                    if (!j.ended()) {
                        LOG.error("Slurm job {} belongs to attempt {}, which Allot counts as ended; cancelling it",
                                j.id(), key);
                        actions.cancel(j.id());
                    }
                }
                continue;
            }
            SlurmJob job = oneJob(key, e.getValue());
            Tracked t = tracked.get(key);
            if (t == null && job.ended()) {
                // Ended before this backend knew it (jobs stay listed for MinJobAge; after a restart most are
                // attempts the store has long ended): reported, not tracked, so nothing is looked up once Slurm
                // forgets it.
                Tracked once = new Tracked(job.id(), null);
                once.last = job;
                out.add(status(key, once, job));
                continue;
            }
            if (t == null) {
                adopt(key, job, null, "found in Slurm's listing");
                t = tracked.get(key);
            }
            t.last = job;
            out.add(status(key, t, job));
        }
        for (Map.Entry<AttemptKey, Tracked> e : tracked.entrySet()) {
            if (mine.containsKey(e.getKey())) {
                continue;
            }
            out.add(confirmMissing(e.getKey(), e.getValue()));
        }
        out.addAll(neverStarted.values());
        out.sort(Comparator.comparing(AttemptStatus::attempt));
        return out;
    }

    /** The one job of an attempt; any other job with its name is a duplicate launch, cancelled at once. */
    private SlurmJob oneJob(AttemptKey key, List<SlurmJob> jobs) {
        Tracked t = tracked.get(key);
        SlurmJob keep = null;
        for (SlurmJob j : jobs) {
            if (t != null && j.id() == t.jobId) {
                keep = j;
            }
        }
        if (keep == null) {
            keep = jobs.stream().min(Comparator.comparingLong(SlurmJob::id)).orElseThrow();
        }
        for (SlurmJob j : jobs) {
            if (j.id() != keep.id() && !j.ended()) {
                if (duplicatesSeen.add(j.id())) {
                    counters.duplicatesCancelled++; // once per job: scancel is repeated until Slurm shows it ended
                }
                LOG.error("attempt {} has two Slurm jobs, {} and {}; cancelling {} (an attempt runs once)", key,
                        keep.id(), j.id(), j.id());
                actions.cancel(j.id());
            }
        }
        return keep;
    }

    private AttemptStatus status(AttemptKey key, Tracked t, SlurmJob j) {
        String where = "Slurm job " + j.id();
        if (t.mismatch != null) {
            if (j.ended()) {
                return new AttemptStatus(key, Phase.FAILED_TO_START, null, where + " did not get the GPUs Allot placed"
                        + " it on: " + t.mismatch + "; Allot cancelled it");
            }
            if (!t.killSent) {
                sendKill(t);
            }
            return new AttemptStatus(key, Phase.STARTING, null, where + " did not get the GPUs Allot placed it on ("
                    + t.mismatch + "); cancelling it");
        }
        if (j.ended()) {
            if (j.restarts() > 0 && t.requeueCancelled) {
                return new AttemptStatus(key, Phase.STOPPED, null, where + " was requeued by Slurm (a node failed or"
                        + " Slurm preempted it); Allot cancelled the requeued job, the next attempt is Allot's to"
                        + " place");
            }
            return switch (j.state()) {
                case "COMPLETED" -> new AttemptStatus(key, Phase.EXITED, j.exitCode() == null ? 0 : j.exitCode(),
                        where + " completed");
                case "FAILED" -> j.nodes().isEmpty()
                        ? new AttemptStatus(key, Phase.FAILED_TO_START, null, where + " never ran: " + j.reason())
                        : new AttemptStatus(key, Phase.EXITED, j.exitCode(), where + " ended FAILED"
                                + (j.signal() != 0 ? " (signal " + j.signal() + ")" : "")
                                + (j.reason().isEmpty() || j.reason().equals("None") ? "" : ": " + j.reason()));
                case "OUT_OF_MEMORY", "TIMEOUT", "DEADLINE", "SPECIAL_EXIT" ->
                        new AttemptStatus(key, Phase.EXITED, j.exitCode(), where + " ended " + j.state()
                                + (j.signal() != 0 ? " (signal " + j.signal() + ")" : "")
                                + (j.reason().isEmpty() || j.reason().equals("None") ? "" : ": " + j.reason()));
                case "BOOT_FAIL" -> new AttemptStatus(key, Phase.FAILED_TO_START, null, where + " failed to boot");
                case "CANCELLED" -> new AttemptStatus(key, Phase.STOPPED, null, where + " was cancelled"
                        + (t.stopRequested ? "" : " outside Allot"));
                case "NODE_FAIL" -> new AttemptStatus(key, Phase.STOPPED, null, where + " lost its node");
                case "PREEMPTED" -> new AttemptStatus(key, Phase.STOPPED, null, where + " was preempted by Slurm");
                default -> new AttemptStatus(key, Phase.EXITED, null, where + " ended " + j.state());
            };
        }
        if (j.restarts() > 0) {
            // Slurm requeued it (node failure, or its own preemption): it must not run again on Slurm's say-so.
            if (!t.requeueCancelled) {
                counters.slurmRequeues++;
                LOG.warn("{} ({}) was requeued by Slurm ({}, {}); cancelling it", where, key, j.state(), j.reason());
                if (actions.cancel(j.id())) {
                    t.requeueCancelled = true;
                }
            }
            return new AttemptStatus(key, Phase.STOPPING, null, where + " was requeued by Slurm; cancelling it");
        }
        if (t.stopRequested) {
            return new AttemptStatus(key, Phase.STOPPING, null, where + " is " + j.state() + ", asked to stop");
        }
        if (j.state().equals("RUNNING") && t.placement != null && !t.verified) {
            Optional<AttemptStatus> unverified = verify(key, t, j);
            if (unverified.isPresent()) {
                return unverified.get();
            }
        }
        return switch (j.state()) {
            case "RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING" ->
                    new AttemptStatus(key, Phase.RUNNING, null, where + " is " + j.state() + " on "
                            + String.join(",", j.nodes()));
            default -> new AttemptStatus(key, Phase.STARTING, null, where + " is " + j.state()
                    + (j.reason().isEmpty() || j.reason().equals("None") ? "" : " (" + j.reason() + ")"));
        };
    }

    /**
     * Compares what Slurm allocated to a job now running with the attempt's placement: empty when they agree (the
     * attempt runs), else the status to report (starting while unverified or being cancelled for a mismatch).
     */
    private Optional<AttemptStatus> verify(AttemptKey key, Tracked t, SlurmJob j) {
        String where = "Slurm job " + j.id();
        SlurmAllocation got;
        try {
            got = actions.allocation(j.id());
        } catch (BackendUnavailableException e) {
            return Optional.of(new AttemptStatus(key, Phase.STARTING, null, where + " is RUNNING; what Slurm"
                    + " allocated to it could not be read yet: " + e.getMessage()));
        }
        Optional<String> mismatch = got.mismatch(t.placement);
        if (mismatch.isEmpty()) {
            t.verified = true;
            Optional<String> other = got.indexDifference(t.placement);
            if (other.isPresent()) {
                // Not a failure: the counts decide what else fits on the node (see SlurmAllocation).
                counters.allocationIndexDifferences++;
                LOG.info("{} ({}) runs with Allot's GPU counts on other GPU indexes: {}", where, key, other.get());
            }
            return Optional.empty();
        }
        t.mismatch = mismatch.get();
        counters.allocationMismatches++;
        LOG.error("{} ({}) did not get the GPUs Allot placed it on: {}; cancelling it, the attempt failed to start",
                where, key, t.mismatch);
        actions.comment(j.id(), JobTag.comment(config.instance(), "cancelled: not the GPUs Allot placed"));
        sendKill(t);
        return Optional.of(new AttemptStatus(key, Phase.STARTING, null, where + " did not get the GPUs Allot placed"
                + " it on (" + t.mismatch + "); cancelling it"));
    }

    /** A tracked job missing from a complete listing: looked up by id before it counts as gone. */
    private AttemptStatus confirmMissing(AttemptKey key, Tracked t) {
        try {
            Optional<SlurmJob> j = probe.job(t.jobId);
            if (j.isPresent()) {
                t.last = j.get();
                return status(key, t, j.get());
            }
            counters.missingConfirmed++;
            return new AttemptStatus(key, Phase.STOPPED, null, "Slurm no longer knows job " + t.jobId
                    + " (confirmed by id); how it ended is not known");
        } catch (BackendUnavailableException e) {
            return new AttemptStatus(key, Phase.UNKNOWN, null, "Slurm job " + t.jobId + " is missing from the"
                    + " listing and could not be looked up: " + e.getMessage());
        }
    }

    /**
     * Mirrors a running attempt's new terms on its Slurm job ({@link SlurmPromotion}: the QOS moved and read back, or
     * why the job stays in its partition; the comment noting since when Allot protects it). Never submits, requeues
     * or cancels a job: the promotion holds in Allot whatever Slurm shows.
     *
     * @throws BackendUnavailableException if Slurm could not be read: nothing is concluded
     */
    @Override
    public synchronized Mirror promote(AttemptKey key, Launch.Terms terms) {
        if (forgotten.contains(key) || neverStarted.containsKey(key)) {
            return new Mirror(false, key + " has no Slurm job to mirror: it ended or never started");
        }
        Tracked t = tracked.get(key);
        if (t == null) {
            Optional<SlurmJob> j = find(listJobs(), key);
            if (j.isEmpty() || j.get().ended()) {
                return new Mirror(false, j.map(job -> "Slurm job " + job.id() + " of " + key + " has ended ("
                        + job.state() + ")").orElse("Slurm has no job named " + JobTag.name(key))
                        + "; nothing to mirror");
            }
            adopt(key, j.get(), null, "found while promoting it");
            t = tracked.get(key);
        }
        if (t.stopRequested) {
            return new Mirror(false, "Slurm job " + t.jobId + " of " + key + " is being stopped; nothing to mirror");
        }
        SlurmPromotion.Outcome o;
        try {
            o = promotion.promote(t.jobId, terms, clock.instant());
        } catch (BackendUnavailableException e) {
            probeFailed(e);
            throw e;
        }
        if (o.claimCorrected()) {
            counters.commandClaimsCorrected++;
        }
        if (o.mirror().mirrored()) {
            counters.promotionsMirrored++;
        } else {
            counters.promotionsNotMirrored++;
        }
        LOG.info("{} promoted in place ({}): {}", key, terms, o.mirror().detail());
        return o.mirror();
    }

    @Override
    public synchronized void forget(AttemptKey key) {
        tracked.remove(key);
        neverStarted.remove(key);
        uncertainSince.remove(key);
        forgotten.add(key);
    }

    @Override
    public synchronized void drain(String node, String reason) {
        SlurmNode n = node(node);
        if (n.drained()) {
            return; // drained already, by Allot or by someone else: nothing more to do
        }
        String r = DRAIN_PREFIX + reason.replaceAll("[\\r\\n]+", " ").strip();
        if (r.length() > 200) {
            r = r.substring(0, 200);
        }
        if (!actions.drain(node, r)) {
            if (!node(node).drained()) {
                throw new BackendUnavailableException("could not drain Slurm node " + node);
            }
            counters.commandClaimsCorrected++;
        }
        LOG.info("drained Slurm node {}: {}", node, r);
    }

    @Override
    public synchronized void resume(String node) {
        SlurmNode n = node(node);
        if (!n.drained() || !n.reason().startsWith(DRAIN_PREFIX.strip())) {
            return; // not drained, or drained by someone else: theirs to resume
        }
        if (!actions.resume(node)) {
            if (node(node).drained()) {
                throw new BackendUnavailableException("could not resume Slurm node " + node);
            }
            counters.commandClaimsCorrected++;
        }
        LOG.info("resumed Slurm node {}", node);
    }

    private SlurmNode node(String name) {
        for (SlurmNode n : listNodes()) {
            if (n.name().equals(name)) {
                return n;
            }
        }
        throw new BackendException("Slurm has no node named " + name);
    }

    @Override
    public synchronized Optional<List<BackendNode>> nodes() {
        List<BackendNode> out = new ArrayList<>();
        for (SlurmNode n : listNodes()) {
            boolean ours = n.reason().startsWith(DRAIN_PREFIX.strip());
            boolean usable = !n.broken() && (!n.drained() || ours);
            String why = usable ? null : n.state() + (n.flags().isEmpty() ? "" : "+" + String.join("+", n.flags()))
                    + (n.reason().isEmpty() ? "" : ": " + n.reason());
            out.add(new BackendNode(n.name(), n.gpus(), usable, why));
        }
        out.sort(Comparator.comparing(BackendNode::name));
        return Optional.of(out);
    }

    private List<SlurmJob> listJobs() {
        try {
            List<SlurmJob> jobs = SlurmJob.joinComponents(probe.jobs());
            lastListing = jobs;
            lastListingAt = clock.millis();
            return jobs;
        } catch (BackendUnavailableException e) {
            probeFailed(e);
            throw e;
        }
    }

    private List<SlurmNode> listNodes() {
        try {
            return probe.nodes();
        } catch (BackendUnavailableException e) {
            probeFailed(e);
            throw e;
        }
    }

    private void probeFailed(BackendUnavailableException e) {
        counters.probeFailures++;
        lastProbeFailureAt = clock.millis();
        lastProbeFailure = e.getMessage();
        LOG.warn("Slurm probe failed, nothing concluded from it: {}", e.getMessage());
    }

    @Override
    public synchronized Map<String, Long> counters() {
        Map<String, Long> m = new TreeMap<>();
        m.put("probe_failures", counters.probeFailures);
        m.put("submissions", counters.submissions);
        m.put("adoptions", counters.adoptions);
        m.put("duplicates_cancelled", counters.duplicatesCancelled);
        m.put("slurm_requeues", counters.slurmRequeues);
        m.put("missing_confirmed", counters.missingConfirmed);
        m.put("command_claims_corrected", counters.commandClaimsCorrected);
        m.put("allocation_mismatches", counters.allocationMismatches);
        m.put("allocation_index_differences", counters.allocationIndexDifferences);
        m.put("promotions_mirrored", counters.promotionsMirrored);
        m.put("promotions_not_mirrored", counters.promotionsNotMirrored);
        return m;
    }

    /** The id of this instance's lock job. */
    public long lockJobId() {
        return lock.jobId();
    }

    @Override
    public void close() {
        // Jobs keep running in Slurm, to be adopted by the next start; the lock job stays for the same instance.
        commands.close();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted", e);
        }
    }
}
