package dev.allot.sim.report;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.WorkloadRecord;
import dev.allot.sim.input.CsvRows;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.TextFiles;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code --workloads-out} CSV of {@code allot simulate} and {@code allot replay}: one row per workload and policy,
 * {@code policy,id,allocation,submit,first_start,end,wait_seconds,preemptions,final_state}; times in seconds from
 * time 0, -1 when it did not happen. The simulator's times are whole seconds; a replay measures them on a live
 * service to the millisecond, so a time may have up to three decimals. Written and read here only, so that
 * {@code allot compare} reads exactly what either command wrote.
 */
public final class WorkloadsCsv {
    /** The columns, in order. */
    public static final List<String> COLUMNS = List.of("policy", "id", "allocation", "submit", "first_start", "end",
            "wait_seconds", "preemptions", "final_state");
    /**
     * The states a row may end in: the simulator's ({@link dev.allot.sim.WorkloadRecord#finalState}) and a live
     * service's workload states, as {@code replay} writes them (the service's test
     * {@code WorkloadsCsvStatesTest} keeps this list in step with its {@code WorkloadState}). {@code compare}
     * took any word, so a mistyped state read as a difference between runs.
     */
    public static final List<String> FINAL_STATES = List.of("pending", "running", "preempted", "requeued",
            "completed", "failed", "cancelled");
    private static final java.util.regex.Pattern DECIMAL = java.util.regex.Pattern.compile("-?\\d{1,15}(\\.\\d{1,9})?");
    private static final CsvMapper MAPPER = CsvOutput.mapper();
    private static final CsvSchema SCHEMA = CsvSchema.builder()
            .addColumn("policy").addColumn("id").addColumn("allocation")
            .addNumberColumn("submit").addNumberColumn("first_start").addNumberColumn("end")
            .addNumberColumn("wait_seconds").addNumberColumn("preemptions").addColumn("final_state")
            .build().withHeader().withLineSeparator("\n");

    /**
     * One row: how one workload fared under one policy (simulated) or on one service (replayed).
     *
     * @param firstStartSeconds -1 when it never started
     * @param endSeconds        -1 when it never ended
     * @param waitSeconds       first start minus submission; -1 when it never started
     * @param finalState        the simulator's {@code completed}, {@code preempted}, {@code pending}, or a live
     *                          workload's state ({@code failed}, {@code cancelled}, {@code running}, ...)
     */
    public record Row(String policy, String id, String allocation, double submitSeconds, double firstStartSeconds,
                      double endSeconds, double waitSeconds, int preemptions, String finalState) {
        static Row of(WorkloadRecord x) {
            return new Row(x.policy(), x.id(), x.allocation(), x.submitSeconds(), x.firstStartSeconds(),
                    x.endSeconds(), x.waitSeconds(), x.preemptions(), x.finalState());
        }

        public boolean started() {
            return firstStartSeconds >= 0;
        }
    }

    private WorkloadsCsv() {
    }

    public static void write(List<SimulationResult> results, Writer out) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (SimulationResult r : results) {
            r.workloads().forEach(x -> rows.add(Row.of(x)));
        }
        writeRows(rows, out);
    }

    /** Writes the rows as they are, in order; times to the millisecond, whole seconds without decimals. */
    public static void writeRows(List<Row> rows, Writer out) throws IOException {
        try (SequenceWriter w = MAPPER.writer(SCHEMA).without(com.fasterxml.jackson.core.JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                .writeValues(out)) {
            for (Row x : rows) {
                w.write(new Object[] {x.policy(), x.id(), x.allocation(), seconds(x.submitSeconds()),
                        seconds(x.firstStartSeconds()), seconds(x.endSeconds()), seconds(x.waitSeconds()),
                        x.preemptions(), x.finalState()});
            }
        }
    }

    /** Seconds to the millisecond: {@code 12} for a whole second, else {@code 12.345} (trailing zeros dropped). */
    static Number seconds(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return (long) value;
        }
        return BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros();
    }

    /**
     * Reads a file written by {@link #write} or {@link #writeRows}. Every problem names the file, the line and the
     * column: a missing column, a row whose cells do not match the header's, an empty or non-numeric time, a negative time other than -1, an id given twice for
     * one policy.
     *
     * @throws InputException on a bad file
     */
    public static List<Row> read(Path file) {
        String name = file.toString();
        try (Reader r = TextFiles.open(file, name)) {
            return read(r, name);
        } catch (IOException e) {
            // a folder, a file that is not UTF-8, one that vanished: what TextFiles says of any input, and what was
            // expected here (a folder was an UncheckedIOException, 'this is a fault in allot')
            InputException why = TextFiles.readError(file, name, e);
            throw new InputException(name, why.line(), why.column(), null, why.problem() + "; expected a CSV written"
                    + " by allot simulate --workloads-out or allot replay --workloads-out");
        }
    }

    static List<Row> read(Reader reader, String file) throws IOException {
        List<Row> rows = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        try (CsvRows csv = CsvRows.open(reader, file, String.join(",", COLUMNS))) {
            int[] at = csv.positions(COLUMNS);
            while (csv.next()) {
                // A row with a cell more or fewer than the header is not one the commands wrote: refused, as the
                // trace readers refuse it (a cell too many was dropped silently, one too few read as an empty cell).
                csv.requireWidth();
                Cells c = new Cells(csv, at, file);
                String policy = c.text(0);
                String id = c.text(1);
                if (!seen.add(policy + "\n" + id)) {
                    throw new InputException(file, csv.line(), at[1] + 1, "id", "workload '" + id
                            + "' appears twice for policy '" + policy + "'; expected one row per workload and policy");
                }
                rows.add(new Row(policy, id, c.text(2), c.time(3, false), c.time(4, true), c.time(5, true),
                        c.time(6, true), c.count(7), c.state(8)));
            }
        }
        return rows;
    }

    /** The cells of one row, each read with the column's rule and located on error. */
    private record Cells(CsvRows csv, int[] at, String file) {
        String raw(int column) {
            return at[column] < csv.size() ? csv.cell(at[column]) : "";
        }

        InputException bad(int column, String expected) {
            return new InputException(file, csv.line(), at[column] + 1, COLUMNS.get(column), "expected " + expected
                    + ", got '" + raw(column) + "'");
        }

        String text(int column) {
            String s = raw(column);
            if (s.isEmpty()) {
                throw bad(column, "a value");
            }
            return s;
        }

        String state(int column) {
            String s = raw(column);
            if (!FINAL_STATES.contains(s)) {
                throw bad(column, "one of " + String.join(", ", FINAL_STATES));
            }
            return s;
        }

        double time(int column, boolean mayBeNever) {
            String expected = mayBeNever ? "seconds >= 0, or -1 when it did not happen" : "seconds >= 0";
            if (!DECIMAL.matcher(raw(column)).matches()) {
                throw bad(column, expected);
            }
            double v = Double.parseDouble(raw(column));
            if (v < 0 && !(mayBeNever && v == -1)) {
                throw bad(column, expected);
            }
            return v;
        }

        int count(int column) {
            try {
                int n = Integer.parseInt(raw(column));
                if (n >= 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw bad(column, "a whole number >= 0");
        }
    }
}
