package dev.allot.server.service;

import static dev.allot.server.service.ServiceTestSupport.alive;
import static dev.allot.server.service.ServiceTestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.backend.AttemptKey;
import dev.allot.server.service.ServiceTestSupport.Answer;
import dev.allot.server.service.ServiceTestSupport.Client;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.AttemptOutcome;
import dev.allot.server.store.AttemptPhase;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety of the whole service: {@link ServiceMain} runs as a separate process with the {@code local} backend
 * on a seeded data directory; submitter threads post workloads continuously (each with an idempotency key, retried
 * with the same key until acknowledged, across restarts); the service is killed with SIGKILL at random moments
 * (seeded) and restarted on the same data directory, round after round. Each workload appends one line when its
 * process starts and one when it ends (0.3 s later, or 2 s for one in four, so that some still run at the next
 * kill) to a ledger ({@code O_APPEND} writes of a short line are atomic).
 *
 * <p>Once everything has ended, proven from the store (read after the last stop) and the ledger: every acknowledged
 * submission is stored, once; every (workload, attempt) started at most once and is an attempt the store knows; no
 * workload ran two attempts at the same time; every attempt open at a kill was adopted (ended completed under the
 * same attempt number), cleanly requeued (ended lost or requeued, and its workload ran again) or, when a canceller
 * thread asked for it, stopped (some attempts are stopping, within their grace period, at a kill); no process
 * survives. The counts of each case are printed.
 *
 * <p>Seed and rounds: {@code -Dallot.crash.seed=N -Dallot.crash.rounds=N}.
 */
class CrashSafetyTest {
    private static final long SEED = Long.getLong("allot.crash.seed", 20_261_129L);
    private static final int ROUNDS = Integer.getInteger("allot.crash.rounds", 8);
    private static final int SUBMITTERS = 3;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String SCRIPT = "echo \"$ALLOT_WORKLOAD_ID $ALLOT_ATTEMPT $$ start $(date +%s%N)\" >> \"$LEDGER\"; "
            + "sleep \"$WORK\"; "
            + "echo \"$ALLOT_WORKLOAD_ID $ALLOT_ATTEMPT $$ end $(date +%s%N)\" >> \"$LEDGER\"";

    @TempDir
    Path dir;

    private Path data;
    private Path ledger;
    private Process service;
    private int launches;

    /** An attempt found open in the store right after a kill. */
    record OpenAtKill(int round, AttemptKey key, AttemptPhase phase, long killNanos, long restartNanos) {
    }

    /** One ledger line. */
    record Entry(String workload, int attempt, long pid, boolean start, long nanos) {
    }

    @AfterEach
    void noProcessSurvives() throws IOException {
        if (service != null && service.isAlive()) {
            service.destroyForcibly();
        }
        if (ledger != null && Files.exists(ledger)) {
            for (Entry e : ledger()) {
                ProcessHandle.of(e.pid()).filter(h -> h.info().commandLine().orElse("").contains(ledger.toString()))
                        .ifPresent(h -> ServiceTestSupport.killTree(h.pid()));
            }
        }
        for (long pid : wrapperPids()) {
            ProcessHandle.of(pid).filter(h -> h.info().commandLine().orElse("").contains("allot:"))
                    .ifPresent(h -> ServiceTestSupport.killTree(h.pid()));
        }
    }

