package dev.allot.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.server.store.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data directory is the service's alone: made so at creation, tightened at start when found looser. */
class OwnerOnlyFilesTest {
    @TempDir
    Path dir;

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void aDirectoryInAFolderThatTakesNoNewEntriesIsRefusedWithItsTrueCause() {
        // it said "no such file or directory" of /proc/..., whose folder /proc exists and takes no new entries
        assertThatThrownBy(() -> OwnerOnlyFiles.directory(Path.of("/proc/allot-owner-only-test")))
                .isInstanceOf(java.io.UncheckedIOException.class).hasMessage("cannot create the directory"
                        + " /proc/allot-owner-only-test: the folder /proc takes no new files or folders (a virtual file"
                        + " system such as /proc or /sys)");
    }

    @Test
    void aNewStoreIsCreatedOwnerOnly() throws Exception {
        Path data = dir.resolve("new/data");
        try (Store store = Store.sqlite(data)) {
            store.access().users(); // opened, written by the migrations
        }
        assertThat(mode(data)).isEqualTo("rwx------");
        assertThat(mode(data.resolve(Store.SQLITE_FILE))).isEqualTo("rw-------");
        try (var files = Files.list(data)) {
            for (Path f : files.toList()) {
                assertThat(mode(f)).as(f.toString()).matches("rw-------|rwx------");
            }
        }
    }

    @Test
    void looserFilesAreTightenedAndSaid() throws Exception {
        Path data = Files.createDirectories(dir.resolve("old"));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path token = Files.writeString(data.resolve("admin-token"), "secret\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
        Path db = Files.createFile(data.resolve("allot.db-wal"));
        Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-rw-rw-"));
        Path other = Files.writeString(data.resolve("notes.txt"), "mine\n");
        Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("rw-r--r--"));

        var changed = OwnerOnlyFiles.secureDataDir(data);

        assertThat(changed).hasSize(3).anyMatch(c -> c.contains("admin-token") && c.contains("rw-r--r-- to rw-------"));
        assertThat(mode(data)).isEqualTo("rwx------");
        assertThat(mode(token)).isEqualTo("rw-------");
        assertThat(mode(db)).isEqualTo("rw-------");
        assertThat(mode(other)).as("not the service's to judge").isEqualTo("rw-r--r--");
        assertThat(OwnerOnlyFiles.secureDataDir(data)).as("nothing left to change").isEmpty();
    }
}
