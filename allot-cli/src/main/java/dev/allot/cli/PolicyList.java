package dev.allot.cli;

import dev.allot.core.policy.PolicyRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code --policy} list of the commands that run each named policy once (simulate, sweep, bench): every name
 * known to the registry and named once. A policy named twice would run twice, print the same column or row twice
 * and write two runs under one name, so it is refused rather than quietly run again.
 */
final class PolicyList {
    private PolicyList() {
    }

    /**
     * The names, trimmed, in the order given.
     *
     * @throws IllegalArgumentException for an unknown policy (the registry's text) or one named twice
     */
    static List<String> check(List<String> given, PolicyRegistry registry) {
        List<String> names = new ArrayList<>(given.size());
        Set<String> seen = new HashSet<>();
        for (String g : given) {
            String name = g.trim();
            registry.get(name);
            if (!seen.add(name)) {
                throw new IllegalArgumentException("--policy names '" + name + "' twice; each policy runs once,"
                        + " e.g. --policy allocation,legacy");
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    /**
     * Refuses a {@code --set} of a policy that is not run: {@code --set slurm.grace-time=5m --policy allocation}
     * changed nothing and said nothing. Keys without a policy (the shared settings) and keys whose prefix is no
     * policy (the policy's own check names them) pass.
     */
    static void checkSettingsRun(java.util.Collection<String> keys, List<String> policies, PolicyRegistry registry) {
        for (String key : keys) {
            int dot = key.indexOf('.');
            if (dot <= 0) {
                continue;
            }
            String policy = key.substring(0, dot);
            if (registry.names().contains(policy) && !policies.contains(policy)) {
                throw new IllegalArgumentException("--set " + key + ": the policy '" + policy + "' is not run"
                        + " (--policy " + String.join(",", policies) + "); add it to --policy, or drop this --set");
            }
        }
    }
}
