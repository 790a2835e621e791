package dev.allot.server.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.server.service.ServiceConfig;
import dev.allot.server.store.User;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one decision of who workloads run as, for each kind of service, with the service's uid injected: the tests
 * run as root in CI, and the non-root path is the demo's.
 */
class IdentityModeTest {
    @TempDir
    Path dir;

    private ServiceConfig config(String backend, boolean demo, Path accounts, boolean singleUserHost,
                                 boolean allowRoot) {
        return ServiceConfig.defaults(dir).withBackend(backend).withDemo(demo).withSecurity(new ServiceConfig.Security(
                ServiceConfig.Security.LOOPBACK, null, null, accounts, singleUserHost, allowRoot));
    }

    private static final List<User> TWO_MEMBERS = List.of(new User("admin", User.Role.ADMIN),
            new User("maria", User.Role.USER), new User("ana", User.Role.USER));

    @Test
    void asRootEachUserRunsAsTheAccountOfItsNameOrAsTheFileSays() throws Exception {
        IdentityMode same = IdentityMode.decide(config("local", false, null, false, false), 0, "root");
        assertThat(same.kind()).isEqualTo(IdentityMode.Kind.SWITCH);
        assertThat(same.accounts().accountOf("maria")).isEqualTo("maria");
        assertThat(same.tooManyUsers(TWO_MEMBERS)).isEmpty();
        assertThat(same.allowRootWorkloads()).isFalse();

        Path file = dir.resolve("accounts");
        Files.writeString(file, "maria: mkeller\n*: nobody\n");
        IdentityMode mapped = IdentityMode.decide(config("slurm", false, file, false, true), 0, "root");
        assertThat(mapped.accounts().accountOf("maria")).isEqualTo("mkeller");
        assertThat(mapped.accounts().accountOf("ana")).isEqualTo("nobody");
        assertThat(mapped.allowRootWorkloads()).isTrue();
        assertThat(mapped.notices()).anyMatch(n -> n.contains(file.toString()))
                .anyMatch(n -> n.startsWith("WARNING: --allow-root-workloads"));
    }

    @Test
    void asRootTheDemoWithoutAMapRunsEveryoneAsNobodyAndSaysSo() {
        IdentityMode demo = IdentityMode.decide(config("local", true, null, false, false), 0, "root");
        assertThat(demo.accounts().accountOf("maria")).isEqualTo("nobody");
        assertThat(demo.accounts().accountOf("demo")).isEqualTo("nobody");
        assertThat(demo.notices()).anyMatch(n -> n.contains("'nobody'"));
    }

    @Test
    void notRootEveryWorkloadRunsAsTheServiceUserAndTheLocalBackendTakesOneMember() {
        IdentityMode plain = IdentityMode.decide(config("local", false, null, false, false), 1000, "lab");
        assertThat(plain.kind()).isEqualTo(IdentityMode.Kind.SERVICE_USER);
        assertThat(plain.switchesAccounts()).isFalse();
        assertThat(plain.notices().get(0)).contains("runs as lab (uid 1000), not root", "every workload runs as lab");
        assertThat(plain.tooManyUsers(TWO_MEMBERS)).hasValueSatisfying(why -> assertThat(why)
                .contains("there would be 2: ana, maria", "--single-user-host"));
        assertThat(plain.tooManyUsers(TWO_MEMBERS.subList(0, 2))).isEmpty();

        IdentityMode acknowledged = IdentityMode.decide(config("local", false, null, true, false), 1000, "lab");
        assertThat(acknowledged.tooManyUsers(TWO_MEMBERS)).isEmpty();
        IdentityMode demo = IdentityMode.decide(config("local", true, null, false, false), 1000, "lab");
        assertThat(demo.tooManyUsers(TWO_MEMBERS)).isEmpty();
        assertThat(demo.notices()).anyMatch(n -> n.contains("--demo implies --single-user-host"));
        IdentityMode slurm = IdentityMode.decide(config("slurm", false, null, false, false), 1000, "lab");
        assertThat(slurm.tooManyUsers(TWO_MEMBERS)).as("the limit is the local backend's").isEmpty();
        assertThat(slurm.notices().get(0)).contains("every workload runs as lab");
    }

    @Test
    void notRootAnAccountsFileIsRefusedAndTheSimulatedBackendNeedsNoIdentity() {
        Path file = dir.resolve("accounts");
        assertThatThrownBy(() -> IdentityMode.decide(config("local", false, file, false, false), 1000, "lab"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--accounts " + file + " needs the service to run as root")
                .hasMessageContaining("uid 1000");
        IdentityMode simulated = IdentityMode.decide(config("simulated", false, null, false, false), 1000, "lab");
        assertThat(simulated.kind()).isEqualTo(IdentityMode.Kind.NONE);
        assertThat(simulated.tooManyUsers(TWO_MEMBERS)).isEmpty();
        assertThat(IdentityMode.decide(config("simulated", false, null, false, false), 0, "root").kind())
                .isEqualTo(IdentityMode.Kind.NONE);
    }

    @Test
    void aBadOrMissingAccountsFileIsNamedWithItsLine() throws Exception {
        Path file = dir.resolve("accounts");
        Files.writeString(file, "maria: mkeller\nana = ana\n");
        assertThatThrownBy(() -> IdentityMode.decide(config("local", false, file, false, false), 0, "root"))
                .hasMessageContaining(file + ":2: expected 'USER: ACCOUNT'").hasMessageContaining("got 'ana = ana'");
        Path missing = dir.resolve("nope");
        assertThatThrownBy(() -> IdentityMode.decide(config("local", false, missing, false, false), 0, "root"))
                .hasMessage("--accounts " + missing + ": no such file");
    }

    @Test
    void anAccountsFileThatIsAFolderOrBinaryIsSaidInWords() throws Exception {
        // they said 'cannot be read: Is a directory' and 'cannot be read: Input length = 1'
        Path folder = Files.createDirectories(dir.resolve("accounts.d"));
        assertThatThrownBy(() -> IdentityMode.decide(config("local", false, folder, false, false), 0, "root"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--accounts " + folder + ": cannot read: is a directory");
        Path binary = Files.write(dir.resolve("accounts.bin"), new byte[] {'a', 'n', (byte) 0xff, ':', 'x'});
        assertThatThrownBy(() -> IdentityMode.decide(config("local", false, binary, false, false), 0, "root"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--accounts " + binary + ":1:3: expected UTF-8 text, got a byte sequence that"
                        + " is not UTF-8 (0xff)");
    }

    @Test
    void passwdLinesAreParsed() {
        UnixAccounts.Account a = UnixAccounts.parse("allot-alice:x:1001:1002:Alice:/home/allot-alice:/bin/bash", "x");
        assertThat(a).isEqualTo(new UnixAccounts.Account("allot-alice", 1001, 1002, Path.of("/home/allot-alice"),
                "/bin/bash"));
        assertThat(UnixAccounts.parse("svc:x:0:0::/:", "svc").root()).isTrue();
        assertThatThrownBy(() -> UnixAccounts.parse("garbage", "g")).hasMessageContaining("not a passwd entry");
    }
}
