package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.api.ApiFixture.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A manager creating an allocation under a parent that does not exist ({@code lab/zzz/pretrain} without
 * {@code lab/zzz}): it was told it may not edit it ("managers of 'lab/zzz' or above, may"), as if {@code lab/zzz}
 * existed and were someone else's. The missing parent is said first. That leaks nothing: every signed-in user may
 * read the whole tree ({@code GET /v1/allocations}). An existing allocation the user may not edit is still refused
 * as before.
 */
class AllocationParentFirstTest {
    @RegisterExtension
    final ApiExtension fx = new ApiExtension();

    private static final String BODY = "{\"share\": 1, \"managers\": [], \"members\": []}";

    @Test
    void givenAManagerOfAnotherSubtree_whenItCreatesUnderAMissingParent_thenItIsToldTheParentDoesNotExist() {
        // ms manages lab/vision, not lab
        Response r = fx.api.put("/v1/allocations/lab/zzz/pretrain", "tok-ms", BODY);

        assertThat(r.status()).isEqualTo(404);
        assertThat(r.error()).isEqualTo("allocation 'lab/zzz/pretrain' needs its parent 'lab/zzz', which does not"
                + " exist; create the parent first");
    }

    @Test
    void givenAnAdmin_whenItCreatesUnderAMissingParent_thenTheSameAnswer() {
        Response r = fx.api.put("/v1/allocations/lab/zzz/pretrain", "tok-root", BODY);

        assertThat(r.status()).isEqualTo(404);
        assertThat(r.error()).contains("needs its parent 'lab/zzz', which does not exist");
    }

    @Test
    void givenAManagerOfAnotherSubtree_whenItCreatesUnderAnExistingParent_thenItIsStillForbidden() {
        Response r = fx.api.put("/v1/allocations/lab/nlp/extra", "tok-ms", BODY);

        assertThat(r.status()).isEqualTo(403);
        assertThat(r.error()).isEqualTo("user 'ms' may not edit allocation 'lab/nlp/extra'");
    }
}
