package dev.allot.sim.input;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.ShapeFit;
import dev.allot.core.rules.Violation;
import dev.allot.core.rules.WorkloadFields;
import dev.allot.core.rules.WorkloadRules;
import dev.allot.sim.ScenarioTime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntUnaryOperator;

/**
 * Reads the workloads of a scenario from {@code workloads.csv} (a header row, columns in any order) or
 * {@code workloads.jsonl} (one JSON object per line, same field names; the two forms are {@link WorkloadFormats}),
 * checking every row against the cluster and the allocation tree. Values are parsed here; their ranges are {@link WorkloadRules} and whether a shape can
 * ever fit is {@link ShapeFit}, the rules the API and the core use. A bad row throws, or under {@code lenient} is
 * skipped and its message kept.
 *
 * <p>Submit times written as instants are taken relative to {@code start} when it is known; otherwise they stay
 * pending until {@link #resolve(long)} is given time 0 (the earliest instant of the whole scenario).
 */
final class WorkloadsReader {
    static final String CSV = "workloads.csv";
    static final String JSONL = "workloads.jsonl";
    static final List<String> COLUMNS = List.of("id", "submit", "allocation", "user", "gpus", "gpus_per_node",
            "duration", "min_runtime", "resumable", "priority", "checkpoint_every", "kind");
    static final List<String> REQUIRED = List.of("id", "submit", "allocation", "gpus", "duration", "min_runtime");

    private static final int ID = 0;
    private static final int SUBMIT = 1;
    private static final int ALLOCATION = 2;
    private static final int USER = 3;
    private static final int GPUS = 4;
    private static final int GPUS_PER_NODE = 5;
    private static final int DURATION = 6;
    private static final int MIN_RUNTIME = 7;
    private static final int RESUMABLE = 8;
    private static final int PRIORITY = 9;
    private static final int CHECKPOINT_EVERY = 10;
    private static final int KIND = 11;
    static final int FIELDS = 12;
    /** The texts reports print as they are: ids and names, no control character in them. */
    private static final int[] PRINTED = {ID, ALLOCATION, USER, KIND};

    private final String file;
    private final ClusterSpec cluster;
    private final AllocationTree tree;
    private final Long start;
    private final boolean lenient;

    private final List<WorkloadSpec> specs = new ArrayList<>();
    /** Indices into {@link #specs} whose submit is an instant waiting for time 0, and those instants. */
    private final List<long[]> pending = new ArrayList<>();
    private final List<String> rejected = new ArrayList<>();
    private final Map<String, Integer> idLine = new HashMap<>();
    private final Map<Long, Optional<Violation>> fits = new HashMap<>();
    /** The line of the first accepted row whose submit is an instant, and of the first relative one; 0 if none. */
    private int firstInstantLine;
    private int firstRelativeLine;
    /** Whether the file read is {@code workloads.jsonl} rather than CSV. */
    private boolean jsonl;

    /**
     * @param cluster the nodes (health events do not matter here)
     * @param tree    the allocation tree rows must name leaves of, or null to accept any allocation name
     * @param start   epoch seconds of time 0 when {@code cluster.yaml} gives {@code start}, else null
     */
    WorkloadsReader(String file, ClusterSpec cluster, AllocationTree tree, Long start, boolean lenient) {
        this.file = file;
        this.cluster = cluster;
        this.tree = tree;
        this.start = start;
        this.lenient = lenient;
    }

    List<String> rejected() {
        return rejected;
    }

    /** The earliest submit instant still waiting for time 0, or null when none is. */
    Long earliestPendingInstant() {
        long[] p = earliestPending();
        return p == null ? null : p[1];
    }

    /** The line of the row whose submit is {@link #earliestPendingInstant()}, or 0 when none is pending. */
    int earliestPendingLine() {
        long[] p = earliestPending();
        return p == null ? 0 : (int) p[2];
    }

    private long[] earliestPending() {
        long[] min = null;
        for (long[] p : pending) {
            if (min == null || p[1] < min[1]) {
                min = p;
            }
        }
        return min;
    }

