package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Seeded fuzzing of every input file: small valid fixtures are mutated (characters deleted, inserted or
 * replaced, lines duplicated, dropped or swapped, the text truncated) and read. Reading must succeed or throw an
 * {@link InputException} whose message starts with the name of the mutated file (or of the workloads file, which
 * a changed cluster or tree can legitimately invalidate). Anything else fails with the seed and the text.
 */
class InputFuzzTest {
    private static final int MUTATIONS = 300;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({
        "basic, cluster.yaml, 1000",
        "basic, allocations.yaml, 2000",
        "basic, policy.yaml, 3000",
        "basic, workloads.csv, 4000",
        "jsonl, workloads.jsonl, 5000",
        "instants, cluster.yaml, 6000",
        "instants, workloads.csv, 7000",
    })
    void mutatedFilesFailOnlyWithInputExceptions(String fixture, String file, long firstSeed) {
        Path dir = Folders.copy(fixture, tmp);
        String original = Folders.resource(fixture, file);
        List<String> blamable = blamable(file);
        PolicyRegistry registry = PolicyRegistry.standard();
        int failures = 0;
        for (long seed = firstSeed; seed < firstSeed + MUTATIONS; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            String mutated = Mutator.mutate(r, original);
            boolean lenient = r.nextBoolean();
            Folders.write(dir, file, mutated);
            try {
                ScenarioReader.read(dir, lenient, registry);
            } catch (InputException e) {
                if (blamable.stream().noneMatch(f -> e.getMessage().startsWith(f))) {
                    throw new AssertionError(report(seed, lenient, file, mutated, "an InputException blaming another"
                            + " file: " + e.getMessage()), e);
                }
                assertThat(e.getMessage()).doesNotContain("\n");
                failures++;
            } catch (Throwable t) {
                throw new AssertionError(report(seed, lenient, file, mutated, t.toString()), t);
            }
        }
        // The mutations must actually break things often, or the test proves little.
        assertThat(failures).as("mutations rejected").isGreaterThan(MUTATIONS / 5);
    }

    private static List<String> blamable(String file) {
        return switch (file) {
            case "cluster.yaml", "allocations.yaml" -> List.of(file + ":", file + " ", "workloads.csv:",
                    "workloads.jsonl:");
            default -> List.of(file + ":", file + " ");
        };
    }

    private static String report(long seed, boolean lenient, String file, String text, String what) {
        return "seed " + seed + " (lenient " + lenient + "), " + file + ": " + what
                + "\n--- mutated text ---\n" + text + "\n--- end ---";
    }
}
