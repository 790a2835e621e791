package dev.allot.sim.trace;

import dev.allot.core.policy.Settings;
import dev.allot.sim.ScenarioTime;
import dev.allot.sim.input.Values;
import java.io.IOException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * The Microsoft Philly job list as the Pollux artifact preprocessed it: a CSV with the header
 * {@code timestamp,duration,num_gpus,gpu_time,cluster}, one job a row, rows <em>not</em> in submission order.
 * Columns are found by name; others are ignored.
 *
 * <ul>
 *   <li>{@code timestamp}: submission, UTC, {@code 2017-10-09 07:01:55} (a {@code T} instead of the space and a
 *       trailing {@code Z} are accepted). Time 0 is the earliest submission, or {@code start} of
 *       {@code cluster.yaml} when a scenario folder gives one (earlier rows are then rejected).</li>
 *   <li>{@code duration}: run time in seconds, a positive decimal ({@code 66.0}), rounded up to whole seconds.</li>
 *   <li>{@code num_gpus}: GPUs, a whole number &gt;= 1, any packing.</li>
 *   <li>{@code gpu_time}: not used (it is duration x GPUs).</li>
 *   <li>{@code cluster}: the Philly virtual cluster, which is a team: the workload's allocation.</li>
 * </ul>
 * What the trace lacks: ids are generated from the line of the row ({@code philly-000123} is line 123); the
 * user is {@code -}; the contract comes from the {@link ContractRule}.
 */
public final class PhillyFormat implements TraceFormat {
    static final String[] COLUMNS = {"timestamp", "duration", "num_gpus", "cluster"};
    private static final int TIMESTAMP = 0;
    private static final int DURATION = 1;
    private static final int GPUS = 2;
    private static final int CLUSTER = 3;
    private static final String TIME_EXPECTED = "a UTC time such as 2017-10-09 07:01:55";

    @Override
    public String name() {
        return "philly";
    }

    @Override
    public String description() {
        return "Microsoft Philly jobs: timestamp,duration,num_gpus,gpu_time,cluster (cluster = allocation)";
    }

    @Override
    public void read(Path path, Settings settings, TraceRows rows) throws IOException {
        rows.generatedIds("philly");
        rows.absoluteTimes();
        Cells.readCsv(path, rows, "timestamp,duration,num_gpus,gpu_time,cluster", COLUMNS, PhillyFormat::row);
    }

    private static void row(Cells cells, TraceRows rows) {
        cells.requireWidth();
        int line = cells.line();
        String timeText = cells.required(TIMESTAMP, TIME_EXPECTED);
        long submit = epochSeconds(timeText);
        if (submit < 0) {
            throw cells.error(TIMESTAMP, "expected " + TIME_EXPECTED + ", got '" + timeText + "'");
        }
        String durationText = cells.required(DURATION, "a positive number of seconds");
        long seconds = secondsRoundedUp(durationText);
        if (seconds > ScenarioTime.MAX_SECONDS || seconds < 0 && Values.parseNumber(durationText) >= 1e15) {
            // '1e300' read 'expected a positive number of seconds', which it is
            throw cells.error(DURATION, String.format(java.util.Locale.ROOT, "expected a positive number of seconds,"
                    + " at most %,d (68 years), got '%s'", ScenarioTime.MAX_SECONDS, durationText));
        }
        if (seconds < 1) {
            throw cells.error(DURATION, "expected a positive number of seconds, got '" + durationText + "'");
        }
        int gpus = cells.gpus(GPUS, 1);
        String cluster = cells.printable(CLUSTER, "the name of a Philly virtual cluster");
        rows.checkFits(gpus, line, cells.column(GPUS), cells.name(GPUS));
        rows.checkAllocation(cluster, line, cells.column(CLUSTER), cells.name(CLUSTER));
        rows.checkNotBeforeStart(submit, timeText, line, cells.column(TIMESTAMP), cells.name(TIMESTAMP));
        rows.add(line, null, submit, cluster, "-", gpus, seconds);
    }

    /**
     * A non-negative decimal number of seconds rounded up to whole seconds; -1 when the text is not such a number.
     * Plain {@code digits[.digits]} (what the trace writes) is read without {@link Double#parseDouble}.
     */
    static long secondsRoundedUp(String s) {
        int n = s.length();
        long whole = 0;
        int i = 0;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9' && i < 15) {
            whole = whole * 10 + (s.charAt(i) - '0');
            i++;
        }
        if (i > 0 && i == n) {
            return whole;
        }
        if (i > 0 && i < 15 && s.charAt(i) == '.') {
            boolean fraction = false;
            int j = i + 1;
            while (j < n && s.charAt(j) >= '0' && s.charAt(j) <= '9') {
                fraction |= s.charAt(j) != '0';
                j++;
            }
            if (j == n) {
                return fraction ? whole + 1 : whole;
            }
        }
        double d = Values.parseNumber(s);
        return d >= 0 && d < 1e15 ? (long) Math.ceil(d) : -1;
    }

    /** Epoch seconds of {@code yyyy-MM-dd HH:mm:ss} in UTC (also {@code T} and a trailing {@code Z}); -1 if not. */
    static long epochSeconds(String s) {
        int n = s.length();
        if (n == 20 && s.charAt(19) == 'Z') {
            n = 19;
        }
        if (n != 19 || s.charAt(4) != '-' || s.charAt(7) != '-' || (s.charAt(10) != ' ' && s.charAt(10) != 'T')
                || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return -1;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 1970 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 59) {
            return -1;
        }
        try {
            return LocalDate.of(year, month, day).toEpochDay() * 86_400L + hour * 3600L + minute * 60L + second;
        } catch (DateTimeException e) {
            return -1;
        }
    }

    private static int digits(String s, int from, int count) {
        int v = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
