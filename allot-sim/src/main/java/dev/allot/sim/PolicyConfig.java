package dev.allot.sim;

import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The contents of {@code policy.yaml}: the settings shared by every policy ({@code lookback},
 * {@code max-min-runtime}, {@code usage-bucket}) and, per policy name, that policy's own settings as text.
 * Validation of the per-policy settings happens against each policy's {@link PolicyFactory#settings()}.
 */
public record PolicyConfig(SchedulerConfig scheduler, SortedMap<String, SortedMap<String, String>> perPolicy) {
    public PolicyConfig {
        SortedMap<String, SortedMap<String, String>> copy = new TreeMap<>();
        perPolicy.forEach((k, v) -> copy.put(k, new TreeMap<>(v)));
        perPolicy = copy;
    }

    public static PolicyConfig defaults() {
        return new PolicyConfig(SchedulerConfig.defaults(), new TreeMap<>());
    }

    /** The validated settings of one policy (defaults for anything not given). */
    public Settings settingsFor(PolicyFactory factory) {
        Map<String, String> given = perPolicy.getOrDefault(factory.name(), new TreeMap<>());
        return Settings.parse(factory.settings(), given, "policy.yaml, section '" + factory.name() + "'");
    }

    public Policy create(PolicyRegistry registry, String name) {
        PolicyFactory f = registry.get(name);
        return f.create(settingsFor(f));
    }

    /**
     * A copy with one setting given on its own ({@code --set KEY=VALUE} of simulate and sweep): the policy must exist
     * and the value must read and be in its range, checked alone (with the other settings at their defaults) so
     * that a message names the {@code --set} and not the scenario's {@code policy.yaml}, which it did not come from.
     */
    public PolicyConfig override(PolicyRegistry registry, String key, String value) {
        int dot = key.indexOf('.');
        if (dot > 0) {
            PolicyFactory factory = registry.get(key.substring(0, dot));
            Settings one = Settings.parse(factory.settings(), Map.of(key.substring(dot + 1), value), "--set " + key);
            try {
                factory.checkValues(one);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--set " + key + "=" + value + ": " + e.getMessage(), e);
            }
        }
        return with(key, value);
    }

    /** A copy with one setting changed: {@code key} is a shared key or {@code policy.key}. */
    public PolicyConfig with(String key, String value) {
        SortedMap<String, SortedMap<String, String>> copy = new TreeMap<>(perPolicy);
        int dot = key.indexOf('.');
        if (dot < 0) {
            if (!key.equals("lookback") && !key.equals("max-min-runtime") && !key.equals("usage-bucket")) {
                throw new IllegalArgumentException("unknown shared setting '" + key
                        + "'; valid: lookback, max-min-runtime, usage-bucket, or <policy>.<setting>");
            }
            SchedulerConfig s;
            try {
                java.time.Duration d = dev.allot.core.model.Durations.parse(value);
                s = switch (key) {
                    case "lookback" -> scheduler.withLookback(d);
                    case "max-min-runtime" -> scheduler.withMaxMinRuntime(d);
                    default -> new SchedulerConfig(scheduler.lookback(), scheduler.maxMinRuntime(), d);
                };
            } catch (IllegalArgumentException e) {
                // The message names the setting: --set lookback=soon must say which value did not read.
                throw new IllegalArgumentException("setting '" + key + "': " + e.getMessage(), e);
            }
            return new PolicyConfig(s, copy);
        }
        SortedMap<String, String> section = new TreeMap<>(copy.getOrDefault(key.substring(0, dot), new TreeMap<>()));
        section.put(key.substring(dot + 1), value);
        copy.put(key.substring(0, dot), section);
        return new PolicyConfig(scheduler, copy);
    }
}
