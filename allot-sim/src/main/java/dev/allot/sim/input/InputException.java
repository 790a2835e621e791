package dev.allot.sim.input;

/**
 * Bad input, located: the file, the line and column (1-based; 0 when unknown), the field, what was wrong, and
 * a hint where one helps. The message reads like a compiler error:
 * {@code workloads.csv:12:5: field 'gpus': expected a whole number >= 1, got 'x'}.
 */
public final class InputException extends RuntimeException {
    private final String file;
    private final int line;
    private final int column;
    private final String field;
    private final String problem;

    public InputException(String file, int line, int column, String field, String problem) {
        super(format(file, line, column, field, problem));
        this.file = file;
        this.line = line;
        this.column = column;
        this.field = field;
        this.problem = problem;
    }

    private static String format(String file, int line, int column, String field, String problem) {
        StringBuilder sb = new StringBuilder(file);
        if (line > 0) {
            sb.append(':').append(line);
            if (column > 0) {
                sb.append(':').append(column);
            }
        }
        sb.append(": ");
        if (field != null && !field.isEmpty()) {
            sb.append("field '").append(field).append("': ");
        }
        sb.append(problem);
        return sb.toString();
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }

    public int column() {
        return column;
    }

    /** The offending field or key, or null when the problem is not about one field. */
    public String field() {
        return field;
    }

    /** The problem without the location. */
    public String problem() {
        return problem;
    }
}
