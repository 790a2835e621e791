package dev.allot.server.store;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jdbi.v3.core.Handle;

/**
 * The settings part of the {@link Store} ({@link Store#settings()}): cluster-wide settings kept by name, so that they
 * survive a restart. For now the safety brakes' limits ({@link BrakeLimits}); a setting never written has its
 * default. Changes are audited ({@code brakes.put}, {@code token-policy.put}). And the lifetime of API tokens
 * ({@link TokenPolicy}). And the {@code policy.yaml} text an administrator set through the API ({@link StoredPolicy},
 * audited as {@code policy.put}).
 */
public final class ClusterSettings {
    static final String MAX_REQUEUES = "brakes.maxRequeues";
    static final String MAX_GPU_HOURS = "brakes.maxGpuHoursPerWorkload";
    static final String TOKEN_DEFAULT_LIFETIME = "tokens.defaultLifetimeSeconds";
    static final String TOKEN_MAX_LIFETIME = "tokens.maxLifetimeSeconds";
    static final String POLICY_TEXT = "policy.text";
    static final String POLICY_SET_BY = "policy.setBy";
    static final String POLICY_SET_AT = "policy.setAtMillis";

    private final Transactions transactions;

    ClusterSettings(Transactions transactions) {
        this.transactions = transactions;
    }

    /** The brakes' limits as stored, defaults for those never set. */
    public BrakeLimits brakes() {
        return transactions.read("read the brakes", ClusterSettings::brakes);
    }

    /** Stores the brakes' limits (a null GPU-hour cap removes the cap) and audits the change; returns what was before. */
    public BrakeLimits putBrakes(BrakeLimits limits, String actor, long nowMillis) {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(actor, "actor");
        return transactions.tx("set the brakes", h -> {
            BrakeLimits before = brakes(h);
            put(h, MAX_REQUEUES, Integer.toString(limits.maxRequeues()));
            if (limits.maxGpuHoursPerWorkload() == null) {
                h.createUpdate("DELETE FROM settings WHERE name = :name").bind("name", MAX_GPU_HOURS).execute();
            } else {
                put(h, MAX_GPU_HOURS, Double.toString(limits.maxGpuHoursPerWorkload()));
            }
            Allocations.audit(h, nowMillis, actor, "brakes.put", "brakes", json(before), json(limits));
            return before;
        });
    }

    /** The lifetime of API tokens as stored, defaults for what was never set. */
    public TokenPolicy tokenPolicy() {
        return transactions.read("read the token policy", ClusterSettings::tokenPolicy);
    }

    /** Stores the lifetime of API tokens and audits the change ({@code token-policy.put}); returns what was before. */
    public TokenPolicy putTokenPolicy(TokenPolicy policy, String actor, long nowMillis) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(actor, "actor");
        return transactions.tx("set the token policy", h -> {
            TokenPolicy before = tokenPolicy(h);
            put(h, TOKEN_DEFAULT_LIFETIME, Long.toString(policy.defaultLifetimeSeconds()));
            put(h, TOKEN_MAX_LIFETIME, Long.toString(policy.maxLifetimeSeconds()));
            Allocations.audit(h, nowMillis, actor, "token-policy.put", "token-policy", json(before), json(policy));
            return before;
        });
    }

    static TokenPolicy tokenPolicy(Handle h) {
        Map<String, String> values = new HashMap<>();
        h.createQuery("SELECT name, value FROM settings WHERE name IN (:a, :b)")
                .bind("a", TOKEN_DEFAULT_LIFETIME).bind("b", TOKEN_MAX_LIFETIME)
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                .forEach(e -> values.put(e.getKey(), e.getValue()));
        try {
            String d = values.get(TOKEN_DEFAULT_LIFETIME);
            String m = values.get(TOKEN_MAX_LIFETIME);
            return new TokenPolicy(d == null ? TokenPolicy.DEFAULT_DEFAULT_LIFETIME_SECONDS : Long.parseLong(d),
                    m == null ? TokenPolicy.DEFAULT_MAX_LIFETIME_SECONDS : Long.parseLong(m));
        } catch (IllegalArgumentException e) {
            throw new StoreException("unreadable token policy in the store's settings " + values + ": "
                    + e.getMessage(), e);
        }
    }

    private static String json(TokenPolicy p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("defaultLifetimeSeconds", p.defaultLifetimeSeconds());
        m.put("maxLifetimeSeconds", p.maxLifetimeSeconds());
        return Rows.toJson(m);
    }

    private static void put(Handle h, String name, String value) {
        h.createUpdate("INSERT INTO settings (name, value) VALUES (:name, :value)"
                        + " ON CONFLICT (name) DO UPDATE SET value = excluded.value")
                .bind("name", name).bind("value", value)
                .execute();
    }

    private static BrakeLimits brakes(Handle h) {
        Map<String, String> values = new HashMap<>();
        h.createQuery("SELECT name, value FROM settings WHERE name IN (:a, :b)")
                .bind("a", MAX_REQUEUES).bind("b", MAX_GPU_HOURS)
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                .forEach(e -> values.put(e.getKey(), e.getValue()));
        try {
            String r = values.get(MAX_REQUEUES);
            String g = values.get(MAX_GPU_HOURS);
            return new BrakeLimits(r == null ? BrakeLimits.DEFAULT_MAX_REQUEUES : Integer.parseInt(r),
                    g == null ? null : Double.valueOf(g));
        } catch (IllegalArgumentException e) {
            throw new StoreException("unreadable brakes in the store's settings " + values + ": " + e.getMessage(), e);
        }
    }

    private static String json(BrakeLimits b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("maxRequeues", b.maxRequeues());
        m.put("maxGpuHoursPerWorkload", b.maxGpuHoursPerWorkload());
        return Rows.toJson(m);
    }

    /** The {@code policy.yaml} text last set through the API, if any. */
    public java.util.Optional<StoredPolicy> policy() {
        return transactions.read("read the policy", ClusterSettings::policy);
    }

    /**
     * Stores the {@code policy.yaml} text (already validated by the caller) and audits the change ({@code policy.put},
     * the texts before and after); returns what was stored before.
     */
    public java.util.Optional<StoredPolicy> putPolicy(String text, String actor, long nowMillis) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(actor, "actor");
        return transactions.tx("set the policy", h -> {
            java.util.Optional<StoredPolicy> before = policy(h);
            put(h, POLICY_TEXT, text);
            put(h, POLICY_SET_BY, actor);
            put(h, POLICY_SET_AT, Long.toString(nowMillis));
            Allocations.audit(h, nowMillis, actor, "policy.put", "policy",
                    Rows.toJson(Map.of("text", before.map(StoredPolicy::text).orElse(""))),
                    Rows.toJson(Map.of("text", text)));
            return before;
        });
    }

    private static java.util.Optional<StoredPolicy> policy(Handle h) {
        Map<String, String> values = new HashMap<>();
        h.createQuery("SELECT name, value FROM settings WHERE name IN (:a, :b, :c)")
                .bind("a", POLICY_TEXT).bind("b", POLICY_SET_BY).bind("c", POLICY_SET_AT)
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                .forEach(e -> values.put(e.getKey(), e.getValue()));
        String text = values.get(POLICY_TEXT);
        if (text == null) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(new StoredPolicy(text, values.getOrDefault(POLICY_SET_BY, "?"),
                    Long.parseLong(values.getOrDefault(POLICY_SET_AT, "0"))));
        } catch (IllegalArgumentException e) {
            throw new StoreException("unreadable policy in the store's settings: " + e.getMessage(), e);
        }
    }
}
