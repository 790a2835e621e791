package dev.allot.server.api;

/**
 * Scopes idempotency keys to their user. The store's keys are global, so two users who happen to pick the same
 * key must not get each other's workload: the key stored is {@code <length of user>:<user>:<key>}. The length
 * makes the scoping unambiguous whatever characters a user name contains ({@code a:b} + {@code c} and {@code a} +
 * {@code b:c} stay apart).
 */
final class IdempotencyKeys {
    private IdempotencyKeys() {
    }

    /** The key to store for this user's key; null for none. */
    static String scoped(String user, String clientKey) {
        return clientKey == null ? null : user.length() + ":" + user + ":" + clientKey;
    }

    /** The key the client sent, from the stored one; the stored key as it is if it was not scoped by the API. */
    static String clientKey(String user, String storedKey) {
        if (storedKey == null) {
            return null;
        }
        String prefix = user.length() + ":" + user + ":";
        return storedKey.startsWith(prefix) ? storedKey.substring(prefix.length()) : storedKey;
    }
}
