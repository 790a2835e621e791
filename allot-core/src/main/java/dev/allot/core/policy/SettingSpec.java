package dev.allot.core.policy;

import dev.allot.core.model.Durations;
import dev.allot.core.rules.TypedNumbers;
import dev.allot.core.rules.Violation;
import java.time.Duration;
import java.util.Locale;

/**
 * One setting of a policy: its key (as written in {@code policy.yaml}), its type, its default and what it does.
 *
 * @param range the values a number may take, as words to follow "a number" (e.g. {@code >= 0}, {@code from 1 to
 *              1000}), said when a text is beyond any number ({@code 1e400}); null when not told. The check itself is
 *              the policy's, which says the same words for a number out of the range.
 */
public record SettingSpec(String key, Type type, String defaultValue, String description, java.util.List<String> choices,
                          String range) {

    public SettingSpec {
        choices = java.util.List.copyOf(choices);
    }

    public SettingSpec(String key, Type type, String defaultValue, String description) {
        this(key, type, defaultValue, description, java.util.List.of(), null);
    }

    /** This setting, saying {@code range} (words to follow "a number") when a text is beyond any number. */
    public SettingSpec withRange(String range) {
        return new SettingSpec(key, type, defaultValue, description, choices, range);
    }

    /**
     * The value read from {@code text}, checked against {@link #choices} when there are any; a value that cannot be
     * read is an error naming the setting by {@link #key}.
     */
    public Object parse(String text) {
        Object v = type.parse(key, text, range);
        if (!choices.isEmpty() && !choices.contains(v.toString().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("setting '" + key + "': cannot read '" + text + "' as one of "
                    + String.join(", ", choices));
        }
        return choices.isEmpty() ? v : v.toString().toLowerCase(Locale.ROOT);
    }

    /**
     * A value {@link #parse} returned, as text in one form whatever was written: durations as {@code 5m} or
     * {@code 1h30m}, numbers as Java writes a double ({@code 0.1}, {@code 1.0}), booleans {@code true}/{@code false},
     * choices in lower case; the form the defaults are written in.
     */
    public String canonical(Object value) {
        return switch (type) {
            case DURATION -> Durations.format((Duration) value);
            case NUMBER -> Double.toString((Double) value);
            case INTEGER, BOOLEAN, TEXT -> value.toString();
        };
    }

    /** The kinds of values a setting takes; each parses text and says what it expected. */
    public enum Type {
        DURATION, NUMBER, INTEGER, BOOLEAN, TEXT;

        Object parse(String key, String text, String range) {
            String t = text.trim();
            try {
                return switch (this) {
                    case DURATION -> Durations.parseAtMostMax(t);
                    case NUMBER -> {
                        double d = Double.parseDouble(t);
                        if (!Double.isFinite(d)) {
                            throw beyond(key, "a finite number", range, t);
                        }
                        yield d;
                    }
                    case INTEGER -> {
                        try {
                            yield Long.parseLong(t);
                        } catch (NumberFormatException e) {
                            if (beyondLong(t)) {
                                throw beyond(key, "a whole number", range, t);
                            }
                            throw e;
                        }
                    }
                    case BOOLEAN -> switch (t.toLowerCase(Locale.ROOT)) {
                        case "true", "yes", "on" -> Boolean.TRUE;
                        case "false", "no", "off" -> Boolean.FALSE;
                        default -> throw new IllegalArgumentException("not a boolean");
                    };
                    case TEXT -> {
                        if (t.isEmpty()) {
                            throw new IllegalArgumentException("empty text");
                        }
                        yield t;
                    }
                };
            } catch (Beyond e) {
                throw new IllegalArgumentException(e.getMessage());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("setting '" + key + "': cannot read '" + text + "' as " + expected()
                        + (e.getMessage() != null && this == DURATION ? " (" + e.getMessage() + ")" : ""));
            }
        }

        /**
         * A number written beyond what the type holds: '1e400' was "cannot read '1e400' as a number", which it is,
         * without why or what would do. Says what was expected, with the setting's range when it has one, and the
         * text as written with why it is out of reach.
         */
        private static Beyond beyond(String key, String what, String range, String text) {
            String expected = what + (range != null ? " " + range
                    : what.equals("a whole number") ? " of at most " + LARGEST_WHOLE : "");
            String why = TypedNumbers.whyNotFinite(Double.parseDouble(text));
            return new Beyond("setting '" + key + "': expected " + expected + ", got " + Violation.escaped(text)
                    + (why.isEmpty() ? " (beyond the largest whole number, " + LARGEST_WHOLE + ")" : why));
        }

        /** Whether {@code text} is a number (with or without exponent) too large in size for a {@code long}. */
        private static boolean beyondLong(String text) {
            try {
                double d = Double.parseDouble(text);
                if (!Double.isFinite(d)) {
                    return true;
                }
                java.math.BigDecimal b = new java.math.BigDecimal(text);
                return b.signum() != 0 && b.stripTrailingZeros().scale() <= 0
                        && b.abs().compareTo(java.math.BigDecimal.valueOf(Long.MAX_VALUE)) > 0;
            } catch (NumberFormatException e) {
                return false;
            }
        }

        String expected() {
            return switch (this) {
                case DURATION -> "a duration such as 30s, 5m, 8h or 7d";
                case NUMBER -> "a number";
                case INTEGER -> "a whole number";
                case BOOLEAN -> "true or false";
                case TEXT -> "non-empty text";
            };
        }
    }

    /** This setting known under another key, e.g. {@code allocation.reclaim-margin}, so errors name it so. */
    public SettingSpec withKey(String otherKey) {
        return new SettingSpec(otherKey, type, defaultValue, description, choices, range);
    }

    /** The largest whole number a setting holds, as messages write it. */
    private static final String LARGEST_WHOLE = String.format(Locale.ROOT, "%,d", Long.MAX_VALUE);

    /** A number beyond its type, with its whole message (not wrapped in "cannot read"). */
    private static final class Beyond extends IllegalArgumentException {
        Beyond(String message) {
            super(message);
        }
    }

    public static SettingSpec duration(String key, Duration def, String description) {
        return new SettingSpec(key, Type.DURATION, Durations.format(def), description);
    }

    public static SettingSpec bool(String key, boolean def, String description) {
        return new SettingSpec(key, Type.BOOLEAN, Boolean.toString(def), description);
    }

    public static SettingSpec number(String key, double def, String description) {
        return new SettingSpec(key, Type.NUMBER, Double.toString(def), description);
    }

    /** Free text; the user of the setting checks its value (e.g. one of a few choices). */
    public static SettingSpec text(String key, String def, String description) {
        return new SettingSpec(key, Type.TEXT, def, description);
    }

    /** One of a few words (compared without case). */
    public static SettingSpec choice(String key, String def, java.util.List<String> choices, String description) {
        return new SettingSpec(key, Type.TEXT, def, description, choices, null);
    }

    public static SettingSpec integer(String key, long def, String description) {
        return new SettingSpec(key, Type.INTEGER, Long.toString(def), description);
    }
}