    /** The line of the first accepted row whose submit is an ISO-8601 instant, or 0 when none is. */
    int firstInstantLine() {
        return firstInstantLine;
    }

    /** The line of the first accepted row whose submit is relative to time 0 (seconds, a duration), or 0. */
    int firstRelativeLine() {
        return firstRelativeLine;
    }

    /**
     * The accepted workloads, pending instants made relative to {@code epoch0}, in reading order. An instant more
     * than {@link ScenarioTime#MAX_SECONDS} after time 0 is a bad row, located where it was read.
     */
    List<WorkloadSpec> resolve(long epoch0) {
        List<WorkloadSpec> out = new ArrayList<>(specs);
        boolean dropped = false;
        for (long[] p : pending) {
            WorkloadSpec w = out.get((int) p[0]);
            long submit = p[1] - epoch0;
            if (submit > ScenarioTime.MAX_SECONDS) {
                reject(new InputException(file, (int) p[2], (int) p[3], COLUMNS.get(SUBMIT), "expected "
                        + ScenarioTime.timeExpected() + " (the earliest instant, " + Instant.ofEpochSecond(epoch0)
                        + "), got " + Instant.ofEpochSecond(p[1])));
                out.set((int) p[0], null);
                dropped = true;
                continue;
            }
            out.set((int) p[0], new WorkloadSpec(w.id(), submit, w.allocation(), w.user(), w.gpus(),
                    w.gpusPerNode(), w.duration(), w.minRuntime(), w.resumable(), w.priority(), w.checkpointEvery(),
                    w.kind()));
        }
        if (dropped) {
            out.removeIf(java.util.Objects::isNull);
        }
        return out;
    }

    // ---- the two formats: rows of field values (WorkloadFormats) -----------------------------------------------

    void readCsv(Reader reader) throws IOException {
        jsonl = false;
        WorkloadFormats.readCsv(reader, file, rows());
    }

    void readJsonl(BufferedReader reader) throws IOException {
        jsonl = true;
        WorkloadFormats.readJsonl(reader, file, rows());
    }

    /**
     * Refuses a file of which no row became a workload ({@link RejectedRows}): all rejected, or none at all, a
     * header alone (it ran a report of nothing, and exited 0).
     */
    void requireOneAccepted(List<WorkloadSpec> accepted) {
        String fields = String.join(", ", REQUIRED.subList(0, REQUIRED.size() - 1)) + " and "
                + REQUIRED.get(REQUIRED.size() - 1);
        String noRows = (jsonl
                ? "the file has no workload lines (a run needs at least one); expected one JSON object per line,"
                + " with at least the fields " + fields
                : "the file has a header row and no workload rows (a run needs at least one); expected one row per"
                + " workload under the header, with at least the columns " + fields)
                + " (hint: 'allot generate DIR' writes a scenario folder with workloads to start from)";
        RejectedRows.requireOneAccepted(file, accepted.size(), rejected, Map.of(), noRows);
    }

    private WorkloadFormats.Rows rows() {
        return new WorkloadFormats.Rows() {
            @Override
            public void accept(int line, String[] values, IntUnaryOperator column) {
                WorkloadsReader.this.accept(line, values, column);
            }

            @Override
            public void reject(InputException e) {
                WorkloadsReader.this.reject(e);
            }
        };
    }

    // ---- one row ----------------------------------------------------------------------------------------------

    private void reject(InputException e) {
        if (!lenient) {
            throw e;
        }
        rejected.add(Values.oneLine(e).getMessage());
    }

    private void accept(int line, String[] v, IntUnaryOperator column) {
        try {
            row(line, v, column);
        } catch (InputException e) {
            reject(e);
        }
    }

