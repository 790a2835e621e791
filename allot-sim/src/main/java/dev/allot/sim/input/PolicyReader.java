package dev.allot.sim.input;

import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.input.YamlTree.Entry;
import dev.allot.sim.input.YamlTree.MapNode;
import dev.allot.sim.input.YamlTree.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads {@code policy.yaml}: the shared durations {@code lookback}, {@code max-min-runtime} and
 * {@code usage-bucket}, and one section of settings per policy the registry knows. An empty file means the
 * defaults. When {@code usage-bucket} is not given and its default is longer than the given lookback, the bucket
 * shrinks to the lookback, as {@link SchedulerConfig#withLookback} does.
 */
final class PolicyReader {
    static final String FILE = "policy.yaml";
    static final List<String> SHARED_KEYS = List.of("lookback", "max-min-runtime", "usage-bucket");

    private PolicyReader() {
    }

    static PolicyConfig read(String text, PolicyRegistry registry) {
        return read(FILE, text, registry);
    }

    /** Reads policy text whose messages name it {@code name} (a file given by path, or a request's body). */
    static PolicyConfig read(String name, String text, PolicyRegistry registry) {
        YamlTree y = YamlTree.parse(name, text);
        if (y.root == null) {
            return PolicyConfig.defaults();
        }
        List<String> valid = new ArrayList<>(SHARED_KEYS);
        valid.addAll(registry.names());
        MapNode root = y.map(y.root, null, valid);

        Duration lookback = duration(y, root, "lookback", SchedulerConfig.DEFAULT_LOOKBACK);
        Duration maxMin = duration(y, root, "max-min-runtime", SchedulerConfig.DEFAULT_MAX_MIN_RUNTIME);
        Duration bucket = duration(y, root, "usage-bucket", null);
        if (bucket == null) {
            bucket = SchedulerConfig.DEFAULT_USAGE_BUCKET.compareTo(lookback) > 0
                    ? lookback : SchedulerConfig.DEFAULT_USAGE_BUCKET;
        }
        SchedulerConfig scheduler;
        try {
            scheduler = new SchedulerConfig(lookback, maxMin, bucket);
        } catch (IllegalArgumentException e) {
            throw sharedError(y, root, e.getMessage());
        }

        SortedMap<String, SortedMap<String, String>> perPolicy = new TreeMap<>();
        List<Entry> sections = new ArrayList<>();
        for (Entry e : root.entries().values()) {
            if (SHARED_KEYS.contains(e.key())) {
                continue;
            }
            sections.add(e);
            SortedMap<String, String> settings = new TreeMap<>();
            if (!(e.value() instanceof YamlTree.Scalar s && s.isNull())) {
                MapNode m = y.freeMap(e.value(), e.key(), "a mapping of setting names to values");
                for (Entry setting : m.entries().values()) {
                    settings.put(setting.key(), y.text(setting.value(), setting.key(), "a value for the setting"));
                }
            }
            if (!settings.isEmpty()) {
                perPolicy.put(e.key(), settings); // an empty section says nothing: keep the config canonical
            }
        }
        PolicyConfig config = new PolicyConfig(scheduler, perPolicy);
        for (Entry section : sections) {
            PolicyFactory factory = registry.get(section.key());
            Settings settings;
            try {
                settings = config.settingsFor(factory);
            } catch (IllegalArgumentException e) {
                throw sectionError(name, y, section, factory, e.getMessage());
            }
            try {
                factory.checkValues(settings);
            } catch (IllegalArgumentException e) {
                throw rangeError(y, section, e.getMessage());
            }
        }
        return config;
    }

    /**
     * Locates a policy's complaint about a value that reads but is out of range ("reclaim-margin must be a number
     * >= 0, got -1.0") at the setting it starts with, as a problem of that setting; else at the section.
     */
    private static InputException rangeError(YamlTree y, Entry section, String message) {
        if (section.value() instanceof MapNode m) {
            for (Entry s : m.entries().values()) {
                String complaint = PolicyFactory.complaintAbout(s.key(), message);
                if (complaint != null) {
                    return y.error(s.value(), section.key(), "setting '" + s.key() + "': " + complaint);
                }
            }
        }
        return y.error(section, message);
    }

    private static Duration duration(YamlTree y, MapNode root, String key, Duration def) {
        Node n = y.optionalValue(root, key);
        if (n == null) {
            return def;
        }
        try {
            return Values.parseDuration(y.text(n, key, Values.DURATION_EXPECTED));
        } catch (IllegalArgumentException e) {
            throw y.error(n, key, e.getMessage());
        }
    }

    /** Locates a {@link SchedulerConfig} complaint at the key it names, else at the first shared key given. */
    private static InputException sharedError(YamlTree y, MapNode root, String message) {
        for (String key : SHARED_KEYS) {
            Entry e = root.get(key);
            if (e != null && message.startsWith(key)) {
                return y.error(e.value(), key, message);
            }
        }
        for (String key : SHARED_KEYS) {
            Entry e = root.get(key);
            if (e != null) {
                return y.error(e.value(), key, message);
            }
        }
        return y.error(root, null, message);
    }

    /**
     * Locates a {@link Settings} complaint about a section: at the first setting that fails on its own (its key
     * when the key is unknown, else its value), or at the section's key.
     */
    private static InputException sectionError(String name, YamlTree y, Entry section, PolicyFactory factory,
                                               String message) {
        String where = FILE + ", section '" + factory.name() + "': ";
        String problem = message.startsWith(where) ? message.substring(where.length()) : message;
        if (section.value() instanceof MapNode m) {
            for (Entry s : m.entries().values()) {
                String text = s.value() instanceof YamlTree.Scalar sc ? sc.text() : "";
                try {
                    Settings.parse(factory.settings(), Map.of(s.key(), text), where);
                } catch (IllegalArgumentException e) {
                    boolean known = factory.settings().stream().map(SettingSpec::key).anyMatch(s.key()::equals);
                    return known
                            ? y.error(s.value(), section.key(), problem)
                            : new InputException(name, s.line(), s.column(), section.key(), problem);
                }
            }
        }
        return y.error(section, problem);
    }
}
