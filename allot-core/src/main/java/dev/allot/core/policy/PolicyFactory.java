package dev.allot.core.policy;

import java.util.List;

/** Makes a policy from its settings; knows the policy's name, a one-line description and its settings. */
public interface PolicyFactory {
    String name();

    String description();

    List<SettingSpec> settings();

    Policy create(Settings settings);
}
