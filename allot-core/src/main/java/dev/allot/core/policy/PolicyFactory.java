package dev.allot.core.policy;

import java.util.List;
import java.util.function.Function;

/** Makes a policy from its settings; knows the policy's name, a one-line description and its settings. */
public interface PolicyFactory {
    String name();

    String description();

    List<SettingSpec> settings();

    Policy create(Settings settings);

    /**
     * The policy's own checks of values that read but may be out of range ("reclaim-margin must be a number >= 0"),
     * as a run would meet them: a policy checks them when it is made, so this makes one and drops it.
     *
     * @throws IllegalArgumentException naming the setting and what it must be
     */
    default void checkValues(Settings settings) {
        create(settings);
    }

    /**
     * A complaint of {@link #checkValues} about the setting {@code key} without the key it starts with ("waste-limit
     * must be a number >= 0" becomes "must be a number >= 0"), for a caller that names the setting itself, so that the
     * message does not name it twice ("setting 'allocation.waste-limit': waste-limit must be ..."); null when the
     * complaint is not about that setting.
     */
    static String complaintAbout(String key, String message) {
        return message != null && message.startsWith(key + " ") ? message.substring(key.length() + 1) : null;
    }

    /** A factory from its parts: what every policy class registers as its {@code FACTORY}. */
    static PolicyFactory of(String name, String description, List<SettingSpec> settings,
                            Function<Settings, Policy> create) {
        List<SettingSpec> specs = List.copyOf(settings);
        return new PolicyFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public List<SettingSpec> settings() {
                return specs;
            }

            @Override
            public Policy create(Settings values) {
                return create.apply(values);
            }
        };
    }
}
