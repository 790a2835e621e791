package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.core.model.Durations;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * One small trace, scaled to seconds, replayed twice with the same policy: through the simulator ({@code allot
 * simulate}) and through Allot driving the real Slurm cluster (4 nodes x 8 GPUs), each workload submitted at its
 * time and running {@code sleep <duration>}. Prints, workload by workload, when each started in both and how far
 * apart, and the waits; asserts only what must hold in both (every workload ends, each attempt one Slurm job, the
 * same workloads complete), never a timing.
 */
class SlurmReplayTest extends SlurmStories {
    /** One workload of the trace. */
    record Row(String id, long submitSeconds, String allocation, int gpus, long durationSeconds, long minRuntimeSeconds) {
    }

    static List<Row> trace() {
        Random r = new Random(7);
        List<Row> rows = new ArrayList<>();
        long t = 0;
        for (int i = 1; i <= 30; i++) {
            t += r.nextInt(4);
            String allocation = r.nextInt(3) == 0 ? "b" : "a";
            int gpus = new int[] {1, 2, 4, 8, 8, 16}[r.nextInt(6)];
            long duration = 6 + r.nextInt(20);
            long min = r.nextInt(5) == 0 ? 0 : 4;
            rows.add(new Row("t" + i, t, allocation, gpus, duration, min));
        }
        return rows;
    }

