package dev.allot.server.store;

/**
 * The operation is refused because of what is in the store: a state that does not allow it (ending an attempt
 * twice with different outcomes, removing an allocation that still has children), or a duplicate.
 * Nothing was changed.
 */
public class ConflictException extends StoreException {
    private static final long serialVersionUID = 1L;

    public ConflictException(String message) {
        super(message);
    }
}
