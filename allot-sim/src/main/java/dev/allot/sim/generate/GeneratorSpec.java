package dev.allot.sim.generate;

import dev.allot.core.model.AllocationTree;
import dev.allot.sim.input.NodeGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The knobs of {@link ScenarioGenerator}: the cluster, the horizon, the allocation tree with the teams that submit
 * work, the kinds of work and how each is shaped, the activity model (quiet spells and bursts) and host failures.
 * {@link ScenarioGenerator} and the classes it names document the model; this class holds the numbers, and
 * {@link Presets} says what its presets generate.
 *
 * <p>Two presets are named: {@code lab} (a 256-GPU research lab over two weeks that opens with a backlog, about
 * 23,000 workloads, allocated work at about 1 x capacity, committed as {@code examples/lab}) and {@code big} (8,192
 * GPUs over 30 days, about 100,000 workloads, allocated work at about 0.95 of capacity, for benchmarks).
 * {@link #preset(String)} looks one up; the {@code with...} methods derive variants.
 *
 * @param name        a label, e.g. the preset name
 * @param root        the name of the root of the allocation tree
 * @param days        the horizon: submissions fall in {@code [0, days * 86400)} seconds; day 0 is a Monday
 * @param backlogDays for each kind whose volume is a GPU-hour budget, each team also submits this many days of its
 *                    budget at time 0 ({@code budget / days * backlogDays} GPU-hours): the queue the cluster starts
 *                    with. 0 for none; finite and not negative
 */
public record GeneratorSpec(
        String name,
        Cluster cluster,
        int days,
        String root,
        List<Program> programs,
        List<KindSpec> kinds,
        Bursts bursts,
        Failures failures,
        double backlogDays) {

    public GeneratorSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(bursts, "bursts");
        Objects.requireNonNull(failures, "failures");
        programs = List.copyOf(programs);
        kinds = List.copyOf(kinds);
        if (!(backlogDays >= 0) || Double.isInfinite(backlogDays)) {
            throw new IllegalArgumentException("backlogDays must be finite and >= 0, got " + backlogDays);
        }
        if (days < 1) {
            throw new IllegalArgumentException("days must be at least 1, got " + days);
        }
        if (programs.isEmpty()) {
            throw new IllegalArgumentException("at least one program is needed");
        }
        Set<String> allocationNames = new HashSet<>();
        allocationNames.add(root);
        for (Program p : programs) {
            if (!allocationNames.add(p.name())) {
                throw new IllegalArgumentException("allocation name '" + p.name() + "' is used twice");
            }
            for (Team t : p.teams()) {
                if (!allocationNames.add(t.name())) {
                    throw new IllegalArgumentException("allocation name '" + t.name() + "' is used twice");
                }
            }
        }
        Set<String> kindNames = new HashSet<>();
        for (KindSpec k : kinds) {
            if (!kindNames.add(k.name())) {
                throw new IllegalArgumentException("kind '" + k.name() + "' is defined twice");
            }
        }
        for (Program p : programs) {
            for (Team t : p.teams()) {
                for (String k : t.affinity().keySet()) {
                    if (!kindNames.contains(k)) {
                        throw new IllegalArgumentException("team " + t.name() + " names unknown kind '" + k
                                + "'; kinds are " + kinds.stream().map(KindSpec::name).toList());
                    }
                }
            }
        }
        if (failures.count() > cluster.nodes()) {
            throw new IllegalArgumentException("cannot fail " + failures.count() + " distinct nodes of "
                    + cluster.nodes());
        }
    }

    /** The names of the presets, in the order they are documented. */
    public static List<String> presetNames() {
        return Presets.NAMES;
    }

    /** A named preset; the error for an unknown name lists the valid ones. */
    public static GeneratorSpec preset(String name) {
        return Presets.byName(name);
    }

    /** GPUs in the cluster. */
    public int totalGpus() {
        return cluster.nodes() * cluster.gpusPerNode();
    }

    /** The horizon in seconds. */
    public long horizonSeconds() {
        return days * 86_400L;
    }

    /** GPU-hours the cluster can deliver over the horizon, every node healthy. */
    public double capacityGpuHours() {
        return (double) totalGpus() * days * 24;
    }

    /** All teams (the leaves of the tree) in tree order. */
    public List<Team> teams() {
        List<Team> out = new ArrayList<>();
        for (Program p : programs) {
            out.addAll(p.teams());
        }
        return out;
    }

    /** The allocation tree: root, then one node per program, then one leaf per team. */
    public AllocationTree tree() {
        AllocationTree.Builder b = AllocationTree.builder(root);
        for (Program p : programs) {
            b.child(p.name(), p.share());
            for (Team t : p.teams()) {
                b.leaf(t.name(), t.share());
            }
            b.up();
        }
        return b.build();
    }

    /**
     * One node group per rack, named {@code <prefix>-r<rack>-<n>} (rack numbers zero-padded to the width of the
     * rack count) with a {@code rack} label; nodes are spread over the racks as evenly as possible.
     */
    public List<NodeGroup> nodeGroups() {
        int racks = Math.min(cluster.racks(), cluster.nodes());
        int width = Integer.toString(racks).length();
        List<NodeGroup> out = new ArrayList<>(racks);
        for (int r = 0; r < racks; r++) {
            int count = cluster.nodes() / racks + (r < cluster.nodes() % racks ? 1 : 0);
            String rack = "r" + String.format("%0" + width + "d", r + 1);
            SortedMap<String, String> labels = new TreeMap<>();
            labels.put("rack", rack);
            out.add(new NodeGroup(cluster.namePrefix() + "-" + rack, count, cluster.gpusPerNode(), cluster.gpuType(),
                    labels));
        }
        return out;
    }

    /**
     * The same spec over another horizon; volumes are relative to the horizon, so the regime is kept. The backlog is
     * counted in days and stays as it is, so it weighs more on a shorter horizon.
     */
    public GeneratorSpec withDays(int newDays) {
        return new GeneratorSpec(name, cluster, newDays, root, programs, kinds, bursts, failures, backlogDays);
    }

    /** The same spec on another number of nodes; volumes are relative to the cluster, so the regime is kept. */
    public GeneratorSpec withNodes(int nodes) {
        Cluster c = new Cluster(nodes, cluster.gpusPerNode(), cluster.racks(), cluster.gpuType(), cluster.namePrefix());
        Failures f = new Failures(Math.min(failures.count(), nodes), failures.downMin(), failures.downMax());
        return new GeneratorSpec(name, c, days, root, programs, kinds, bursts, f, backlogDays);
    }

    /**
     * The same spec with every kind's volume multiplied by {@code factor} (0.5 halves the offered work). The backlog
     * scales with it: {@code backlogDays} is counted in days of the (scaled) budgets, so it is kept as it is.
     */
    public GeneratorSpec withWorkloadScale(double factor) {
        if (!(factor >= 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("the workload scale must be finite and >= 0, got " + factor);
        }
        return new GeneratorSpec(name, cluster, days, root, programs,
                kinds.stream().map(k -> k.scaled(factor)).toList(), bursts, failures, backlogDays);
    }

    /** The same spec with {@code count} host failures. */
    public GeneratorSpec withFailures(int count) {
        return new GeneratorSpec(name, cluster, days, root, programs, kinds, bursts,
                new Failures(count, failures.downMin(), failures.downMax()), backlogDays);
    }

    /** Identical nodes spread over racks. */
    public record Cluster(int nodes, int gpusPerNode, int racks, String gpuType, String namePrefix) {
        public Cluster {
            Objects.requireNonNull(gpuType, "gpuType");
            Objects.requireNonNull(namePrefix, "namePrefix");
            if (nodes < 1 || gpusPerNode < 1 || racks < 1) {
                throw new IllegalArgumentException("nodes, gpus per node and racks must be at least 1");
            }
        }
    }

    /** A program: an inner node of the tree whose children are teams. */
    public record Program(String name, double share, List<Team> teams) {
        public Program {
            Objects.requireNonNull(name, "name");
            teams = List.copyOf(teams);
            if (teams.isEmpty()) {
                throw new IllegalArgumentException("program " + name + " needs at least one team");
            }
        }
    }

    /**
     * A team: a leaf allocation and the people who submit to it.
     *
     * @param share     its share among the teams of its program
     * @param users     how many people submit (named {@code <team>-u1 ..}); user i submits with weight 1/i
     * @param activity  whether the team works steadily or in bursts
     * @param intensity how much work it submits relative to its entitlement (1 = in proportion; 1.6 heavy, 0.4 light)
     * @param inflates  whether it declares {@link KindSpec#inflatedPriority()} rather than {@link KindSpec#priority()}
     * @param affinity  per kind name, how much of that kind it does, overriding {@link KindSpec#defaultAffinity()}
     */
    public record Team(String name, double share, int users, Activity activity, double intensity, boolean inflates,
                       Map<String, Double> affinity) {
        public Team {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(activity, "activity");
            affinity = Collections.unmodifiableSortedMap(new TreeMap<>(affinity));
            if (users < 1) {
                throw new IllegalArgumentException("team " + name + " needs at least one user");
            }
            if (!(intensity >= 0) || Double.isInfinite(intensity)) {
                throw new IllegalArgumentException("team " + name + ": intensity must be finite and >= 0");
            }
            for (double a : affinity.values()) {
                if (!(a >= 0) || Double.isInfinite(a)) {
                    throw new IllegalArgumentException("team " + name + ": affinities must be finite and >= 0");
                }
            }
        }

        /** How much of {@code kind} this team does, relative to other kinds and teams. */
        public double affinityFor(KindSpec kind) {
            return affinity.getOrDefault(kind.name(), kind.defaultAffinity());
        }

        /** The name of the i-th user, from 1. */
        public String user(int i) {
            return name + "-u" + i;
        }
    }

    /** A team's pattern over the horizon. */
    public enum Activity {
        /** Submits at the same rate every day (weekly and daily rhythm aside). */
        STEADY,
        /** Goes quiet for a few days, then bursts: see {@link Bursts}. */
        BURSTY
    }

    /**
     * Quiet spells followed by bursts, for {@link Activity#BURSTY} teams: one episode per {@code daysPerEpisode}
     * days of horizon (at least one), each a quiet spell of {@code quietMinDays..quietMaxDays} days at
     * {@code quietFactor} of the normal rate, immediately followed by a burst of {@code burstMinDays..burstMaxDays}
     * days at {@code burstFactor} times the normal rate, weekends included (a deadline push).
     */
    public record Bursts(int quietMinDays, int quietMaxDays, int burstMinDays, int burstMaxDays, double quietFactor,
                         double burstFactor, int daysPerEpisode) {
        public Bursts {
            if (quietMinDays < 0 || quietMaxDays < quietMinDays || burstMinDays < 0 || burstMaxDays < burstMinDays
                    || daysPerEpisode < 1) {
                throw new IllegalArgumentException("burst day ranges must be ordered and non-negative");
            }
            if (!(quietFactor >= 0) || !(burstFactor >= 0) || Double.isInfinite(quietFactor)
                    || Double.isInfinite(burstFactor)) {
                throw new IllegalArgumentException("burst factors must be finite and >= 0");
            }
        }
    }

    /**
     * Host failures: {@code count} distinct nodes each go unhealthy once and come back healthy after a downtime
     * drawn uniformly from {@code [downMin, downMax]}.
     */
    public record Failures(int count, Duration downMin, Duration downMax) {
        public Failures {
            Objects.requireNonNull(downMin, "downMin");
            Objects.requireNonNull(downMax, "downMax");
            if (count < 0) {
                throw new IllegalArgumentException("the failure count must not be negative");
            }
            if (downMin.isNegative() || downMin.isZero() || downMax.compareTo(downMin) < 0) {
                throw new IllegalArgumentException("need 0 < downMin <= downMax");
            }
        }
    }
}
