package dev.allot.sim.trace;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.ClusterSpec;
import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.ShapeFit;
import dev.allot.core.rules.Violation;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.Values;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where a {@link TraceFormat} puts the rows it reads: straight into primitive columns, with the checks every format
 * shares (allocation known to the tree, size the cluster can hold, unique ids, times not before {@code start}) and
 * the counts the import reports. A format parses a row, calls the checks, then {@link #add}; any
 * {@link InputException} it meets goes to {@link #reject}, which throws unless the import is lenient.
 *
 * <p>Messages name the file, the 1-based line, the 1-based column (the cell, or the field of an SWF line) and the
 * field, as every reader of Allot does.
 */
public final class TraceRows {
    private final String file;
    private final ClusterSpec cluster;
    private final AllocationTree tree;
    private final Long start;
    private final boolean lenient;

    private Columns columns;
    private String idPrefix;
    private boolean instants;
    private boolean declared;
    private Long declaredTimeZero;
    private final Map<String, Integer> idLine = new HashMap<>();
    private final List<String> rejected = new ArrayList<>();
    private final SortedMap<String, Long> skipped = new TreeMap<>();
    private long roundedUp;

    /**
     * @param file    the name used in messages (the trace file's name)
     * @param cluster the nodes rows must fit on
     * @param tree    the tree whose leaves rows must name, or null to accept any allocation
     * @param start   epoch seconds of time 0 for traces with absolute times, or null for the earliest submission
     */
    TraceRows(String file, ClusterSpec cluster, AllocationTree tree, Long start, boolean lenient) {
        this.file = file;
        this.cluster = cluster;
        this.tree = tree;
        this.start = start;
        this.lenient = lenient;
    }

    // ---- how the format describes its rows (call before the first row) ----------------------------------------

    /** The trace has no ids: each row's id is {@code prefix-<line>}, its line zero-padded to at least 6 digits. */
    public void generatedIds(String prefix) {
        requireNoRows();
        this.idPrefix = prefix;
    }

    /**
     * Submit times are epoch seconds: time 0 is {@code start} when the scenario gives one (earlier rows are
     * rejected), else the earliest submission.
     */
    public void absoluteTimes() {
        requireNoRows();
        this.instants = true;
    }

    private void requireNoRows() {
        if (columns != null) {
            throw new IllegalStateException("describe the rows before adding any");
        }
    }

    private Columns columns() {
        if (columns == null) {
            columns = new Columns(1024, idPrefix != null);
        }
        return columns;
    }

    // ---- problems and counts ----------------------------------------------------------------------------------

    public String file() {
        return file;
    }

    ClusterSpec cluster() {
        return cluster;
    }

    AllocationTree tree() {
        return tree;
    }

    Long start() {
        return start;
    }

    public boolean lenient() {
        return lenient;
    }

    /** A problem with a field of a row. */
    public InputException error(int line, int column, String field, String problem) {
        return new InputException(file, line, column, field, problem);
    }

    /** A bad row: thrown, or under lenient counted and kept in the scenario's rejected list. */
    public void reject(InputException e) {
        if (!lenient) {
            throw Values.oneLine(e);
        }
        rejected.add(Values.oneLine(e).getMessage());
    }

    /** Rows the lenient native reader already rejected. */
    void rejectAll(List<String> messages) {
        rejected.addAll(messages);
    }

    /** A well-formed row the format's documented rule leaves out (e.g. {@code no GPU}); counted by reason. */
    public void skip(String reason) {
        skipped.merge(reason, 1L, Long::sum);
    }

    /** A fractional GPU request rounded up to a whole GPU. */
    public void roundedUp() {
        roundedUp++;
    }

    // ---- checks -----------------------------------------------------------------------------------------------

    /**
     * Rejects a name with a control character ({@link PrintableText}), or that is not a leaf of the given tree;
     * without a tree every other name is welcome.
     */
    public void checkAllocation(String name, int line, int column, String field) {
        checkPrintable(name, line, column, field);
        if (tree != null && tree.leaf(name).isEmpty()) {
            throw error(line, column, field, Values.allocationProblem(tree, name));
        }
    }

    /** Rejects a size the cluster could never hold. */
    public void checkFits(int gpus, int line, int column, String field) {
        Optional<Violation> misfit = ShapeFit.check(cluster, gpus, 0);
        if (misfit.isPresent()) {
            throw error(line, column, field, misfit.get().problem());
        }
    }

    /**
     * Rejects an id with a control character ({@link PrintableText}; a format checks the cell first, with
     * {@code Cells.printable}, where the id is made from it) or already used by an earlier row.
     */
    public void checkUniqueId(String id, int line, int column, String field) {
        checkPrintable(id, line, column, field);
        Integer first = idLine.putIfAbsent(id, line);
        if (first != null) {
            throw error(line, column, field, "expected a unique id, got '" + id + "', already used on line " + first);
        }
    }

    /** Rejects an id or name with a control character, which reports would print as it is. */
    private void checkPrintable(String text, int line, int column, String field) {
        Optional<Violation> bad = PrintableText.check(field, text);
        if (bad.isPresent()) {
            throw error(line, column, field, bad.get().problemAndHint());
        }
    }

    /** Rejects an absolute time before {@code start}. */
    public void checkNotBeforeStart(long epochSeconds, String text, int line, int column, String field) {
        if (start != null && epochSeconds < start) {
            throw error(line, column, field, "expected a time at or after start (" + Instant.ofEpochSecond(start)
                    + " in cluster.yaml), got '" + text + "'");
        }
    }

    // ---- rows -------------------------------------------------------------------------------------------------

    /**
     * Adds a checked row. The contract rule fills in the rest when the table is built.
     *
     * @param id       the trace's id, or null when ids are generated
     * @param submit   seconds (epoch seconds after {@link #absoluteTimes()})
     * @param duration seconds, from 1 to {@link Integer#MAX_VALUE}
     */
    public void add(int line, String id, long submit, String allocation, String user, int gpus, long duration) {
        if ((id == null) != (idPrefix != null)) {
            throw new IllegalStateException(idPrefix != null ? "ids are generated; pass null" : "the trace has ids");
        }
        if (duration < 1 || duration > Integer.MAX_VALUE || gpus < 1 || submit < 0) {
            throw new IllegalArgumentException("row out of range: duration " + duration + ", gpus " + gpus
                    + ", submit " + submit);
        }
        Columns c = columns();
        c.ensureRoom();
        int r = c.size++;
        c.submit[r] = submit;
        c.duration[r] = (int) duration;
        c.gpus[r] = gpus;
        c.allocation[r] = c.allocations.intern(allocation);
        c.user[r] = c.users.intern(user);
        if (id == null) {
            c.line[r] = line;
        } else {
            c.ids[r] = id;
        }
    }

    /** For rows that declare their contract: epoch seconds of their time 0 when they were written as instants. */
    void declaredTimeZero(Long epoch) {
        this.declaredTimeZero = epoch;
    }

    /** Adds a workload that declares its own contract (the native format); time 0 is already applied. */
    void addDeclared(WorkloadSpec w) {
        declared = true;
        Columns c = columns();
        c.ensureRoom();
        int r = c.size++;
        c.submit[r] = w.submitSeconds();
        c.duration[r] = (int) Math.min(Integer.MAX_VALUE, w.duration().getSeconds());
        c.gpus[r] = w.gpus();
        c.allocation[r] = c.allocations.intern(w.allocation());
        c.user[r] = c.users.intern(w.user());
        c.ids[r] = w.id();
        c.minRuntime[r] = (int) Math.min(Integer.MAX_VALUE, w.minRuntime().getSeconds());
        c.flags[r] = w.resumable() ? Columns.RESUMABLE : 0;
        c.kind[r] = c.kinds.intern(w.kind());
        if (w.gpusPerNode() != 0) {
            c.gpusPerNode()[r] = w.gpusPerNode();
        }
        if (w.checkpointEvery() != null) {
            c.checkpoint()[r] = (int) Math.min(Integer.MAX_VALUE, w.checkpointEvery().getSeconds());
        }
        if (w.priority() != Priority.NORMAL) {
            c.priority()[r] = (byte) w.priority().ordinal();
        }
    }

    int size() {
        return columns == null ? 0 : columns.size;
    }

    List<String> rejected() {
        return rejected;
    }

    // ---- the table --------------------------------------------------------------------------------------------

    /**
     * Applies time 0 and the contract rule (unless the rows declared their own), sorts, and wraps the columns.
     *
     * @param contract the rule for what the trace lacks; ignored for declared rows
     */
    WorkloadTable build(String format, ContractRule contract) {
        Columns c = columns();
        int n = c.size;
        Long timeZero = null;
        if (instants && n > 0) {
            long min = Long.MAX_VALUE;
            for (int r = 0; r < n; r++) {
                min = Math.min(min, c.submit[r]);
            }
            timeZero = start != null ? start : min;
        }
        long unallocated = 0;
        long debug = 0;
        long resumable = 0;
        int checkpoint = 0;
        if (!declared) {
            long[] allocationHash = new long[c.allocations.size()];
            for (int a = 0; a < allocationHash.length; a++) {
                allocationHash[a] = ContractRule.hash(c.allocations.get(a));
            }
            int train = c.kinds.intern(ContractRule.KIND_TRAIN);
            int debugKind = c.kinds.intern(ContractRule.KIND_DEBUG);
            checkpoint = (int) Math.min(Integer.MAX_VALUE, contract.checkpointSeconds());
            for (int r = 0; r < n; r++) {
                long d = c.duration[r];
                boolean isDebug = contract.debug(d);
                long min = contract.minRuntimeSeconds(d);
                if (contract.unallocated(identity(c, r, allocationHash))) {
                    min = 0;
                    unallocated++;
                }
                c.minRuntime[r] = (int) min;
                c.kind[r] = isDebug ? debugKind : train;
                debug += isDebug ? 1 : 0;
                boolean res = contract.resumable(d);
                c.flags[r] = res ? Columns.RESUMABLE : 0;
                resumable += res ? 1 : 0;
            }
        } else {
            for (int r = 0; r < n; r++) {
                unallocated += c.minRuntime[r] == 0 ? 1 : 0;
                debug += ContractRule.KIND_DEBUG.equals(c.kinds.get(c.kind[r])) ? 1 : 0;
                resumable += (c.flags[r] & Columns.RESUMABLE) != 0 ? 1 : 0;
            }
        }
        if (timeZero != null) {
            for (int r = 0; r < n; r++) {
                c.submit[r] -= timeZero;
            }
        }
        long[] submit = c.submit;
        String[] ids = c.ids;
        int[] order = IndexSort.order(n, r -> submit[r], ids == null ? null : (a, b) -> ids[a].compareTo(ids[b]));
        long skippedTotal = 0;
        for (long s : skipped.values()) {
            skippedTotal += s;
        }
        ImportSummary summary = new ImportSummary(format, file, n + rejected.size() + skippedTotal, n,
                rejected.size(), skipped, roundedUp, unallocated, debug, resumable,
                declared ? new TreeMap<>() : contract.asText(), declared ? declaredTimeZero : timeZero);
        return new WorkloadTable(c, order, idPrefix, checkpoint, summary);
    }

    /**
     * What the unallocated choice hashes: the id when the trace has ids, else the row's content (its submit time as
     * written, allocation, GPUs and duration), so that reordering the rows of a trace never changes the choice.
     */
    private static long identity(Columns c, int r, long[] allocationHash) {
        if (c.ids != null) {
            return ContractRule.hash(c.ids[r]);
        }
        long h = allocationHash[c.allocation[r]];
        h = ContractRule.hash(h, c.submit[r]);
        h = ContractRule.hash(h, c.gpus[r]);
        return ContractRule.hash(h, c.duration[r]);
    }
}
