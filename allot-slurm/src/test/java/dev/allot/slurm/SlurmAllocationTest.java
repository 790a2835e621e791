package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.Launch;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Reading what Slurm allocated ({@code scontrol -o -d show job}, real 22.05.8 output captured on the test cluster,
 * whose gres.conf names devices with File=, so indexes are shown) and comparing it with Allot's placement.
 */
class SlurmAllocationTest {
    private static SlurmAllocation.NodeGres g(int gpus, Integer... idx) {
        return new SlurmAllocation.NodeGres(gpus, List.of(idx));
    }

    private static Launch.NodeGpus placed(String node, Integer... idx) {
        return new Launch.NodeGpus(node, List.of(idx));
    }

    @Test
    void aHeterogeneousJobShowsOneLinePerComponentAndEachNodesCountAndIndexesAreRead() {
        // sbatch ... --nodelist=n4 --gres=gpu:6 : ... --nodelist=n2 --gres=gpu:2 : ... --nodelist=n3 --gres=gpu:1
        SlurmAllocation a = SlurmAllocation.parse(Fixtures.read("scontrol-d-het.txt"));

        assertThat(a.nodes()).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
                "n2", g(2, 4, 5), "n3", g(1, 0), "n4", g(6, 0, 1, 2, 3, 4, 5))));
        assertThat(a.mismatch(List.of(placed("n4", 0, 1, 2, 3, 4, 5), placed("n2", 4, 5), placed("n3", 0))))
                .isEmpty();
    }

    @Test
    void aUniformJobShowsItsNodesAsOneEntryThatAppliesToEach() {
        SlurmAllocation a = SlurmAllocation.parse(Fixtures.read("scontrol-d-uniform.txt"));

        assertThat(a.nodes()).containsOnlyKeys("n1", "n2").containsEntry("n1", g(4, 0, 1, 2, 3))
                .containsEntry("n2", g(4, 0, 1, 2, 3));
    }

    @Test
    void aJobOnTheRemainingGpusOfANodeShowsTheirIndexes() {
        assertThat(SlurmAllocation.parse(Fixtures.read("scontrol-d-second.txt")).nodes())
                .containsExactly(Map.entry("n1", g(2, 4, 5)));
    }

    @Test
    void aJobWithoutGpusHasNoneAndAPendingJobHasNoAllocationToRead() {
        assertThat(SlurmAllocation.parse(Fixtures.read("scontrol-d-nogpu.txt")).nodes())
                .containsExactly(Map.entry("n3", g(0)));
        assertThatThrownBy(() -> SlurmAllocation.parse(Fixtures.read("scontrol-d-pending.txt")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PENDING, not RUNNING");
    }

    @Test
    void anAnswerCutShortDoesNotReadAsOtherGpus() {
        String het = Fixtures.read("scontrol-d-het.txt");
        // Cut right after "GRES=" (would read as 0 GPUs), mid-line, or after a whole line of three components.
        int gres = het.indexOf("GRES=") + "GRES=".length();
        assertThatThrownBy(() -> SlurmAllocation.parse(het.substring(0, gres)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cut short");
        String firstLine = het.substring(0, het.indexOf('\n') + 1);
        assertThatThrownBy(() -> SlurmAllocation.parse(firstLine)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shows 1 of the 3 components");
        assertThatThrownBy(() -> SlurmAllocation.parse("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aJobThatIsEndingShowsItsNodesWithoutGpusWhichIsNoAllocationToCompare() {
        String completing = Fixtures.read("scontrol-d-second.txt").replace("JobState=RUNNING", "JobState=COMPLETING")
                .replace("GRES=gpu:2(IDX:4-5)", "GRES=");

        assertThatThrownBy(() -> SlurmAllocation.parse(completing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("COMPLETING, not RUNNING");
    }

    @Test
    void typedGpusAndOtherGresAndIndexListsAreRead() {
        assertThat(SlurmAllocation.gres("gpu:a100:2(IDX:0,3),gpu:v100:1(IDX:5),mps:0")).isEqualTo(g(3, 0, 3, 5));
        assertThat(SlurmAllocation.gres("gpu:4(IDX:N/A)")).isEqualTo(g(4));
        assertThat(SlurmAllocation.gres("")).isEqualTo(g(0));
        assertThatThrownBy(() -> SlurmAllocation.gres("gpu:lots")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpu:lots");
    }

    @Test
    void theSplitSlurmChoseForAHostfileLayoutIsAMismatchNamingExpectedAndGot() {
        // What the task-per-GPU hostfile gave a 6 + 2 placement on the test cluster: 7 + 1.
        SlurmAllocation a = new SlurmAllocation(Map.of("n1", g(7, 0, 1, 2, 3, 4, 5, 6), "n2", g(1, 0)));

        assertThat(a.mismatch(List.of(placed("n1", 0, 1, 2, 3, 4, 5), placed("n2", 0, 1)))).hasValue(
                "Slurm allocated n1: 7 GPUs (IDX 0-6), n2: 1 GPU (IDX 0) where Allot placed n1: 6 GPUs (IDX 0-5),"
                        + " n2: 2 GPUs (IDX 0-1)");
    }

    @Test
    void theRightCountsOnOtherIndexesAreNoMismatchButAnIndexDifferenceNamingBoth() {
        // Seen on the test cluster: Allot avoided lanes of an attempt it still saw stopping, which Slurm had freed.
        SlurmAllocation a = new SlurmAllocation(Map.of("n4", g(2, 1, 4)));
        List<Launch.NodeGpus> placement = List.of(placed("n4", 1, 6));

        assertThat(a.mismatch(placement)).isEmpty();
        assertThat(a.indexDifference(placement))
                .hasValue("Slurm allocated n4: 2 GPUs (IDX 1,4) where Allot placed n4: 2 GPUs (IDX 1,6)");
        assertThat(a.indexDifference(List.of(placed("n4", 1, 4)))).isEmpty();
        assertThat(new SlurmAllocation(Map.of("n4", g(2))).indexDifference(placement)).isEmpty();
    }

    @Test
    void gpusOnAnotherNodeOrAnExtraNodeAreAMismatchAndWithoutIndexesTheCountDecides() {
        List<Launch.NodeGpus> placement = List.of(placed("n1", 2, 3));

        assertThat(new SlurmAllocation(Map.of("n2", g(2, 2, 3))).mismatch(placement)).isPresent();
        assertThat(new SlurmAllocation(Map.of("n1", g(2, 2, 3), "n2", g(1, 0))).mismatch(placement)).isPresent();
        // A cluster without File= devices shows counts only: the count decides.
        assertThat(new SlurmAllocation(Map.of("n1", g(2))).mismatch(placement)).isEmpty();
        assertThat(new SlurmAllocation(Map.of("n1", g(3))).mismatch(placement))
                .hasValue("Slurm allocated n1: 3 GPUs where Allot placed n1: 2 GPUs");
    }
}