    @Test
    void aScaledTraceStartsOnSlurmCloseToWhereTheSimulatorStartsIt() throws Exception {
        List<Row> rows = trace();
        Map<String, Long> simStart = simulate(rows);

        story = new Story(slurm, dir.resolve("data"), "it-replay").seed().start();
        Map<String, String> ids = new TreeMap<>();
        long t0 = System.nanoTime();
        for (Row row : rows) {
            long due = t0 + row.submitSeconds() * 1_000_000_000L;
            while (System.nanoTime() < due) {
                Thread.sleep(Math.max(1, (due - System.nanoTime()) / 1_000_000));
            }
            String user = row.allocation().equals("a") ? "alice" : "bob";
            ids.put(row.id(), story.submit(user, "lab/" + row.allocation(), row.gpus(), row.minRuntimeSeconds() + "s",
                    false, "sleep " + row.durationSeconds()));
        }
        Story.until("every workload to end", Duration.ofMinutes(5), () -> {
            for (String id : ids.values()) {
                if (!List.of("completed", "failed", "cancelled", "preempted").contains(story.state(id))) {
                    return false;
                }
            }
            return true;
        });

        // Real times against the trace's time 0: the first submission's instant minus its submit time.
        Instant zero = null;
        Map<String, Instant> submitted = new TreeMap<>();
        Map<String, Instant> started = new TreeMap<>();
        Map<String, Long> slurmStarted = new TreeMap<>();
        Map<String, String> realState = new TreeMap<>();
        for (Row row : rows) {
            JsonNode w = story.workload(ids.get(row.id()));
            Instant s = Instant.parse(w.path("workload").path("submittedAt").asText());
            submitted.put(row.id(), s);
            if (zero == null) {
                zero = s.minusSeconds(row.submitSeconds());
            }
            JsonNode a = w.path("attempts").get(0);
            started.put(row.id(), Instant.parse(a.path("startedAt").asText()));
            realState.put(row.id(), w.path("workload").path("state").asText());
            List<SlurmCluster.Job> jobs = story.jobs(ids.get(row.id()), 1);
            assertThat(jobs).as("Slurm jobs of %s", row.id()).hasSize(1);
            slurmStarted.put(row.id(), jobs.get(0).startEpochSeconds());
        }
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "%-4s %6s %5s %4s %4s | %9s %10s %7s %11s | %8s %9s%n", "id", "submit", "alloc", "gpus", "dur",
                "sim start", "allot start", "diff", "slurm start", "sim wait", "real wait"));
        List<Double> diffs = new ArrayList<>();
        List<Double> slurmLags = new ArrayList<>();
        List<Double> simWaits = new ArrayList<>();
        List<Double> realWaits = new ArrayList<>();
        for (Row row : rows) {
            double real = Duration.between(zero, started.get(row.id())).toMillis() / 1000.0;
            double realWait = Duration.between(submitted.get(row.id()), started.get(row.id())).toMillis() / 1000.0;
            double inSlurm = slurmStarted.get(row.id()) - zero.toEpochMilli() / 1000.0;
            Long sim = simStart.get(row.id());
            assertThat(sim).as("the simulator started %s", row.id()).isNotNull();
            double simWait = sim - row.submitSeconds();
            diffs.add(real - sim);
            slurmLags.add(inSlurm - real);
            simWaits.add(simWait);
            realWaits.add(realWait);
            table.append(String.format(Locale.ROOT, "%-4s %6d %5s %4d %4d | %9d %10.1f %+7.1f %11.1f | %8.1f %9.1f%n",
                    row.id(), row.submitSeconds(), row.allocation(), row.gpus(), row.durationSeconds(), sim, real,
                    real - sim, inSlurm, simWait, realWait));
        }
        table.append(String.format(Locale.ROOT, "Allot's start minus the simulator's: median %+.1f s, mean %+.1f s,"
                        + " max %+.1f s; Slurm's start (1 s resolution) minus Allot's: median %+.1f s, max %+.1f s;"
                        + " waits: simulated p50 %.1f s p90 %.1f s, on Slurm p50 %.1f s p90 %.1f s%n",
                percentile(diffs, 50), diffs.stream().mapToDouble(d -> d).average().orElse(0),
                diffs.stream().mapToDouble(d -> d).max().orElse(0), percentile(slurmLags, 50),
                slurmLags.stream().mapToDouble(d -> d).max().orElse(0), percentile(simWaits, 50),
                percentile(simWaits, 90), percentile(realWaits, 50), percentile(realWaits, 90)));
        System.out.print(table);
        Files.writeString(Path.of("target", "slurm-replay.txt"), table.toString(), StandardCharsets.UTF_8);
        assertThat(realState.values()).as("every workload ran to its end").allMatch(s ->
                s.equals("completed") || s.equals("preempted"));
    }

    /** Runs the trace through {@code allot simulate} with the allocation policy; each workload's first start. */
    private Map<String, Long> simulate(List<Row> rows) throws Exception {
        Path scenario = Files.createDirectories(dir.resolve("scenario"));
        Files.writeString(scenario.resolve("cluster.yaml"), "node-groups:\n  - name-prefix: n\n    count: 4\n"
                + "    gpus: 8\n");
        Files.writeString(scenario.resolve("allocations.yaml"), "name: lab\nchildren:\n  - {name: a, share: 1}\n"
                + "  - {name: b, share: 1}\n");
        StringBuilder csv = new StringBuilder("id,submit,allocation,gpus,duration,min_runtime,resumable\n");
        for (Row r : rows) {
            csv.append(r.id()).append(',').append(r.submitSeconds()).append(',').append(r.allocation()).append(',')
                    .append(r.gpus()).append(',').append(r.durationSeconds()).append(',')
                    .append(r.minRuntimeSeconds()).append(",false\n");
        }
        Files.writeString(scenario.resolve("workloads.csv"), csv);
        Path events = dir.resolve("events.txt");
        int exit = dev.allot.cli.AllotCommand.commandLine().execute("simulate", scenario.toString(),
                "--policy", "allocation", "--events-out", events.toString());
        assertThat(exit).as("allot simulate").isZero();
        Map<String, Long> starts = new TreeMap<>();
        for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length >= 3 && f[1].equals("start")) {
                starts.putIfAbsent(f[2], Durations.parse(f[0]).toSeconds());
            }
        }
        return starts;
    }

    private static double percentile(List<Double> values, int p) {
        double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
        if (v.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100.0 * v.length) - 1;
        return v[Math.max(0, Math.min(v.length - 1, i))];
    }
}
