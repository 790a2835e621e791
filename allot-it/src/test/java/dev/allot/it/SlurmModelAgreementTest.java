package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.slurm.SlurmPolicy;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.WorkloadRecord;
import dev.allot.sim.fidelity.StartAgreement;
import dev.allot.sim.input.ScenarioReader;
import dev.allot.slurm.ModelConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Allot's {@code slurm} model against real Slurm's own scheduler. One generated trace, scaled to seconds (4 nodes x 8
 * GPUs, four associations of different shares, one of them far over its share, a fifth of the work unallocated), runs
 * (a) on a Slurm cluster of its own configured by {@code allot slurm-config} (multifactor priority with Fair Tree,
 * backfill, preemption by QOS, {@code PriorityCalcPeriod} one minute) with Slurm deciding alone: every job is
 * {@code sbatch}ed at its time with its account, QOS, time limit and GPUs, and runs {@code sleep}; and (b) through the
 * model in the simulator, with the submission times Slurm recorded. The scenario's time 0 is put on one of Slurm's
 * priority recalculations (read from its log), so that the model recalculates Fair Tree at the same moments.
 *
 * <p>Asserts the agreement measured on this machine with a margin: the start order (Kendall tau), the start error
 * (median, p90), the waits, the final states. {@code ALLOT_AGREEMENT_JOBS=N} runs a longer trace (same shape, N
 * jobs) and prints the same table, for measuring rather than guarding.
 *
 * <p>Its Slurm is its own and it mostly waits, so it runs concurrently with the other stories, beside those that share
 * the machine with it ({@link Machine}: the fault story, which asserts no timing); the others wait for it to end.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = Machine.LOCK, mode = ResourceAccessMode.READ)
class SlurmModelAgreementTest {
    @TempDir
    Path dir;

    /** One job of the trace, in seconds from the trace's start (the first submission comes later). */
    record Row(String id, long submitSeconds, String account, int gpus, long durationSeconds, boolean allocated) {
        int nodes() {
            return gpus > 8 ? gpus / 8 : 1;
        }

        int gpusPerNode() {
            return gpus > 8 ? 8 : gpus;
        }
    }

    static final String ALLOCATIONS = """
            name: lab
            children:
              - name: vision
                share: 4
              - name: nlp
                share: 2
                children:
                  - name: nlp-big
                    share: 3
                  - name: nlp-small
                    share: 1
              - name: speech
                share: 1.5
            """;

    /**
     * The model's settings for a trace of minutes: Slurm's smallest PriorityCalcPeriod, a short decay and max age. The
     * guard's jobs last at most 55 s, within their one-minute limits; the longer traces' last up to 60 s, and get
     * time limits a fifth above (Slurm ends a job at its limit: a 60 s sleep in a one-minute limit times out).
     */
    static final String POLICY = """
            slurm:
              calc-period: 1m
              decay-half-life: 10m
              max-age: 10m
            """;

    /** When the first job is submitted, in seconds after one of Slurm's priority recalculations (time 0). */
    static final long FIRST_SUBMIT = 8;

