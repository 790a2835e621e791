package dev.allot.it;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * What every story on the Slurm test cluster shares: the cluster (skipped without one, failed under
 * {@code ALLOT_REQUIRE_SLURM=1}), clean before and after each story (every job cancelled, every node resumed), a
 * temporary directory for the story's Allot, and that Allot stopped afterwards. A subclass's own {@code @AfterEach}
 * runs first (JUnit runs a subclass's before its superclass's). Each story has the machine to itself unless marked
 * {@link Machine.Shares} ({@link Machine}: which stories run beside the model agreement story).
 */
@ResourceLock(providers = Machine.class)
abstract class SlurmStories {
    @TempDir
    Path dir;

    SlurmCluster slurm;
    Story story;

    @BeforeEach
    void cleanCluster() throws Exception {
        slurm = SlurmCluster.fromEnvironment();
        slurm.reset();
    }

    @AfterEach
    void stopAllotAndCleanCluster() throws Exception {
        if (story != null) {
            story.close();
        }
        if (slurm != null) {
            slurm.reset();
        }
    }
}
