package dev.allot.cli;

import java.util.regex.Pattern;

/**
 * A name the client prints inside a command for the user to run ({@code 'allot budget remove lab/my team' removes
 * it}), written so that a POSIX shell reads it back as the one word it is. Allocation and campaign names may hold
 * blanks, quotes and {@code $} ({@link dev.allot.core.rules.Names} forbids only what breaks paths), so a name
 * made only of characters no shell treats specially is printed as it is, and any other in single quotes, a single
 * quote inside it written {@code '\''}.
 */
final class ShellWords {
    /** Characters that mean nothing special to a POSIX shell anywhere in a word. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");

    private ShellWords() {
    }

    /** {@code word} as one shell word. */
    static String quote(String word) {
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
