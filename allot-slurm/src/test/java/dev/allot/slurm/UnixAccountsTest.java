package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.BackendUnavailableException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Looking accounts up in this host's passwd database, as sbatch --uid will. */
class UnixAccountsTest {
    private final UnixAccounts getent = UnixAccounts.getent(Duration.ofSeconds(10));

    @Test
    void rootIsFoundWithItsUidPrimaryGroupAndHome() {
        assertThat(getent.find("root")).contains(new UnixAccounts.Account("root", 0, 0, Path.of("/root")));
    }

    @Test
    void theServicesOwnUserIsFound() {
        assertThat(getent.self().name()).isEqualTo(System.getProperty("user.name"));
    }

    @Test
    void anAccountThatDoesNotExistIsEmptyNotAFailure() {
        assertThat(getent.find("allot-no-such-account-7")).isEmpty();
    }

    @Test
    void aNameNoAccountCanHaveIsEmptyAndNeverReachesGetentAsAnOption() {
        assertThat(getent.find("--help")).isEmpty();
        assertThat(getent.find("root root")).isEmpty();
        assertThat(getent.find("")).isEmpty();
    }

    @Test
    void anEntryThatIsNotAPasswdLineIsAnUnknownNotAGuess() {
        assertThat(UnixAccounts.parse("bob", "bob:x:1002:100:Bob,,,:/home/bob:/bin/bash"))
                .isEqualTo(new UnixAccounts.Account("bob", 1002, 100, Path.of("/home/bob")));
        assertThatThrownBy(() -> UnixAccounts.parse("bob", "bob:x:1002:100"))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("not name:password:uid");
        assertThatThrownBy(() -> UnixAccounts.parse("bob", "bob:x:abc:100::/home/bob:/bin/sh"))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("uid, gid or home unreadable");
    }
}
