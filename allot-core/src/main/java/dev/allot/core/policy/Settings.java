package dev.allot.core.policy;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Validated values for a list of {@link SettingSpec}s: every key is known, every value parsed, every missing
 * key takes its default. An unknown key is an error that lists the valid ones.
 */
public final class Settings {
    private final Map<String, SettingSpec> specs;
    private final Map<String, Object> values;
    private final SortedMap<String, String> text;

    private Settings(Map<String, SettingSpec> specs, Map<String, Object> values, SortedMap<String, String> text) {
        this.specs = specs;
        this.values = values;
        this.text = text;
    }

    /**
     * Parses {@code given} (key to text) against {@code specs}.
     *
     * @param where names the source for messages, e.g. {@code policy.yaml, section 'allocation'}
     */
    public static Settings parse(List<SettingSpec> specs, Map<String, String> given, String where) {
        Map<String, SettingSpec> byKey = new LinkedHashMap<>();
        for (SettingSpec s : specs) {
            byKey.put(s.key(), s);
        }
        for (String k : new TreeMap<>(given).keySet()) {
            if (!byKey.containsKey(k)) {
                throw new IllegalArgumentException(where + ": unknown setting '" + k + "'; valid settings: "
                        + (byKey.isEmpty() ? "(none)" : String.join(", ", new TreeMap<>(byKey).keySet())));
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        SortedMap<String, String> text = new TreeMap<>();
        for (SettingSpec s : specs) {
            String t = given.getOrDefault(s.key(), s.defaultValue());
            try {
                values.put(s.key(), s.parse(t));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            }
            text.put(s.key(), s.canonical(values.get(s.key())));
        }
        return new Settings(byKey, values, text);
    }

    public static Settings defaults(List<SettingSpec> specs) {
        return parse(specs, Map.of(), "defaults");
    }

    private Object get(String key, SettingSpec.Type type) {
        SettingSpec s = specs.get(key);
        if (s == null || s.type() != type) {
            throw new IllegalArgumentException("no " + type + " setting '" + key + "'; known: "
                    + specs.keySet().stream().collect(Collectors.joining(", ")));
        }
        return values.get(key);
    }

    public Duration duration(String key) {
        return (Duration) get(key, SettingSpec.Type.DURATION);
    }

    public boolean bool(String key) {
        return (Boolean) get(key, SettingSpec.Type.BOOLEAN);
    }

    public double number(String key) {
        return (Double) get(key, SettingSpec.Type.NUMBER);
    }

    public long integer(String key) {
        return (Long) get(key, SettingSpec.Type.INTEGER);
    }

    public String text(String key) {
        return (String) get(key, SettingSpec.Type.TEXT);
    }

    /**
     * The values as text, sorted by key, for reports: each in one canonical form ({@link SettingSpec#canonical}), the
     * same whether it was the default or given, and however it was given ('--set allocation.fairshare-recheck=300s'
     * was echoed '300s' beside the default's '5m', and 'ranking=ENTITLEMENT' as typed).
     */
    public SortedMap<String, String> asText() {
        return Collections.unmodifiableSortedMap(text);
    }
}
