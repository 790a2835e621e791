package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The authorisation rules on their own, including the cases the HTTP matrix does not reach. */
class PermissionsTest {
    static final User ADA = new User("ada", User.Role.USER);
    static final User ROOT = new User("root", User.Role.ADMIN);

    final Permissions permissions = Permissions.of(List.of(
            new Allocation("lab", 1, List.of(), List.of()),
            new Allocation("lab/nlp", 1, List.of("ada"), List.of()),
            new Allocation("lab/nlpx", 1, List.of(), List.of()),
            new Allocation("lab/nlp/a/b", 1, List.of(), List.of())));

    @Test
    void managingIsByWholePathSegmentsNotByTextPrefix() {
        assertThat(permissions.maySubmit(ADA, "lab/nlp")).isTrue();
        assertThat(permissions.maySubmit(ADA, "lab/nlp/a/b")).as("an ancestor two levels up").isTrue();
        assertThat(permissions.maySubmit(ADA, "lab/nlpx")).as("a sibling whose name starts the same").isFalse();
        assertThat(permissions.maySubmit(ADA, "lab")).as("managing a child is not managing the parent").isFalse();
    }

    @Test
    void nobodyButAnAdminMaySubmitToAnAllocationThatDoesNotExist() {
        assertThat(permissions.maySubmit(ADA, "lab/nlp/ghost")).isFalse();
        assertThat(permissions.maySubmit(ROOT, "anything")).isTrue();
    }

    @Test
    void aManagerMayCancelInTheSubtreeEvenAfterTheLeafWasRemoved() {
        assertThat(permissions.mayCancel(ADA, workload("bob", "lab/nlp/removed"))).isTrue();
        assertThat(permissions.mayCancel(ADA, workload("bob", "lab/nlpx"))).isFalse();
        assertThat(permissions.mayCancel(new User("bob", User.Role.USER), workload("bob", "lab/nlpx"))).isTrue();
    }

    @Test
    void selfAndAncestorsGoFromTheLeafToTheRoot() {
        assertThat(Permissions.selfAndAncestors("a/b/c")).containsExactly("a/b/c", "a/b", "a");
        assertThat(Permissions.selfAndAncestors("a")).containsExactly("a");
    }

    private static Workload workload(String user, String allocation) {
        return new Workload(1, "w-1", allocation, user, 1, 0, null, 0, false, Priority.NORMAL, "train", List.of("x"),
                new java.util.TreeMap<>(Map.of()), WorkloadState.PENDING, 0, null, null, false, null, null);
    }
}
