package dev.allot.server.store;

/** The thing an operation names (a workload, an attempt, an allocation, a user, a node) is not in the store. */
public class NotFoundException extends StoreException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(String message) {
        super(message);
    }
}
