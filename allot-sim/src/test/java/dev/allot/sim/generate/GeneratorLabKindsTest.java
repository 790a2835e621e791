package dev.allot.sim.generate;

import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.Priority;
import dev.allot.core.model.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The contract of each kind of work in the {@code lab} preset. */
class GeneratorLabKindsTest {
    private static GeneratedScenario lab;
    private static Map<String, List<WorkloadSpec>> byKind;

    @BeforeAll
    static void generate() {
        lab = ScenarioGenerator.generate(GeneratorSpec.preset("lab"), 1);
        byKind = new HashMap<>();
        for (WorkloadSpec w : lab.workloads()) {
            byKind.computeIfAbsent(w.kind(), k -> new ArrayList<>()).add(w);
        }
    }

    private static double share(List<WorkloadSpec> ws, Predicate<WorkloadSpec> p) {
        return ws.stream().filter(p).count() / (double) ws.size();
    }

    private static Duration median(List<WorkloadSpec> ws) {
        return ws.stream().map(WorkloadSpec::duration).sorted().toList().get(ws.size() / 2);
    }

    @Test
    void countsPerKindWithDebugTheBulk() {
        assertThat(byKind).containsOnlyKeys("debug", "train", "interactive", "eval", "sweep");
        assertThat(lab.workloads()).hasSizeBetween(22_000, 24_000);
        assertThat(byKind.get("debug")).hasSizeBetween(17_000, 19_000);
        assertThat(byKind.get("sweep")).hasSizeBetween(2_000, 2_300);
        assertThat(byKind.get("interactive")).hasSizeBetween(1_200, 1_800);
        assertThat(byKind.get("eval")).hasSizeBetween(800, 1_400);
        // a GPU-hour budget, so the count varies: 176-270 over seeds 1-30, a few dozen of them the backlog
        assertThat(byKind.get("train")).hasSizeBetween(150, 330);
        int debug = byKind.get("debug").size();
        byKind.forEach((kind, ws) -> assertThat(ws.size()).as(kind).isLessThanOrEqualTo(debug));
    }

    @Test
    void debugIsSmallShortAndNotResumable() {
        List<WorkloadSpec> debug = byKind.get("debug");
        assertThat(debug).allSatisfy(w -> {
            assertThat(w.gpus()).isBetween(1, 8);
            assertThat(w.gpusPerNode()).isZero();
            assertThat(w.duration()).isBetween(ofMinutes(1), ofMinutes(40));
            assertThat(w.minRuntime()).isIn(ofMinutes(5), ofMinutes(10), ofMinutes(15));
            assertThat(w.resumable()).isFalse();
        });
        assertThat(share(debug, w -> Set.of(1, 2, 4, 8).contains(w.gpus()))).isGreaterThan(0.9);
        assertThat(share(debug, w -> w.gpus() == 1)).isBetween(0.4, 0.5);
        assertThat(median(debug)).isBetween(ofMinutes(4), ofMinutes(12));
        assertThat(share(debug, w -> w.duration().compareTo(ofMinutes(25)) > 0)).isBetween(0.02, 0.1);
        assertThat(share(debug, w -> w.priority() == Priority.NORMAL)).isGreaterThan(0.8);
    }

    @Test
    void trainIsWholeNodeGangsOfDecreasingFrequency() {
        List<WorkloadSpec> train = byKind.get("train");
        assertThat(train).allSatisfy(w -> {
            assertThat(w.gpus()).isIn(8, 16, 32, 64, 128);
            assertThat(w.gpusPerNode()).isEqualTo(8);
            assertThat(w.gpus() % 8).isZero();
            assertThat(w.duration()).isBetween(ofHours(1), ofHours(96));
            assertThat(w.minRuntime()).isIn(ofHours(2), ofHours(4), ofHours(6), ofHours(8), ofHours(24));
        });
        long previous = Long.MAX_VALUE;
        for (int size : new int[] {8, 16, 32, 64, 128}) {
            long n = train.stream().filter(w -> w.gpus() == size).count();
            assertThat(n).as("trains of %d GPUs", size).isPositive().isLessThan(previous);
            previous = n;
        }
        assertThat(median(train)).isBetween(ofHours(7), ofHours(13));
        assertThat(share(train, WorkloadSpec::resumable)).isBetween(0.75, 0.95);
        assertThat(train.stream().filter(w -> w.checkpointEvery() != null))
                .allSatisfy(w -> assertThat(w.checkpointEvery()).isBetween(ofMinutes(30), ofHours(2)));
        // some declare 24h, beyond the default 8h cap on minimum runtimes
        assertThat(share(train, w -> w.minRuntime().equals(ofHours(24)))).isBetween(0.05, 0.2);
        assertThat(share(train, w -> w.priority().compareTo(Priority.HIGH) >= 0)).isGreaterThan(0.4);
    }

