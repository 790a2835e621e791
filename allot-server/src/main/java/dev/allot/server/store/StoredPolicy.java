package dev.allot.server.store;

import java.util.Objects;

/**
 * A {@code policy.yaml} text an administrator set through the API ({@code PUT /v1/policy}), as the store keeps it so
 * that a restart runs it again: the text, who set it and when.
 */
public record StoredPolicy(String text, String setBy, long setAtMillis) {
    public StoredPolicy {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(setBy, "setBy");
    }
}
