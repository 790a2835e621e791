package dev.allot.sim.input;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.Durations;
import dev.allot.core.model.HealthEvent;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.Scenario;
import dev.allot.sim.ScenarioTime;
import dev.allot.sim.campaign.CampaignSpec;
import dev.allot.sim.trace.TraceFormats;
import dev.allot.sim.trace.TraceImport;
import dev.allot.sim.trace.WorkloadTable;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a scenario folder:
 * <ul>
 *   <li>{@code cluster.yaml}: node groups, optional {@code start} instant, optional health events;</li>
 *   <li>{@code allocations.yaml}: the allocation tree, the document being its root;</li>
 *   <li>exactly one of {@code workloads.csv} and {@code workloads.jsonl};</li>
 *   <li>optionally {@code policy.yaml}: shared durations and per-policy settings (defaults when absent).</li>
 * </ul>
 * A folder may instead replay a real trace: {@code trace.yaml} names its format and file (see
 * {@link dev.allot.sim.trace.TraceImport}); {@code allocations.yaml} is then optional (the default is a flat tree
 * with shares of GPU-hours) and no {@code workloads.*} file may be present.
 * Every problem is an {@link InputException} that names the file and, where it can, the line, column and
 * field. Times written as ISO-8601 instants are relative to time 0: {@code start} when {@code cluster.yaml}
 * gives it, otherwise the earliest instant among the accepted submits and the health events.
 */
public final class ScenarioReader {
    public static final String CLUSTER_FILE = ClusterReader.FILE;
    public static final String ALLOCATIONS_FILE = AllocationsReader.FILE;
    public static final String WORKLOADS_CSV_FILE = WorkloadsReader.CSV;
    public static final String WORKLOADS_JSONL_FILE = WorkloadsReader.JSONL;
    public static final String POLICY_FILE = PolicyReader.FILE;
    public static final String TRACE_FILE = TraceFileReader.FILE;

    private static final String EXPECTED_FILES = CLUSTER_FILE + ", " + ALLOCATIONS_FILE + ", one of "
            + WORKLOADS_CSV_FILE + " or " + WORKLOADS_JSONL_FILE + ", and optionally " + POLICY_FILE
            + " (or, to replay a real trace, " + CLUSTER_FILE + ", " + TRACE_FILE + " and optionally "
            + ALLOCATIONS_FILE + " and " + POLICY_FILE + ")";

    /** The files a scenario folder may hold that a run reads, by name. */
    public static final java.util.List<String> INPUT_FILES = java.util.List.of(CLUSTER_FILE, ALLOCATIONS_FILE,
            WORKLOADS_CSV_FILE, WORKLOADS_JSONL_FILE, POLICY_FILE, TRACE_FILE);

    private ScenarioReader() {
    }