    @Test
    void manyTeamsInflateTheirTrainingToHigh() {
        Map<String, int[]> highAndAll = new HashMap<>();
        for (WorkloadSpec w : byKind.get("train")) {
            int[] c = highAndAll.computeIfAbsent(w.allocation(), k -> new int[2]);
            c[0] += w.priority().compareTo(Priority.HIGH) >= 0 ? 1 : 0;
            c[1]++;
        }
        long inflating = highAndAll.values().stream().filter(c -> c[1] >= 5 && c[0] * 2 > c[1]).count();
        assertThat(inflating).isGreaterThanOrEqualTo(4);
    }

    @Test
    void interactiveBooksItsSessionCappedAtEightHoursAndSomeAskTwelve() {
        List<WorkloadSpec> interactive = byKind.get("interactive");
        assertThat(interactive).allSatisfy(w -> {
            assertThat(w.gpus()).isBetween(1, 2);
            assertThat(w.gpusPerNode()).isZero();
            assertThat(w.duration()).isBetween(ofHours(1), ofHours(10));
            assertThat(w.resumable()).isFalse();
            long hours = (w.duration().getSeconds() + 3599) / 3600;
            assertThat(w.minRuntime()).isIn(ofHours(Math.min(hours, 8)), ofHours(12));
        });
        assertThat(share(interactive, w -> w.minRuntime().equals(ofHours(12)))).isBetween(0.1, 0.2);
        assertThat(interactive).anySatisfy(w -> {
            assertThat(w.duration()).isGreaterThan(ofHours(8));
            assertThat(w.minRuntime()).isEqualTo(ofHours(8));
        });
    }

    @Test
    void evalIsSmallAllocatedAndAsksForAWholeNodeAtEightGpus() {
        assertThat(byKind.get("eval")).allSatisfy(w -> {
            assertThat(w.gpus()).isIn(1, 2, 4, 8);
            assertThat(w.gpusPerNode()).isEqualTo(w.gpus() == 8 ? 8 : 0);
            assertThat(w.duration()).isBetween(ofMinutes(10), ofHours(3));
            assertThat(w.minRuntime()).isIn(ofMinutes(30), ofHours(1));
            assertThat(w.allocated()).isTrue();
        });
    }

    @Test
    void sweepsAreUnallocatedResumableAndComeInBatchesFromAFewTeams() {
        List<WorkloadSpec> sweeps = byKind.get("sweep");
        assertThat(sweeps).allSatisfy(w -> {
            assertThat(w.minRuntime()).isZero();
            assertThat(w.allocated()).isFalse();
            assertThat(w.gpus()).isBetween(1, 4);
            assertThat(w.gpusPerNode()).isZero();
            assertThat(w.duration()).isBetween(ofMinutes(30), ofHours(4));
            assertThat(w.resumable()).isTrue();
        });
        assertThat(share(sweeps, w -> w.checkpointEvery() == null)).isBetween(0.3, 0.7);
        Set<String> teams = new HashSet<>();
        sweeps.forEach(w -> teams.add(w.allocation()));
        assertThat(teams).containsExactlyInAnyOrder("scaling", "rl", "optim");
        // nothing but sweeps is unallocated
        assertThat(lab.workloads().stream().filter(w -> !w.allocated())).allMatch(w -> w.kind().equals("sweep"));

        // batches: sweeps of one shape by one user, each submitted at most 3 s after the previous one
        List<Integer> batches = new ArrayList<>();
        Map<String, WorkloadSpec> last = new HashMap<>();
        Map<String, Integer> open = new HashMap<>();
        for (WorkloadSpec w : sweeps) {
            String shape = w.user() + "," + w.gpus() + "," + w.checkpointEvery() + "," + w.priority();
            WorkloadSpec prev = last.put(shape, w);
            if (prev != null && w.submitSeconds() - prev.submitSeconds() > 3) {
                batches.add(open.remove(shape));
            }
            open.merge(shape, 1, Integer::sum);
        }
        batches.addAll(open.values());
        // a stream's last batch may be cut short, and two batches of one shape may overlap and read as one
        int inRegularBatches = batches.stream().filter(n -> n >= 20 && n <= 100).mapToInt(Integer::intValue).sum();
        assertThat(inRegularBatches).isGreaterThan((int) (0.9 * sweeps.size()));
        assertThat(batches.stream().filter(n -> n < 20 || n > 100)).hasSizeLessThanOrEqualTo(5);
    }

    @Test
    void usersBelongToTheirTeamsAndEachTeamHasAFew() {
        Map<String, Set<String>> users = new HashMap<>();
        for (WorkloadSpec w : lab.workloads()) {
            assertThat(w.user()).startsWith(w.allocation() + "-u");
            users.computeIfAbsent(w.allocation(), k -> new HashSet<>()).add(w.user());
        }
        assertThat(users).hasSize(15);
        assertThat(users.values()).allSatisfy(u -> assertThat(u).hasSizeBetween(2, 5));
    }
}
