package dev.allot.core.rules;

import java.util.Optional;

/**
 * The one rule for the name of a user made from now on: ASCII letters, digits, {@code .}, {@code _}, {@code -} and
 * {@code @}, starting with a letter, a digit or {@code _}, at most {@link #MAX_NAME} characters. A user's workloads
 * run as the Unix account of its name unless the accounts file maps it to another, and a Unix account name is made
 * of these characters (POSIX's portable set); {@code @} is for names such as {@code ana@lab}, which a map sends to an
 * account. No blank, control character, {@code /} (the name is a URL segment) or {@code ,} (the client's lists of
 * users are comma-separated: {@code allot budget set --members alice,bob}).
 */
public final class UserNames {
    public static final int MAX_NAME = 100;
    public static final String EXPECTED = "a user name of ASCII letters, digits, '.', '_', '-' and '@', starting with"
            + " a letter, a digit or '_' (no blanks, ',' or '/'), of at most " + MAX_NAME + " characters";

    private UserNames() {
    }

    /** Whether {@code name} is a valid user name. */
    public static boolean valid(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME) {
            return false;
        }
        char first = name.charAt(0);
        if (first == '.' || first == '-' || first == '@') {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == '-' || c == '@';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Why {@code name} (in {@code field}) is not a valid user name, or empty when it is. */
    public static Optional<Violation> check(String field, String name) {
        if (valid(name)) {
            return Optional.empty();
        }
        return Optional.of(new Violation(field, EXPECTED, name == null ? "nothing"
                : name.isEmpty() ? "an empty name" : Violation.shown(name)));
    }
}
