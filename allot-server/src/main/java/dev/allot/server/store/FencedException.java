package dev.allot.server.store;

/**
 * A write of a scheduling loop refused because its instance no longer holds the leader lease at the epoch it acts
 * under ({@link Store#fencedBy}): another instance has taken over. Nothing was changed; the loop must step down.
 */
public final class FencedException extends StoreException {
    private static final long serialVersionUID = 1L;

    public FencedException(String message) {
        super(message);
    }
}
