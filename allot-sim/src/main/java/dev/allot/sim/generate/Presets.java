package dev.allot.sim.generate;

import static dev.allot.core.model.Priority.HIGH;
import static dev.allot.core.model.Priority.LOW;
import static dev.allot.core.model.Priority.NORMAL;
import static dev.allot.core.model.Priority.URGENT;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;

import dev.allot.core.model.Priority;
import dev.allot.sim.generate.GeneratorSpec.Activity;
import dev.allot.sim.generate.GeneratorSpec.Bursts;
import dev.allot.sim.generate.GeneratorSpec.Cluster;
import dev.allot.sim.generate.GeneratorSpec.Failures;
import dev.allot.sim.generate.GeneratorSpec.Program;
import dev.allot.sim.generate.GeneratorSpec.Team;
import dev.allot.sim.generate.KindSpec.MinRuntime;
import dev.allot.sim.generate.KindSpec.Volume;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The named presets of {@link GeneratorSpec}, and what they generate. {@link ScenarioGenerator} and the classes it
 * names explain the model; this comment explains the numbers.
 *
 * <h2>The kinds (both presets)</h2>
 * <ul>
 * <li>{@code debug} - the bulk by count: quick checks before a real run. GPUs 1 (45%), 2 (20%), 3 (2%), 4 (18%),
 * 6 (2%), 8 (13%), any packing. Duration log-normal, median 7 min, sigma 0.85, within 1-40 min (mean about 9 min,
 * one in twenty past 25 min), to the second. min_runtime 5m (50%), 10m (30%), 15m (20%); not resumable. Priority
 * normal 85%, high 8%, low 7%, inflating teams alike. Office hours. Affinity 1.</li>
 * <li>{@code train} - the load: multi-node training as whole 8-GPU nodes, 8 to 128 GPUs in {@code lab}
 * (8: 45%, 16: 25%, 32: 16%, 64: 9%, 128: 5%), to 1,024 in {@code big}. Duration log-normal, median 10 h, sigma 0.9,
 * within 1 h-4 d (mean about 13.5 h), to the minute. min_runtime 2h (20%), 4h (30%), 6h (20%), 8h (18%), 24h (12%,
 * so the 8 h max-min-runtime cap is exercised). Resumable 85%: checkpoint every 30m (25%), 1h (45%), 90m (10%),
 * 2h (20%), or 5% of resumable ones lose nothing. Priority low 10%, normal 70%, high 17%, urgent 3%; in inflating
 * teams normal 30%, high 60%, urgent 10%. Launch hours. A GPU-hour budget ({@code LOAD}), with a backlog.
 * Affinity 1.</li>
 * <li>{@code interactive} - notebooks and shells: 1 GPU (70%) or 2 (30%), any packing. Duration log-normal, median
 * 3 h, sigma 0.6, within 1-10 h. min_runtime is the session booked: the duration rounded up to the hour, capped at
 * 8 h; 15% ask 12 h instead. Not resumable. Priority normal 80%, high 20% (inflating teams 60/40). Office hours.
 * Affinity 0.6.</li>
 * <li>{@code eval} - evaluation suites over checkpoints, in batches of 1-6 (duration jitter 0.3): 1 (30%), 2 (20%),
 * 4 (25%) or 8 GPUs (25%, as one whole node). Duration log-normal, median 40 min, sigma 0.7, within 10 min-3 h.
 * min_runtime 30m (60%) or 1h (40%); not resumable. Priority low 10%, normal 75%, high 15% (inflating teams
 * normal/high half and half). Launch hours. Affinity 1.</li>
 * <li>{@code sweep} - hyper-parameter sweeps, unallocated (min_runtime 0, free, always preemptible), in batches of
 * 20-100 (duration jitter 0.25), only by teams that name the kind (affinity 0 otherwise): 1 (30%), 2 (30%) or 4 GPUs
 * (40%), any packing. Duration log-normal, median 90 min, sigma 0.6, within 30 min-4 h. All resumable, half with
 * no checkpoint (progress never lost), half checkpointing every 15m or 30m. Priority low 70%, normal 30%. Launch
 * hours.</li>
 * </ul>
 * Office hours ({@link TimeProfile#OFFICE_HOURS}): nights at 0.05 of a working hour, weekends at 0.2 of a weekday.
 * Launch hours ({@link TimeProfile#LAUNCH}): nights at 0.3, evenings at 0.8, weekends at 0.5.
 *
 * <h2>Preset {@code lab}</h2>
 * A research lab in the overloaded regime: it opens with a backlog, and its allocated work offers about the GPU-hours
 * of the cluster. 32 nodes x 8 h100 GPUs (256 GPUs) in 4 racks of 8; 14 days (capacity 86,016 GPU-hours). Tree
 * {@code lab}: programs {@code foundation} 45% ({@code pretrain} 40, {@code multimodal} 30, {@code scaling} 20,
 * {@code data} 10), {@code applied} 25% ({@code vision} 35, {@code speech} 25, {@code robotics} 20, {@code recsys} 20),
 * {@code research} 20% ({@code rl} 30, {@code nlp} 30, {@code optim} 25, {@code interp} 15, {@code safety} 15),
 * {@code platform} 10% ({@code infra} 50, {@code evals} 50): 15 leaves.
 * Steady and heavy: {@code pretrain} (intensity 1.6, train affinity 1.5) and {@code multimodal} (1.6). Bursty:
 * {@code scaling}, {@code speech}, {@code rl}. Light: {@code data} (0.4), {@code interp} (0.4), {@code infra}
 * (0.5, mostly debug). Sweeps: {@code scaling} (affinity 1.5), {@code rl}, {@code optim}. {@code evals} does most
 * evaluation (affinity 4). Inflating: {@code pretrain}, {@code multimodal}, {@code vision}, {@code robotics},
 * {@code nlp} - which between them carry most of the training.
 * <p>Volumes: debug 5.0 jobs per GPU-day (17,920), interactive 0.42 (1,505), eval 0.3 (1,075), sweep 0.6
 * (2,150), train a budget of 0.68 x capacity (58,491 GPU-hours) plus a backlog of 2 days of it (8,356 GPU-hours) at
 * time 0. Seed 42 gives 22,879 workloads (debug 17,920, sweep 2,150, interactive 1,505, eval 1,075, train 229 of
 * which 27 in the backlog, 8,626 GPU-hours), a CSV of about 1.5 MB; its allocated work offers 1.04 x the capacity
 * in GPU-hours (train 0.83 with the backlog, debug 0.09, interactive 0.08, eval 0.04) and its sweeps another 0.105.
 * Over seeds 1-30: 22,826-22,920 workloads, 176-270 of them training; the backlog is 21-50 gangs, 0.58-1.05 of its
 * 8,356 GPU-hours; the allocated work offers 0.86-1.03 x the capacity (train 0.65-0.82 with the backlog, debug
 * 0.086-0.091, interactive 0.076-0.083, eval 0.035-0.044) and sweeps another 0.07-0.14.
 * <p>The offered allocated load, backlog included, is about 1 (1.04 for seed 42; of seeds 1-30, only 12 and 25 are
 * above 1), and the backlog and the bursts keep work waiting most of the time. Allocated work that no
 * scheduler could have served yet (what is submitted less all the GPU-hours of the cluster) is left at the end of
 * 81-98% of the hours over seeds 1-30, at most 1.1-3.3 days of the whole cluster; the queue drains at times in each
 * of them, and over seeds 1-40 only seed 32 never drains. With an offered load well above 1 the queue would grow
 * without bound over the two weeks, which is not a steady regime; around 1, it drains at times and builds up again.
 * If every workload ran from its submission, the GPUs in use would be 1.7-3.6 x the cluster in hour 0 (the
 * backlog), then, after the first day, a median of 0.79-1.04 x, 1.5-2.1 x in the busiest tenth of the hours
 * (weekday afternoons, bursts) and 0.2-0.5 x in the quietest tenth (nights, weekends); that is only a floor on the
 * GPUs asked for by waiting and running work. The simulator's figures for {@code lab} (how much allocated work waits
 * and runs, how busy the GPUs are) depend on the scheduler and the policy and are not quoted here; running the
 * simulator on a generated {@code lab} ({@code allot simulate}) measures them. Two host failures, each 1-2 days.
 *
 * <h2>Preset {@code big}</h2>
 * For benchmarks: 1,024 nodes x 8 h100 GPUs (8,192 GPUs) in 32 racks of 32; 30 days. Tree {@code org}: six programs
 * ({@code llm} 30%, {@code vision} 20%, {@code speech} 15%, {@code robotics} 15%, {@code science} 10%,
 * {@code platform} 10%) with 10, 8, 6, 6, 5 and 5 teams ({@code llm-01} ..): 40 leaves, traits laid out by a fixed
 * pattern (see the preset). Same kinds and contracts, train gangs up to 1,024 GPUs (8: 30%, 16: 22%, 32: 17%, 64:
 * 12%, 128: 9%, 256: 6%, 512: 3%, 1024: 1%). Train is a budget of 0.90 x capacity plus a backlog of 1.5 days of it;
 * debug's rate, 0.1879 jobs per GPU-day, is set so that the total stays about 100,000. About 100,000 workloads
 * (99,738-100,451 over seeds 1-12, mean 99,990: debug 46,178, sweep 34,996, interactive 7,004, eval 5,997, train
 * 5,563-6,276 of which 335-401 in the backlog). The allocated work offers 0.95-0.96 x the capacity (train 0.94-0.95
 * with the backlog) and sweeps 0.023-0.027: like {@code lab}, {@code big} is overloaded. Allocated work that no
 * scheduler could have served yet is left at the end of 87-92% of the hours over seeds 1-12; if every workload ran
 * from its submission, the GPUs in use would be 2.3-2.8 x the cluster in hour 0, then, after the first day, a median
 * of 0.91-0.96 x and 1.2-1.4 x in the busiest tenth of the hours. The simulator's figures for {@code big} are not
 * quoted here either. A cluster 32 times larger cannot also keep the small kinds' share of the GPU-hours with only
 * about four times the workloads of {@code lab}: there the small kinds and the sweeps are a few percent of the load.
 * Six host failures, each 1-2 days. Generates in well under a second once warm.
 */
final class Presets {
    static final List<String> NAMES = List.of("lab", "big");

    private Presets() {
    }

    static GeneratorSpec byName(String name) {
        return switch (name) {
            case "lab" -> lab();
            case "big" -> big();
            default -> throw new IllegalArgumentException("unknown generator preset '" + name + "'; valid presets: "
                    + String.join(", ", NAMES));
        };
    }

    // ---- the kinds of work; only volumes and train sizes differ between presets ----

    static final String DEBUG = "debug";
    static final String TRAIN = "train";
    static final String INTERACTIVE = "interactive";
    static final String EVAL = "eval";
    static final String SWEEP = "sweep";

    private static Weighted<Priority> priorities(double low, double normal, double high, double urgent) {
        return Weighted.of(LOW, low).or(NORMAL, normal).or(HIGH, high).or(URGENT, urgent).build();
    }

    static KindSpec debug(double jobsPerGpuDay) {
        Weighted<Priority> p = priorities(7, 85, 8, 0);
        return new KindSpec(DEBUG, 1.0, Volume.jobsPerGpuDay(jobsPerGpuDay),
                Weighted.of(1, 45.0).or(2, 20.0).or(3, 2.0).or(4, 18.0).or(6, 2.0).or(8, 13.0).build(), false,
                new LogNormal(ofMinutes(7), 0.85, ofMinutes(1), ofMinutes(40)), Duration.ofSeconds(1),
                new MinRuntime.Declared(Weighted.of(ofMinutes(5), 50.0).or(ofMinutes(10), 30.0)
                        .or(ofMinutes(15), 20.0).build()),
                0.0, 0.0, Weighted.only(ofMinutes(30)), p, p, TimeProfile.OFFICE_HOURS, 1, 1, 0.0);
    }

    static KindSpec train(double load, Weighted<Integer> sizes) {
        return new KindSpec(TRAIN, 1.0, Volume.load(load), sizes, true,
                new LogNormal(ofHours(10), 0.9, ofHours(1), ofHours(96)), ofMinutes(1),
                new MinRuntime.Declared(Weighted.of(ofHours(2), 20.0).or(ofHours(4), 30.0).or(ofHours(6), 20.0)
                        .or(ofHours(8), 18.0).or(ofHours(24), 12.0).build()),
                0.85, 0.05,
                Weighted.of(ofMinutes(30), 25.0).or(ofHours(1), 45.0).or(ofMinutes(90), 10.0).or(ofHours(2), 20.0)
                        .build(),
                priorities(10, 70, 17, 3), priorities(0, 30, 60, 10), TimeProfile.LAUNCH, 1, 1, 0.0);
    }

    static KindSpec interactive(double jobsPerGpuDay) {
        return new KindSpec(INTERACTIVE, 0.6, Volume.jobsPerGpuDay(jobsPerGpuDay),
                Weighted.of(1, 70.0).or(2, 30.0).build(), false,
                new LogNormal(ofHours(3), 0.6, ofHours(1), ofHours(10)), ofMinutes(1),
                new MinRuntime.Session(ofHours(1), ofHours(8), 0.15, ofHours(12)),
                0.0, 0.0, Weighted.only(ofMinutes(30)),
                priorities(0, 80, 20, 0), priorities(0, 60, 40, 0), TimeProfile.OFFICE_HOURS, 1, 1, 0.0);
    }

    static KindSpec eval(double jobsPerGpuDay) {
        return new KindSpec(EVAL, 1.0, Volume.jobsPerGpuDay(jobsPerGpuDay),
                Weighted.of(1, 30.0).or(2, 20.0).or(4, 25.0).or(8, 25.0).build(), true,
                new LogNormal(ofMinutes(40), 0.7, ofMinutes(10), ofHours(3)), ofMinutes(1),
                new MinRuntime.Declared(Weighted.of(ofMinutes(30), 60.0).or(ofHours(1), 40.0).build()),
                0.0, 0.0, Weighted.only(ofMinutes(30)),
                priorities(10, 75, 15, 0), priorities(0, 50, 50, 0), TimeProfile.LAUNCH, 1, 6, 0.3);
    }

    static KindSpec sweep(double jobsPerGpuDay) {
        Weighted<Priority> p = priorities(70, 30, 0, 0);
        return new KindSpec(SWEEP, 0.0, Volume.jobsPerGpuDay(jobsPerGpuDay),
                Weighted.of(1, 30.0).or(2, 30.0).or(4, 40.0).build(), false,
                new LogNormal(ofMinutes(90), 0.6, ofMinutes(30), ofHours(4)), ofMinutes(1),
                new MinRuntime.None(),
                1.0, 0.5, Weighted.of(ofMinutes(15), 50.0).or(ofMinutes(30), 50.0).build(),
                p, p, TimeProfile.LAUNCH, 20, 100, 0.25);
    }

    /**
     * Training work already queued at time 0, in days of the training budget, so that the cluster does not start
     * empty: in {@code lab} 2 days of 0.68 x capacity, 8,356 GPU-hours, of which 0.58-1.05 is drawn over seeds 1-30
     * (a team stops at the first gang that does not fit); in {@code big} 1.5 days of 0.90 x capacity, 265,421
     * GPU-hours, of which 0.90-1.08 is drawn over seeds 1-12.
     */
    static final double LAB_BACKLOG_DAYS = 2.0;
    static final double BIG_BACKLOG_DAYS = 1.5;

    private static final Bursts BURSTS = new Bursts(2, 4, 1, 2, 0.1, 4.0, 10);

    // ---- lab ----

    private static Team team(String name, double share, int users, Activity activity, double intensity,
                             boolean inflates, Map<String, Double> affinity) {
        return new Team(name, share, users, activity, intensity, inflates, affinity);
    }

    static GeneratorSpec lab() {
        Activity steady = Activity.STEADY;
        Activity bursty = Activity.BURSTY;
        List<Program> programs = List.of(
                new Program("foundation", 45, List.of(
                        team("pretrain", 40, 5, steady, 1.6, true, Map.of(TRAIN, 1.5, INTERACTIVE, 0.5)),
                        team("multimodal", 30, 4, steady, 1.6, true, Map.of()),
                        team("scaling", 20, 3, bursty, 1.0, false, Map.of(SWEEP, 1.5)),
                        team("data", 10, 2, steady, 0.4, false, Map.of(TRAIN, 0.3)))),
                new Program("applied", 25, List.of(
                        team("vision", 35, 4, steady, 1.0, true, Map.of()),
                        team("speech", 25, 3, bursty, 1.0, false, Map.of()),
                        team("robotics", 20, 3, steady, 0.8, true, Map.of(INTERACTIVE, 1.5)),
                        team("recsys", 20, 3, steady, 1.0, false, Map.of()))),
                new Program("research", 20, List.of(
                        team("rl", 30, 4, bursty, 1.2, false, Map.of(SWEEP, 1.0)),
                        team("nlp", 30, 4, steady, 1.2, true, Map.of()),
                        team("optim", 25, 3, steady, 1.0, false, Map.of(SWEEP, 1.0, TRAIN, 0.5)),
                        team("interp", 15, 2, steady, 0.4, false, Map.of()),
                        team("safety", 15, 3, steady, 0.8, false, Map.of()))),
                new Program("platform", 10, List.of(
                        team("infra", 50, 2, steady, 0.5, false, Map.of(DEBUG, 3.0, TRAIN, 0.2)),
                        team("evals", 50, 3, steady, 1.0, false, Map.of(EVAL, 4.0, TRAIN, 0.3)))));
        // the training budget and debug keep the offered allocated load about 1 (0.86-1.03 with the backlog over
        // seeds 1-30, debug 0.09 of it): the backlog and the bursts make the overload, and the queue still drains at
        // times
        List<KindSpec> kinds = List.of(
                debug(5.0),
                train(0.68, Weighted.of(8, 45.0).or(16, 25.0).or(32, 16.0).or(64, 9.0).or(128, 5.0).build()),
                interactive(0.42),
                eval(0.3),
                sweep(0.6));
        return new GeneratorSpec("lab", new Cluster(32, 8, 4, "h100", "gpu"), 14, "lab", programs, kinds, BURSTS,
                new Failures(2, ofHours(24), ofHours(48)), LAB_BACKLOG_DAYS);
    }

    // ---- big ----

    private static final String[] BIG_PROGRAMS = {"llm", "vision", "speech", "robotics", "science", "platform"};
    private static final double[] BIG_PROGRAM_SHARES = {30, 20, 15, 15, 10, 10};
    private static final int[] BIG_TEAMS = {10, 8, 6, 6, 5, 5};
    private static final double[] TEAM_SHARE_PATTERN = {3, 2, 2, 1.5, 1, 1, 1, 0.5, 0.5, 0.5};
    private static final double[] INTENSITY_PATTERN = {1.6, 1.0, 1.2, 0.4, 1.0, 1.6, 0.8, 1.0, 0.4, 1.2};

    /**
     * Forty teams under six programs, their traits laid out by a fixed pattern over the team's position (no
     * randomness): every fifth team from the third is bursty, every third from the first inflates, every fourth
     * from the second runs sweeps, and each program's last team is its evaluation team.
     */
    static GeneratorSpec big() {
        List<Program> programs = new ArrayList<>();
        int global = 0;
        for (int p = 0; p < BIG_PROGRAMS.length; p++) {
            List<Team> teams = new ArrayList<>();
            for (int t = 0; t < BIG_TEAMS[p]; t++, global++) {
                String name = BIG_PROGRAMS[p] + "-" + String.format("%02d", t + 1);
                Activity activity = global % 5 == 2 ? Activity.BURSTY : Activity.STEADY;
                boolean inflates = global % 3 == 0;
                Map<String, Double> affinity = t == BIG_TEAMS[p] - 1 ? Map.of(EVAL, 4.0, TRAIN, 0.3)
                        : global % 4 == 1 ? Map.of(SWEEP, 1.0) : Map.of();
                teams.add(team(name, TEAM_SHARE_PATTERN[t], 3 + global % 4, activity, INTENSITY_PATTERN[t], inflates,
                        affinity));
            }
            programs.add(new Program(BIG_PROGRAMS[p], BIG_PROGRAM_SHARES[p], teams));
        }
        // debug's rate keeps the total about 100,000 now that the training budget draws about 5,800 gangs
        List<KindSpec> kinds = List.of(
                debug(0.1879),
                train(0.90, Weighted.of(8, 30.0).or(16, 22.0).or(32, 17.0).or(64, 12.0).or(128, 9.0).or(256, 6.0)
                        .or(512, 3.0).or(1024, 1.0).build()),
                interactive(0.0285),
                eval(0.0244),
                sweep(0.1424));
        return new GeneratorSpec("big", new Cluster(1024, 8, 32, "h100", "gpu"), 30, "org", programs, kinds, BURSTS,
                new Failures(6, ofHours(24), ofHours(48)), BIG_BACKLOG_DAYS);
    }
}
