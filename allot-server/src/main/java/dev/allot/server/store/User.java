package dev.allot.server.store;

import java.util.Locale;
import java.util.Objects;

/**
 * A person (or robot) who may call the API, with the role that decides what it may do. A disabled user keeps its
 * name, role and tokens but is refused at once on every request, until an administrator enables it again.
 */
public record User(String name, Role role, boolean disabled) {
    /** What a user may do: administrators may do everything, users what their allocations allow. */
    public enum Role {
        ADMIN, USER;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Role parse(String label) {
            for (Role r : values()) {
                if (r.label().equals(label)) {
                    return r;
                }
            }
            throw new IllegalArgumentException("unknown role '" + label + "'; expected admin or user");
        }
    }

    public User {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(role, "role");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a user name must not be blank");
        }
    }

    /** An enabled user. */
    public User(String name, Role role) {
        this(name, role, false);
    }

    /** True for an administrator who is not disabled: the users who keep the service manageable. */
    public boolean enabledAdmin() {
        return role == Role.ADMIN && !disabled;
    }
}