    @Test
    void acknowledgedSubmissionsSurviveSigkillAndProcessesAreAdoptedOrRequeuedNeverLaunchedTwice() throws Exception {
        data = dir.resolve("data");
        ledger = ServiceTestSupport.sharedFile(dir.resolve("ledger"));
        ServiceTestSupport.seed(data);
        long testStart = System.nanoTime();
        Random random = new Random(SEED);
        System.out.printf("CrashSafetyTest: seed %d, %d rounds%n", SEED, ROUNDS);

        Client http = new Client(startService());
        Map<String, String> acked = new ConcurrentHashMap<>(); // idempotency key -> workload id
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger lostAnswers = new AtomicInteger();
        AtomicInteger retriedKeys = new AtomicInteger();
        AtomicInteger ackCount = new AtomicInteger();
        Map<String, Integer> errorKinds = new ConcurrentHashMap<>();
        List<String> longOnes = java.util.Collections.synchronizedList(new ArrayList<>());
        Set<String> cancelSent = ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> submitters = new ArrayList<>();
        for (int t = 0; t < SUBMITTERS; t++) {
            int thread = t;
            long threadSeed = random.nextLong();
            String token = thread % 2 == 0 ? "tok-alice" : "tok-bob";
            String allocation = thread % 2 == 0 ? "lab/a" : "lab/b";
            Thread th = new Thread(() -> {
                Random r = new Random(threadSeed);
                int n = 0;
                String key = null;
                String work = "0.3";
                boolean retried = false;
                while (key != null || !stop.get()) {
                    if (key == null) {
                        key = "t" + thread + "-" + n++;
                        retried = false;
                        work = r.nextInt(4) == 0 ? "2" : "0.3"; // some still run at the next kill
                    }
                    String body = ServiceTestSupport.submission(allocation, "10s", true,
                            List.of("sh", "-c", SCRIPT, "ledger"), Map.of("LEDGER", ledger.toString(),
                                    "WORK", work), key);
                    try {
                        Answer a = http.post("/v1/workloads", token, body);
                        if (a.status() == 201) {
                            String id = a.json().path("id").asText();
                            String before = acked.putIfAbsent(key, id);
                            if (work.equals("2")) {
                                longOnes.add(id);
                            }
                            if (before != null && !before.equals(id)) {
                                problems.add("key " + key + " acknowledged as " + before + " and as " + id);
                            }
                            if (retried) {
                                retriedKeys.incrementAndGet();
                            }
                            ackCount.incrementAndGet();
                            key = null;
                            sleep(150 + r.nextInt(300));
                        } else {
                            problems.add("submission " + key + " answered " + a.status() + ": " + a.json());
                            retried = true;
                            sleep(100);
                        }
                    } catch (IOException e) {
                        lostAnswers.incrementAndGet();
                        errorKinds.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                        retried = true;
                        sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "submitter-" + t);
            th.setDaemon(true);
            th.start();
            submitters.add(th);
        }

        // A canceller: now and then cancels one of the longer workloads, so that some attempts are stopping (SIGTERM
        // sent, within the grace period) when the service is killed.
        long cancellerSeed = random.nextLong();
        Thread canceller = new Thread(() -> {
            Random r = new Random(cancellerSeed);
            while (!stop.get()) {
                sleep(400 + r.nextInt(600));
                String id;
                synchronized (longOnes) {
                    if (longOnes.isEmpty()) {
                        continue;
                    }
                    id = longOnes.remove(r.nextInt(longOnes.size()));
                }
                cancelSent.add(id);
                try {
                    Answer a = http.post("/v1/workloads/" + id + "/cancel", "tok-root", null);
                    if (a.status() != 200) {
                        problems.add("cancel " + id + " answered " + a.status() + ": " + a.json());
                    }
                } catch (IOException e) {
                    // the service is down: the cancellation may or may not have been recorded
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "canceller");
        canceller.setDaemon(true);
        canceller.start();

        // Kill rounds: SIGKILL at a random moment, look at the store while the service is down, restart.
        List<OpenAtKill> openAtKills = new ArrayList<>();
        List<Long> restartMillis = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            // The random moment counts from the first acknowledgement after the (re)start, so that every round has
            // work in flight however slowly a loaded machine brings the service up.
            int before = ackCount.get();
            await("a submission acknowledged after the (re)start", WAIT, () -> ackCount.get() > before);
            sleep(300 + random.nextInt(1500));
            long killNanos = nowNanos();
            service.destroyForcibly();
            service.waitFor();
            List<Attempt> open;
            try (Store store = Store.sqlite(data)) {
                open = store.attempts().openAttempts();
            }
            long restartNanos = nowNanos();
            for (Attempt a : open) {
                openAtKills.add(new OpenAtKill(round, a.key(), a.phase(), killNanos, restartNanos));
            }
            System.out.printf("round %d: killed; %d acknowledged so far, %d attempts open in the store: %s%n", round,
                    acked.size(), open.size(), open.stream().map(a -> a.key() + " " + a.phase().label()).toList());
            long t0 = System.nanoTime();
            http.base(startService());
            restartMillis.add((System.nanoTime() - t0) / 1_000_000);
        }

        long roundsDone = System.nanoTime();
        stop.set(true);
        canceller.join(WAIT.toMillis());
        for (Thread th : submitters) {
            th.join(WAIT.toMillis());
            assertThat(th.isAlive()).as("%s finished its last submission", th.getName()).isFalse();
        }
        await("every workload has ended", WAIT, () -> {
            try {
                JsonNode w = http.get("/v1/workloads?state=pending,running,preempted,requeued&limit=1", "tok-root")
                        .json();
                return w != null && w.path("workloads").isEmpty();
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        });
        System.out.printf("rounds took %d ms (restarts %s ms); the drain after them %d ms%n",
                (roundsDone - testStart) / 1_000_000, restartMillis, (System.nanoTime() - roundsDone) / 1_000_000);
        service.destroy(); // SIGTERM: the shutdown hook closes the store
        if (!service.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
            service.destroyForcibly().waitFor();
        }

        // ---- the proof
        Map<String, Workload> workloads = new TreeMap<>();
        Map<String, List<Attempt>> attempts = new HashMap<>();
        try (Store store = Store.sqlite(data)) {
            WorkloadFilter f = WorkloadFilter.all();
            while (true) {
                List<Workload> page = store.workloads().workloads(f);
                page.forEach(w -> workloads.put(w.id(), w));
                if (page.size() < f.limit()) {
                    break;
                }
                f = f.withAfterSeq(page.get(page.size() - 1).seq());
            }
            for (String id : workloads.keySet()) {
                attempts.put(id, store.attempts().attempts(id));
            }
        }
        List<Entry> entries = ledger();
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
                assertThat(as.get(as.size() - 1).outcome()).as("%s's last attempt", w.id()).isEqualTo(
                        w.state() == WorkloadState.CANCELLED ? AttemptOutcome.CANCELLED : AttemptOutcome.COMPLETED);
            } else {
                assertThat(w.state()).as("%s never ran", w.id()).isEqualTo(WorkloadState.CANCELLED);
            }
        }

        // 3. The ledger: each (workload, attempt) started at most once, known to the store, never two at once.
        Map<String, List<Entry>> starts = entries.stream().filter(Entry::start)
                .collect(Collectors.groupingBy(e -> e.workload() + "#" + e.attempt(), LinkedHashMap::new,
                        Collectors.toList()));
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
            long end = entries.stream().filter(e -> !e.start() && e.workload().equals(s.workload())
                    && e.attempt() == s.attempt()).mapToLong(Entry::nanos).findFirst().orElse(Long.MAX_VALUE);
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

        // 4. Attempts open at a kill: adopted (completed under the same number) or cleanly requeued.
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
            if (a.outcome() == AttemptOutcome.COMPLETED) {
                List<Entry> s = starts.get(k);
                long end = entries.stream().filter(e -> !e.start() && (e.workload() + "#" + e.attempt()).equals(k))
                        .mapToLong(Entry::nanos).findFirst().orElseThrow();
                if (s.get(0).nanos() > o.killNanos()) {
                    launchedAfterRestart++;
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
                assertThat(as.size()).as("%s was requeued and ran again", k).isGreaterThan(o.key().attempt());
                requeued++;
            }
        }
        System.out.printf("CrashSafetyTest seed %d: %d rounds, %d launches of the service, %d submissions"
                        + " acknowledged (%d connection errors %s, %d keys retried then acknowledged), %d workloads,"
                        + " %d attempts, %d ledger starts%n", SEED, ROUNDS, launches, acked.size(), lostAnswers.get(),
                new TreeMap<>(errorKinds),
                retriedKeys.get(), workloads.size(), attempts.values().stream().mapToInt(List::size).sum(),
                starts.size());
        System.out.printf("attempts open at a kill: %d sightings by phase %s, %d distinct: %d adopted while their process"
                        + " ran, %d adopted whose process had ended just before the kill (end not yet observed), %d"
                        + " adopted whose process ended while the service was down, %d launched after the restart"
                        + " under the same attempt number (the crash came between the store and the backend), %d"
                        + " requeued (lost) and run again, %d ended cancelled as asked (%d of them stopping at the"
                        + " kill: adopted with their stop); %d workloads cancelled in all (%d cancellations sent)%n",
                openAtKills.size(), byPhase, counted.size(), adoptedRunning, adoptedEndedBeforeKill,
                adoptedFinishedWhileDown, launchedAfterRestart, requeued, stoppedAsAsked, stoppingAdopted, cancelled,
                cancelSent.size());

        // 5. No process of the test survives.
        for (Entry e : entries) {
            assertThat(alive(e.pid())).as("workload process %s is gone", e).isFalse();
        }
        for (long pid : wrapperPids()) {
            assertThat(alive(pid)).as("wrapper %s is gone", pid).isFalse();
        }
    }

    /** Starts {@link ServiceMain} on the data directory and returns its URL once it listens. */
    private String startService() throws IOException, InterruptedException {
        launches++;
        ServiceTestSupport.ServiceProcess started = ServiceTestSupport.startServiceProcess(dir, data, 8);
        service = started.process();
        return started.url();
    }

    private List<Entry> ledger() throws IOException {
        List<Entry> out = new ArrayList<>();
        for (String line : Files.readAllLines(ledger)) {
            String[] p = line.split(" ");
            assertThat(p).as("ledger line '%s' is whole", line).hasSize(5);
            assertThat(p[3]).isIn("start", "end");
            out.add(new Entry(p[0], Integer.parseInt(p[1]), Long.parseLong(p[2]), p[3].equals("start"),
                    Long.parseLong(p[4])));
        }
        return out;
    }

    private List<Long> wrapperPids() throws IOException {
        Path attemptsDir = data == null ? null : data.resolve("attempts");
        if (attemptsDir == null || !Files.isDirectory(attemptsDir)) {
            return List.of();
        }
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> files = Files.list(attemptsDir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".pid")).toList()) {
                for (String line : Files.readAllLines(f)) {
                    if (line.startsWith("pid=")) {
                        pids.add(Long.parseLong(line.substring(4).trim()));
                    }
                }
            }
        }
        return pids;
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
