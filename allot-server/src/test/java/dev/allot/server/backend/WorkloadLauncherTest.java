package dev.allot.server.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.server.identity.UnixAccounts;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The argv of one launch, built without starting anything. */
class WorkloadLauncherTest {

    private final WorkloadLauncher launcher = new WorkloadLauncher(new UnixAccounts(), false);
    private final AttemptFiles files = new AttemptFiles(Path.of("/data/attempts"), new AttemptKey("w-1", 2));
    private final UnixAccounts.Account alice =
            new UnixAccounts.Account("alice", 1234, 1235, Path.of("/home/alice"), "/bin/bash");

    @Test
    void givenAnAccountToSwitchTo_whenTheArgvIsBuilt_thenTheWrapperRunsSetprivToItThenTheEnvironmentScriptThenTheProgram() {
        List<String> argv = launcher.argv(files, files.environment("7-1"), new WorkloadLauncher.RunAs(alice, true), Path.of("/usr/bin/python3"),
                List.of("train.py", "--seed=1"));

        List<String> afterSession = launcher.ownSession() ? argv.subList(1, argv.size()) : argv;
        assertThat(afterSession.subList(0, 6)).containsExactly("/bin/sh", "-c", WorkloadLauncher.WRAPPER_SCRIPT,
                files.wrapperToken(), files.exit().toString(), "/data/attempts/w-1-2.env.7-1");
        assertThat(afterSession.get(6)).endsWith("/setpriv");
        assertThat(afterSession.subList(7, afterSession.size())).containsExactly("--reuid=1234", "--regid=1235",
                "--init-groups", "--", "/bin/sh", "-c", WorkloadLauncher.ENVIRONMENT_SCRIPT, "allot-workload",
                "/usr/bin/python3", "train.py", "--seed=1");
    }

    @Test
    void givenTheServicesOwnAccount_whenTheArgvIsBuilt_thenNoSetprivRunsAndTheProgramFollowsTheEnvironmentScript() {
        List<String> argv = launcher.argv(files, files.environment("7-1"), new WorkloadLauncher.RunAs(alice, false), Path.of("/bin/true"),
                List.of());

        assertThat(argv).noneMatch(word -> word.endsWith("/setpriv"));
        assertThat(argv.subList(argv.size() - 5, argv.size())).containsExactly("/bin/sh", "-c",
                WorkloadLauncher.ENVIRONMENT_SCRIPT, "allot-workload", "/bin/true");
    }
}
