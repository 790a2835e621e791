package dev.allot.sim.trace;

import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.SortedWorkloads;
import java.time.Duration;
import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * The workloads of an imported trace as columns: primitive arrays for times, sizes and durations, interned
 * strings for allocations, users and kinds, and ids either from the trace or generated from the line each row
 * was read from ({@code philly-000123} is line 123 of the file). The rows are sorted by (submission, id) with a
 * primitive index sort; {@link #get(int)} builds the {@link WorkloadSpec} of a row on demand. A
 * {@link dev.allot.sim.Scenario} keeps the table as it is and the simulator asks for each workload when it is
 * submitted, so a million-row trace never needs a million objects before the first event.
 *
 * <p>Immutable. The last workload built is kept, so asking twice in a row for the same index (as the simulator
 * does while it peeks at the next submission) builds it once; {@link #created()} counts the workloads built (a
 * diagnostic, exact when one thread reads the table).
 */
public final class WorkloadTable extends AbstractList<WorkloadSpec> implements SortedWorkloads, RandomAccess {
    private static final Priority[] PRIORITIES = Priority.values();

    private final Columns c;
    private final int[] order;
    private final String[] allocations;
    private final String[] users;
    private final String[] kinds;
    private final String idPrefix;
    private final int idWidth;
    private final int defaultCheckpoint;
    private final ImportSummary summary;

    private long created;
    private Built last;

    private record Built(int index, WorkloadSpec spec) {
    }

    /**
     * @param c                 filled columns, submit times already relative to time 0
     * @param order             row numbers in (submission, id) order
     * @param idPrefix          prefix of generated ids (null when the trace has ids)
     * @param defaultCheckpoint checkpoint interval in seconds of resumable rows without their own; 0 for none
     */
    WorkloadTable(Columns c, int[] order, String idPrefix, int defaultCheckpoint, ImportSummary summary) {
        this.c = c;
        this.order = order;
        this.allocations = c.allocations.toArray();
        this.users = c.users.toArray();
        this.kinds = c.kinds.toArray();
        this.idPrefix = idPrefix;
        int maxLine = 0;
        if (c.line != null) {
            for (int r = 0; r < c.size; r++) {
                maxLine = Math.max(maxLine, c.line[r]);
            }
        }
        this.idWidth = Math.max(6, Integer.toString(maxLine).length());
        this.defaultCheckpoint = defaultCheckpoint;
        this.summary = summary;
    }

    @Override
    public int size() {
        return order.length;
    }

    @Override
    public WorkloadSpec get(int index) {
        Built b = last;
        if (b != null && b.index == index) {
            return b.spec;
        }
        int r = order[index];
        int checkpoint = c.checkpoint != null ? c.checkpoint[r] : defaultCheckpoint;
        boolean resumable = (c.flags[r] & Columns.RESUMABLE) != 0;
        WorkloadSpec spec = new WorkloadSpec(id(index), c.submit[r], allocations[c.allocation[r]], users[c.user[r]],
                c.gpus[r], c.gpusPerNode == null ? 0 : c.gpusPerNode[r], Duration.ofSeconds(c.duration[r]),
                Duration.ofSeconds(c.minRuntime[r]), resumable,
                c.priority == null ? Priority.NORMAL : PRIORITIES[c.priority[r]],
                resumable && checkpoint > 0 ? Duration.ofSeconds(checkpoint) : null, kinds[c.kind[r]]);
        created++;
        last = new Built(index, spec);
        return spec;
    }

    /** How many {@link WorkloadSpec}s {@link #get(int)} has built so far. */
    public long created() {
        return created;
    }

    /** What the import read, rejected, skipped and decided. */
    public ImportSummary summary() {
        return summary;
    }

    // ---- column reads that build nothing ----------------------------------------------------------------------

    public String id(int index) {
        int r = order[index];
        if (c.ids != null) {
            return c.ids[r];
        }
        String digits = Integer.toString(c.line[r]);
        StringBuilder sb = new StringBuilder(idPrefix.length() + 1 + idWidth).append(idPrefix).append('-');
        for (int i = digits.length(); i < idWidth; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    public long submitSeconds(int index) {
        return c.submit[order[index]];
    }

    public String allocation(int index) {
        return allocations[c.allocation[order[index]]];
    }

    public int gpus(int index) {
        return c.gpus[order[index]];
    }

    public long durationSeconds(int index) {
        return c.duration[order[index]];
    }

    public long minRuntimeSeconds(int index) {
        return c.minRuntime[order[index]];
    }

    public String kind(int index) {
        return kinds[c.kind[order[index]]];
    }

    /** The distinct allocations the rows name, in the order they were first read. */
    public String[] allocationNames() {
        return allocations.clone();
    }

    /** GPU-seconds of all rows, per allocation in the order of {@link #allocationNames()}. */
    public double[] gpuSecondsByAllocation() {
        double[] sum = new double[allocations.length];
        for (int r = 0; r < c.size; r++) {
            sum[c.allocation[r]] += (double) c.gpus[r] * c.duration[r];
        }
        return sum;
    }
}
