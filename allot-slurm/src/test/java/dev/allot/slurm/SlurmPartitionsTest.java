package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.BackendException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * At start, the Slurm backend refuses a partition the cluster does not have: with {@code --slurm-partition nosuch}
 * the service started, and every workload then failed for good ("Invalid partition name specified"). A stand-in
 * {@code scontrol} answers {@code scontrol -o show partition}.
 */
class SlurmPartitionsTest {
    @TempDir
    Path bin;

    private Commands scontrolAnswering(int rc, String out) throws IOException {
        Path p = bin.resolve("scontrol");
        Files.writeString(p, "#!/bin/sh\nprintf '%s' '" + out + "'\nexit " + rc + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new Commands(config());
    }

    private SlurmConfig config() {
        return SlurmConfig.defaults(bin.resolve("slurm.conf"), bin, "inst1").withBinDir(bin);
    }

    private static final String TWO = "PartitionName=allot AllowGroups=ALL Default=YES Nodes=n[1-4] State=UP\n"
            + "PartitionName=allot-free AllowGroups=ALL Nodes=n[1-4] PriorityTier=1 State=UP\n";

    @Test
    void givenAPartitionSlurmDoesNotHaveTheStartIsRefusedNamingItAndTheOnesItHas() throws IOException {
        Commands commands = scontrolAnswering(0, TWO);

        assertThatThrownBy(() -> SlurmBackend.requirePartitions(commands, config().withPartitions("nosuch", "allot-free")))
                .isInstanceOf(BackendException.class)
                .hasMessage("the partition for allocated work (--slurm-partition) 'nosuch' is not one of this Slurm"
                        + " cluster's: allot, allot-free (scontrol show partition); every workload would fail");
        assertThatThrownBy(() -> SlurmBackend.requirePartitions(commands, config().withPartitions("allot", "spare")))
                .hasMessageStartingWith("the partition for unallocated work (--slurm-free-partition) 'spare'");
        assertThatCode(() -> SlurmBackend.requirePartitions(commands, config())).doesNotThrowAnyException();
    }

    @Test
    void givenSlurmThatCannotBeAskedNowNothingIsConcluded() throws IOException {
        // the lock that follows says whether Slurm can be reached at all; a failed probe is unknown, never "none"
        Commands commands = scontrolAnswering(1, "");
        assertThatCode(() -> SlurmBackend.requirePartitions(commands, config().withPartitions("nosuch", null)))
                .doesNotThrowAnyException();
    }
}
