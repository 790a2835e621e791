package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./allot} launcher, run on a copy of the repository's layout with a stand-in {@code mvn}
 * (slow, counting its builds, writing the jar) and {@code java} (printing its arguments) first on the PATH: the
 * launcher builds a stale jar once however many commands start together, and a user who cannot write the checkout
 * runs the jar there is.
 */
class LauncherScriptTest {
    @TempDir
    Path root;

    @Test
    void twoCommandsStartedTogetherOnAStaleJarBuildItOnceAndBothRun() throws Exception {
        // `./allot serve --demo` and `./allot queue` in two terminals after a pull ran two Maven builds in the same
        // target folders: each failed on the other's half-written jars ("bad class file ... ZipException")
        Files.copy(Cli.ROOT.resolve("allot"), root.resolve("allot"));
        executable(root.resolve("allot"));
        Files.createDirectories(root.resolve("allot-cli/src/main/java"));
        Files.writeString(root.resolve("allot-cli/src/main/java/A.java"), "class A {}\n");
        Path bin = Files.createDirectories(root.resolve("bin"));
        Path builds = root.resolve("builds.txt");
        Files.writeString(bin.resolve("mvn"), "#!/bin/sh\necho build >> '" + builds + "'\nsleep 2\n"
                + "mkdir -p allot-cli/target && echo jar > allot-cli/target/allot.jar\n");
        Files.writeString(bin.resolve("java"), "#!/bin/sh\necho \"ran $*\"\n");
        executable(bin.resolve("mvn"));
        executable(bin.resolve("java"));

        List<Process> commands = new ArrayList<>();
        for (String command : List.of("serve", "queue")) {
            ProcessBuilder pb = new ProcessBuilder(root.resolve("allot").toString(), command)
                    .redirectErrorStream(true);
            pb.environment().put("PATH", bin + ":/usr/bin:/bin");
            commands.add(pb.start());
        }
        List<String> outputs = new ArrayList<>();
        for (Process p : commands) {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            outputs.add(new String(p.getInputStream().readAllBytes()));
            assertThat(p.exitValue()).isZero();
        }
        assertThat(Files.readAllLines(builds)).containsExactly("build");
        assertThat(outputs.get(0)).contains("ran -jar " + root.resolve("allot-cli/target/allot.jar") + " serve");
        assertThat(outputs.get(1)).contains("ran -jar " + root.resolve("allot-cli/target/allot.jar") + " queue");
        assertThat(String.join("", outputs)).doesNotContain("the build failed");
    }

    @Test
    void aUserWhoCannotWriteTheCheckoutRunsTheStaleJarThereIsInsteadOfFailingOnTheBuildLock() throws Exception {
        // a campaign's shard runs as its submitter's account (`nobody` in the demo) and reports with
        // `$ALLOT_HOME/allot progress`: after a pull made the jar stale, every report failed on the build lock
        // ("line 35: .../.allot-build.lock: Permission denied"), and every shard with it
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "switching to nobody needs root");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.copy(Cli.ROOT.resolve("allot"), root.resolve("allot"));
        executable(root.resolve("allot"));
        Files.createDirectories(root.resolve("allot-cli/target"));
        Files.writeString(root.resolve("allot-cli/target/allot.jar"), "jar\n");
        Files.createDirectories(root.resolve("allot-cli/src/main/java"));
        Files.writeString(root.resolve("allot-cli/src/main/java/A.java"), "class A {}\n"); // newer than the jar
        Files.setLastModifiedTime(root.resolve("allot-cli/target/allot.jar"),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Path bin = Files.createDirectories(root.resolve("bin"));
        Files.writeString(bin.resolve("mvn"), "#!/bin/sh\necho 'mvn ran' >&2\nexit 1\n");
        Files.writeString(bin.resolve("java"), "#!/bin/sh\necho \"ran $*\"\n");
        executable(bin.resolve("mvn"));
        executable(bin.resolve("java"));

        ProcessBuilder pb = new ProcessBuilder("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                root.resolve("allot").toString(), "progress", "w-1", "2", "6").redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":/usr/bin:/bin");
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("allot: " + root.resolve("allot-cli/target/allot.jar") + " is older than the sources,"
                + " but nobody cannot rebuild it (cannot write in " + root + "); running it as it is")
                .contains("ran -jar " + root.resolve("allot-cli/target/allot.jar") + " progress w-1 2 6")
                .doesNotContain("mvn ran").doesNotContain("Permission denied");
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
