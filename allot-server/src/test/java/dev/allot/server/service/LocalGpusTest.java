package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GPU detection with a fake nvidia-smi on a made-up PATH. */
class LocalGpusTest {
    @TempDir
    Path dir;

    void fakeSmi(String body) throws IOException {
        Path p = dir.resolve(LocalGpus.NVIDIA_SMI);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void countsTheIndexesNvidiaSmiLists() throws IOException {
        fakeSmi("[ \"$1\" = --query-gpu=index ] && [ \"$2\" = --format=csv,noheader ] || exit 9\nprintf '0\\n1\\n2\\n3\\n'");
        assertThat(LocalGpus.detect(dir.toString(), 8)).isEqualTo(4);
    }

    @Test
    void fallsBackToTheVirtualCount() throws IOException {
        assertThat(LocalGpus.detect(dir.toString(), 8)).as("not on the PATH").isEqualTo(8);
        assertThat(LocalGpus.detect(null, 3)).isEqualTo(3);
        fakeSmi("echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver'; exit 9");
        assertThat(LocalGpus.detect(dir.toString(), 8)).as("failing").isEqualTo(8);
        fakeSmi("echo 'No devices were found'");
        assertThat(LocalGpus.detect(dir.toString(), 6)).as("unparseable").isEqualTo(6);
        fakeSmi("true");
        assertThat(LocalGpus.detect(dir.toString(), 5)).as("none listed").isEqualTo(5);
    }

    @Test
    void parsesOnlyIndexes() {
        assertThat(LocalGpus.parseIndexes("0\n1\n\n")).isEqualTo(2);
        assertThatThrownBy(() -> LocalGpus.parseIndexes("0, Tesla")).isInstanceOf(IllegalArgumentException.class);
    }
}
