package dev.allot.sim.input;

import static dev.allot.sim.input.WorkloadsReader.COLUMNS;
import static dev.allot.sim.input.WorkloadsReader.FIELDS;
import static dev.allot.sim.input.WorkloadsReader.REQUIRED;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The two file formats of a scenario's workloads, read into rows of field values for {@link WorkloadsReader} to
 * check: {@code workloads.csv} (a header row naming the columns, in any order) and {@code workloads.jsonl} (one JSON
 * object per line with the same field names). What is wrong with the file's form (an unknown or missing column, a
 * line that is not one object) is said here with its line and column; what is wrong with a value is the reader's.
 */
final class WorkloadFormats {
    private static final JsonFactory JSON_FACTORY = new JsonFactory();

    /** Where the rows go: a row's values by field (null when absent or empty) and each field's column, or why not. */
    interface Rows {
        void accept(int line, String[] values, IntUnaryOperator column);

        void reject(InputException e);
    }

    private WorkloadFormats() {
    }

    // ---- CSV --------------------------------------------------------------------------------------------------

    static void readCsv(Reader reader, String file, Rows sink) throws IOException {
        try (CsvRows rows = CsvRows.open(reader, file, String.join(",", COLUMNS))) {
            List<String> header = new ArrayList<>(rows.header());
            int[] fieldAt = header(file, header, rows.headerLine(), () -> rows.headerHint(COLUMNS));
            int width = header.size();
            int[] column = new int[FIELDS];
            for (int pos = 0; pos < width; pos++) {
                column[fieldAt[pos]] = pos + 1;
            }
            IntUnaryOperator columnOf = f -> column[f];
            String[] values = new String[FIELDS];
            while (rows.next()) {
                try {
                    rows.requireWidth();
                } catch (InputException e) {
                    sink.reject(e);
                    continue;
                }
                Arrays.fill(values, null);
                for (int pos = 0; pos < width; pos++) {
                    String c = rows.cell(pos);
                    values[fieldAt[pos]] = c.isEmpty() ? null : c;
                }
                sink.accept(rows.line(), values, columnOf);
            }
        }
    }

    /** Maps each header position to its field; unknown, repeated or missing required columns are errors. */
    private static int[] header(String file, List<String> header, int line, java.util.function.Supplier<String> hint) {
        int[] fieldAt = new int[header.size()];
        int[] seenAt = new int[FIELDS];
        for (int pos = 0; pos < header.size(); pos++) {
            String name = header.get(pos);
            int f = COLUMNS.indexOf(name);
            if (f < 0) {
                throw new InputException(file, line, pos + 1, name.isEmpty() ? null : name, (name.isEmpty()
                        ? "an empty column name (a comma at the end of the header?)" : "unknown column")
                        + "; valid columns: " + String.join(", ", COLUMNS) + hint.get());
            }
            if (seenAt[f] != 0) {
                throw new InputException(file, line, pos + 1, name, "column appears twice in the header; first at column "
                        + seenAt[f]);
            }
            seenAt[f] = pos + 1;
            fieldAt[pos] = f;
        }
        List<String> missing = new ArrayList<>();
        for (String r : REQUIRED) {
            if (seenAt[COLUMNS.indexOf(r)] == 0) {
                missing.add(r);
            }
        }
        if (!missing.isEmpty()) {
            throw new InputException(file, line, 0, null, CsvRows.lacking(missing, REQUIRED) + hint.get());
        }
        return fieldAt;
    }

    // ---- JSONL ------------------------------------------------------------------------------------------------

    static void readJsonl(BufferedReader reader, String file, Rows sink) throws IOException {
        int lineNo = 0;
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            lineNo++;
            if (lineNo == 1 && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] values = new String[FIELDS];
            try {
                jsonObject(file, lineNo, line, values);
            } catch (InputException e) {
                sink.reject(e);
                continue;
            }
            String text = line;
            sink.accept(lineNo, values, f -> jsonColumn(text, COLUMNS.get(f)));
        }
    }

    /**
     * Reads one line's object into {@code values}. Locations are only asked of the parser when something is wrong:
     * asking for every token would allocate a location object each time.
     */
    private static void jsonObject(String file, int lineNo, String line, String[] values) throws IOException {
        try (JsonParser p = JSON_FACTORY.createParser(line)) {
            JsonToken t = p.nextToken();
            if (t != JsonToken.START_OBJECT) {
                throw new InputException(file, lineNo, p.currentTokenLocation().getColumnNr(), null,
                        "expected a JSON object with fields " + String.join(", ", COLUMNS) + ", got " + describe(p, t));
            }
            int seen = 0;
            for (t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                int f = COLUMNS.indexOf(name);
                if (f < 0) {
                    throw new InputException(file, lineNo, p.currentTokenLocation().getColumnNr(), name,
                            "unknown field; valid fields: " + String.join(", ", COLUMNS));
                }
                if ((seen & (1 << f)) != 0) {
                    throw new InputException(file, lineNo, p.currentTokenLocation().getColumnNr(), name,
                            "field appears twice in the object");
                }
                seen |= 1 << f;
                JsonToken v = p.nextToken();
                switch (v) {
                    case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE -> {
                        String text = p.getText().strip();
                        values[f] = text.isEmpty() ? null : text;
                    }
                    case VALUE_NULL -> values[f] = null;
                    default -> throw new InputException(file, lineNo, p.currentTokenLocation().getColumnNr(), name,
                            "expected a string, number or boolean, got " + describe(p, v));
                }
            }
            if (p.nextToken() != null) {
                throw new InputException(file, lineNo, p.currentTokenLocation().getColumnNr(), null,
                        "expected one JSON object per line, found more after it");
            }
        } catch (JsonProcessingException e) {
            JsonLocation l = e.getLocation();
            throw new InputException(file, lineNo, l == null ? 0 : Math.max(0, l.getColumnNr()), null,
                    "malformed JSON: " + oneLine(ParserMessages.jsonSyntax(e.getOriginalMessage(), "the line"))
                            // each line is parsed alone, so the parser's 'line 1' is this line
                            .replaceAll("opened at line \\d+, column (\\d+)", "opened at column $1")
                            + " (hint: each line is one whole JSON object, {\"id\": \"w1\", ...}, on one line,"
                            + " with text in double quotes)");
        }
    }

    /** Where the value of {@code field} starts in a line already read once without trouble; 0 when absent. */
    private static int jsonColumn(String line, String field) {
        try (JsonParser p = JSON_FACTORY.createParser(line)) {
            p.nextToken();
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                boolean match = field.equals(p.currentName());
                p.nextToken();
                if (match) {
                    return p.currentTokenLocation().getColumnNr();
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return 0;
    }

    private static String describe(JsonParser p, JsonToken t) throws IOException {
        if (t == null) {
            return "nothing";
        }
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_NULL -> "null";
            default -> "'" + p.getText() + "'";
        };
    }

    private static String oneLine(String s) {
        return s == null ? "unknown problem" : s.replace('\n', ' ').strip();
    }
}
