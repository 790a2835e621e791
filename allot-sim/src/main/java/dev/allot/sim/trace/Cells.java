package dev.allot.sim.trace;

import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.Violation;
import dev.allot.core.rules.WorkloadRules;
import dev.allot.sim.ScenarioTime;
import dev.allot.sim.input.CsvRows;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.TextFiles;
import dev.allot.sim.input.Values;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Reads the cells of a CSV trace row, with located errors in the wording of the scenario readers. */
final class Cells {
    /**
     * The CSV trace formats by their own names, with the columns each requires, to recognise a file given as another
     * format.
     */
    private static final java.util.Map<String, String[]> CSV_FORMATS = java.util.Map.of(
            new PhillyFormat().name(), PhillyFormat.COLUMNS, new AlibabaOpenbFormat().name(),
            AlibabaOpenbFormat.COLUMNS, new TiresiasFormat().name(), TiresiasFormat.COLUMNS);

    private final TraceRows rows;
    private final CsvRows csv;
    private final String[] names;
    private final int[] at;

    /** @param names the columns the format uses, found by name in the header (any order; others are ignored) */
    /** Reads one row into {@code rows}; throws an {@link InputException} for a row that is not valid. */
    interface RowReader {
        void row(Cells cells, TraceRows rows);
    }

    /**
     * Reads a CSV trace: each row through {@code reader}; a row it rejects is recorded in {@code rows} (which fails
     * the import or, under --lenient, counts and skips it) and the next row is read.
     *
     * @param header what the first line must name, for the error when it does not
     * @param names the columns the reader uses
     */
    static void readCsv(Path path, TraceRows rows, String header, String[] names, RowReader reader)
            throws IOException {
        try (Reader text = TextFiles.open(path, rows.file());
             CsvRows csv = CsvRows.open(text, rows.file(), header)) {
            Cells cells = new Cells(rows, csv, names);
            while (csv.next()) {
                try {
                    reader.row(cells, rows);
                } catch (InputException e) {
                    rows.reject(e);
                }
            }
        }
    }

    Cells(TraceRows rows, CsvRows csv, String[] names) {
        this.rows = rows;
        this.csv = csv;
        this.names = names;
        this.at = positions(rows.file(), csv, names);
    }

    /**
     * The positions of {@code names} in the header; a header that lacks some but holds every column of another CSV
     * trace format is refused naming that format. An Alibaba file given as {@code philly:} said only 'the header row
     * names none of the required columns ...; is the header row missing?'.
     */
    private static int[] positions(String file, CsvRows csv, String[] names) {
        List<String> missing = java.util.Arrays.stream(names).filter(n -> !csv.header().contains(n)).toList();
        if (!missing.isEmpty()) {
            for (java.util.Map.Entry<String, String[]> f : new java.util.TreeMap<>(CSV_FORMATS).entrySet()) {
                if (f.getValue() != names && csv.header().containsAll(List.of(f.getValue()))) {
                    throw new InputException(file, csv.headerLine(), 0, null, CsvRows.lacking(missing,
                            List.of(names)) + "; its header is that of the " + f.getKey() + " format: give it as"
                            + " --trace " + f.getKey() + ":FILE (or format: " + f.getKey() + " in trace.yaml)");
                }
            }
        }
        return csv.positions(List.of(names));
    }

    int line() {
        return csv.line();
    }

    /** The 1-based column of a field. */
    int column(int field) {
        return at[field] + 1;
    }

    String name(int field) {
        return names[field];
    }

    /** The text of a field; empty when the cell is empty. */
    String text(int field) {
        return csv.cell(at[field]);
    }

    /** Throws unless the row has as many cells as the header. */
    void requireWidth() {
        csv.requireWidth();
    }

    /** Non-empty text. */
    String required(int field, String expected) {
        String t = text(field);
        if (t.isEmpty()) {
            throw error(field, "expected " + expected + ", got nothing");
        }
        return t;
    }

    /**
     * Non-empty text without control characters ({@link PrintableText}), as written: an id or a name, which reports
     * print as it is.
     */
    String printable(int field, String expected) {
        String t = required(field, expected);
        Optional<Violation> bad = PrintableText.check(name(field), t);
        if (bad.isPresent()) {
            throw error(field, bad.get().problemAndHint());
        }
        return t;
    }

    /**
     * A whole number from {@code min} to {@code max}; one beyond {@code max} is said as such, with the limit
     * ('99999999999' GPUs read 'expected a whole number >= 1', which it is).
     */
    long whole(int field, long min, long max, String expected) {
        String t = required(field, expected);
        long v = Values.parseWholeNumberOrMax(t);
        if (v > max && !expected.contains(Long.toString(max))) {
            throw error(field, "expected " + expected + ", " + Values.atMost(max) + ", got '" + t + "'");
        }
        if (v < min || v > max) {
            throw error(field, "expected " + expected + ", got '" + t + "'");
        }
        return v;
    }

    /** A whole number of GPUs, at least {@code min}, at most {@link WorkloadRules#MAX_GPUS}. */
    int gpus(int field, int min) {
        return (int) whole(field, min, WorkloadRules.MAX_GPUS, "a whole number >= " + min);
    }

    /** A whole number of seconds, at least {@code min}, small enough for a trace's duration (an int). */
    long seconds(int field, long min) {
        return whole(field, min, ScenarioTime.MAX_SECONDS, "a whole number of seconds >= " + min);
    }

    InputException error(int field, String problem) {
        return rows.error(csv.line(), column(field), names[field], problem);
    }
}
