package dev.allot.sim.trace;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.NodeSpec;
import dev.allot.core.policy.Settings;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.RejectedRows;
import dev.allot.sim.input.TextFiles;
import dev.allot.sim.input.Values;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Builds a {@link Scenario} from a trace file: the format reads the rows into a {@link WorkloadTable}, the
 * {@link ContractRule} fills in what the trace lacks, and the allocation tree is the one given or, by default, a
 * flat one.
 *
 * <p><b>The default tree</b> (when none is given): a root named {@code trace} with one leaf per allocation the
 * imported rows name, sorted by name, each with a share equal to its fraction of the trace's total GPU-hours (GPUs x
 * duration over every imported row). Each team is thus entitled to what it used. With a tree given, rows naming an
 * allocation that is not one of its leaves are rejected like any bad row.
 *
 * <pre>{@code
 * Scenario s = TraceImport.of(TraceFormats.standard().get("philly"), Path.of("philly.csv"))
 *         .cluster(TraceImport.uniformCluster(40, 8))
 *         .lenient(true)
 *         .read();
 * }</pre>
 */
public final class TraceImport {
    /** The root of the default tree. */
    public static final String DEFAULT_ROOT = "trace";

    private final TraceFormat format;
    private final Path path;
    private ClusterSpec cluster;
    private AllocationTree tree;
    private ContractRule contract;
    private Map<String, String> formatSettings = Map.of();
    private PolicyConfig policy = PolicyConfig.defaults();
    private boolean lenient;
    private Long start;
    private String name;

    private TraceImport(TraceFormat format, Path path) {
        this.format = Objects.requireNonNull(format, "format");
        this.path = Objects.requireNonNull(path, "path");
    }

    /** An import of {@code path} in {@code format}; set at least the cluster, then {@link #read()}. */
    public static TraceImport of(TraceFormat format, Path path) {
        return new TraceImport(format, path);
    }

    /** The nodes the workloads run on; rows that could never fit are rejected. Required. */
    public TraceImport cluster(ClusterSpec cluster) {
        this.cluster = cluster;
        return this;
    }

    /** The allocation tree; null (the default) for the flat tree described above. */
    public TraceImport tree(AllocationTree tree) {
        this.tree = tree;
        return this;
    }

    /** The rule for what the trace lacks; the defaults of {@link ContractRule} when not given. */
    public TraceImport contract(ContractRule contract) {
        this.contract = contract;
        return this;
    }

    /** The format's own settings, as text; checked against {@link TraceFormat#settings()}. */
    public TraceImport formatSettings(Map<String, String> settings) {
        this.formatSettings = Map.copyOf(settings);
        return this;
    }

