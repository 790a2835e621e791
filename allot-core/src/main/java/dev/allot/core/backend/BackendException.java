package dev.allot.core.backend;

/** A backend refused an action or could not be reached; the message says which and why. */
public class BackendException extends RuntimeException {
    public BackendException(String message) {
        super(message);
    }

    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
