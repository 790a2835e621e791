package dev.allot.sim.generate;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.HealthEvent.Health;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.generate.GeneratorSpec.Activity;
import dev.allot.sim.generate.GeneratorSpec.Bursts;
import dev.allot.sim.generate.GeneratorSpec.Failures;
import dev.allot.sim.generate.GeneratorSpec.Team;
import dev.allot.sim.generate.KindSpec.MinRuntime;
import dev.allot.sim.input.NodeGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates a synthetic scenario from a {@link GeneratorSpec} and a seed: a cluster with its host failures, an
 * allocation tree, a workload trace and the default policy settings. It is pure: the result depends only on the
 * spec and the seed, every random draw comes from a {@link SplittableRandom}, and nothing iterates a hash-ordered
 * collection. This comment is the model; {@code examples/lab} is the {@code lab} preset generated with this code.
 *
 * <h2>Random streams</h2>
 * Each purpose draws from its own stream, seeded by mixing the scenario seed with the purpose's labels: one for the
 * host failures ({@code health}), one per team for its activity pattern ({@code activity, team}), one per team
 * and kind for its workloads ({@code workloads, team, kind}) and one per team and budget kind for its backlog
 * ({@code backlog, team, kind}). Streams do not depend on each other or on the order they are drawn in, so
 * changing one team's traits (users, priority inflation, activity) leaves every other team's workloads unchanged.
 * A change that moves volume between teams (a share, an intensity, an affinity) only lengthens or shortens the
 * other teams' streams: the workloads they keep are the same. The workload ids, given in submission order, do
 * shift.
 *
 * <h2>Cluster</h2>
 * {@code nodes} identical nodes of {@code gpusPerNode} GPUs of one type, spread evenly over {@code racks} racks, one
 * {@link NodeGroup} per rack labelled {@code rack=r<n>} and named {@code gpu-r<n>-<i>}
 * ({@link GeneratorSpec#nodeGroups()}).
 *
 * <h2>Teams and the tree</h2>
 * The tree is the root, one child per program, and one leaf per team; each team is a leaf allocation, and only
 * teams submit work. A team has its share, a number of users ({@code <team>-u1 ..}; user i is picked with weight
 * 1/i, so a few people submit most of a team's work), an {@code intensity} (how much it submits relative to its
 * entitlement), optional per-kind {@code affinity} weights, an activity pattern, and whether it inflates its
 * priorities.
 *
 * <h2>Volume: how much of each kind, and from whom</h2>
 * A kind's volume is relative to the cluster and the horizon, so the regime survives
 * {@link GeneratorSpec#withNodes} and {@link GeneratorSpec#withDays}. It is split among teams by the weight
 * {@code entitlement x intensity x affinity}, where entitlement is the team's fraction of the cluster in the tree.
 * <ul>
 * <li>{@code JOBS_PER_GPU_DAY}: exactly {@code round(rate x GPUs x days)} workloads, apportioned to teams by
 * largest remainder. Used for the kinds made of many small jobs, whose offered GPU-hours then vary little.</li>
 * <li>{@code LOAD}: a GPU-hour budget, {@code load x GPUs x 24 x days}, split by the same weights; each team draws
 * workloads until its budget is spent (a workload that would overshoot is kept only if at least half of it fits,
 * and drawing stops). Used for {@code train}: in {@code lab} about 185 heavy-tailed gangs (backlog aside) carry most
 * of the load, and a fixed count of them would swing their offered load by 15% (one standard deviation over seeds
 * 1-40; 0.57-1.29 x capacity); a budget holds it within 4% (0.60-0.74 for a budget of 0.68) and lets the count vary
 * instead.</li>
 * </ul>
 * <b>Backlog.</b> For each {@code LOAD} kind, every team also submits at time 0, from its own stream, a second
 * budget of {@code backlogDays} days of its first: {@code budget / days x backlogDays} GPU-hours, drawn by the same
 * rule. The scenario then opens with the queue a busy lab already has instead of an empty cluster. Being counted in
 * days, the backlog does not change with {@link GeneratorSpec#withDays} (so it weighs more on a shorter horizon), and
 * it scales with the budgets under {@link GeneratorSpec#withWorkloadScale}. Drawing stops at the first batch that
 * does not fit, and a backlog is only a few gangs per team, so it tends to fall short of its budget: a team with a
 * budget of less than one typical gang often queues nothing, and none queues more than twice its budget.
 *
 * <h2>When: submission times</h2>
 * Submissions fall in whole seconds in {@code [0, days x 86400)}; day 0 is a Monday. The backlog is all at 0; the
 * rest almost never is: a workload the timeline puts in the first hour lands on its first second with a chance of
 * one in 3,600 (in {@code lab}, one does over seeds 1-40: a debug job of seed 12). The density over the horizon is
 * hourly: the kind's {@link TimeProfile} weight for the hour of the day, times the weekend factor on Saturdays and
 * Sundays, times the team's factor for the day (a {@link Timeline}). A steady team's factor is 1 every day. A
 * bursty team has one episode per {@code daysPerEpisode} days of horizon, placed uniformly in its own slice of the
 * horizon (never on day 0): a quiet spell of {@code quietMinDays..quietMaxDays} days at {@code quietFactor}, then a
 * burst of {@code burstMinDays..burstMaxDays} days at {@code burstFactor} with the weekend factor ignored (a
 * deadline push). The team's volume is fixed, so quiet days move work into the rest of the horizon and bursts
 * concentrate it: on a burst day the team submits several times its usual day.
 *
 * <h2>Shape of a workload</h2>
 * A stream draws batches ({@code batchMin..batchMax} workloads, uniformly; 1 for single jobs). A batch shares one
 * submission time, user, GPU count, contract and priority: it models a script launching a hyper-parameter sweep or
 * an evaluation suite. Its members are submitted 0-3 s apart (uniformly, cumulatively), and each member's duration
 * is the batch's drawn duration times {@code exp(batchJitter x Z)}, kept within the kind's bounds. Per batch:
 * <ul>
 * <li>GPUs from the kind's {@link Weighted} list. With {@code wholeNodes}, a count that is a multiple of the node
 * size asks for whole nodes ({@code gpus_per_node} = node size, a gang); otherwise {@code gpus_per_node} is empty
 * (any packing).</li>
 * <li>duration from a truncated {@link LogNormal} (redrawn outside its bounds), rounded to the kind's granularity.
 * Published traces (Philly, Helios, Acme) show run times spread over orders of magnitude with the mean far above
 * the median; a log-normal gives that tail with a median and a spread.</li>
 * <li>resumable with probability {@code resumable}; a resumable workload has an empty {@code checkpoint_every}
 * (progress never lost) with probability {@code keepsProgress}, otherwise an interval from
 * {@code checkpointEvery}.</li>
 * <li>priority from {@code priority}, or from {@code inflatedPriority} if the team inflates.</li>
 * <li>min_runtime by the kind's {@link KindSpec.MinRuntime} rule: none (0: unallocated), declared (a round number
 * from a list, independent of the duration, as people ask), or session (the duration rounded up to the hour,
 * capped, or a longer ask with some probability).</li>
 * </ul>
 * Workloads are then ordered by submission time (simultaneous ones in the spec's kind order, then team order,
 * then draw order) and numbered {@code w000001, w000002, ..} (at least six digits).
 *
 * <h2>Host failures</h2>
 * {@code count} distinct nodes each go unhealthy once and come back after a downtime uniform in
 * {@code [downMin, downMax]}. The horizon is cut into {@code count} equal slices and failure i falls uniformly in
 * the middle half of slice i, so failures are spread out (in {@code lab}: one between day 1.75 and day 5.25, one
 * between day 8.75 and day 12.25); a return that would fall in the last hour of the horizon is brought forward.
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
public final class ScenarioGenerator {
    private static final long HOUR = 3_600;
    /** A batch's workloads are submitted this many seconds apart at most (0 to this, uniformly). */
    private static final int BATCH_SPACING_SECONDS = 3;

    private ScenarioGenerator() {
    }

    /** Generates the scenario of {@code spec} for {@code seed}; the same spec and seed always give an equal result. */
    public static GeneratedScenario generate(GeneratorSpec spec, long seed) {
        AllocationTree tree = spec.tree();
        List<NodeGroup> groups = spec.nodeGroups();
        List<HealthEvent> health = failures(spec, NodeGroup.expandAll(groups), stream(seed, "health"));

        List<Team> teams = spec.teams();
        double[] entitlement = new double[teams.size()];
        Timeline.Activity[] activity = new Timeline.Activity[teams.size()];
        for (int t = 0; t < teams.size(); t++) {
            Team team = teams.get(t);
            entitlement[t] = tree.entitlement(tree.node(team.name()).orElseThrow());
            activity[t] = activity(team, spec.days(), spec.bursts(), stream(seed, "activity", team.name()));
        }

        List<Draft> drafts = new ArrayList<>();
        int streamIndex = 0;
        for (KindSpec kind : spec.kinds()) {
            double[] weight = new double[teams.size()];
            for (int t = 0; t < teams.size(); t++) {
                Team team = teams.get(t);
                weight[t] = entitlement[t] * team.intensity() * team.affinityFor(kind);
            }
            long[] counts = null;
            double[] budgets = null;
            switch (kind.volume().unit()) {
                case JOBS_PER_GPU_DAY -> counts = apportion(
                        Math.round(kind.volume().value() * spec.totalGpus() * spec.days()), weight);
                case LOAD -> budgets = split(kind.volume().value() * spec.capacityGpuHours(), weight);
            }
            for (int t = 0; t < teams.size(); t++, streamIndex++) {
                Team team = teams.get(t);
                StreamContext ctx = new StreamContext(spec, kind, team, streamIndex,
                        new Timeline(spec.days(), activity[t], kind.profile()),
                        stream(seed, "workloads", team.name(), kind.name()), drafts);
                if (counts != null) {
                    ctx.emitCount(counts[t]);
                } else {
                    ctx.emitBudget(budgets[t]);
                    if (spec.backlogDays() > 0) {
                        StreamContext backlog = new StreamContext(spec, kind, team, streamIndex,
                                new Timeline(spec.days(), activity[t], kind.profile()),
                                stream(seed, "backlog", team.name(), kind.name()), drafts);
                        backlog.atStart = true;
                        backlog.seq = 1_000_000;
                        backlog.emitBudget(budgets[t] / spec.days() * spec.backlogDays());
                    }
                }
            }
        }

        // submission order; simultaneous submissions in stream order, then in the order each stream drew them
        drafts.sort((a, b) -> a.submit != b.submit ? Long.compare(a.submit, b.submit)
                : a.stream != b.stream ? Integer.compare(a.stream, b.stream) : Integer.compare(a.seq, b.seq));
        int width = Math.max(6, Integer.toString(drafts.size()).length());
        List<WorkloadSpec> workloads = new ArrayList<>(drafts.size());
        for (int i = 0; i < drafts.size(); i++) {
            workloads.add(drafts.get(i).build(workloadId(i + 1, width)));
        }
        return new GeneratedScenario(groups, health, tree, Scenario.sorted(workloads), PolicyConfig.defaults());
    }

    /** {@code w} and the number zero-padded to {@code width} digits: {@code w000001}. */
    static String workloadId(int n, int width) {
        String digits = Integer.toString(n);
        StringBuilder sb = new StringBuilder(width + 1).append('w');
        for (int i = digits.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    // ---- random streams ----

    /**
     * An independent random stream for a purpose named by labels, e.g. ("workloads", team, kind). The stream's seed
     * mixes the scenario seed with a hash of each label, so a stream does not depend on how many other streams
     * there are or in which order they are drawn: adding a team or changing one team's numbers leaves every other
     * team's draws as they were.
     */
    static SplittableRandom stream(long seed, String... labels) {
        long h = mix64(seed ^ 0x9E3779B97F4A7C15L);
        for (String label : labels) {
            h = mix64(h ^ mix64(fnv1a(label)));
        }
        return new SplittableRandom(h);
    }

    /** 64-bit FNV-1a of the string's UTF-16 code units: fixed by this code, unlike String.hashCode's 32 bits. */
    private static long fnv1a(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** The SplitMix64 finaliser: a bijective bit mixer. */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    // ---- volume ----

    /** Splits {@code total} whole workloads in proportion to {@code weight} (largest remainder, ties to the first). */
    static long[] apportion(long total, double[] weight) {
        long[] out = new long[weight.length];
        double sum = Arrays.stream(weight).sum();
        if (!(sum > 0) || total <= 0) {
            return out;
        }
        double[] remainder = new double[weight.length];
        long given = 0;
        for (int i = 0; i < weight.length; i++) {
            double exact = total * weight[i] / sum;
            out[i] = (long) Math.floor(exact);
            remainder[i] = exact - out[i];
            given += out[i];
        }
        for (long left = total - given; left > 0; left--) {
            int best = -1;
            for (int i = 0; i < weight.length; i++) {
                if (weight[i] > 0 && (best < 0 || remainder[i] > remainder[best])) {
                    best = i;
                }
            }
            out[best]++;
            remainder[best] = -1;
        }
        return out;
    }

    private static double[] split(double total, double[] weight) {
        double sum = Arrays.stream(weight).sum();
        double[] out = new double[weight.length];
        for (int i = 0; i < weight.length; i++) {
            out[i] = sum > 0 ? total * weight[i] / sum : 0;
        }
        return out;
    }

    // ---- team activity ----

    /** Day factors of a team: 1 every day when steady; quiet spells and bursts when bursty. */
    static Timeline.Activity activity(Team team, int days, Bursts bursts, SplittableRandom rng) {
        double[] factor = new double[days];
        boolean[] burst = new boolean[days];
        Arrays.fill(factor, 1.0);
        if (team.activity() != Activity.BURSTY) {
            return new Timeline.Activity(factor, burst);
        }
        int episodes = Math.max(1, days / bursts.daysPerEpisode());
        int segment = days / episodes;
        for (int e = 0; e < episodes; e++) {
            int quiet = bursts.quietMinDays() + rng.nextInt(bursts.quietMaxDays() - bursts.quietMinDays() + 1);
            int loud = bursts.burstMinDays() + rng.nextInt(bursts.burstMaxDays() - bursts.burstMinDays() + 1);
            int start = e * segment;
            int end = e == episodes - 1 ? days : start + segment;
            int earliest = start + (e == 0 && days > 1 ? 1 : 0); // the scenario opens with everybody at work
            int room = end - earliest;
            loud = Math.min(loud, room);
            quiet = Math.min(quiet, room - loud);
            int first = earliest + rng.nextInt(room - quiet - loud + 1);
            for (int d = first; d < first + quiet; d++) {
                factor[d] = bursts.quietFactor();
            }
            for (int d = first + quiet; d < first + quiet + loud; d++) {
                factor[d] = bursts.burstFactor();
                burst[d] = true;
            }
        }
        return new Timeline.Activity(factor, burst);
    }

    // ---- host failures ----

    /**
     * Each failure falls in its own equal slice of the horizon, at a uniform time in the middle half of the slice
     * (so failures are spread out, e.g. around day 3 and day 10 of 14), on a node not failed before, and is
     * paired with the node's return after a downtime uniform in {@code [downMin, downMax]}, shortened if needed
     * so that the node is back at least an hour before the horizon ends.
     */
    static List<HealthEvent> failures(GeneratorSpec spec, List<NodeSpec> nodes, SplittableRandom rng) {
        Failures f = spec.failures();
        long horizon = spec.horizonSeconds();
        List<HealthEvent> out = new ArrayList<>();
        List<String> candidates = new ArrayList<>(nodes.stream().map(NodeSpec::name).toList());
        long slice = horizon / Math.max(1, f.count());
        for (int i = 0; i < f.count(); i++) {
            String node = candidates.remove(rng.nextInt(candidates.size()));
            long down = f.downMin().getSeconds()
                    + rng.nextLong(f.downMax().getSeconds() - f.downMin().getSeconds() + 1);
            long at = i * slice + slice / 4 + rng.nextLong(Math.max(1, slice / 2));
            long back = Math.min(at + down, horizon - HOUR);
            if (back <= at) {
                at = Math.max(0, back - 1);
            }
            out.add(new HealthEvent(node, at, Health.UNHEALTHY));
            out.add(new HealthEvent(node, back, Health.HEALTHY));
        }
        out.sort(Comparator.comparingLong(HealthEvent::atSeconds).thenComparing(HealthEvent::node));
        return out;
    }

    // ---- workloads ----

    /** A workload before it has its id: ids are given in submission order once every stream has been drawn. */
    private record Draft(long submit, int stream, int seq, String allocation, String user, int gpus, int gpusPerNode,
                         Duration duration, Duration minRuntime, boolean resumable, Duration checkpointEvery,
                         Priority priority, String kind) {
        WorkloadSpec build(String id) {
            return new WorkloadSpec(id, submit, allocation, user, gpus, gpusPerNode, duration, minRuntime, resumable,
                    priority, checkpointEvery, kind);
        }
    }

    /** Draws the workloads of one team and one kind from the stream's own random generator. */
    private static final class StreamContext {
        private final GeneratorSpec spec;
        private final KindSpec kind;
        private final Team team;
        private final int streamIndex;
        private final Timeline timeline;
        private final SplittableRandom rng;
        private final List<Draft> out;
        private final Weighted<Integer> users;
        private int seq;
        /** Submit every batch at time 0: the queue the lab already has when the scenario starts. */
        private boolean atStart;

        StreamContext(GeneratorSpec spec, KindSpec kind, Team team, int streamIndex, Timeline timeline,
                      SplittableRandom rng, List<Draft> out) {
            this.spec = spec;
            this.kind = kind;
            this.team = team;
            this.streamIndex = streamIndex;
            this.timeline = timeline;
            this.rng = rng;
            this.out = out;
            Weighted.Builder<Integer> b = Weighted.of(1, 1.0);
            for (int i = 2; i <= team.users(); i++) {
                b.or(i, 1.0 / i);
            }
            this.users = b.build();
        }

        /** Exactly {@code count} workloads, in batches; the last batch is cut short if needed. */
        void emitCount(long count) {
            long left = count;
            while (left > 0) {
                List<Draft> batch = drawBatch((int) Math.min(drawBatchSize(), left));
                out.addAll(batch);
                left -= batch.size();
            }
        }

        /**
         * Batches until their GPU-hours reach {@code budget}: a batch that would overshoot is kept only if at least
         * half of it fits, and then drawing stops.
         */
        void emitBudget(double budget) {
            double spent = 0;
            while (budget - spent > 0) {
                List<Draft> batch = drawBatch(drawBatchSize());
                double gpuHours = 0;
                for (Draft d : batch) {
                    gpuHours += d.gpus * d.duration.getSeconds() / 3600.0;
                }
                if (spent + gpuHours <= budget) {
                    out.addAll(batch);
                    spent += gpuHours;
                } else {
                    if (budget - spent >= gpuHours / 2) {
                        out.addAll(batch);
                    }
                    return;
                }
            }
        }

        private int drawBatchSize() {
            return kind.batchMin() + rng.nextInt(kind.batchMax() - kind.batchMin() + 1);
        }

        /**
         * One batch: a shared submission time, user, size, contract and priority; each workload is submitted
         * 0-3 s after the previous and its duration is the batch's jittered.
         */
        private List<Draft> drawBatch(int size) {
            long horizon = spec.horizonSeconds();
            long submit = atStart ? 0 : timeline.sample(rng);
            String user = team.user(users.sample(rng));
            int gpus = kind.gpus().sample(rng);
            int perNode = spec.cluster().gpusPerNode();
            int gpusPerNode = kind.wholeNodes() && gpus % perNode == 0 ? perNode : 0;
            double base = kind.duration().sampleSeconds(rng);
            boolean resumable = rng.nextDouble() < kind.resumable();
            boolean keepsProgress = rng.nextDouble() < kind.keepsProgress();
            Duration checkpoint = kind.checkpointEvery().sample(rng);
            Duration checkpointEvery = resumable && !keepsProgress ? checkpoint : null;
            Priority priority = (team.inflates() ? kind.inflatedPriority() : kind.priority()).sample(rng);
            Duration minRuntime = minRuntime(round(base));
            List<Draft> batch = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                double seconds = base;
                if (i > 0) {
                    submit = Math.min(horizon - 1, submit + rng.nextInt(BATCH_SPACING_SECONDS + 1));
                    seconds = jitter(base);
                }
                batch.add(new Draft(submit, streamIndex, seq++, team.name(), user, gpus, gpusPerNode,
                        round(seconds), minRuntime, resumable, checkpointEvery, priority, kind.name()));
            }
            return batch;
        }

        private double jitter(double base) {
            double x = base * Math.exp(kind.batchJitter() * LogNormal.standardNormal(rng));
            return Math.min(kind.duration().max().getSeconds(), Math.max(kind.duration().min().getSeconds(), x));
        }

        private Duration round(double seconds) {
            long g = kind.granularity().getSeconds();
            return Duration.ofSeconds(Math.max(g, Math.round(seconds / g) * g));
        }

        private Duration minRuntime(Duration duration) {
            MinRuntime rule = kind.minRuntime();
            if (rule instanceof MinRuntime.None) {
                return Duration.ZERO;
            }
            if (rule instanceof MinRuntime.Declared declared) {
                return declared.choices().sample(rng);
            }
            MinRuntime.Session session = (MinRuntime.Session) rule;
            boolean longAsk = rng.nextDouble() < session.longAskProbability();
            if (longAsk) {
                return session.longAsk();
            }
            long unit = session.roundUpTo().getSeconds();
            long rounded = (duration.getSeconds() + unit - 1) / unit * unit;
            return Duration.ofSeconds(Math.min(rounded, session.cap().getSeconds()));
        }
    }
}
