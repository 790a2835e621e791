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

/** The named presets of {@link GeneratorSpec}; {@link ScenarioGenerator} explains the numbers. */
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
