package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user starting {@code allot serve --db-url ...} on a database it cannot use: the error names the option and the
 * URL (never a password given in it), says what was expected and what to try, and the data directory the failed
 * start made is not left behind holding only its lock file. A walk-through found "could not create or upgrade the
 * store's schema: Unable to obtain connection ..." (no option named) and a new folder with only {@code service.lock};
 * and, without {@code --db-user}, PostgreSQL's "role root does not exist" with no word of the option.
 */
class ServeDatabaseErrorsTest {
    @TempDir
    Path dir;

    /** A loopback port nothing listens on (just freed). */
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void givenNoPostgresAtTheUrl_whenServing_thenTheErrorNamesDbUrlAndAsksWhetherPostgresRunsThere() throws Exception {
        int port = closedPort();
        Path data = dir.resolve("new/data");

        Cli.Result r = Cli.run("serve", "--port", "0", "--data-dir", data.toString(), "--db-url",
                "jdbc:postgresql://127.0.0.1:" + port + "/allot?password=sekrit");

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("--db-url jdbc:postgresql://127.0.0.1:" + port + "/allot: could not open the store")
                .contains("Is PostgreSQL running at 127.0.0.1:" + port)
                .doesNotContain("sekrit").doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(data).as("the data directory the failed start made").doesNotExist();
        assertThat(dir.resolve("new")).as("and its parent, made with it").doesNotExist();
    }

    @Test
    void givenAnExistingDataDirectory_whenTheDatabaseCannotBeReached_thenItIsKeptWithWhatItHeld() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("instance-id"), "abc\n");

        Cli.Result r = Cli.run("serve", "--port", "0", "--data-dir", data.toString(), "--db-url",
                "jdbc:postgresql://127.0.0.1:" + closedPort() + "/allot");

        assertThat(r.exit()).isEqualTo(1);
        assertThat(data.resolve("instance-id")).hasContent("abc");
    }

    @Test
    @EnabledIfEnvironmentVariable(named = "ALLOT_TEST_POSTGRES_URL", matches = ".+")
    void givenNoDbUser_whenPostgresDoesNotKnowTheUnixAccount_thenTheErrorPointsToDbUser() {
        Path data = dir.resolve("data");

        Cli.Result r = Cli.run("serve", "--port", "0", "--data-dir", data.toString(), "--db-url",
                System.getenv("ALLOT_TEST_POSTGRES_URL"));

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("--db-url " + System.getenv("ALLOT_TEST_POSTGRES_URL"))
                .contains("PostgreSQL refused the user").contains("given no --db-user")
                .contains("--db-user USER").contains("ALLOT_DB_PASSWORD");
        assertThat(data).doesNotExist();
    }
}
