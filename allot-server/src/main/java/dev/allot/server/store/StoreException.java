package dev.allot.server.store;

/** A store operation failed; the message says what and why. Subclasses tell the API which answer to give. */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
