package dev.allot.server.store;

import dev.allot.core.rules.Names;
import dev.allot.core.rules.Shares;
import dev.allot.core.rules.Violation;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One node of the allocation tree as stored. The path names it from the root ({@code lab/nlp/pretrain}); its last
 * segment is its name and the rest its parent's path, so the parent must exist before the child.
 *
 * @param share    a weight among its siblings ({@link Shares}: a finite number >= 0; the store keeps at least one
 *                 positive among siblings)
 * @param managers users who may edit this node and below
 * @param members  users who may submit to it
 */
public record Allocation(String path, double share, List<String> managers, List<String> members) {
    public Allocation {
        checkPath(path);
        managers = List.copyOf(managers);
        members = List.copyOf(members);
        Optional<Violation> bad = Shares.check(share);
        if (bad.isPresent()) {
            throw new IllegalArgumentException("allocation '" + path + "': " + bad.get());
        }
    }

    /** The last segment of the path. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    /** The path of the parent, null for a root. */
    public String parentPath() {
        return parentOf(path);
    }

    /** The path of the parent of the allocation at {@code path}, null for a root. */
    public static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? null : path.substring(0, slash);
    }

    /** Checks that a path is names joined by '/' ({@link Names#checkPath}). */
    static void checkPath(String path) {
        Objects.requireNonNull(path, "allocation path");
        Optional<Violation> bad = Names.checkPath("path", path);
        if (bad.isPresent()) {
            throw new IllegalArgumentException("allocation path: " + bad.get());
        }
    }
}
