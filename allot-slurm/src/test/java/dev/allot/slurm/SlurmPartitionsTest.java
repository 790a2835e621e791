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

    /**
     * A stand-in scontrol as Slurm answers: {@code -o show partition} lists {@code lines}; {@code ... NAME} prints
     * NAME's line, or "Partition NAME not found" and exits 1; {@code broken} answers everything cut short, with
     * exit 0 (as the fault-injecting shims' "truncated" probes do).
     */
    private Commands scontrol(String lines, boolean broken) throws IOException {
        Path p = bin.resolve("scontrol");
        Files.writeString(p, "#!/bin/sh\n" + (broken ? "printf 'PartitionNa'; exit 0\n" : "")
                + "if [ $# = 3 ]; then printf '%s' '" + lines + "'; exit 0; fi\n"
                + "printf '%s' '" + lines + "' | grep \"^PartitionName=$4 \" && exit 0\n"
                + "echo \"Partition $4 not found\"; exit 1\n");
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
        Commands commands = scontrol(TWO, false);

        assertThatThrownBy(() -> SlurmBackend.requirePartitions(commands, config().withPartitions("nosuch", "allot-free")))
                .isInstanceOf(BackendException.class)
                .hasMessage("the partition for allocated work (--slurm-partition) 'nosuch' is not one of this Slurm"
                        + " cluster's: allot, allot-free (scontrol show partition); every workload would fail");
        assertThatThrownBy(() -> SlurmBackend.requirePartitions(commands, config().withPartitions("allot", "spare")))
                .hasMessageStartingWith("the partition for unallocated work (--slurm-free-partition) 'spare'");
        assertThatCode(() -> SlurmBackend.requirePartitions(commands, config())).doesNotThrowAnyException();
    }

    @Test
    void givenAnAnswerCutShortOrEmptyNothingIsConcluded() throws IOException {
        // a fault-injecting run (30% of probes failing, some cut short with exit 0) saw only 'allot' listed and the
        // start was refused for allot-free: only Slurm's "not found" refuses; a failed probe is unknown, never "none"
        Commands cut = scontrol(TWO, true);
        assertThatCode(() -> SlurmBackend.requirePartitions(cut, config().withPartitions("nosuch", "spare")))
                .doesNotThrowAnyException();
    }
}
