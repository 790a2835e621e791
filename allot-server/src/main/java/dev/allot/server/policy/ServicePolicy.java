package dev.allot.server.policy;

import dev.allot.core.model.Durations;
import dev.allot.core.policy.Policy;
import dev.allot.core.policy.PolicyFactory;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.policy.Settings;
import dev.allot.core.state.SchedulerConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The policy the service runs, as {@code allot simulate} would run it from the same {@code policy.yaml}: the shared
 * settings ({@link SchedulerConfig}: lookback, max-min-runtime, usage-bucket) and the {@code allocation} policy's
 * own settings, with the text they were read from and where that text came from. The server does not read
 * {@code policy.yaml} itself (that reader is the simulator's, and the server depends only on the core): whoever
 * starts the service hands in a {@link Reader}, so both read the file with the same code and the same errors.
 *
 * @param text       the {@code policy.yaml} text the settings were read from ({@code ""} for the defaults)
 * @param source     where the text came from, for people: {@code defaults}, {@code file /etc/allot/policy.yaml},
 *                   {@code set through the API by alice at 2025-01-01T00:00:00Z}
 * @param scheduler  the shared settings
 * @param allocation the {@code allocation} policy's settings, every one (defaults for those not given)
 */
public record ServicePolicy(String text, String source, SchedulerConfig scheduler, Settings allocation) {
    /** The policy the service runs: the core's {@code allocation} policy. */
    public static final String POLICY = "allocation";
    /** How the data directory's policy file is named, and how {@code allot simulate} names it in a scenario. */
    public static final String FILE = "policy.yaml";

    public ServicePolicy {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(allocation, "allocation");
    }

    /** Reads {@code policy.yaml} text: the simulator's reader, handed in by the CLI. */
    @FunctionalInterface
    public interface Reader {
        /**
         * Reads and validates {@code text}.
         *
         * @param name   how messages name the text (a file's path, or {@code policy.yaml} for a request's body)
         * @param source what {@link ServicePolicy#source()} is to say
         * @throws IllegalArgumentException naming the place ({@code name:line:column: field 'x': ...}) and what is wrong
         */
        ServicePolicy read(String text, String name, String source);

        /** A reader for a service started without one (tests of the server alone): only the empty text, the defaults. */
        Reader DEFAULTS_ONLY = (text, name, source) -> {
            if (!text.isBlank()) {
                throw new IllegalArgumentException(name + ": this service was started without a reader of " + FILE
                        + " (allot serve has one); only the empty text, the defaults, is accepted");
            }
            return defaults().from(source);
        };
    }

    /** The defaults: what {@code allot simulate} runs without a {@code policy.yaml}. */
    public static ServicePolicy defaults() {
        PolicyFactory f = PolicyRegistry.standard().get(POLICY);
        return new ServicePolicy("", "defaults", SchedulerConfig.defaults(), Settings.defaults(f.settings()));
    }

    /** This policy with another source. */
    public ServicePolicy from(String newSource) {
        return new ServicePolicy(text, newSource, scheduler, allocation);
    }

    /** A fresh instance of the policy with these settings. */
    public Policy create() {
        return PolicyRegistry.standard().get(POLICY).create(allocation);
    }

    /** The effective settings by name, as {@code policy.yaml} writes them: the shared ones, then the policy's. */
    public Map<String, Object> settingsView() {
        Map<String, Object> shared = new LinkedHashMap<>();
        shared.put("lookback", Durations.formatSeconds(scheduler.lookback().toSeconds()));
        shared.put("max-min-runtime", Durations.formatSeconds(scheduler.maxMinRuntime().toSeconds()));
        shared.put("usage-bucket", Durations.formatSeconds(scheduler.usageBucket().toSeconds()));
        shared.put(POLICY, new LinkedHashMap<>(allocation.asText()));
        return shared;
    }
}
