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

    /**
     * {@code word} as one shell word. One with a control character (an escape sequence, a carriage return, a line
     * break) is written in ANSI-C quotes, {@code $'a\x1b[2Jb\n'}, which bash, zsh, ksh and POSIX.1-2024 shells read
     * back: printed as it was, a command's escape sequences reached the terminal of whoever ran 'allot show'.
     */
    static String quote(String word) {
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        if (word.chars().anyMatch(Character::isISOControl)) {
            return ansiC(word);
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    private static String ansiC(String word) {
        StringBuilder sb = new StringBuilder("$'");
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\'' -> sb.append("\\'");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x80 && Character.isISOControl(c)) {
                        sb.append(String.format(java.util.Locale.ROOT, "\\x%02x", (int) c));
                    } else if (Character.isISOControl(c)) {
                        sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('\'').toString();
    }
}
