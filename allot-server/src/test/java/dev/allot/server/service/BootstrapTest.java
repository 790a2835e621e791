package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Allocation;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootstrapTest {
    @TempDir
    Path dir;

    @Test
    void theFirstStartCreatesAdminWithATokenInAnOwnerOnlyFileAndLaterStartsDoNothing() throws Exception {
        try (Store store = Store.sqlite(dir)) {
            String token = Bootstrap.ensureAdmin(store, dir, 1000).orElseThrow();
            assertThat(token).matches("allot_[A-Za-z0-9_-]{43}");
            assertThat(store.access().userForToken(token)).contains(new User("admin", User.Role.ADMIN));
            Path file = dir.resolve(Bootstrap.ADMIN_TOKEN_FILE);
            assertThat(Files.readString(file)).isEqualTo(token + "\n");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");

            assertThat(Bootstrap.ensureAdmin(store, dir, 2000)).isEmpty();
            assertThat(Files.readString(file)).isEqualTo(token + "\n");
            assertThat(Bootstrap.newToken()).isNotEqualTo(Bootstrap.newToken());
        }
    }

    @Test
    void theDemoFillsAnEmptyTreeOnce() throws Exception {
        try (Store store = Store.sqlite(dir)) {
            String token = Bootstrap.ensureDemo(store, dir, 1000).orElseThrow();
            assertThat(store.access().userForToken(token)).contains(new User("demo", User.Role.ADMIN));
            assertThat(store.allocations().allocations()).extracting(Allocation::path).containsExactly(
                    "lab", "lab/nlp", "lab/nlp/eval", "lab/nlp/pretrain", "lab/vision", "lab/vision/video");
            assertThat(store.allocations().allocations()).filteredOn(a -> a.path().equals("lab/nlp"))
                    .singleElement().satisfies(a -> {
                        assertThat(a.share()).isEqualTo(60);
                        assertThat(a.managers()).containsExactly("maria");
                    });
            assertThat(Bootstrap.ensureDemo(store, dir, 2000)).isEmpty();
            // the token is kept for the demo's restarts, readable by its owner only, while the store knows it
            assertThat(java.nio.file.Files.readString(dir.resolve(Bootstrap.DEMO_TOKEN_FILE)).strip()).isEqualTo(token);
            assertThat(Bootstrap.keptDemoToken(store, dir)).contains(token);
            java.nio.file.Files.writeString(dir.resolve(Bootstrap.DEMO_TOKEN_FILE), "allot_unknown\n");
            assertThat(Bootstrap.keptDemoToken(store, dir)).isEmpty();
        }
    }

    /**
     * Given the bootstrap token, which expires after the default lifetime, when a start comes after it expired and no
     * other administrator token is alive, then a fresh token is written to the admin-token file (audited as the start)
     * and signs the admin in; while one is alive, nothing is written.
     */
    @Test
    void givenTheBootstrapTokenExpired_whenTheServiceStarts_thenAFreshOneIsWrittenForTheAdmin() throws Exception {
        try (Store store = Store.sqlite(dir)) {
            String first = Bootstrap.ensureAdmin(store, dir, 1000).orElseThrow();
            long expires = store.access().tokenHolder(first).orElseThrow().token().expiresAtMillis();
            assertThat(expires).as("the default lifetime").isEqualTo(1000 + 90L * 86_400_000);
            assertThat(Bootstrap.renewAdminToken(store, dir, expires - 1)).as("still alive").isEmpty();

            assertThat(Bootstrap.renewAdminToken(store, dir, expires)).contains("admin");

            String fresh = Files.readString(dir.resolve(Bootstrap.ADMIN_TOKEN_FILE)).strip();
            assertThat(fresh).isNotEqualTo(first);
            dev.allot.server.store.Access.TokenHolder holder = store.access().tokenHolder(fresh).orElseThrow();
            assertThat(holder.user().name()).isEqualTo("admin");
            assertThat(holder.refusal(expires)).isEmpty();
            assertThat(store.allocations().audit(1).get(0).actor()).isEqualTo("system:startup");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(Bootstrap.ADMIN_TOKEN_FILE))))
                    .isEqualTo("rw-------");
            assertThat(Bootstrap.renewAdminToken(store, dir, expires + 1)).as("now one is alive").isEmpty();
        }
    }
}
