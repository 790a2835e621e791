package dev.allot.sim.generate;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.generate.GeneratorSpec.Team;
import dev.allot.sim.generate.WorkloadStream.Draft;
import dev.allot.sim.input.NodeGroup;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates a synthetic scenario from a {@link GeneratorSpec} and a seed: a cluster with its host failures, an
 * allocation tree, a workload trace and the default policy settings. It is pure: the result depends only on the
 * spec and the seed, every random draw comes from a {@link java.util.SplittableRandom}, and nothing iterates a
 * hash-ordered collection. This comment and the classes it names are the model; {@code examples/lab} is the
 * {@code lab} preset generated with this code. This class puts the parts together; each idea of the model is its own
 * class:
 * <ul>
 * <li>{@link RandomStreams}: each purpose (the host failures, a team's activity, a team's workloads of one kind, its
 * backlog) draws from its own stream, so that changing one team leaves every other team's workloads unchanged;</li>
 * <li>{@link VolumeSplit}: how much of each kind, and from whom (a count or a GPU-hour budget, and the backlog);</li>
 * <li>{@link Timeline}: when, the submission times (hours of the day, weekends, a team's quiet spells and
 * bursts);</li>
 * <li>{@link WorkloadStream}: the shape of a workload (batches, GPUs, duration, contract, priority);</li>
 * <li>{@link HostFailures}: which nodes fail, when, and for how long;</li>
 * <li>{@link Presets}: the kinds of work and the presets {@code lab} and {@code big}, with what they generate.</li>
 * </ul>
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
 * <h2>Order and ids</h2>
 * Every stream is drawn (for each kind in the spec's order, each team in its order: the workloads over the horizon,
 * then the backlog); the workloads are then ordered by submission time (simultaneous ones in the spec's kind order,
 * then team order, then draw order) and numbered {@code w000001, w000002, ..} (at least six digits).
 */
public final class ScenarioGenerator {
    private ScenarioGenerator() {
    }

    /** Generates the scenario of {@code spec} for {@code seed}; the same spec and seed always give an equal result. */
    public static GeneratedScenario generate(GeneratorSpec spec, long seed) {
        AllocationTree tree = spec.tree();
        List<NodeGroup> groups = spec.nodeGroups();
        List<HealthEvent> health = HostFailures.failures(spec, NodeGroup.expandAll(groups),
                RandomStreams.stream(seed, "health"));

        List<Team> teams = spec.teams();
        double[] entitlement = VolumeSplit.entitlements(tree, teams);
        Timeline.Activity[] activity = new Timeline.Activity[teams.size()];
        for (int t = 0; t < teams.size(); t++) {
            Team team = teams.get(t);
            activity[t] = Timeline.activity(team, spec.days(), spec.bursts(),
                    RandomStreams.stream(seed, "activity", team.name()));
        }

        List<Draft> drafts = new ArrayList<>();
        int streamIndex = 0;
        for (KindSpec kind : spec.kinds()) {
            VolumeSplit volume = VolumeSplit.of(spec, kind, entitlement);
            for (int t = 0; t < teams.size(); t++, streamIndex++) {
                Team team = teams.get(t);
                Timeline timeline = new Timeline(spec.days(), activity[t], kind.profile());
                WorkloadStream workloads = WorkloadStream.overHorizon(spec, kind, team, streamIndex, timeline,
                        RandomStreams.stream(seed, "workloads", team.name(), kind.name()), drafts);
                if (volume.counted()) {
                    workloads.emitCount(volume.count(t));
                } else {
                    workloads.emitBudget(volume.budgetGpuHours(t));
                    if (spec.backlogDays() > 0) {
                        WorkloadStream.backlog(spec, kind, team, streamIndex, timeline,
                                RandomStreams.stream(seed, "backlog", team.name(), kind.name()), drafts)
                                .emitBudget(volume.backlogGpuHours(spec, t));
                    }
                }
            }
        }

        // submission order; simultaneous submissions in stream order, then in the order each stream drew them
        drafts.sort((a, b) -> a.submit() != b.submit() ? Long.compare(a.submit(), b.submit())
                : a.stream() != b.stream() ? Integer.compare(a.stream(), b.stream())
                : Integer.compare(a.seq(), b.seq()));
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
}
