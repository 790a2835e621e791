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
}
