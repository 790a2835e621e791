package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.slurm.SlurmAttempts.Tracked;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
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
 * taken after any submission whose outcome was unknown), so retries and restarts adopt rather than resubmit. That
 * read-back cannot see a submission still on its way: an sbatch that gave up before slurmctld took its request in, or
 * an old leader's sbatch begun before its lease lapsed and landing after the new leader submitted the attempt. So a
 * second job of one attempt can exist, and is made harmless three ways: a uniform job carries
 * {@code --dependency=singleton} (Slurm holds the later job while the first is pending or running); the observer
 * keeps the oldest job as the attempt's and cancels every later one at once, counted
 * ({@code duplicates_cancelled}); and the job's script runs its command only if Slurm knows no older job of its name
 * and user ({@link OnceGuard}), which covers a later job started after the first ended unseen and heterogeneous jobs
 * (which cannot carry the singleton). A held placeholder job ({@link InstanceLock}) marks which Allot instance
 * drives the cluster: a second instance is refused.
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
 *
 * <p><b>Parts.</b> This class is the {@link Backend}: it starts attempts, promotes them, drains and resumes nodes,
 * and holds the lock. What it knows of its attempts' jobs is {@link SlurmAttempts}; stopping them is
 * {@link SlurmStops}; reading Slurm's listing into their statuses is {@link SlurmObserver}. Those three keep no lock
 * of their own: they are called only from this backend's methods that are {@code synchronized} on it, as all that
 * read or change its books are.
 */
