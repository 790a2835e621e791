package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.alive;
import static dev.allot.server.service.ServiceTestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.server.service.CrashLedger.Entry;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.AttemptPhase;
import dev.allot.server.store.PostgresSchema;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import dev.allot.server.testing.SecondLane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Crash safety of the whole service, on SQLite and (when {@code ALLOT_TEST_POSTGRES_URL} names a database, as in CI)
 * on PostgreSQL: {@link ServiceMain} runs as a separate process with the {@code local} backend on a seeded data
 * directory; {@link CrashClients} post workloads continuously (each with an idempotency key, retried with the same
 * key until acknowledged, across restarts) and cancel some; the service is killed with SIGKILL at random moments (seeded) and restarted
 * on the same store, round after round. While it is down, the test also SIGKILLs one running workload process
 * (seeded choice), as an OOM kill or a reboot would: a process that died with nobody watching. Each workload appends
 * one line when its process starts and one when it ends (0.3 s later, or 2 s for one in four, so that some still run
 * at the next kill) to a {@link CrashLedger}.
 *
 * <p>Once everything has ended, proven from the store (read after the last stop) and the ledger: every acknowledged
 * submission is stored, once; every (workload, attempt) started at most once and is an attempt the store knows; no
 * workload ran two attempts at the same time; every attempt open at a kill was adopted (ended completed under the
 * same attempt number), launched after the restart when its start never reached the backend (as the service's log
 * says; its process then started after the kill), cleanly requeued
 * (ended lost or requeued, and its workload ran again) or, when a canceller thread asked for it, stopped; every
 * process the test killed ended its attempt lost and its workload ran again; no process survives. And the three
 * recoveries each happened: at least {@link #MIN_ADOPTED} adoptions, {@link #MIN_RELAUNCHED} relaunches of starts
 * the backend never received and {@link #MIN_REQUEUED} requeues of lost attempts. A kill's timing is the machine's,
 * so every other round kills at a launch the backend has not received yet ({@link LaunchCatcher}), the others at a
 * random moment, and the rounds go on (from {@link #MIN_ROUNDS} up to {@link #MAX_ROUNDS}) until the kills have
 * caught enough attempts running (with a margin), relaunched (by the service's log) and killed (with a margin).
 *
 * <p>Seed and the least rounds per store: {@code -Dallot.crash.seed=N -Dallot.crash.rounds=N}.
 *
 * <p>It runs beside the module's other tests, one at a time with the other stories of service processes
 * ({@code @Execution(CONCURRENT)} under {@link SecondLane#LOCK}, see
 * {@code junit-platform.properties}): it mostly waits on its processes.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LOCK)
class CrashSafetyTest {
    private static final long SEED = Long.getLong("allot.crash.seed", 20_261_129L);
    private static final int MIN_ROUNDS = Integer.getInteger("allot.crash.rounds", 4);
    private static final int MAX_ROUNDS = Math.max(MIN_ROUNDS, 12);
    /** Attempts open at a kill that the restarted service adopted and saw complete, under the same number. */
    static final int MIN_ADOPTED = 3;
    /** Attempts begun in the store whose start never reached the backend, launched after the restart. */
    static final int MIN_RELAUNCHED = 2;
    /**
     * Attempts whose process died while the service was down, ended lost and run again. The rounds go on until the
     * test has killed one process more than this in the middle of its run ({@link #killedMidRun}; its workload may
     * still be cancelled), and a round at a random moment waits a little for a live process while they are short:
     * on a loaded machine most processes had ended by the kill (CI once: 12 rounds, 3 kills, 1 requeue).
     */
    static final int MIN_REQUEUED = 2;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Path data;
    private CrashLedger ledger;
    private Process service;
    private int launches;

    /** An attempt found open in the store right after a kill. */
    record OpenAtKill(int round, AttemptKey key, AttemptPhase phase, long killNanos, long restartNanos) {
    }

    @AfterEach
    void noProcessSurvives() throws IOException {
        if (service != null && service.isAlive()) {
            service.destroyForcibly();
        }
        if (ledger != null) {
            for (Entry e : ledger.entries()) {
                if (e.start()) {
                    CrashLedger.process(e).ifPresent(h -> ServiceTestSupport.killTree(h.pid()));
                }
            }
        }
        for (long pid : ServiceTestSupport.wrapperPids(data == null ? null : data.resolve("attempts"))) {
            ProcessHandle.of(pid).filter(h -> h.info().commandLine().orElse("").contains("allot:"))
                    .ifPresent(h -> ServiceTestSupport.killTree(h.pid()));
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void onSqliteAcknowledgedSubmissionsSurviveSigkillAndAttemptsAreAdoptedRelaunchedOrRequeuedNeverRunTwice()
            throws Exception {
        crashRounds("SQLite", null, SEED);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    @EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
    void onPostgresqlAcknowledgedSubmissionsSurviveSigkillAndAttemptsAreAdoptedRelaunchedOrRequeuedNeverRunTwice()
            throws Exception {
        PostgresSchema schema = new PostgresSchema();
        schema.create();
        try {
            crashRounds("PostgreSQL", new ServiceTestSupport.Database(schema.jdbcUrl(), schema.user, schema.password),
                    SEED + 1);
        } finally {
            if (service != null && service.isAlive()) {
                service.destroyForcibly().waitFor();
            }
            schema.drop();
        }
    }

    /** The store the service keeps: SQLite in the data directory, or the database. */
    private Store openStore(ServiceTestSupport.Database database) {
        return database == null ? Store.sqlite(data)
                : Store.open(database.jdbcUrl(), database.user(), database.password());
    }

    private void crashRounds(String storeName, ServiceTestSupport.Database database, long seed) throws Exception {
        data = dir.resolve("data");
        ledger = new CrashLedger(ServiceTestSupport.sharedFile(dir.resolve("ledger")));
        try (Store store = openStore(database)) {
            ServiceTestSupport.seed(store);
        }
        long testStart = System.nanoTime();
        Random random = new Random(seed);
        System.out.printf("CrashSafetyTest on %s: seed %d, %d to %d rounds%n", storeName, seed, MIN_ROUNDS, MAX_ROUNDS);

        Client http = new Client(startService(database));
        CrashClients clients = new CrashClients(http, ledger);
        clients.start(random);
        Map<String, String> acked = clients.acked;
        List<String> problems = clients.problems;
        AtomicInteger ackCount = clients.ackCount;
        Set<String> cancelSent = clients.cancelSent;

        // Kill rounds: SIGKILL at a random moment, look at the store while the service is down, kill one workload
        // process too, restart; until the kills have caught enough of each case.
        List<OpenAtKill> openAtKills = new ArrayList<>();
        List<Long> restartMillis = new ArrayList<>();
        Map<String, Long> killedByTest = new TreeMap<>(); // workload#attempt -> when its process was killed
        int runningSeen = 0;
        int rounds = 0;
        while (rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || runningSeen < MIN_ADOPTED + 2
                || relaunchedPerLog().size() < MIN_RELAUNCHED || killedMidRun(killedByTest) < MIN_REQUEUED + 1)) {
            int round = ++rounds;
            // The random moment counts from the first acknowledgement after the (re)start, so that every round has
            // work in flight however slowly a loaded machine brings the service up.
            int before = ackCount.get();
            await("a submission acknowledged after the (re)start", WAIT, () -> ackCount.get() > before);
            String moment = "at a random moment";
            if (round % 2 == 0 && relaunchedPerLog().size() <= MIN_RELAUNCHED) {
                try (LaunchCatcher catcher = new LaunchCatcher(data, database)) {
                    moment = catcher.awaitUnreceivedLaunch(Duration.ofSeconds(5))
                            ? "at a launch the backend had not received" : "after 5 s without such a launch";
                }
            } else {
                sleep(300 + random.nextInt(1500));
                if (killedMidRun(killedByTest) < MIN_REQUEUED + 1) {
                    // On a loaded machine most processes (0.3 s) have ended by then: give one a moment to be
                    // running, so that this round's workload kill hits a live process.
                    awaitLiveProcess(Duration.ofSeconds(3));
                }
            }
            long killNanos = nowNanos();
            service.destroyForcibly();
            service.waitFor();
            List<Attempt> open;
            try (Store store = openStore(database)) {
                open = store.attempts().openAttempts();
            }
            String killed = "";
            List<Entry> alive = ledger.alive();
            if (!alive.isEmpty()) {
                Entry victim = alive.get(random.nextInt(alive.size()));
                ServiceTestSupport.killTree(victim.pid());
                killedByTest.put(victim.key(), nowNanos());
                killed = "; killed the process of " + victim.key();
            }
            long restartNanos = nowNanos();
            for (Attempt a : open) {
                openAtKills.add(new OpenAtKill(round, a.key(), a.phase(), killNanos, restartNanos));
                String k = a.key().workloadId() + "#" + a.key().attempt();
                runningSeen += a.phase() == AttemptPhase.RUNNING && !killedByTest.containsKey(k) ? 1 : 0;
            }
            System.out.printf("round %d: killed %s; %d acknowledged so far, %d attempts open in the store: %s%s%n",
                    round, moment, acked.size(), open.size(),
                    open.stream().map(a -> a.key() + " " + a.phase().label()).toList(), killed);
            long t0 = System.nanoTime();
            http.base(startService(database));
            restartMillis.add((System.nanoTime() - t0) / 1_000_000);
        }

        long roundsDone = System.nanoTime();
        clients.stopAndJoin(WAIT);
        ServiceTestSupport.awaitAllEnded(http, WAIT);
        System.out.printf("rounds took %d ms (restarts %s ms); the drain after them %d ms%n",
                (roundsDone - testStart) / 1_000_000, restartMillis, (System.nanoTime() - roundsDone) / 1_000_000);
        service.destroy(); // SIGTERM: the shutdown hook closes the store
        if (!service.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
            service.destroyForcibly().waitFor();
        }

        // ---- the proof
        Map<String, Workload> workloads = new TreeMap<>();
        Map<String, List<Attempt>> attempts = new HashMap<>();
        try (Store store = openStore(database)) {
            ServiceTestSupport.allWorkloads(store).forEach(w -> workloads.put(w.id(), w));
            for (String id : workloads.keySet()) {
                attempts.put(id, store.attempts().attempts(id));
            }
        }
        List<Entry> entries = ledger.entries();
        assertThat(problems).as("answers that were neither 201 nor a lost connection").isEmpty();

        // 1. No acknowledged submission lost, none stored twice.
        assertThat(acked).isNotEmpty();
        for (Map.Entry<String, String> e : acked.entrySet()) {
            assertThat(workloads).as("acknowledged submission %s (%s) is in the store", e.getValue(), e.getKey())
                    .containsKey(e.getValue());
        }
        assertThat(Set.copyOf(acked.values())).as("one workload per key").hasSize(acked.size());
        assertThat(workloads.keySet()).as("the store holds exactly the acknowledged submissions (every key sent was"
                + " retried until acknowledged)").isEqualTo(Set.copyOf(acked.values()));

        // 2. Every workload completed; attempts one after the other in the store.
        Map<String, List<Attempt>> byId = new TreeMap<>(attempts);
        int cancelled = 0;
        for (Workload w : workloads.values()) {
            List<Attempt> as = byId.get(w.id());
            if (w.state() == WorkloadState.CANCELLED) {
                assertThat(cancelSent).as("%s was cancelled only because it was asked to be", w.id()).contains(w.id());
                cancelled++;
            } else {
                assertThat(w.state()).as("%s ended completed; attempts %s", w.id(), as)
                        .isEqualTo(WorkloadState.COMPLETED);
            }
            for (int i = 0; i < as.size(); i++) {
                Attempt a = as.get(i);
                assertThat(a.key().attempt()).isEqualTo(i + 1);
                assertThat(a.phase()).isEqualTo(AttemptPhase.ENDED);
                if (i > 0) {
                    assertThat(as.get(i - 1).endedAtMillis()).as("%s: attempt %s ended before %s began", w.id(),
                            i, i + 1).isLessThanOrEqualTo(a.startedAtMillis());
                }
            }
            if (!as.isEmpty()) {
                Attempt last = as.get(as.size() - 1);
                if (w.state() == WorkloadState.CANCELLED && killedByTest.containsKey(w.id() + "#" + as.size())) {
                    // its process died while the service was down, and a cancellation was asked for: not run again
                    assertThat(last.outcome()).as("%s's last attempt", w.id())
                            .isIn(AttemptOutcome.CANCELLED, AttemptOutcome.LOST);
                } else {
                    assertThat(last.outcome()).as("%s's last attempt", w.id()).isEqualTo(
                            w.state() == WorkloadState.CANCELLED ? AttemptOutcome.CANCELLED : AttemptOutcome.COMPLETED);
                }
            } else {
                assertThat(w.state()).as("%s never ran", w.id()).isEqualTo(WorkloadState.CANCELLED);
            }
        }

        // 3. The ledger: each (workload, attempt) started at most once, known to the store, never two at once.
        Map<String, List<Entry>> starts = CrashLedger.starts(entries);
        starts.forEach((k, list) -> assertThat(list).as("process starts of %s", k).hasSize(1));
        for (Entry e : entries) {
            List<Attempt> as = byId.getOrDefault(e.workload(), List.of());
            assertThat(as.stream().anyMatch(a -> a.key().attempt() == e.attempt()))
                    .as("ledger line %s is an attempt the store knows", e).isTrue();
        }
        Map<String, List<long[]>> intervals = new TreeMap<>();
        for (Entry s : entries) {
            if (!s.start()) {
                continue;
            }
            // a process the test killed ended then, without its end line
            long end = CrashLedger.endNanos(entries, s.key())
                    .orElse(killedByTest.getOrDefault(s.key(), Long.MAX_VALUE));
            intervals.computeIfAbsent(s.workload(), k -> new ArrayList<>()).add(new long[] {s.nanos(), end, s.attempt()});
        }
        intervals.forEach((id, list) -> {
            list.sort((x, y) -> Long.compare(x[0], y[0]));
            for (int i = 1; i < list.size(); i++) {
                assertThat(list.get(i - 1)[1]).as("%s: attempt %s's process ended before attempt %s's started", id,
                        list.get(i - 1)[2], list.get(i)[2]).isLessThan(list.get(i)[0]);
            }
        });
        for (Workload w : workloads.values()) {
            for (Attempt a : byId.get(w.id())) {
                if (a.outcome() == AttemptOutcome.COMPLETED) {
                    String k = w.id() + "#" + a.key().attempt();
                    assertThat(starts).as("completed attempt %s has its process in the ledger", k).containsKey(k);
                    assertThat(entries.stream().anyMatch(e -> !e.start() && (e.workload() + "#" + e.attempt())
                            .equals(k))).as("completed attempt %s's process ran to its end", k).isTrue();
                }
            }
        }

        // 4. Attempts open at a kill: adopted (completed under the same number), relaunched when the backend never
        // received their start (the service says so in its log), or cleanly requeued.
        Set<String> relaunched = relaunchedPerLog();
        int adoptedStarting = 0;
        int adoptedRunning = 0;
        int adoptedEndedBeforeKill = 0;
        int adoptedFinishedWhileDown = 0;
        int launchedAfterRestart = 0;
        int requeued = 0;
        int stoppedAsAsked = 0;
        int stoppingAdopted = 0;
        Map<String, Integer> byPhase = new TreeMap<>();
        Set<AttemptKey> counted = new java.util.HashSet<>();
        for (OpenAtKill o : openAtKills) {
            byPhase.merge(o.phase().label(), 1, Integer::sum);
            if (!counted.add(o.key())) {
                continue; // open across several kills: counted once, by its first
            }
            List<Attempt> as = byId.get(o.key().workloadId());
            Attempt a = as.get(o.key().attempt() - 1);
            String k = o.key().workloadId() + "#" + o.key().attempt();
            if (relaunched.contains(k)) { // whatever became of it then (completed, cancelled, lost)
                assertThat(o.phase()).as("%s, relaunched, was launching at the kill", k)
                        .isEqualTo(AttemptPhase.LAUNCHING);
                assertThat(starts.getOrDefault(k, List.of())).as("%s, relaunched, had not run before the kill", k)
                        .allMatch(e -> e.nanos() > o.killNanos());
                launchedAfterRestart++;
            }
            if (a.outcome() == AttemptOutcome.COMPLETED) {
                List<Entry> s = starts.get(k);
                long end = CrashLedger.endNanos(entries, k).orElseThrow();
                if (relaunched.contains(k)) {
                    assertThat(end).as("%s, relaunched, ran to its end after the kill", k).isGreaterThan(o.killNanos());
                } else if (s.get(0).nanos() > o.killNanos()) {
                    adoptedStarting++;
                } else if (end < o.killNanos()) {
                    adoptedEndedBeforeKill++;
                } else if (end < o.restartNanos()) {
                    adoptedFinishedWhileDown++;
                } else {
                    adoptedRunning++;
                }
            } else if (a.outcome() == AttemptOutcome.CANCELLED) {
                assertThat(cancelSent).as("%s was cancelled because it was asked to be", k)
                        .contains(o.key().workloadId());
                stoppedAsAsked++;
                if (o.phase() == AttemptPhase.STOPPING) {
                    stoppingAdopted++;
                }
            } else {
                assertThat(a.outcome()).as("attempt %s open at kill %s ended %s (%s)", k, o.round(), a.outcome(),
                        a.reason()).isIn(AttemptOutcome.LOST, AttemptOutcome.REQUEUED);
                if (workloads.get(o.key().workloadId()).state() == WorkloadState.CANCELLED
                        && as.size() == o.key().attempt()) {
                    assertThat(cancelSent).as("%s, lost and not run again, was cancelled as asked", k)
                            .contains(o.key().workloadId());
                    stoppedAsAsked++;
                    continue;
                }
                assertThat(as.size()).as("%s was requeued and ran again", k).isGreaterThan(o.key().attempt());
                requeued++;
            }
        }
        // The processes the test killed while the service was down (unless they had just ended on their own).
        int killedAndRequeued = 0;
        for (Map.Entry<String, Long> k : killedByTest.entrySet()) {
            if (CrashLedger.endNanos(entries, k.getKey()).isPresent()) {
                continue;
            }
            String id = k.getKey().substring(0, k.getKey().indexOf('#'));
            int number = Integer.parseInt(k.getKey().substring(k.getKey().indexOf('#') + 1));
            List<Attempt> as = byId.get(id);
            Attempt a = as.get(number - 1);
            if (a.outcome() == AttemptOutcome.CANCELLED || workloads.get(id).state() == WorkloadState.CANCELLED
                    && as.size() == number) {
                assertThat(cancelSent).as("%s was cancelled because it was asked to be", k.getKey()).contains(id);
                continue;
            }
            assertThat(a.outcome()).as("attempt %s, whose process the test killed, ended %s (%s)", k.getKey(),
                    a.outcome(), a.reason()).isEqualTo(AttemptOutcome.LOST);
            assertThat(as.size()).as("%s ran again after its process was killed", id).isGreaterThan(number);
            killedAndRequeued++;
        }
        System.out.printf("CrashSafetyTest on %s, seed %d: %d rounds, %d launches of the service, %d submissions"
                        + " acknowledged (%d connection errors %s, %d keys retried then acknowledged), %d workloads,"
                        + " %d attempts, %d ledger starts%n", storeName, seed, rounds, launches, acked.size(),
                clients.lostAnswers.get(), new TreeMap<>(clients.errorKinds), clients.retriedKeys.get(), workloads.size(), attempts.values().stream().mapToInt(List::size).sum(),
                starts.size());
        System.out.printf("attempts open at a kill: %d sightings by phase %s, %d distinct: %d adopted whose process was"
                        + " starting (its first line came after the kill), %d adopted while their process"
                        + " ran, %d adopted whose process had ended just before the kill (end not yet observed), %d"
                        + " adopted whose process ended while the service was down, %d launched after the restart"
                        + " under the same attempt number (the crash came between the store and the backend), %d"
                        + " requeued (lost) and run again, %d ended cancelled as asked (%d of them stopping at the"
                        + " kill: adopted with their stop); %d workloads cancelled in all (%d cancellations sent); %d"
                        + " processes killed by the test while the service was down, %d of them requeued%n",
                openAtKills.size(), byPhase, counted.size(), adoptedStarting, adoptedRunning, adoptedEndedBeforeKill,
                adoptedFinishedWhileDown, launchedAfterRestart, requeued, stoppedAsAsked, stoppingAdopted, cancelled,
                cancelSent.size(), killedByTest.size(), killedAndRequeued);
        int adopted = adoptedStarting + adoptedRunning + adoptedEndedBeforeKill + adoptedFinishedWhileDown;
        assertThat(adopted).as("attempts open at a kill adopted by the restarted service (%d rounds)", rounds)
                .isGreaterThanOrEqualTo(MIN_ADOPTED);
        assertThat(launchedAfterRestart).as("attempts whose start never reached the backend, launched after the"
                + " restart (%d rounds)", rounds).isGreaterThanOrEqualTo(MIN_RELAUNCHED);
        assertThat(requeued).as("attempts lost while the service was down, requeued and run again (%d rounds)",
                rounds).isGreaterThanOrEqualTo(MIN_REQUEUED);

        // 5. No process of the test survives.
        for (Entry e : entries) {
            assertThat(alive(e.pid())).as("workload process %s is gone", e).isFalse();
        }
        for (long pid : ServiceTestSupport.wrapperPids(data == null ? null : data.resolve("attempts"))) {
            assertThat(alive(pid)).as("wrapper %s is gone", pid).isFalse();
        }
    }

    /** Starts {@link ServiceMain} on the data directory (and the database) and returns its URL once it listens. */
    private String startService(ServiceTestSupport.Database database) throws IOException, InterruptedException {
        launches++;
        ServiceTestSupport.ServiceProcess started = ServiceTestSupport.startServiceProcess(dir, data, 8, database);
        service = started.process();
        return started.url();
    }

    /**
     * The attempts the restarted service found begun in its store but unknown to the backend, and launched: its log
     * line {@code adopted attempt w-N#A was never started on the local backend; started it} (the only record of
     * that decision), across all the service's runs.
     */
    private Set<String> relaunchedPerLog() throws IOException {
        java.util.regex.Pattern line = java.util.regex.Pattern.compile(
                "adopted attempt (\\S+) was never started on the local backend; started it");
        Set<String> keys = new java.util.TreeSet<>();
        for (String l : Files.readAllLines(dir.resolve("service.log"))) {
            java.util.regex.Matcher m = line.matcher(l);
            if (m.find()) {
                keys.add(m.group(1));
            }
        }
        return keys;
    }

    /** The processes the test killed that had not ended on their own: each must end its attempt lost. */
    private long killedMidRun(Map<String, Long> killedByTest) throws IOException {
        List<Entry> entries = ledger.entries();
        return killedByTest.keySet().stream().filter(k -> CrashLedger.endNanos(entries, k).isEmpty()).count();
    }

    /** Waits up to {@code patience} for a workload process to be running (no harm if none comes). */
    private void awaitLiveProcess(Duration patience) throws IOException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (ledger.alive().isEmpty() && System.nanoTime() < deadline) {
            sleep(50);
        }
    }

    private static long nowNanos() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
