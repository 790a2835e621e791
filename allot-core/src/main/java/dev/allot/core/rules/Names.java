package dev.allot.core.rules;

import java.util.Optional;

/**
 * The one rule for the names of allocations and nodes, wherever they come from (the API's URL paths, the CLI, the
 * simulator's {@code allocations.yaml} and {@code cluster.yaml}). A name is one path segment: not empty, not
 * {@code .} or {@code ..}, without {@code /}, control characters or blanks around it, at most {@link #MAX_NAME}
 * characters. Names end up in URL paths, file names and audit records, where {@code ..} or a {@code /} would mean
 * something else than the name; an allocation path is such names joined by {@code /}.
 */
public final class Names {
    public static final int MAX_NAME = 256;
    public static final String NAME_EXPECTED = "a name that is not empty, not '.' or '..', without '/', control"
            + " characters or blanks around it, of at most " + MAX_NAME + " characters";
    public static final String PATH_EXPECTED = "names joined by '/', e.g. lab/nlp/pretrain, each not empty, not '.'"
            + " or '..', without control characters or blanks around it; at most " + MAX_NAME + " characters in all";

    private Names() {
    }

    /** Whether {@code name} is a valid single name. */
    public static boolean valid(String name) {
        return name != null && !name.isEmpty() && name.length() <= MAX_NAME && !name.equals(".") && !name.equals("..")
                && name.indexOf('/') < 0 && PrintableText.valid(name) && name.strip().equals(name);
    }

    /** Why {@code name} (in {@code field}) is not a valid allocation or node name, or empty when it is. */
    public static Optional<Violation> check(String field, String name) {
        if (valid(name)) {
            return Optional.empty();
        }
        return Optional.of(new Violation(field, NAME_EXPECTED, got(name)));
    }

    /** Why {@code path} (in {@code field}) is not names joined by '/', or empty when it is. */
    public static Optional<Violation> checkPath(String field, String path) {
        if (path != null && !path.isEmpty() && path.length() <= MAX_NAME) {
            boolean ok = true;
            for (String segment : path.split("/", -1)) {
                ok &= valid(segment);
            }
            if (ok) {
                return Optional.empty();
            }
        }
        return Optional.of(new Violation(field, PATH_EXPECTED, got(path)));
    }

    private static String got(String name) {
        if (name == null) {
            return "nothing";
        }
        return name.isEmpty() ? "an empty name" : Violation.shown(name);
    }
}
