package dev.allot.server.store;

/**
 * The database could not be reached (a connection refused, broken or timed out: SQL state class 08, or the network
 * below it): nothing was changed, and the same call may succeed later, or through another Allot instance on the same
 * database. The API answers it 503.
 */
public final class StoreUnavailableException extends StoreException {
    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