    /**
     * Reads the scenario in {@code dir}.
     *
     * @param lenient  skip bad workload rows and keep their messages in {@link Scenario#rejected()} instead of
     *                 failing on the first; problems in the YAML files always fail
     * @param registry the policies whose sections {@code policy.yaml} may contain
     * @throws InputException for any problem with the input
     */
    public static Scenario read(Path dir, boolean lenient, PolicyRegistry registry) {
        try {
            return readFolder(dir, lenient, registry);
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
    }

    /**
     * Reads policy settings written as a scenario's {@code policy.yaml} is, with the same checks and messages, from
     * any text; messages name it {@code name} ({@code allot serve} reads its {@code --policy-file} with this).
     *
     * @throws InputException for any problem with the text
     */
    public static PolicyConfig readPolicy(String name, String text, PolicyRegistry registry) {
        try {
            return PolicyReader.read(name, text, registry);
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
    }

    /** {@link #readPolicy(String, String, PolicyRegistry)} on a file; messages name the file. */
    public static PolicyConfig readPolicy(Path file, PolicyRegistry registry) {
        String name = file.toString();
        try {
            return PolicyReader.read(name, readText(file, name), registry);
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
    }

    /**
     * Reads an allocation tree written as {@code allocations.yaml} is, from any file; messages name the file.
     *
     * @throws InputException for any problem with the file
     */
    public static AllocationTree readAllocations(Path file) {
        String name = displayName(file);
        try {
            return AllocationsReader.read(name, readText(file, name));
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
    }

    /**
     * Reads a campaign file for the simulator ({@code allot campaign simulate}); messages name the file as given.
     *
     * @param tree the allocation tree whose leaf the campaign must name, or null to accept any name
     * @throws InputException for any problem with the file
     */
    public static CampaignSpec readCampaign(Path file, AllocationTree tree) {
        String name = file.toString();
        try {
            return CampaignReader.read(name, readText(file, name), tree);
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
    }

    /** {@link #readCampaign(Path, AllocationTree)} from text; messages name it {@code name}. */
    public static CampaignSpec readCampaign(String name, String text, AllocationTree tree) {
        try {
            return CampaignReader.read(name, text, tree);
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
    }

    /**
     * Workloads read from a {@code workloads.csv} or {@code workloads.jsonl}, sorted, with time 0 applied.
     *
     * @param rejected      the rows skipped when reading leniently
     * @param timeZeroEpoch epoch seconds of time 0 when the file wrote instants or {@code start} was given, else null
     */
    public record Workloads(List<WorkloadSpec> workloads, List<String> rejected, Long timeZeroEpoch) {
    }

    /**
     * Reads the workloads of a {@code workloads.csv} or {@code workloads.jsonl} file (by its extension), or of the
     * one such file in a folder, with the same checks and messages as a scenario folder.
     *
     * @param tree  the tree whose leaves rows must name, or null to accept any allocation name
     * @param start epoch seconds of time 0 for instants, or null for the earliest instant in the file
     * @throws InputException for any problem with the input
     */
    public static Workloads readWorkloads(Path path, ClusterSpec cluster, AllocationTree tree, Long start,
                                          boolean lenient) {
        try {
            Path file = path;
            boolean jsonl;
            if (Files.isDirectory(path)) {
                boolean csv = present(path, WORKLOADS_CSV_FILE);
                jsonl = present(path, WORKLOADS_JSONL_FILE);
                if (csv == jsonl) {
                    throw new InputException(path.toString(), 0, 0, null, "expected a folder holding exactly one of "
                            + WORKLOADS_CSV_FILE + " and " + WORKLOADS_JSONL_FILE + ", found "
                            + (csv ? "both" : "neither"));
                }
                file = path.resolve(jsonl ? WORKLOADS_JSONL_FILE : WORKLOADS_CSV_FILE);
            } else {
                String name = displayName(path);
                jsonl = name.endsWith(".jsonl");
                if (!jsonl && !name.endsWith(".csv")) {
                    throw new InputException(name, 0, 0, null, "expected a .csv or .jsonl file of workloads, or a"
                            + " folder holding " + WORKLOADS_CSV_FILE + " or " + WORKLOADS_JSONL_FILE);
                }
                if (!Files.isRegularFile(path)) {
                    throw new InputException(name, 0, 0, null, "no such file: " + path);
                }
            }
            String name = displayName(file);
            WorkloadsReader reader = new WorkloadsReader(name, new ClusterSpec(cluster.nodes(), List.of()), tree,
                    start, lenient);
            try (BufferedReader r = TextFiles.open(file, name)) {
                if (jsonl) {
                    reader.readJsonl(r);
                } else {
                    reader.readCsv(r);
                }
            } catch (IOException e) {
                throw TextFiles.readError(file, name, e);
            }
            Long epoch0 = start != null ? start : reader.earliestPendingInstant();
            List<WorkloadSpec> specs = Scenario.sorted(reader.resolve(epoch0 == null ? 0 : epoch0));
            reader.requireOneAccepted(specs);
            return new Workloads(specs, List.copyOf(reader.rejected()), epoch0);
        } catch (InputException e) {
            throw Values.oneLine(e);
        }
    }

    private static String displayName(Path file) {
        Path name = file.getFileName();
        return name == null ? file.toString() : name.toString();
    }

    private static Scenario readFolder(Path dir, boolean lenient, PolicyRegistry registry) {
        if (!Files.isDirectory(dir)) { // a mistyped folder said 'not a folder', as if it were a file
            throw new InputException(dir.toString(), 0, 0, null, (Files.exists(dir) ? "a file, not a folder"
                    : "no such folder") + "; a scenario folder holds " + EXPECTED_FILES);
        }
        refuseMisnamed(dir);
        Path clusterPath = dir.resolve(CLUSTER_FILE);
        Path allocationsPath = dir.resolve(ALLOCATIONS_FILE);
        Path csvPath = dir.resolve(WORKLOADS_CSV_FILE);
        Path jsonlPath = dir.resolve(WORKLOADS_JSONL_FILE);
        Path policyPath = dir.resolve(POLICY_FILE);
        requireFile(dir, CLUSTER_FILE);
        boolean csv = present(dir, WORKLOADS_CSV_FILE);
        boolean jsonl = present(dir, WORKLOADS_JSONL_FILE);
        if (present(dir, TRACE_FILE)) {
            if (csv || jsonl) {
                throw new InputException(TRACE_FILE, 0, 0, null, "both " + TRACE_FILE + " and "
                        + (csv ? WORKLOADS_CSV_FILE : WORKLOADS_JSONL_FILE) + " are in " + dir
                        + "; keep exactly one source of workloads");
            }
            return readTraceFolder(dir, lenient, registry);
        }
        requireFile(dir, ALLOCATIONS_FILE);
        if (csv && jsonl) {
            throw new InputException(WORKLOADS_CSV_FILE, 0, 0, null, "both " + WORKLOADS_CSV_FILE + " and "
                    + WORKLOADS_JSONL_FILE + " are in " + dir + "; keep exactly one of them");
        }
        if (!csv && !jsonl) {
            throw new InputException(WORKLOADS_CSV_FILE, 0, 0, null, "missing in " + dir + ": expected "
                    + WORKLOADS_CSV_FILE + " or " + WORKLOADS_JSONL_FILE + "; a scenario folder holds " + EXPECTED_FILES);
        }

        ClusterReader.Result cluster = ClusterReader.read(readText(clusterPath, CLUSTER_FILE));
        AllocationTree tree = AllocationsReader.read(readText(allocationsPath, ALLOCATIONS_FILE));
        PolicyConfig policy = present(dir, POLICY_FILE)
                ? PolicyReader.read(readText(policyPath, POLICY_FILE), registry)
                : PolicyConfig.defaults();

        ClusterSpec nodesOnly = new ClusterSpec(cluster.nodes(), List.of());
        String workloadsFile = csv ? WORKLOADS_CSV_FILE : WORKLOADS_JSONL_FILE;
        WorkloadsReader workloads = new WorkloadsReader(workloadsFile, nodesOnly, tree, cluster.startEpoch(), lenient);
        try (BufferedReader r = TextFiles.open(csv ? csvPath : jsonlPath, workloadsFile)) {
            if (csv) {
                workloads.readCsv(r);
            } else {
                workloads.readJsonl(r);
            }
        } catch (IOException e) {
            throw TextFiles.readError(csv ? csvPath : jsonlPath, workloadsFile, e);
        }

        long epoch0 = timeZero(cluster, workloads);
        List<WorkloadSpec> specs = Scenario.sorted(workloads.resolve(epoch0));
        workloads.requireOneAccepted(specs);
        List<HealthEvent> health = new ArrayList<>(cluster.health().size());
        for (ClusterReader.PendingHealth h : cluster.health()) {
            long at = h.at().absolute() ? h.at().seconds() - epoch0 : h.at().seconds();
            health.add(new HealthEvent(h.node(), withinReach(h, at, epoch0), h.state()));
        }
        Path name = dir.toAbsolutePath().normalize().getFileName();
        return new Scenario(name == null ? dir.toString() : name.toString(), new ClusterSpec(cluster.nodes(), health),
                tree, specs, policy, workloads.rejected(), mixedTimesNote(workloadsFile, cluster, workloads, epoch0));
    }

    /** A folder whose workloads come from the trace that {@code trace.yaml} names. */
    private static Scenario readTraceFolder(Path dir, boolean lenient, PolicyRegistry registry) {
        ClusterReader.Result cluster = ClusterReader.read(readText(dir.resolve(CLUSTER_FILE), CLUSTER_FILE));
        Path allocationsPath = dir.resolve(ALLOCATIONS_FILE);
        AllocationTree tree = present(dir, ALLOCATIONS_FILE)
                ? AllocationsReader.read(readText(allocationsPath, ALLOCATIONS_FILE)) : null;
        Path policyPath = dir.resolve(POLICY_FILE);
        PolicyConfig policy = present(dir, POLICY_FILE)
                ? PolicyReader.read(readText(policyPath, POLICY_FILE), registry)
                : PolicyConfig.defaults();
        TraceFileReader.Spec spec = TraceFileReader.read(readText(dir.resolve(TRACE_FILE), TRACE_FILE), dir,
                TraceFormats.standard());
        Path name = dir.toAbsolutePath().normalize().getFileName();
        TraceImport imp = TraceImport.of(spec.format(), spec.path())
                .cluster(new ClusterSpec(cluster.nodes(), List.of()))
                .tree(tree)
                .contract(spec.contract())
                .formatSettings(spec.settings())
                .policy(policy)
                .lenient(lenient)
                .start(cluster.startEpoch())
                .name(name == null ? dir.toString() : name.toString());
        Scenario s = imp.read();
        Long epoch0 = cluster.startEpoch() != null ? cluster.startEpoch()
                : ((WorkloadTable) s.workloads()).summary().timeZeroEpoch();
        List<HealthEvent> health = new ArrayList<>(cluster.health().size());
        for (ClusterReader.PendingHealth h : cluster.health()) {
            long at = h.at().seconds();
            if (h.at().absolute()) {
                if (epoch0 == null) {
                    throw new InputException(CLUSTER_FILE, h.line(), h.column(), "at", "expected a time from time 0"
                            + " such as 3h: the trace's times are relative, so an instant has no time 0 to refer to"
                            + " (give start to anchor it)");
                }
                at -= epoch0;
                if (at < 0) {
                    throw new InputException(CLUSTER_FILE, h.line(), h.column(), "at", "expected an instant at or after"
                            + " time 0 (" + Instant.ofEpochSecond(epoch0) + ", the trace's earliest"
                            + " submission)");
                }
            }
            health.add(new HealthEvent(h.node(), withinReach(h, at, epoch0 == null ? 0 : epoch0), h.state()));
        }
        return new Scenario(s.name(), new ClusterSpec(cluster.nodes(), health), s.tree(), s.workloads(),
                s.policyConfig(), s.rejected());
    }

    /** {@code at} seconds after time 0, unless that is beyond {@link ScenarioTime}: then an error at the event. */
    private static long withinReach(ClusterReader.PendingHealth h, long at, long epoch0) {
        if (at > ScenarioTime.MAX_SECONDS) {
            throw new InputException(CLUSTER_FILE, h.line(), h.column(), "at", "expected "
                    + ScenarioTime.timeExpected() + (h.at().absolute() ? " (" + Instant.ofEpochSecond(epoch0) + ")"
                    : "") + ", got " + (h.at().absolute() ? Instant.ofEpochSecond(h.at().seconds())
                    : Durations.formatSeconds(at)));
        }
        return at;
    }

    /**
     * Which instant became time 0, when the workloads file mixes ISO-8601 instants and relative times, or gives
     * relative times beside health events at instants, and {@code cluster.yaml} gives no {@code start}: the relative times then count from the earliest instant, which is
     * kept (a scenario may mean it) but said, as a mapping no one chose. Empty otherwise.
     */
    private static List<String> mixedTimesNote(String file, ClusterReader.Result cluster, WorkloadsReader workloads,
                                               long epoch0) {
        if (cluster.startEpoch() != null || workloads.firstRelativeLine() == 0) {
            return List.of();
        }
        if (workloads.firstInstantLine() == 0) {
            // the instants are the health events' alone: the first became time 0 without a word ('at:
            // 2020-01-01T00:00:00Z' read as 0s beside relative submit times)
            return cluster.health().stream().filter(h -> h.at().absolute()).findFirst().map(h -> CLUSTER_FILE
                    + " gives health events at ISO-8601 instants (first on line " + h.line() + ") and " + file
                    + " relative times (first on line " + workloads.firstRelativeLine() + ") and " + CLUSTER_FILE
                    + " gives no start: time 0 is " + Instant.ofEpochSecond(epoch0) + ", the earliest instant ("
                    + CLUSTER_FILE + " line " + earliestHealthLine(cluster) + "), and relative times count from it;"
                    + " add start: to " + CLUSTER_FILE + " to choose time 0").stream().toList();
        }
        String source = file + " line " + workloads.earliestPendingLine();
        Long earliest = workloads.earliestPendingInstant();
        for (ClusterReader.PendingHealth h : cluster.health()) {
            if (h.at().absolute() && (earliest == null || h.at().seconds() < earliest)) {
                earliest = h.at().seconds();
                source = CLUSTER_FILE + " line " + h.line();
            }
        }
        return List.of(file + " mixes ISO-8601 instants (first on line " + workloads.firstInstantLine()
                + ") and relative times (first on line " + workloads.firstRelativeLine() + ") and " + CLUSTER_FILE
                + " gives no start: time 0 is " + Instant.ofEpochSecond(epoch0) + ", the earliest instant (" + source
                + "), and relative times count from it; add start: to " + CLUSTER_FILE + " to choose time 0");
    }

    /** The line of the earliest health event given as an instant. */
    private static int earliestHealthLine(ClusterReader.Result cluster) {
        return cluster.health().stream().filter(h -> h.at().absolute())
                .min(java.util.Comparator.comparingLong(h -> h.at().seconds())).orElseThrow().line();
    }

    /** {@code start} when given, else the earliest instant written anywhere (0 when there is none). */
    private static long timeZero(ClusterReader.Result cluster, WorkloadsReader workloads) {
        if (cluster.startEpoch() != null) {
            return cluster.startEpoch();
        }
        Long min = workloads.earliestPendingInstant();
        for (ClusterReader.PendingHealth h : cluster.health()) {
            if (h.at().absolute() && (min == null || h.at().seconds() < min)) {
                min = h.at().seconds();
            }
        }
        return min == null ? 0 : min;
    }

    /**
     * A file named almost as one the folder may hold ({@code policy.yml}, {@code Cluster.yaml},
     * {@code workloads.json}) while that one is absent: an optional one was silently not read (a policy.yml's settings
     * did not apply), a required one read 'missing'. The name to give it instead; beside the file of that name, which
     * is read, it is refused too (its settings were silently ignored): remove or rename it; a workloads.json
     * beside a workloads file is left alone.
     */
    private static void refuseMisnamed(Path dir) {
        List<String> names = List.of(CLUSTER_FILE, ALLOCATIONS_FILE, WORKLOADS_CSV_FILE, WORKLOADS_JSONL_FILE,
                POLICY_FILE, TRACE_FILE);
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                String given = f.getFileName().toString();
                String meant = given.toLowerCase(java.util.Locale.ROOT).replaceFirst("\\.yml$", ".yaml")
                        .replaceFirst("\\.json$", ".jsonl");
                boolean workloads = meant.equals(WORKLOADS_CSV_FILE) || meant.equals(WORKLOADS_JSONL_FILE);
                boolean taken = Files.exists(dir.resolve(meant)) || workloads && (Files.exists(dir.resolve(
                        WORKLOADS_CSV_FILE)) || Files.exists(dir.resolve(WORKLOADS_JSONL_FILE)));
                if (given.equals(meant) || !names.contains(meant)) {
                    continue;
                }
                if (!taken) {
                    throw new InputException(given, 0, 0, null, "not a name allot reads; expected " + meant
                            + " (allot reads only the names " + String.join(", ", names) + ")");
                }
                // beside the file it names, a workloads.json (an export, say) is none of allot's business; a
                // policy.yml or Cluster.yaml is a second version of the file, whose content was silently ignored
                boolean export = given.toLowerCase(java.util.Locale.ROOT).endsWith(".json");
                Path read = dir.resolve(meant);
                if (!export && Files.exists(read) && !sameFile(f, read)) { // case-blind file systems: one file
                    throw new InputException(given, 0, 0, null, "not a name allot reads, beside " + meant + ", which"
                            + " it reads; remove or rename " + given + " (its content is not read)");
                }
            }
        } catch (IOException e) {
            // the files are read one by one next, and any problem is said there
        }
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    private static void requireFile(Path dir, String name) {
        if (!present(dir, name)) {
            throw new InputException(name, 0, 0, null, "missing in " + dir + "; a scenario folder holds "
                    + EXPECTED_FILES);
        }
    }

    /**
     * Whether the folder holds the file {@code name}. A folder of that name is an error of its own: it read 'missing'
     * for the required files and 'cannot read: is a directory' for policy.yaml, and a trace.yaml made a folder was
     * silently not a trace folder.
     */
    private static boolean present(Path dir, String name) {
        Path file = dir.resolve(name);
        if (Files.isDirectory(file)) {
            throw new InputException(name, 0, 0, null, "a folder where a file is expected, in " + dir
                    + "; move or rename the folder and put the file " + name + " there");
        }
        return Files.exists(file);
    }

    private static String readText(Path path, String name) {
        try {
            return TextFiles.read(path, name);
        } catch (IOException e) {
            throw TextFiles.readError(path, name, e);
        }
    }

}
