package dev.allot.sim.trace;

import dev.allot.core.policy.Settings;
import dev.allot.sim.ScenarioTime;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The Alibaba PAI 2023 "openb" pod list ({@code openb_pod_list_*.csv}): a CSV with the header
 * {@code name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time},
 * one pod a row. Columns are found by name; others are ignored. Times are whole seconds from the start of the trace
 * and are used as written (time 0 is the trace's start).
 *
 * <ul>
 *   <li>{@code name}: the pod, the workload's id; unique.</li>
 *   <li>{@code num_gpu}: GPUs, a whole number &gt;= 0. A pod with no GPU is skipped and counted ({@code no GPU}).</li>
 *   <li>{@code gpu_milli}: thousandths of each GPU the pod uses, 1 to 1000 (0 only without GPUs). A fraction
 *       (below 1000) is rounded up to a whole GPU, and each pod rounded is counted: Allot places whole GPUs.</li>
 *   <li>{@code qos}: the pod's QoS class ({@code LS}, {@code BE}, {@code Burstable}, {@code Guaranteed}) as written:
 *       the trace has no team column, so the class is the allocation.</li>
 *   <li>{@code creation_time}: submission.</li>
 *   <li>{@code scheduled_time}: when the pod started; empty when it never did.</li>
 *   <li>{@code deletion_time}: when the pod ended. The duration is deletion - scheduled, or deletion - creation for
 *       a pod never scheduled: its time in the queue stands for the demand it expressed. A pod of zero duration is
 *       skipped and counted ({@code zero duration}). Pods still running when the trace ends carry the trace's end
 *       as deletion time, so their durations are cut there.</li>
 *   <li>{@code cpu_milli}, {@code memory_mib}, {@code gpu_spec}, {@code pod_phase}: not used.</li>
 * </ul>
 * The user is {@code -}; the contract comes from the {@link ContractRule}.
 */
public final class AlibabaOpenbFormat implements TraceFormat {
    static final String[] COLUMNS = {"name", "num_gpu", "gpu_milli", "qos", "creation_time", "deletion_time",
        "scheduled_time"};
    private static final int NAME = 0;
    private static final int NUM_GPU = 1;
    private static final int GPU_MILLI = 2;
    private static final int QOS = 3;
    private static final int CREATION = 4;
    private static final int DELETION = 5;
    private static final int SCHEDULED = 6;

    static final String NO_GPU = "no GPU";
    static final String ZERO_DURATION = "zero duration";

    @Override
    public String name() {
        return "alibaba-openb";
    }

    @Override
    public String description() {
        return "Alibaba PAI 2023 openb pods: name,...,num_gpu,gpu_milli,...,qos,...,creation/deletion/scheduled_time"
                + " (qos = allocation)";
    }

    @Override
    public void read(Path path, Settings settings, TraceRows rows) throws IOException {
        Cells.readCsv(path, rows, String.join(",", COLUMNS), COLUMNS, AlibabaOpenbFormat::row);
    }

    private static void row(Cells cells, TraceRows rows) {
        cells.requireWidth();
        int line = cells.line();
        String name = cells.printable(NAME, "a pod name");
        int gpus = cells.gpus(NUM_GPU, 0);
        long milli = cells.whole(GPU_MILLI, gpus == 0 ? 0 : 1, 1000,
                gpus == 0 ? "a whole number from 0 to 1000" : "a whole number from 1 to 1000 for a pod with GPUs");
        String qos = cells.printable(QOS, "a QoS class such as LS or BE");
        long created = cells.whole(CREATION, 0, Long.MAX_VALUE / 4, "a whole number of seconds >= 0");
        long started = created;
        if (!cells.text(SCHEDULED).isEmpty()) {
            started = cells.whole(SCHEDULED, created, Long.MAX_VALUE / 4,
                    "a whole number of seconds >= creation_time (" + created + "), or empty when never scheduled");
        }
        long deleted = cells.whole(DELETION, started, Long.MAX_VALUE / 4, "a whole number of seconds >= "
                + (started == created ? "creation_time (" : "scheduled_time (") + started + ")");
        long duration = deleted - started;
        if (duration > ScenarioTime.MAX_SECONDS) {
            throw cells.error(DELETION, "expected a duration of at most " + ScenarioTime.MAX_SECONDS
                    + " seconds, got " + duration);
        }
        if (gpus == 0) {
            rows.skip(NO_GPU);
            return;
        }
        if (duration == 0) {
            rows.skip(ZERO_DURATION);
            return;
        }
        rows.checkFits(gpus, line, cells.column(NUM_GPU), cells.name(NUM_GPU));
        rows.checkAllocation(qos, line, cells.column(QOS), cells.name(QOS));
        rows.checkUniqueId(name, line, cells.column(NAME), cells.name(NAME));
        if (milli < 1000) {
            rows.roundedUp();
        }
        rows.add(line, name, created, qos, "-", gpus, duration);
    }
}
