package dev.allot.core.backend;

/**
 * The backend could not tell whether an action took effect: it could not be reached, its answer was cut short or
 * did not parse. Unlike a plain {@link BackendException} (a refusal), this says nothing about the attempt: the caller
 * must neither count the action done nor count it refused, and tries again later (every action is idempotent).
 */
public final class BackendUnavailableException extends BackendException {
    public BackendUnavailableException(String message) {
        super(message);
    }

    public BackendUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
