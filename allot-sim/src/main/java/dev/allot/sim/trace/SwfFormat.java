package dev.allot.sim.trace;

import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.sim.ScenarioTime;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.TextFiles;
import dev.allot.sim.input.Values;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Standard Workload Format of the Parallel Workloads Archive: one job a line, 18 whitespace-separated fields,
 * {@code -1} where a value is unknown; lines starting with {@code ;} are header comments. Times are whole seconds
 * from the start of the log, used as written. Fields used (1-based, as the standard numbers them):
 *
 * <ul>
 *   <li>1 {@code job_number}: the workload's id is {@code swf-<job number>}; unique.</li>
 *   <li>2 {@code submit_time}: submission, seconds &gt;= 0; unknown (-1): skipped and counted.</li>
 *   <li>4 {@code run_time}: the duration, seconds; unknown (-1) or 0: skipped and counted.</li>
 *   <li>5 {@code allocated_processors}, 8 {@code requested_processors}: processors stand for GPUs; the allocated
 *       number when known (&gt;= 1), else the requested one; neither known: skipped and counted.</li>
 *   <li>12 {@code user_id}, 13 {@code group_id}: the allocation is {@code user-<id>} or {@code group-<id>}, by the
 *       setting {@code allocation-by} ({@code user}, the default, or {@code group}); {@code -1} gives
 *       {@code user-unknown} or {@code group-unknown}. The workload's user is always {@code user-<id>}.</li>
 * </ul>
 * The other fields (wait time, CPU time, memory, requested time, status, executable, queue, partition, preceding
 * job, think time) are not used, nor checked. A value below -1 in a used field is out of range and rejects the
 * line; so does a line without exactly 18 fields. The contract comes from the {@link ContractRule}.
 */
public final class SwfFormat implements TraceFormat {
    static final String ALLOCATION_BY = "allocation-by";
    static final int FIELDS = 18;

    static final String UNKNOWN_SUBMIT = "unknown submit time";
    static final String UNKNOWN_RUN_TIME = "unknown run time";
    static final String ZERO_RUN_TIME = "zero run time";
    static final String UNKNOWN_PROCESSORS = "unknown processors";

    private static final int JOB = 1;
    private static final int SUBMIT = 2;
    private static final int RUN_TIME = 4;
    private static final int ALLOCATED = 5;
    private static final int REQUESTED = 8;
    private static final int USER = 12;
    private static final int GROUP = 13;

    @Override
    public String name() {
        return "swf";
    }

    @Override
    public String description() {
        return "Standard Workload Format (Parallel Workloads Archive): processors = GPUs, user or group = allocation";
    }

    @Override
    public List<SettingSpec> settings() {
        return List.of(SettingSpec.text(ALLOCATION_BY, "user", "the allocation of a job: user (user-<id>) or group (group-<id>)"));
    }

    @Override
    public void validate(Settings settings) {
        String by = settings.text(ALLOCATION_BY);
        if (!by.equals("user") && !by.equals("group")) {
            throw new IllegalArgumentException("setting '" + ALLOCATION_BY + "': expected user or group, got '" + by + "'");
        }
    }

