package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.allot.server.store.User;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The client configuration holds a token: like ssh's keys, a file others may read or write is warned about. */
class ClientConfigPermissionsTest {
    @RegisterExtension
    static final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("alice", User.Role.USER)
            .node("gpu-01", 8, true, null)
            .build();

    @TempDir
    Path dir;

    @BeforeEach
    void posixOnly() {
        assumeThat(FileSystems.getDefault().supportedFileAttributeViews()).contains("posix");
    }

    private Path config(String mode) throws IOException {
        Path file = dir.resolve("client.json");
        Files.writeString(file, "{\"server\": \"" + cluster.url() + "\", \"token\": \"tok-alice\"}\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    private static Cli.Result withConfig(Path file, String... args) {
        Function<String, String> previous = ClientOptions.useEnvironment(Map.of("ALLOT_CONFIG", file.toString()));
        try {
            return Cli.run(args);
        } finally {
            ClientOptions.environment = previous;
        }
    }

    @Test
    void givenAConfigurationOthersMayRead_whenACommandUsesIt_thenItWarnsOnceNamingTheFileItsModeAndTheFix_andStillWorks()
            throws IOException {
        Path file = config("rw-r--r--");
        Cli.Result r = withConfig(file, "nodes");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("gpu-01");
        assertThat(r.err()).isEqualTo("allot: warning: the client configuration " + file + " has mode 0644: its group"
                + " may read it, others may read it, and it may hold your API token; make it yours only: chmod 600 "
                + file + "\n");
    }

    @Test
    void givenAConfigurationItsGroupMayWrite_whenACommandUsesIt_thenTheWarningSaysWrite() throws IOException {
        Path file = config("rw--w----");
        Cli.Result r = withConfig(file, "nodes");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("has mode 0620: its group may write it, and it may hold")
                .contains("chmod 600 " + file);
    }

    @Test
    void givenAConfigurationOnlyItsOwnerMayReadAndWrite_whenACommandUsesIt_thenNothingIsSaid() throws IOException {
        Path file = config("rw-------");
        Cli.Result r = withConfig(file, "nodes");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
    }

    @Test
    void givenAConfigurationOthersMayRead_whenTheClientRewritesIt_thenTheNewFileIsItsOwnersOnly() throws IOException {
        Path file = config("rw-rw-rw-");
        ClientConfig.write(file, cluster.url(), "tok-alice");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        Path fresh = dir.resolve("new").resolve("client.json");
        ClientConfig.write(fresh, cluster.url(), "tok-alice");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh))).isEqualTo("rw-------");
    }
}