    public TraceImport policy(PolicyConfig policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /** Skip bad rows and keep their messages in {@link Scenario#rejected()} instead of failing on the first. */
    public TraceImport lenient(boolean lenient) {
        this.lenient = lenient;
        return this;
    }

    /** Epoch seconds of time 0 for traces with absolute times; null (the default) for the earliest submission. */
    public TraceImport start(Long epochSeconds) {
        this.start = epochSeconds;
        return this;
    }

    /** The scenario's name for reports; the trace file's name by default. */
    public TraceImport name(String name) {
        this.name = name;
        return this;
    }

    /**
     * Reads the trace.
     *
     * @throws InputException         for a problem with the file or (unless lenient) a row
     * @throws IllegalArgumentException for bad settings
     */
    public Scenario read() {
        if (cluster == null) {
            throw new IllegalStateException("a trace import needs a cluster");
        }
        String where = "trace format '" + format.name() + "'";
        Settings settings = formatSettings(format, formatSettings, where);
        if (!format.usesContract() && contract != null) {
            throw new IllegalArgumentException(where + " declares the contract in every row; contract settings do not"
                    + " apply to it");
        }
        ContractRule rule = contract != null ? contract : ContractRule.defaults();
        String file = displayName(path);
        TraceRows rows = new TraceRows(file, new ClusterSpec(cluster.nodes(), List.of()), tree, start, lenient);
        try {
            if (!Files.exists(path) || format.usesContract() && !Files.isRegularFile(path)) {
                throw missing(path, format);
            }
            format.read(path, settings, rows);
        } catch (NoSuchFileException e) {
            throw missing(path, format);
        } catch (IOException e) {
            throw Values.oneLine(TextFiles.readError(path, file, e));
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
        WorkloadTable table = rows.build(format.name(), rule);
        RejectedRows.requireOneAccepted(file, table.size(), rows.rejected(), table.summary().skipped(),
                "the file has no rows after its header and comments (a run needs at least one workload); expected"
                        + " rows of the " + format.name() + " format (" + format.description() + ") (hint: 'allot"
                        + " traces' lists the formats)");
        String late = dev.allot.sim.ScenarioTime.lateProblem(table.id(table.size() - 1),
                table.submitSeconds(table.size() - 1));
        if (late != null) {
            // made relative to the earliest submission: no longer where it was read
            throw new InputException(file, 0, 0, null, late);
        }
        AllocationTree t = tree != null ? tree : defaultTree(table);
        return new Scenario(name != null ? name : file, cluster, t, table, policy, rows.rejected());
    }

    /** The format's settings parsed and validated; problems are {@link IllegalArgumentException}s naming {@code where}. */
    public static Settings formatSettings(TraceFormat format, Map<String, String> given, String where) {
        Settings s = Settings.parse(format.settings(), given, where);
        try {
            format.validate(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage());
        }
        return s;
    }

    /**
     * The flat default tree: root {@value #DEFAULT_ROOT} (or {@code trace-root}, ... when an allocation has that
     * name), one leaf per allocation sorted by name, shares the allocations' fractions of all GPU-hours.
     */
    public static AllocationTree defaultTree(WorkloadTable table) {
        String[] names = table.allocationNames();
        double[] gpuSeconds = table.gpuSecondsByAllocation();
        double total = 0;
        for (double g : gpuSeconds) {
            total += g;
        }
        Integer[] byName = new Integer[names.length];
        for (int i = 0; i < names.length; i++) {
            byName[i] = i;
        }
        Arrays.sort(byName, (a, b) -> names[a].compareTo(names[b]));
        Set<String> taken = new HashSet<>(Arrays.asList(names));
        String root = DEFAULT_ROOT;
        while (taken.contains(root)) {
            root = root + "-root";
        }
        AllocationTree.Builder b = AllocationTree.builder(root);
        for (int i : byName) {
            b.leaf(names[i], gpuSeconds[i] / total);
        }
        return b.build();
    }

    /** A cluster of {@code count} nodes of {@code gpus} GPUs each, named {@code node-001}, {@code node-002}, ... */
    public static ClusterSpec uniformCluster(int count, int gpus) {
        if (count < 1 || gpus < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node of at least one GPU, got "
                    + dev.allot.core.model.Words.count(count, "node") + " of " + dev.allot.core.model.Words.count(gpus, "GPU"));
        }
        int width = Math.max(3, Integer.toString(count).length());
        List<NodeSpec> nodes = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            String digits = Integer.toString(i);
            nodes.add(NodeSpec.of("node-" + "0".repeat(width - digits.length()) + digits, gpus));
        }
        return new ClusterSpec(nodes, List.of());
    }

    /**
     * The trace file is missing or is not a file: one line naming the path once, as it was given (the file's name
     * alone would hide the folder it was looked for in), what was expected there, and where a relative path starts.
     */
    private static InputException missing(Path path, TraceFormat format) {
        boolean folder = Files.isDirectory(path);
        String problem = (folder ? "a folder, not a file" : "no such file") + "; expected a " + format.name()
                + " trace " + (format.usesContract() ? "file" : "file or folder");
        String hint;
        if (folder) {
            hint = "name the trace file inside it";
        } else if (!path.isAbsolute()) {
            hint = "a relative path is read from the current folder, " + Path.of("").toAbsolutePath();
        } else {
            Path parent = path.getParent();
            hint = parent != null && !Files.isDirectory(parent) ? "the folder " + parent + " does not exist either"
                    : "check the file's name";
        }
        return new InputException(path.toString(), 0, 0, null, problem + "; hint: " + hint);
    }

    private static String displayName(Path file) {
        Path n = file.getFileName();
        return n == null ? file.toString() : n.toString();
    }
}