    @Override
    public void read(Path path, Settings settings, TraceRows rows) throws IOException {
        boolean byGroup = settings.text(ALLOCATION_BY).equals("group");
        String[] f = new String[FIELDS + 1];
        try (BufferedReader reader = TextFiles.open(path, rows.file())) {
            int lineNo = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNo++;
                int count = split(line, f);
                if (count == 0) {
                    continue;
                }
                try {
                    row(rows, lineNo, f, count, byGroup);
                } catch (InputException e) {
                    rows.reject(e);
                }
            }
        }
    }

    /**
     * Splits a line into {@code f[1..]} at whitespace; returns how many fields it has, 0 for a blank or comment line
     * (counting stops past 18 + 1).
     */
    static int split(String line, String[] f) {
        int n = line.length();
        int i = 0;
        while (i < n && Character.isWhitespace(line.charAt(i))) {
            i++;
        }
        if (i == n || line.charAt(i) == ';' || (i == 0 && line.startsWith("\uFEFF;"))) {
            return 0;
        }
        if (line.charAt(i) == '\uFEFF') {
            i++;
        }
        int count = 0;
        while (i < n) {
            int start = i;
            while (i < n && !Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            count++;
            if (count < f.length) {
                f[count] = line.substring(start, i);
            }
            while (i < n && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
        }
        return count;
    }

    private static void row(TraceRows rows, int line, String[] f, int count, boolean byGroup) {
        if (count != FIELDS) {
            throw rows.error(line, Math.min(count, FIELDS) + 1, null, "expected " + FIELDS
                    + " whitespace-separated fields (the Standard Workload Format), got " + count);
        }
        long job = number(rows, line, f, JOB, "job_number");
        long submit = number(rows, line, f, SUBMIT, "submit_time");
        long runTime = number(rows, line, f, RUN_TIME, "run_time");
        long allocated = number(rows, line, f, ALLOCATED, "allocated_processors");
        long requested = number(rows, line, f, REQUESTED, "requested_processors");
        long user = number(rows, line, f, USER, "user_id");
        long group = number(rows, line, f, GROUP, "group_id");
        if (job < 0) {
            throw rows.error(line, JOB, "job_number", "expected a job number >= 0, got '" + f[JOB] + "'");
        }
        if (runTime > ScenarioTime.MAX_SECONDS) {
            throw rows.error(line, RUN_TIME, "run_time", "expected at most " + ScenarioTime.MAX_SECONDS
                    + " seconds, got '" + f[RUN_TIME] + "'");
        }
        long procs = allocated >= 1 ? allocated : requested;
        int procField = allocated >= 1 ? ALLOCATED : REQUESTED;
        if (procs > Integer.MAX_VALUE) {
            throw rows.error(line, procField, procField == ALLOCATED ? "allocated_processors" : "requested_processors",
                    "expected at most " + Integer.MAX_VALUE + " processors, got '" + f[procField] + "'");
        }
        if (submit < 0) {
            rows.skip(UNKNOWN_SUBMIT);
            return;
        }
        if (runTime < 0) {
            rows.skip(UNKNOWN_RUN_TIME);
            return;
        }
        if (runTime == 0) {
            rows.skip(ZERO_RUN_TIME);
            return;
        }
        if (procs < 1) {
            rows.skip(UNKNOWN_PROCESSORS);
            return;
        }
        String userName = user < 0 ? "user-unknown" : "user-" + user;
        String allocation = byGroup ? (group < 0 ? "group-unknown" : "group-" + group) : userName;
        String id = "swf-" + job;
        rows.checkFits((int) procs, line, procField, procField == ALLOCATED ? "allocated_processors" : "requested_processors");
        rows.checkAllocation(allocation, line, byGroup ? GROUP : USER, byGroup ? "group_id" : "user_id");
        rows.checkUniqueId(id, line, JOB, "job_number");
        rows.add(line, id, submit, allocation, userName, (int) procs, runTime);
    }

    /** The largest number a field may hold: times this large still leave room to add a run time. */
    private static final long MAX_NUMBER = Long.MAX_VALUE / 4;

    /** A whole number, or -1 for unknown; anything else (text, decimals, below -1) is an error. */
    private static long number(TraceRows rows, int line, String[] f, int field, String name) {
        String t = f[field];
        if (t.equals("-1")) {
            return -1;
        }
        long v = Values.parseWholeNumberOrMax(t);
        if (v > MAX_NUMBER) {
            throw rows.error(line, field, name, "expected a whole number >= 0, " + Values.atMost(MAX_NUMBER)
                    + ", or -1 for unknown, got '" + t + "'");
        }
        if (v < 0) {
            throw rows.error(line, field, name, "expected a whole number >= 0, or -1 for unknown, got '" + t + "'");
        }
        return v;
    }
}