    /**
     * The guard's trace, in seconds from a priority recalculation (the next is at 60 s). Until 60 s every
     * association has the same Fair Tree rank (no usage yet): speech and nlp-big fill three nodes with long jobs until
     * 62-64 s; on the fourth, an unallocated vision job is preempted by a short speech job (one preemption by QOS)
     * and runs again after it. From 44 s a burst of 20 short jobs from all four associations (4 of them unallocated)
     * fills the fourth node and queues. At 60 s both recalculate: speech, far over its share, ranks last, nlp-big
     * third; when the long jobs end the queue starts in Fair Tree order (vision, nlp-small, nlp-big, speech; the
     * unallocated after the allocated).
     */
    static List<Row> guardTrace() {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("a1", 8, "speech", 8, 54, true));
        rows.add(new Row("a2", 8, "nlp-big", 8, 55, true));
        rows.add(new Row("a3", 9, "speech", 8, 55, true));
        rows.add(new Row("a4", 9, "vision", 8, 14, false));
        rows.add(new Row("a5", 12, "speech", 8, 12, true));
        Random r = new Random(19);
        String[] accounts = {"vision", "nlp-small", "nlp-big", "speech"};
        int[] gpus = {1, 2, 2, 4};
        for (int i = 0; i < 20; i++) {
            rows.add(new Row(String.format(Locale.ROOT, "b%02d", i + 1), 44 + i * 13 / 20,
                    accounts[(i + r.nextInt(2)) % 4], gpus[r.nextInt(gpus.length)], 5 + r.nextInt(6), i % 5 != 4));
        }
        return rows;
    }

    /**
     * A longer random trace of the same shape, for measuring: submissions over {@code windowSeconds} from
     * {@link #FIRST_SUBMIT}, speech (20% of the shares) sending a third of the jobs, vision (53%) a fifth; 1-16 GPUs;
     * durations from 10 s up to {@code maxDuration}; a fifth unallocated.
     */
    static List<Row> trace(int jobs, long windowSeconds, long maxDuration, long seed) {
        Random r = new Random(seed);
        String[] accounts = {"speech", "speech", "speech", "nlp-big", "nlp-big", "nlp-big", "nlp-small", "nlp-small",
            "vision", "vision"};
        int[] gpus = {1, 2, 2, 4, 4, 8, 8, 16};
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            long submit = FIRST_SUBMIT + windowSeconds * i / jobs + r.nextInt(2);
            rows.add(new Row(String.format(Locale.ROOT, "m%02d", i + 1), submit, accounts[r.nextInt(accounts.length)],
                    gpus[r.nextInt(gpus.length)], 10 + r.nextInt((int) maxDuration - 9), r.nextInt(5) != 0));
        }
        return rows;
    }

    @Test
    void theSlurmModelStartsJobsInSlurmsOrderAndCloseToSlurmsTimes() throws Exception {
        int jobs = Integer.parseInt(System.getenv().getOrDefault("ALLOT_AGREEMENT_JOBS", "40"));
        boolean guard = System.getenv("ALLOT_AGREEMENT_JOBS") == null;
        List<Row> rows = guard ? guardTrace() : trace(jobs, jobs * 3L / 2, 60, 19);

        // The configuration, as a lab would write it: allot slurm-config on the same files the simulator reads.
        PolicyRegistry registry = PolicyRegistry.standard();
        Path scenario = Files.createDirectories(dir.resolve("scenario"));
        Files.writeString(scenario.resolve("allocations.yaml"), ALLOCATIONS);
        Files.writeString(scenario.resolve("policy.yaml"), guard ? POLICY : POLICY + "  time-limit-factor: 1.2\n");
        Files.writeString(scenario.resolve("cluster.yaml"), "node-groups:\n  - name-prefix: n\n    count: 4\n    gpus: 8\n");
        PolicyConfig policy = ScenarioReader.readPolicy(scenario.resolve("policy.yaml"), registry);
        SlurmPolicy model = (SlurmPolicy) policy.create(registry, SlurmPolicy.NAME);
        ModelConfig.Output config = ModelConfig.of(ScenarioReader.readAllocations(scenario.resolve("allocations.yaml")),
                model.config(), ModelConfig.Options.DEFAULTS.withUsers(List.of("root")).withIntervals(2, 1, 1));
        Path confExtra = dir.resolve("slurm-model.conf");
        // DebugFlags=Priority: slurmctld logs each recalculation, which puts the scenario's time 0 on one.
        Files.writeString(confExtra, config.slurmConf() + "DebugFlags=Priority\n");
        Path sacctmgr = dir.resolve("sacctmgr.sh");
        Files.writeString(sacctmgr, config.sacctmgr());

        long wallStart = System.nanoTime();
        Map<String, QosCluster.Accounted> accounted;
        long zeroSeconds;
        try (QosCluster slurm = QosCluster.start(dir, confExtra, sacctmgr)) {
            long tick = -1;
            for (int i = 0; i < 100 && tick < 0; i++) {
                tick = slurm.lastPriorityRecalculationMillis();
                Thread.sleep(tick < 0 ? 100 : 0);
            }
            assertThat(tick).as("slurmctld logged a priority recalculation (DebugFlags=Priority)").isPositive();
            // time 0 on a recalculation with the first submission still ahead (Slurm recalculates every minute
            // from then on, and so does the model from time 0)
            long late = System.currentTimeMillis() + 500 - (tick + FIRST_SUBMIT * 1000);
            long zeroMillis = tick + (late <= 0 ? 0 : (late + 59_999) / 60_000 * 60_000);
            zeroSeconds = zeroMillis / 1000;
            for (Row row : rows) {
                long due = zeroMillis + row.submitSeconds() * 1000;
                long wait = due - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                slurm.run(sbatch(row, model));
            }
            long deadline = System.currentTimeMillis() + 600_000;
            while (!slurm.run(List.of("squeue", "-h", "-o", "%i")).isBlank()) {
                assertThat(System.currentTimeMillis()).as("every job ended within 10 minutes").isLessThan(deadline);
                Thread.sleep(200);
            }
            // the last end reaches slurmdbd: read until accounting has every job, ended
            long accountedBy = System.currentTimeMillis() + 30_000;
            accounted = slurm.accounting();
            while (!everyEnded(accounted, rows)) {
                assertThat(System.currentTimeMillis()).as("slurmdbd recorded every end within 30 s")
                        .isLessThan(accountedBy);
                Thread.sleep(200);
                accounted = slurm.accounting();
            }
        }

        // (b) the model, on the submission times Slurm recorded
        StringBuilder csv = new StringBuilder("id,submit,allocation,gpus,gpus_per_node,duration,min_runtime,resumable\n");
        for (Row row : rows) {
            QosCluster.Accounted a = accounted.get(row.id());
            assertThat(a).as("Slurm's accounting of %s", row.id()).isNotNull();
            csv.append(row.id()).append(',').append(a.submitEpochSeconds() - zeroSeconds).append(',')
                    .append(row.account()).append(',').append(row.gpus()).append(',').append(row.gpusPerNode())
                    .append(',').append(row.durationSeconds()).append(',')
                    .append(row.allocated() ? row.durationSeconds() + "s" : "0").append(",false\n");
        }
        Files.writeString(scenario.resolve("workloads.csv"), csv);
        Scenario s = ScenarioReader.read(scenario, false, registry);
        SimulationResult result = new Simulator(s, registry, SlurmPolicy.NAME, Simulator.Options.defaults()).run();

        Map<String, StartAgreement.Start> inModel = new TreeMap<>();
        Map<String, StartAgreement.Start> inSlurm = new TreeMap<>();
        Map<String, WorkloadRecord> records = new TreeMap<>();
        int modelPreemptions = 0;
        int slurmPreemptions = 0;
        for (WorkloadRecord w : result.workloads()) {
            records.put(w.id(), w);
            inModel.put(w.id(), new StartAgreement.Start(w.submitSeconds(), w.firstStartSeconds()));
            modelPreemptions += w.preemptions();
        }
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "%-4s %-9s %4s %4s %5s %6s | %11s %11s %5s | %9s %9s%n",
                "id", "account", "gpus", "dur", "qos", "submit", "model start", "slurm start", "diff", "model pre", "slurm pre"));
        for (Row row : rows) {
            QosCluster.Accounted a = accounted.get(row.id());
            long start = a.firstStartEpochSeconds() < 0 ? -1 : a.firstStartEpochSeconds() - zeroSeconds;
            inSlurm.put(row.id(), new StartAgreement.Start(a.submitEpochSeconds() - zeroSeconds, start));
            slurmPreemptions += Math.max(0, a.attempts() - 1);
            WorkloadRecord w = records.get(row.id());
            table.append(String.format(Locale.ROOT, "%-4s %-9s %4d %4d %5s %6d | %11d %11d %+5d | %9d %9d%n", row.id(),
                    row.account(), row.gpus(), row.durationSeconds(), row.allocated() ? "prot" : "free",
                    w.submitSeconds(), w.firstStartSeconds(), start, start - w.firstStartSeconds(), w.preemptions(),
                    Math.max(0, a.attempts() - 1)));
        }
        StartAgreement agreement = StartAgreement.of(inModel, inSlurm);
        table.append(agreement.summary("model", "slurm")).append(String.format(Locale.ROOT,
                "; preemptions model %d / slurm %d; %d jobs, wall time %.0f s%n", modelPreemptions, slurmPreemptions,
                rows.size(), (System.nanoTime() - wallStart) / 1e9));
        System.out.print(table);
        Files.writeString(Path.of("target", "slurm-model-agreement" + (guard ? "" : "-" + jobs) + ".txt"),
                table.toString(), StandardCharsets.UTF_8);

        assertThat(agreement.compared()).as("every job started in both").isEqualTo(rows.size());
        for (Row row : rows) {
            assertThat(accounted.get(row.id()).state()).as("Slurm's final state of %s", row.id()).isEqualTo("COMPLETED");
            assertThat(records.get(row.id()).finalState()).as("the model's final state of %s", row.id())
                    .isEqualTo("completed");
        }
        if (guard) {
            // measured on a loaded 2-core machine: tau 0.88, start error median 1 s, p90 3 s, wait p90 15 s / 16 s,
            // 2 preemptions in both (see the README); the margins leave room for Slurm's 1-2 s scheduling latency
            assertThat(agreement.kendallTau()).as("start order agreement (Kendall tau)").isGreaterThanOrEqualTo(0.75);
            assertThat(agreement.startErrorP50Seconds()).as("median |start error|").isLessThanOrEqualTo(2);
            assertThat(agreement.startErrorP90Seconds()).as("p90 |start error|").isLessThanOrEqualTo(5);
            assertThat(Math.abs(agreement.waitP90SecondsA() - agreement.waitP90SecondsB())).as("wait p90, model"
                    + " against Slurm").isLessThanOrEqualTo(5);
            assertThat(slurmPreemptions).as("Slurm's preemptions against the model's %d", modelPreemptions)
                    .isBetween(modelPreemptions - 1, modelPreemptions + 1).isPositive();
            // Fair Tree at the recalculation: allocated work of vision (furthest under its share) queued at 60 s
            // overtakes speech's (furthest over it) submitted earlier, in both; FIFO would not
            for (Map<String, StartAgreement.Start> run : List.of(inSlurm, inModel)) {
                int[] pairs = overtakes(run, rows, "vision", "speech");
                assertThat(pairs[1]).as("queued speech jobs that started before later vision ones (%s)",
                        run == inSlurm ? "Slurm" : "model").isZero();
                assertThat(pairs[0]).as("queued vision jobs that overtook earlier speech ones (%s)",
                        run == inSlurm ? "Slurm" : "model").isPositive();
            }
        }
    }

    /**
     * Among allocated jobs waiting until the recalculation at 60 s (started at it or after), the pairs of a job of
     * {@code over} and one of {@code under} submitted after it (later, or in the same second but after it: first come
     * first served would start it second): {@code [under's started first, over's started first]}.
     */
    private static int[] overtakes(Map<String, StartAgreement.Start> starts, List<Row> rows, String under, String over) {
        int[] out = new int[2];
        for (int oi = 0; oi < rows.size(); oi++) {
            for (int ui = oi + 1; ui < rows.size(); ui++) { // rows are in submission order: u after o
                Row o = rows.get(oi);
                Row u = rows.get(ui);
                StartAgreement.Start so = starts.get(o.id());
                StartAgreement.Start su = starts.get(u.id());
                if (o.allocated() && u.allocated() && o.account().equals(over) && u.account().equals(under)
                        && so.firstStartSeconds() >= 60 && su.firstStartSeconds() >= 60
                        && so.submitSeconds() <= su.submitSeconds() && so.firstStartSeconds() != su.firstStartSeconds()) {
                    out[su.firstStartSeconds() < so.firstStartSeconds() ? 0 : 1]++;
                }
            }
        }
        return out;
    }

    /** Whether accounting has every row's job, its last attempt ended. */
    private static boolean everyEnded(Map<String, QosCluster.Accounted> accounted, List<Row> rows) {
        return rows.stream().allMatch(r -> accounted.containsKey(r.id())
                && SlurmCluster.ended(accounted.get(r.id()).state()));
    }

    /** The job as a lab would submit it: account, QOS, time limit in whole minutes, GPUs per node, a sleep. */
    static List<String> sbatch(Row row, SlurmPolicy model) {
        long limitMinutes = (long) Math.ceil(model.timeLimitSeconds(row.durationSeconds()) / 60.0);
        return List.of("sbatch", "--parsable", "-J", row.id(), "-A", row.account(),
                "--qos=" + (row.allocated() ? "allocated" : "unallocated"), "-N", Integer.toString(row.nodes()),
                "--gres=gpu:" + row.gpusPerNode(), "--time=" + Math.max(1, limitMinutes), "-o", "/dev/null",
                "-D", "/tmp", "--requeue", "--wrap", "sleep " + row.durationSeconds());
    }
}
