package dev.allot.sim.generate;

import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.generate.GeneratorSpec.Team;
import dev.allot.sim.generate.KindSpec.MinRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the workloads of one team and one kind from the stream's own random generator: the shape of a workload.
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
 * A class of its own: it is the only place that turns a {@link KindSpec}'s distributions into workloads, and each
 * stream draws in a fixed order from its own generator ({@link RandomStreams}), so the draws of one stream never
 * depend on another's.
 */
final class WorkloadStream {
    /** A batch's workloads are submitted this many seconds apart at most (0 to this, uniformly). */
    private static final int BATCH_SPACING_SECONDS = 3;
    /** The draw number of a backlog's first workload: after any of its stream's own, should they ever tie. */
    private static final int BACKLOG_FIRST_SEQ = 1_000_000;

    /** A workload before it has its id: ids are given in submission order once every stream has been drawn. */
    record Draft(long submit, int stream, int seq, String allocation, String user, int gpus, int gpusPerNode,
                 Duration duration, Duration minRuntime, boolean resumable, Duration checkpointEvery,
                 Priority priority, String kind) {
        WorkloadSpec build(String id) {
            return new WorkloadSpec(id, submit, allocation, user, gpus, gpusPerNode, duration, minRuntime, resumable,
                    priority, checkpointEvery, kind);
        }
    }

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
    private final boolean atStart;

    private WorkloadStream(GeneratorSpec spec, KindSpec kind, Team team, int streamIndex, Timeline timeline,
                           SplittableRandom rng, List<Draft> out, boolean atStart, int firstSeq) {
        this.spec = spec;
        this.kind = kind;
        this.team = team;
        this.streamIndex = streamIndex;
        this.timeline = timeline;
        this.rng = rng;
        this.out = out;
        this.atStart = atStart;
        this.seq = firstSeq;
        Weighted.Builder<Integer> b = Weighted.of(1, 1.0);
        for (int i = 2; i <= team.users(); i++) {
            b.or(i, 1.0 / i);
        }
        this.users = b.build();
    }

    /** The stream of {@code team}'s workloads of {@code kind}, submitted over the horizon by {@code timeline}. */
    static WorkloadStream overHorizon(GeneratorSpec spec, KindSpec kind, Team team, int streamIndex, Timeline timeline,
                                      SplittableRandom rng, List<Draft> out) {
        return new WorkloadStream(spec, kind, team, streamIndex, timeline, rng, out, false, 0);
    }

    /** The stream of {@code team}'s backlog of {@code kind}: every batch submitted at time 0. */
    static WorkloadStream backlog(GeneratorSpec spec, KindSpec kind, Team team, int streamIndex, Timeline timeline,
                                  SplittableRandom rng, List<Draft> out) {
        return new WorkloadStream(spec, kind, team, streamIndex, timeline, rng, out, true, BACKLOG_FIRST_SEQ);
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
     * Batches until their GPU-hours reach {@code budgetGpuHours}: a batch that would overshoot is kept only if at
     * least half of it fits, and then drawing stops.
     */
    void emitBudget(double budgetGpuHours) {
        double budget = budgetGpuHours;
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
