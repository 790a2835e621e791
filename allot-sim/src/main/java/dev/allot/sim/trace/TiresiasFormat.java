package dev.allot.sim.trace;

import dev.allot.core.policy.Settings;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The job trace of the Tiresias simulator (SymbioticLab/Tiresias, e.g. {@code 60_job.csv}): a CSV with the header
 * {@code job_id,num_gpu,submit_time,iterations,model_name,duration,interval}, one job a row. Columns are found by
 * name; others are ignored. Times are whole seconds, used as written (time 0 is the trace's start).
 *
 * <ul>
 *   <li>{@code job_id}: the job; the workload's id is {@code tiresias-<job_id>}; unique.</li>
 *   <li>{@code num_gpu}: GPUs, a whole number &gt;= 1, any packing.</li>
 *   <li>{@code submit_time}: submission, seconds &gt;= 0.</li>
 *   <li>{@code model_name}: the model trained ({@code vgg19}, {@code resnet50}, ...). The trace has no team
 *       column, so the model is the allocation: each model's jobs share one budget.</li>
 *   <li>{@code duration}: run time, seconds &gt;= 1.</li>
 *   <li>{@code iterations}, {@code interval}: not used (the interval is the gap to the next submission, already in
 *       the submit times).</li>
 * </ul>
 * The user is {@code -}; the contract comes from the {@link ContractRule}.
 */
public final class TiresiasFormat implements TraceFormat {
    static final String[] COLUMNS = {"job_id", "num_gpu", "submit_time", "model_name", "duration"};
    private static final int JOB_ID = 0;
    private static final int NUM_GPU = 1;
    private static final int SUBMIT = 2;
    private static final int MODEL = 3;
    private static final int DURATION = 4;

    @Override
    public String name() {
        return "tiresias";
    }

    @Override
    public String description() {
        return "Tiresias simulator jobs: job_id,num_gpu,submit_time,iterations,model_name,duration,interval"
                + " (model_name = allocation)";
    }

    @Override
    public void read(Path path, Settings settings, TraceRows rows) throws IOException {
        Cells.readCsv(path, rows, "job_id,num_gpu,submit_time,iterations,model_name,duration,interval", COLUMNS, TiresiasFormat::row);
    }

    private static void row(Cells cells, TraceRows rows) {
        cells.requireWidth();
        int line = cells.line();
        String id = "tiresias-" + cells.printable(JOB_ID, "a job id");
        int gpus = cells.gpus(NUM_GPU, 1);
        long submit = cells.whole(SUBMIT, 0, Long.MAX_VALUE / 4, "a whole number of seconds >= 0");
        String model = cells.printable(MODEL, "a model name");
        long duration = cells.seconds(DURATION, 1);
        rows.checkFits(gpus, line, cells.column(NUM_GPU), cells.name(NUM_GPU));
        rows.checkAllocation(model, line, cells.column(MODEL), cells.name(MODEL));
        rows.checkUniqueId(id, line, cells.column(JOB_ID), cells.name(JOB_ID));
        rows.add(line, id, submit, model, "-", gpus, duration);
    }
}