    /** Checks one row ({@code v} by field, null when absent or empty) and keeps its workload. */
    private void row(int line, String[] v, IntUnaryOperator column) {
        for (int field : PRINTED) {
            printable(line, v, column, field);
        }
        String id = required(line, v, column, ID, "a workload id");

        String submitText = required(line, v, column, SUBMIT, Values.TIME_EXPECTED);
        Values.Time submit;
        try {
            submit = Values.parseTime(submitText);
        } catch (IllegalArgumentException e) {
            throw error(line, column, SUBMIT, e.getMessage());
        }
        long submitSeconds = submit.seconds();
        boolean waiting = false;
        if (submit.absolute()) {
            if (start == null) {
                submitSeconds = 0;
                waiting = true;
            } else if (submit.seconds() < start) {
                throw error(line, column, SUBMIT, "expected an instant at or after start (" + Instant.ofEpochSecond(start)
                        + " in cluster.yaml), got '" + submitText + "'");
            } else {
                submitSeconds = submit.seconds() - start;
            }
        }
        if (submitSeconds > ScenarioTime.MAX_SECONDS) {
            throw error(line, column, SUBMIT, "expected " + ScenarioTime.timeExpected() + ", got '" + submitText + "'");
        }

        String allocation = required(line, v, column, ALLOCATION, "the name of a leaf allocation");
        if (tree != null && tree.leaf(allocation).isEmpty()) {
            throw error(line, column, ALLOCATION, Values.allocationProblem(tree, allocation));
        }

        String user = v[USER] == null ? "-" : v[USER];

        String gpusText = required(line, v, column, GPUS, WorkloadRules.GPUS_EXPECTED);
        long gpus = Values.parseWholeNumberOrMax(gpusText);
        if (gpus < 0) {
            throw error(line, column, GPUS, "expected " + WorkloadRules.GPUS_EXPECTED + ", got '" + gpusText + "'");
        }

        long perNode = 0;
        if (v[GPUS_PER_NODE] != null) {
            perNode = Values.parseWholeNumberOrMax(v[GPUS_PER_NODE]);
            if (perNode < 0) {
                throw error(line, column, GPUS_PER_NODE, "expected " + WorkloadRules.GPUS_PER_NODE_EXPECTED + ", got '"
                        + v[GPUS_PER_NODE] + "'");
            }
        }

        Duration duration = duration(line, v, column, DURATION);
        Duration minRuntime = duration(line, v, column, MIN_RUNTIME);

        boolean resumable = false;
        if (v[RESUMABLE] != null) {
            Boolean b = Values.parseBoolean(v[RESUMABLE]);
            if (b == null) {
                throw error(line, column, RESUMABLE, "expected " + Values.BOOLEAN_EXPECTED + ", got '" + v[RESUMABLE] + "'");
            }
            resumable = b;
        }

        Priority priority = Priority.NORMAL;
        if (v[PRIORITY] != null) {
            try {
                priority = Values.parsePriority(v[PRIORITY]);
            } catch (IllegalArgumentException e) {
                throw error(line, column, PRIORITY, "expected one of " + Priority.validNames() + ", got '"
                        + v[PRIORITY] + "'");
            }
        }

        Duration checkpointEvery = v[CHECKPOINT_EVERY] == null ? null : duration(line, v, column, CHECKPOINT_EVERY);
        String kind = v[KIND] == null ? "" : v[KIND];

        List<Violation> violations = WorkloadRules.check(WorkloadFields.builder().id(id)
                .submitSeconds(waiting ? null : submitSeconds).allocation(allocation).user(user).gpus(gpus)
                .gpusPerNode(perNode).duration(duration).minRuntime(minRuntime).checkpointEvery(checkpointEvery)
                .kind(kind).build());
        if (!violations.isEmpty()) {
            throw violated(line, v, column, violations);
        }
        Violation misfit = misfit((int) gpus, (int) perNode);
        if (misfit != null) {
            throw new InputException(file, line, column.applyAsInt(fieldOf(misfit)), COLUMNS.get(fieldOf(misfit)),
                    misfit.problem());
        }
        Integer first = idLine.get(id);
        if (first != null) {
            throw error(line, column, ID, "expected a unique id, got '" + id + "', already used on line " + first);
        }

        WorkloadSpec spec;
        try {
            spec = new WorkloadSpec(id, submitSeconds, allocation, user, (int) gpus, (int) perNode, duration, minRuntime,
                    resumable, priority, checkpointEvery, kind);
        } catch (IllegalArgumentException e) {
            // Everything WorkloadSpec checks is checked above with a field; this is a safety net.
            throw new InputException(file, line, 0, null, e.getMessage());
        }
        idLine.put(id, line);
        if (submit.absolute() && firstInstantLine == 0) {
            firstInstantLine = line;
        } else if (!submit.absolute() && firstRelativeLine == 0) {
            firstRelativeLine = line;
        }
        if (waiting) {
            pending.add(new long[] {specs.size(), submit.seconds(), line, column.applyAsInt(SUBMIT)});
        }
        specs.add(spec);
    }

