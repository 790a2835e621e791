package dev.allot.server.policy;

import dev.allot.server.store.Store;
import dev.allot.server.store.StoredPolicy;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy the running service uses, and the one way to change it: {@link #current()} for {@code GET /v1/policy};
 * {@link #put} for {@code PUT /v1/policy}, which reads the new text with the same reader (and so the same errors) as
 * the start did, keeps it in the store (audited, so a restart runs it again) and hands it to the scheduling loop,
 * which applies it at its next cycle. {@link #choose} decides what runs at start ({@link PolicyOptions}).
 */
public final class LivePolicy {
    private static final Logger LOG = LoggerFactory.getLogger(LivePolicy.class);

    private final AtomicReference<ServicePolicy> current;
    private final ServicePolicy.Reader reader;
    private final Store store;
    private final Clock clock;
    private final Consumer<ServicePolicy> apply;

    /**
     * @param apply told every new policy (the loop's {@code usePolicy}); called on the request's thread, must not block
     */
    public LivePolicy(ServicePolicy initial, ServicePolicy.Reader reader, Store store, Clock clock,
                      Consumer<ServicePolicy> apply) {
        this.current = new AtomicReference<>(Objects.requireNonNull(initial, "initial"));
        this.reader = Objects.requireNonNull(reader, "reader");
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.apply = Objects.requireNonNull(apply, "apply");
    }

    /**
     * The policy to run at start: {@code --policy-file} when given, else the text last set through the API, else the
     * data directory's file or the defaults (see {@link PolicyOptions}).
     *
     * @throws IllegalStateException if the text kept in the store no longer reads (its message says where)
     */
    public static ServicePolicy choose(PolicyOptions options, Store store) {
        Optional<StoredPolicy> stored = store.settings().policy();
        if (stored.isEmpty()) {
            return options.given();
        }
        StoredPolicy s = stored.get();
        String source = sourceOf(s);
        if (options.explicit()) {
            LOG.warn("running the policy of {}; the one {} is kept in the store but not run (without --policy-file"
                    + " it runs again)", options.given().source(), source);
            return options.given();
        }
        if (options.given().source().startsWith("file ")) {
            LOG.warn("the policy {} is run, not the {} in the data directory (PUT /v1/policy changes it;"
                    + " --policy-file overrides it)", source, ServicePolicy.FILE);
        }
        try {
            return options.reader().read(s.text(), ServicePolicy.FILE + " (set through the API)", source);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the policy " + source + " no longer reads: " + e.getMessage()
                    + "; start with --policy-file to run another one", e);
        }
    }

    private static String sourceOf(StoredPolicy s) {
        return "set through the API by " + s.setBy() + " at " + dev.allot.server.Instants.ofMillis(s.setAtMillis());
    }

    public ServicePolicy current() {
        return current.get();
    }

    /**
     * Reads {@code text} as {@code policy.yaml}; if it reads, keeps it in the store (audited as {@code actor}) and
     * hands it to the loop for its next cycle.
     *
     * @throws IllegalArgumentException if it does not read: the reader's message, naming line and field
     */
    public synchronized ServicePolicy put(String text, String actor) {
        Objects.requireNonNull(text, "text");
        if (text.isBlank()) {
            // an empty or cut file ('allot policy set -' with nothing piped in) reset every setting to its default,
            // answered 200; the defaults are set written out, as 'allot policy show --yaml' prints them
            throw new IllegalArgumentException(ServicePolicy.FILE + ": empty; expected the settings to run (to run"
                    + " the defaults, write them out: 'allot policy show --yaml' prints them on a service that runs"
                    + " them, e.g. 'lookback: 7d')");
        }
        long now = clock.millis();
        ServicePolicy p = reader.read(text, ServicePolicy.FILE, "set through the API by " + actor + " at "
                + dev.allot.server.Instants.ofMillis(now));
        store.settings().putPolicy(text, actor, now);
        current.set(p);
        apply.accept(p);
        LOG.info("the policy was changed through the API by {}; it applies from the next scheduling cycle", actor);
        return p;
    }
}
