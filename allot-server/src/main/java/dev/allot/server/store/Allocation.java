package dev.allot.server.store;

import java.util.List;
import java.util.Objects;

/**
 * One node of the allocation tree as stored. The path names it from the root ({@code lab/nlp/pretrain}); its last
 * segment is its name and the rest its parent's path, so the parent must exist before the child.
 *
 * @param share    a weight among its siblings, positive
 * @param managers users who may edit this node and below
 * @param members  users who may submit to it
 */
public record Allocation(String path, double share, List<String> managers, List<String> members) {
    public Allocation {
        checkPath(path);
        managers = List.copyOf(managers);
        members = List.copyOf(members);
        if (!(share > 0) || Double.isInfinite(share)) {
            throw new IllegalArgumentException("allocation '" + path + "': share must be a finite number > 0, got " + share);
        }
    }

    /** The last segment of the path. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    /** The path of the parent, null for a root. */
    public String parentPath() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? null : path.substring(0, slash);
    }

    /** Checks that a path is segments joined by '/', none of them blank. */
    static void checkPath(String path) {
        Objects.requireNonNull(path, "allocation path");
        for (String segment : path.split("/", -1)) {
            if (segment.isBlank()) {
                throw new IllegalArgumentException("allocation path '" + path
                        + "' must be names joined by '/', with no empty name and no leading or trailing '/'");
            }
        }
    }
}
