package dev.allot.core.policy;

import dev.allot.core.policy.allocation.AllocationPolicy;
import dev.allot.core.policy.kueue.KueuePolicy;
import dev.allot.core.policy.legacy.LegacyPolicy;
import dev.allot.core.policy.slurm.SlurmPolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The policies Allot knows, by name, in registration order. Asking for an unknown name fails with the list of
 * valid ones. Not a singleton: {@link #standard()} builds a fresh registry, and tests may register their own.
 */
public final class PolicyRegistry {
    private final Map<String, PolicyFactory> factories = new LinkedHashMap<>();

    public static PolicyRegistry standard() {
        PolicyRegistry r = new PolicyRegistry();
        r.register(AllocationPolicy.FACTORY);
        r.register(LegacyPolicy.FACTORY);
        r.register(SlurmPolicy.FACTORY);
        r.register(KueuePolicy.FACTORY);
        return r;
    }

    public PolicyRegistry register(PolicyFactory f) {
        if (factories.putIfAbsent(f.name(), f) != null) {
            throw new IllegalArgumentException("policy '" + f.name() + "' is registered twice");
        }
        return this;
    }

    public PolicyFactory get(String name) {
        PolicyFactory f = factories.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown policy '" + name + "'; valid policies: " + String.join(", ", names()));
        }
        return f;
    }

    public List<String> names() {
        return Collections.unmodifiableList(new ArrayList<>(factories.keySet()));
    }

    public List<PolicyFactory> all() {
        return List.copyOf(factories.values());
    }
}