    /** Refuses a control character in a text that reports print ({@link PrintableText}). */
    private void printable(int line, String[] v, IntUnaryOperator column, int field) {
        Optional<Violation> bad = PrintableText.check(COLUMNS.get(field), v[field]);
        if (bad.isPresent()) {
            throw error(line, column, field, bad.get().problemAndHint());
        }
    }

    private String required(int line, String[] v, IntUnaryOperator column, int field, String expected) {
        String s = v[field];
        if (s == null) {
            throw error(line, column, field, "expected " + expected + ", got nothing");
        }
        return s;
    }

    private Duration duration(int line, String[] v, IntUnaryOperator column, int field) {
        String text = required(line, v, column, field, Values.DURATION_EXPECTED);
        Duration d;
        try {
            d = Values.parseDuration(text);
        } catch (IllegalArgumentException e) {
            if (!(e.getCause() instanceof Durations.TooLargeException)) {
                throw error(line, column, field, e.getMessage());
            }
            d = null; // beyond what seconds count: beyond the scenario's reach too
        }
        if (d == null || d.getSeconds() > ScenarioTime.MAX_SECONDS) {
            throw error(line, column, field, "expected " + ScenarioTime.durationExpected() + ", got '" + text + "'");
        }
        return d;
    }

    /**
     * The row's violations of {@link WorkloadRules} as one error at the column of the first: what was expected and
     * the cell as written (and the rule's hint, if it has one), then the others, so that one look at the line shows
     * everything wrong with it.
     */
    private InputException violated(int line, String[] v, IntUnaryOperator column, List<Violation> violations) {
        StringBuilder problem = new StringBuilder();
        for (Violation x : violations) {
            int f = fieldOf(x);
            if (problem.length() > 0) {
                problem.append("; also field '").append(COLUMNS.get(f)).append("': ");
            }
            problem.append("expected ").append(x.expected()).append(", got ")
                    .append(v[f] == null ? x.got() : "'" + v[f] + "'");
            if (x.hint() != null) {
                problem.append("; ").append(x.hint());
            }
        }
        int first = fieldOf(violations.get(0));
        return new InputException(file, line, column.applyAsInt(first), COLUMNS.get(first), problem.toString());
    }

    /** The column of a field as {@link WorkloadRules} names it (camelCase; the files use snake_case). */
    private static int fieldOf(Violation v) {
        return switch (v.field()) {
            case WorkloadRules.ID -> ID;
            case WorkloadRules.SUBMIT -> SUBMIT;
            case WorkloadRules.ALLOCATION -> ALLOCATION;
            case WorkloadRules.USER -> USER;
            case WorkloadRules.GPUS -> GPUS;
            case WorkloadRules.GPUS_PER_NODE -> GPUS_PER_NODE;
            case WorkloadRules.DURATION -> DURATION;
            case WorkloadRules.MIN_RUNTIME -> MIN_RUNTIME;
            case WorkloadRules.CHECKPOINT_EVERY -> CHECKPOINT_EVERY;
            case WorkloadRules.KIND -> KIND;
            default -> throw new IllegalStateException("no column for field " + v.field());
        };
    }

    private InputException error(int line, IntUnaryOperator column, int field, String problem) {
        return new InputException(file, line, column.applyAsInt(field), COLUMNS.get(field), problem);
    }

    /** Why the shape can never fit the cluster, or null; remembered per shape, as rows repeat a few shapes. */
    private Violation misfit(int gpus, int perNode) {
        long key = ((long) gpus << 32) | perNode;
        Optional<Violation> f = fits.get(key);
        if (f == null) {
            f = ShapeFit.check(cluster, gpus, perNode);
            fits.put(key, f);
        }
        return f.orElse(null);
    }
}
