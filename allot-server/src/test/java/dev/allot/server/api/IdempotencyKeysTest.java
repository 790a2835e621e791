package dev.allot.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Scoping idempotency keys by user: unambiguous, and reversible for the answer. */
class IdempotencyKeysTest {
    @Test
    void userNamesWithTheSeparatorDoNotCollide() {
        assertThat(IdempotencyKeys.scoped("a:b", "c")).isNotEqualTo(IdempotencyKeys.scoped("a", "b:c"));
    }

    @Test
    void theClientSeesItsOwnKey() {
        String stored = IdempotencyKeys.scoped("ada", "run:7");
        assertThat(stored).isEqualTo("3:ada:run:7");
        assertThat(IdempotencyKeys.clientKey("ada", stored)).isEqualTo("run:7");
        assertThat(IdempotencyKeys.clientKey("ada", null)).isNull();
        assertThat(IdempotencyKeys.scoped("ada", null)).isNull();
        assertThat(IdempotencyKeys.clientKey("ada", "stored-by-something-else")).isEqualTo("stored-by-something-else");
    }
}
