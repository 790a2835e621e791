package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.service.ServiceTestSupport.Answer;
import dev.allot.server.service.ServiceTestSupport.Client;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The clients {@link CrashSafetyTest} runs against a service it keeps killing: {@link #SUBMITTERS} submitter threads
 * post workloads continuously (each with an idempotency key, retried with the same key until acknowledged, across
 * restarts; one in four works 2 s instead of 0.3 s, so that some still run at the next kill), and a canceller now and
 * then cancels one of the longer ones, so that some attempts are stopping (SIGTERM sent, within the grace period)
 * when the service is killed. What they were told is kept for the proof.
 */
final class CrashClients {
    static final int SUBMITTERS = 3;

    /** Idempotency key -> the workload id the service acknowledged it as. */
    final Map<String, String> acked = new ConcurrentHashMap<>();
    /** Answers that were neither an acknowledgement nor a lost connection. */
    final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger lostAnswers = new AtomicInteger();
    final AtomicInteger retriedKeys = new AtomicInteger();
    final AtomicInteger ackCount = new AtomicInteger();
    final Map<String, Integer> errorKinds = new ConcurrentHashMap<>();
    /** Workloads the canceller asked to cancel. */
    final Set<String> cancelSent = ConcurrentHashMap.newKeySet();

    private final List<String> longOnes = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final Client http;
    private final CrashLedger ledger;
    /** A submitter's pause after an acknowledgement: at least this, plus up to {@link #pauseSpreadMillis}. */
    private final int pauseMillis;
    private final int pauseSpreadMillis;

    CrashClients(Client http, CrashLedger ledger) {
        this(http, ledger, 150, 300);
    }

    /** Submitters that pause {@code pauseMillis} plus up to {@code pauseSpreadMillis} between submissions. */
    CrashClients(Client http, CrashLedger ledger, int pauseMillis, int pauseSpreadMillis) {
        this.http = http;
        this.ledger = ledger;
        this.pauseMillis = pauseMillis;
        this.pauseSpreadMillis = pauseSpreadMillis;
    }

    /** Starts the submitters and the canceller, each with a seed drawn from {@code random}. */
    void start(Random random) {
        for (int t = 0; t < SUBMITTERS; t++) {
            int thread = t;
            long threadSeed = random.nextLong();
            threads.add(daemon("submitter-" + t, () -> submit(thread, new Random(threadSeed))));
        }
        long cancellerSeed = random.nextLong();
        threads.add(daemon("canceller", () -> cancel(new Random(cancellerSeed))));
    }

    /** Stops submitting new keys; waits for every thread, the submitters having had their last key acknowledged. */
    void stopAndJoin(Duration wait) throws InterruptedException {
        stop.set(true);
        for (Thread th : threads) {
            th.join(wait.toMillis());
            assertThat(th.isAlive()).as("%s finished its last request", th.getName()).isFalse();
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread th = new Thread(body, name);
        th.setDaemon(true);
        th.start();
        return th;
    }

    private void submit(int thread, Random r) {
        String token = thread % 2 == 0 ? "tok-alice" : "tok-bob";
        String allocation = thread % 2 == 0 ? "lab/a" : "lab/b";
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
                    List.of("sh", "-c", CrashLedger.SCRIPT, "ledger"),
                    Map.of("LEDGER", ledger.file().toString(), "WORK", work), key);
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
                    sleep(pauseMillis + r.nextInt(pauseSpreadMillis));
                } else if (a.status() == 503) {
                    // the instance cannot reach the database for now (high availability): retried, as a lost answer
                    lostAnswers.incrementAndGet();
                    errorKinds.merge("503", 1, Integer::sum);
                    retried = true;
                    sleep(100);
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
    }

    private void cancel(Random r) {
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
                if (a.status() != 200 && a.status() != 503) { // 503: the database was out of reach
                    problems.add("cancel " + id + " answered " + a.status() + ": " + a.json());
                }
            } catch (IOException e) {
                // the service is down: the cancellation may or may not have been recorded
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