public final class SlurmBackend implements Backend, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmBackend.class);
    /** What a drain's reason starts with: Allot resumes only nodes it drained itself. */
    public static final String DRAIN_PREFIX = "allot: ";

    private final SlurmConfig config;
    private final SlurmProbe probe;
    private final SlurmActions actions;
    private final SlurmPromotion promotion;
    private final Clock clock;
    /** Runs a batch's sbatches or scancels at once. */
    private final CommandBatch commands = new CommandBatch();

    private final InstanceLock lock;
    private final Counters counters = new Counters();
    private final SlurmAttempts attempts;
    private final SlurmStops stopping;
    private final SlurmObserver observer;
    private final SlurmNodes nodes;
    private final SlurmOutput output;

    /**
     * What the backend has had to deal with, for metrics. Counted under the backend's lock (by its methods, which are
     * synchronized), read without it ({@link #counters()}): {@code /metrics} never waits for a command in progress,
     * which may take seconds or a minute while {@code slurmctld} is down. Volatile so that a read sees the counts
     * made; one writer at a time, so the increments are whole.
     */
    static final class Counters {
        volatile long probeFailures;
        volatile long submissions;
        volatile long adoptions;
        volatile long duplicatesCancelled;
        volatile long slurmRequeues;
        volatile long missingConfirmed;
        volatile long commandClaimsCorrected;
        volatile long allocationMismatches;
        volatile long allocationIndexDifferences;
        volatile long promotionsMirrored;
        volatile long promotionsNotMirrored;
    }

    SlurmBackend(SlurmConfig config, SlurmProbe probe, SlurmActions actions, Clock clock) {
        this.config = config;
        this.probe = probe;
        this.actions = actions;
        this.promotion = new SlurmPromotion(config, actions);
        this.clock = clock;
        this.lock = new InstanceLock(config.instance(), actions);
        this.attempts = new SlurmAttempts(config.instance(), probe, clock, counters);
        this.stopping = new SlurmStops(config.instance(), attempts, probe, actions, commands, counters);
        this.observer = new SlurmObserver(config.instance(), attempts, stopping, probe, actions, lock, counters);
        this.output = new SlurmOutput(config.instance(), probe, actions);
        this.nodes = new SlurmNodes(probe, actions, clock, counters, attempts::probeFailed);
    }

    /**
     * Connects to the cluster the configuration names and takes its instance lock.
     *
     * @throws BackendException if another Allot instance drives the cluster, Slurm cannot be reached, cannot read its
     *                          configuration or lacks a configured partition ({@link StartChecks})
     */
    public static SlurmBackend connect(SlurmConfig config, Clock clock) {
        Commands commands = new Commands(config);
        CliProbe cli = new CliProbe(commands, config.accounting());
        SlurmProbe probe = config.observe() == SlurmConfig.Observe.REST ? new RestProbe(config, cli) : cli;
        StartChecks.configReadable(commands, config);
        StartChecks.partitionsExist(commands, config);
        SlurmBackend b = new SlurmBackend(config, probe, new SlurmActions(commands, config), clock);
        b.takeLock(Duration.ofSeconds(30));
        return b;
    }

    /** Takes the instance lock, probing again for up to {@code patience} while Slurm cannot be reached. */
    synchronized void takeLock(Duration patience) {
        long until = clock.millis() + patience.toMillis();
        String told = null;
        while (true) {
            try {
                lock.acquire(attempts::listJobs);
                LOG.info("Slurm backend: instance {} holds lock job {}; observing with {}", config.instance(),
                        lock.jobId(), probe.name());
                return;
            } catch (BackendUnavailableException e) {
                if (clock.millis() >= until) {
                    throw new BackendException("could not take the instance lock within " + patience.toSeconds()
                            + " s, as Slurm's jobs could not be listed: " + e.getMessage()
                            + StartChecks.unreachableHint(config), e);
                }
                if (!e.getMessage().equals(told)) { // once, not every half second
                    LOG.warn("Slurm not reachable yet ({}); trying again for up to {} s", e.getMessage(),
                            patience.toSeconds());
                    told = e.getMessage();
                }
                sleep(500);
            }
        }
    }


    @Override
    public String name() {
        return "slurm";
    }

    /**
     * Read without the backend's lock (see {@link SlurmOutput}): {@code allot logs} never waits for a cycle's
     * commands.
     */
    @Override
    public Optional<dev.allot.core.backend.AttemptOutput> output(AttemptKey attempt, int maxBytes) {
        return output.read(attempt, maxBytes);
    }

    @Override
    public String outputElsewhere() {
        return "Slurm no longer knows its job (it ended longer ago than Slurm's MinJobAge, or was never submitted);"
                + " each job writes its output on the node that ran it: allot-<Slurm job id>.out in the submitter's"
                + " home (/tmp for an account without one; --slurm-workdir for jobs run as the service's own user);"
                + " the job is named allot:<workload>#<attempt> (sacct --name gives its id)";
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
            if (!asked.add(key) || attempts.tracked.containsKey(key) || attempts.over(key)) {
                continue;
            }
            try {
                lock.checkNotFenced();
                Optional<SlurmJob> existing = attempts.find(attempts.listingFor(key), key);
                if (existing.isEmpty() && attempts.uncertainSince.containsKey(key)) {
                    // An earlier sbatch of this attempt went unanswered: "absent" must hold in a second listing, read
                    // by a call of its own, before it is submitted again. A listing cut short exactly at the end of
                    // a line reads as whole and lacks the newest jobs: once is rare, twice in a row far rarer still.
                    existing = attempts.find(attempts.listJobs(), key);
                }
                if (existing.isPresent()) {
                    attempts.adopt(key, existing.get(), launch.placement(), "found in Slurm before submitting; not"
                            + " submitting again");
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
            attempts.uncertainSince.put(key, clock.millis());
            throw e;
        } catch (BackendException refused) {
            // Read it back: Slurm has printed errors for requests it carried out.
            attempts.uncertainSince.put(key, clock.millis());
            Optional<SlurmJob> after = attempts.find(attempts.listJobs(), key);
            if (after.isPresent() && after.get().ended() && after.get().nodes().isEmpty()) {
                // Slurm 22.05 keeps a refused submission as a FAILED job that never ran: it is the refusal itself.
                attempts.uncertainSince.remove(key);
                throw new BackendException(refused.getMessage() + " (Slurm job " + after.get().id() + ", "
                        + after.get().state() + " " + after.get().reason() + ", never ran)");
            }
            if (after.isPresent()) {
                counters.commandClaimsCorrected++;
                attempts.adopt(key, after.get(), launch.placement(),
                        "sbatch reported a refusal, but Slurm has the job");
                return;
            }
            attempts.uncertainSince.remove(key);
            throw refused;
        } catch (RuntimeException e) {
            // Not an answer of sbatch's (a fault of this process): whether it submitted is unknown.
            attempts.uncertainSince.put(key, clock.millis());
            throw new BackendUnavailableException("submitting " + key + " failed: " + e, e);
        }
        attempts.uncertainSince.remove(key);
        attempts.tracked.put(key, new Tracked(id, launch.placement()));
        counters.submissions++;
        LOG.info("submitted {} as Slurm job {} on {}, as {}", key, id, launch.placement(), who.account().name());
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
        return stopping.stopAll(stops, gate);
    }

    @Override
    public synchronized List<AttemptStatus> observe() {
        return observer.observe();
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
        if (attempts.over(key)) {
            return new Mirror(false, key + " has no Slurm job to mirror: it ended or never started");
        }
        Tracked t = attempts.tracked.get(key);
        if (t == null) {
            Optional<SlurmJob> j = attempts.find(attempts.listJobs(), key);
            if (j.isEmpty() || j.get().ended()) {
                return new Mirror(false, j.map(job -> "Slurm job " + job.id() + " of " + key + " has ended ("
                        + job.state() + ")").orElse("Slurm has no job named " + JobTag.name(key))
                        + "; nothing to mirror");
            }
            attempts.adopt(key, j.get(), null, "found while promoting it");
            t = attempts.tracked.get(key);
        }
        if (t.stopRequested) {
            return new Mirror(false, "Slurm job " + t.jobId + " of " + key + " is being stopped; nothing to mirror");
        }
        SlurmPromotion.Outcome o;
        try {
            o = promotion.promote(t.jobId, terms, clock.instant());
        } catch (BackendUnavailableException e) {
            attempts.probeFailed(e);
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
        attempts.forget(key);
    }

    @Override
    public synchronized void drain(String node, String reason) {
        nodes.drain(node, reason);
    }

    @Override
    public synchronized void resume(String node) {
        nodes.resume(node);
    }

    @Override
    public synchronized Optional<List<BackendNode>> nodes() {
        return Optional.of(nodes.read());
    }

    /** The counts so far; never waits for a command in progress (see {@link Counters}). */
    @Override
    public Map<String, Long> counters() {
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
