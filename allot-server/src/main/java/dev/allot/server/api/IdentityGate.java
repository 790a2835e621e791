package dev.allot.server.api;

import dev.allot.server.store.User;
import java.util.ArrayList;
import java.util.List;

/**
 * What the service's identity mode lets through the API: whether a user may submit at all (its workloads need a
 * Unix account that exists and is not root) and whether a change of the users keeps within what the mode allows (a
 * service that is not root accepts one non-admin user on the local backend). The rules live with the mode
 * ({@code dev.allot.server.identity}); the API asks here and turns a refusal into its JSON error.
 */
public interface IdentityGate {
    /** A refusal: the HTTP status, the problem and what to do about it. */
    record Refusal(int status, String problem, String hint) {
    }

    /** Lets everything through (the simulated backend; tests of the API alone). */
    IdentityGate OPEN = new IdentityGate() {
        @Override
        public Refusal submitter(String user) {
            return null;
        }

        @Override
        public Refusal users(List<User> after) {
            return null;
        }
    };

    /** Why {@code user} may not submit; null if it may. */
    Refusal submitter(String user);

    /** Why the users may not become {@code after} (every user, once the change is made); null if they may. */
    Refusal users(List<User> after);

    /** Throws the API's error if {@code user} may not submit. */
    default void requireMaySubmit(String user) {
        Refusal r = submitter(user);
        if (r != null) {
            throw new ApiException(r.status(), r.problem(), null, r.hint());
        }
    }

    /** Throws the API's error if putting {@code changed} into {@code current} makes users the mode refuses. */
    default void requireMayPut(List<User> current, User changed) {
        List<User> after = new ArrayList<>(current.stream().filter(u -> !u.name().equals(changed.name())).toList());
        after.add(changed);
        Refusal r = users(after);
        if (r != null) {
            throw new ApiException(r.status(), r.problem(), null, r.hint());
        }
    }
}
