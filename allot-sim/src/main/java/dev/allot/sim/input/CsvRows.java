package dev.allot.sim.input;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Streams the rows of a CSV file that starts with a header row, one row at a time, with the 1-based line each
 * row starts on. Cells are trimmed; empty lines and lines starting with {@code #} are skipped; a byte-order mark
 * before the header is dropped. Columns are numbered from 1 in messages, as in every reader of this package.
 *
 * <p>Shared by {@code workloads.csv} and the trace importers ({@code dev.allot.sim.trace}). A syntax error (an
 * unclosed quote, ...) is an {@link InputException} from {@link #next()}: the rest of the file cannot be trusted,
 * so it is never skipped, even by lenient readers.
 */
public final class CsvRows implements Closeable {
    private static final CsvFactory FACTORY = CsvFactory.builder()
            .enable(CsvParser.Feature.WRAP_AS_ARRAY)
            .enable(CsvParser.Feature.SKIP_EMPTY_LINES)
            .enable(CsvParser.Feature.TRIM_SPACES)
            .enable(CsvParser.Feature.ALLOW_COMMENTS)
            .build();

    /** How the parser begins its message for a quoted value that the file ends inside. */
    private static final String UNCLOSED_QUOTE = "Missing closing quote";

    private final CsvParser parser;
    private final String file;
    private final List<String> header;
    private final int headerLine;
    private String[] cells = new String[16];
    private int count;
    private int line;

    private CsvRows(CsvParser parser, String file, List<String> header, int headerLine) {
        this.parser = parser;
        this.file = file;
        this.header = header;
        this.headerLine = headerLine;
    }

    /**
     * Opens {@code reader} and reads the header row.
     *
     * @param file           the name used in messages
     * @param exampleHeader  shown when the file is empty, e.g. {@code id,submit,allocation,...}
     */
    public static CsvRows open(Reader reader, String file, String exampleHeader) throws IOException {
        CsvParser p = FACTORY.createParser(withoutByteOrderMark(reader));
        try {
            List<String> header = new ArrayList<>();
            int headerLine = 0;
            int valueLine = 0;
            try {
                if (p.nextToken() != JsonToken.START_ARRAY) {
                    throw empty(file, exampleHeader);
                }
                // the first row with a cell that is not blank (a line of blanks was a header of one empty column)
                while (header.isEmpty() || header.size() == 1 && header.get(0).isBlank()) {
                    if (p.nextToken() != JsonToken.START_ARRAY) {
                        throw empty(file, exampleHeader);
                    }
                    header.clear();
                    headerLine = p.currentLocation().getLineNr();
                    valueLine = headerLine;
                    for (JsonToken t = p.nextToken(); t == JsonToken.VALUE_STRING; t = p.nextToken()) {
                        String text = p.getText();
                        valueLine = nextValueLine(p, text, valueLine);
                        header.add(text);
                    }
                }
            } catch (JsonProcessingException e) {
                throw malformed(file, e, valueLine);
            }
            return new CsvRows(p, file, Collections.unmodifiableList(header), headerLine);
        } catch (RuntimeException | IOException e) {
            p.close();
            throw e;
        }
    }

    /**
     * The text after a byte-order mark, if it starts with one: dropped before parsing, as a comment line after it
     * was read as the header ('# a comment' was an unknown column in a file saved with a BOM).
     */
    private static Reader withoutByteOrderMark(Reader reader) throws IOException {
        java.io.PushbackReader in = new java.io.PushbackReader(reader, 1);
        int first = in.read();
        if (first >= 0 && first != '\uFEFF') {
            in.unread(first);
        }
        return in;
    }

    private static InputException empty(String file, String exampleHeader) {
        return new InputException(file, 0, 0, null, "the file is empty; expected a header row such as " + exampleHeader);
    }

    public List<String> header() {
        return header;
    }

    public int headerLine() {
        return headerLine;
    }

    /**
     * The 0-based position of each named column in the header; columns the header lacks are an error at the
     * header line that names them. Other columns of the header are allowed.
     */
    public int[] positions(List<String> required) {
        int[] at = new int[required.size()];
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < required.size(); i++) {
            at[i] = header.indexOf(required.get(i));
            if (at[i] < 0) {
                missing.add(required.get(i));
            }
        }
        if (!missing.isEmpty()) {
            throw new InputException(file, headerLine, 0, null, lacking(missing, required) + headerHint(required));
        }
        return at;
    }

    /**
     * What a header lacks: the missing columns and then all the required ones, or, when it names none of them, the
     * required ones once ("lacks required columns a, b; required columns: a, b" said the same list twice).
     */
    public static String lacking(List<String> missing, List<String> required) {
        if (missing.size() == required.size()) {
            return "the header row names none of the required columns " + String.join(", ", required);
        }
        return "the header row lacks required column" + (missing.size() > 1 ? "s " : " ") + String.join(", ", missing)
                + "; required columns: " + String.join(", ", required);
    }

    /**
     * Why a header that names none or not all of the {@code known} columns may be wrong, or empty: a file separated
     * by semicolons or tabs (the whole header was one unknown column), names in capitals, or no header at all (a row
     * of data taken for the header). Appended to the message of the unknown or missing column.
     */
    public String headerHint(List<String> known) {
        if (header.size() == 1) {
            String only = header.get(0);
            for (String separator : List.of(";", "\t", "|")) {
                if (only.contains(separator)) {
                    return "; the file is separated by " + (separator.equals("\t") ? "tabs" : "'" + separator + "'")
                            + ": " + file + " is comma-separated (CSV)";
                }
            }
        }
        boolean anyKnown = false;
        for (String name : header) {
            if (known.contains(name)) {
                anyKnown = true;
            } else if (known.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                return "; column names are lower case, e.g. '" + name.toLowerCase(java.util.Locale.ROOT) + "'";
            }
        }
        if (!anyKnown) {
            return "; is the header row missing? The first line that is not a # comment names the columns";
        }
        return "";
    }

    /** Moves to the next row that has at least one non-empty cell; false at the end of the file. */
    public boolean next() throws IOException {
        int valueLine = line;
        try {
            while (parser.nextToken() == JsonToken.START_ARRAY) {
                count = 0;
                line = parser.currentLocation().getLineNr();
                valueLine = line;
                for (JsonToken t = parser.nextToken(); t == JsonToken.VALUE_STRING; t = parser.nextToken()) {
                    if (count == cells.length) {
                        cells = Arrays.copyOf(cells, count * 2);
                    }
                    String text = parser.getText();
                    valueLine = nextValueLine(parser, text, valueLine);
                    cells[count++] = text;
                }
                if (count == 0 || (count == 1 && cells[0].isEmpty())) {
                    continue;
                }
                return true;
            }
            return false;
        } catch (JsonProcessingException e) {
            throw malformed(file, e, valueLine);
        }
    }

    /** The line the current row starts on. */
    public int line() {
        return line;
    }

    /** How many cells the current row has. */
    public int size() {
        return count;
    }

    /** The trimmed text of a cell of the current row, by 0-based position; empty when the row is shorter. */
    public String cell(int position) {
        return position < count ? cells[position] : "";
    }

    /** Throws unless the current row has exactly as many cells as the header. */
    public void requireWidth() {
        if (count != header.size()) {
            throw new InputException(file, line, Math.min(count, header.size()) + 1, null, "expected "
                    + header.size() + " cells as in the header row, got " + count);
        }
    }

    @Override
    public void close() throws IOException {
        parser.close();
    }

    /**
     * The line the value after {@code text} starts on, given the line {@code text} started on: the same line unless
     * {@code text} was a quoted value spanning lines (the parser is asked only then: a location is an allocation).
     */
    private static int nextValueLine(CsvParser p, String text, int textLine) {
        return text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0 ? p.currentLocation().getLineNr() : textLine;
    }

    /**
     * The error for a syntax error of the parser. A quote that is never closed is found only at the end of the file,
     * where the parser says it; it is reported at {@code valueLine}, the line the unterminated value begins on (the
     * value after the last one read, of the record being read).
     */
    private static InputException malformed(String file, JsonProcessingException e, int valueLine) {
        String m = e.getOriginalMessage();
        if (m != null && m.startsWith(UNCLOSED_QUOTE) && valueLine > 0) {
            return new InputException(file, valueLine, 0, null, "malformed CSV: a quoted value opened here is never"
                    + " closed (hint: add the closing \"; a value that starts with \" runs to the next \", across"
                    + " commas and lines, and a \" inside it is written \"\")");
        }
        JsonLocation l = e.getLocation();
        return new InputException(file, l == null ? 0 : Math.max(0, l.getLineNr()), 0, null,
                "malformed CSV: " + (m == null ? "unknown problem" : m.replace('\n', ' ').strip()));
    }
}
