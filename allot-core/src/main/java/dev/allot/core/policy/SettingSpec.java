package dev.allot.core.policy;

import dev.allot.core.model.Durations;
import java.time.Duration;
import java.util.Locale;

/**
 * One setting of a policy: its key (as written in {@code policy.yaml}), its type, its default and what it does.
 */
public record SettingSpec(String key, Type type, String defaultValue, String description, java.util.List<String> choices) {

    public SettingSpec {
        choices = java.util.List.copyOf(choices);
    }

    public SettingSpec(String key, Type type, String defaultValue, String description) {
        this(key, type, defaultValue, description, java.util.List.of());
    }

    /**
     * The value read from {@code text}, checked against {@link #choices} when there are any; a value that cannot be
     * read is an error naming the setting by {@link #key}.
     */
    public Object parse(String text) {
        Object v = type.parse(key, text);
        if (!choices.isEmpty() && !choices.contains(v.toString().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("setting '" + key + "': cannot read '" + text + "' as one of "
                    + String.join(", ", choices));
        }
        return choices.isEmpty() ? v : v.toString().toLowerCase(Locale.ROOT);
    }

    /** The kinds of values a setting takes; each parses text and says what it expected. */
    public enum Type {
        DURATION, NUMBER, INTEGER, BOOLEAN, TEXT;

        Object parse(String key, String text) {
            String t = text.trim();
            try {
                return switch (this) {
                    case DURATION -> Durations.parseAtMostMax(t);
                    case NUMBER -> {
                        double d = Double.parseDouble(t);
                        if (!Double.isFinite(d)) {
                            throw new IllegalArgumentException("not a finite number");
                        }
                        yield d;
                    }
                    case INTEGER -> Long.parseLong(t);
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
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("setting '" + key + "': cannot read '" + text + "' as " + expected()
                        + (e.getMessage() != null && this == DURATION ? " (" + e.getMessage() + ")" : ""));
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
        return new SettingSpec(otherKey, type, defaultValue, description, choices);
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
        return new SettingSpec(key, Type.TEXT, def, description, choices);
    }

    public static SettingSpec integer(String key, long def, String description) {
        return new SettingSpec(key, Type.INTEGER, Long.toString(def), description);
    }
}
