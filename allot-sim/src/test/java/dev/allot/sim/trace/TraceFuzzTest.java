package dev.allot.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.Simulator;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.Mutator;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Seeded fuzzing of every trace importer: each importer's small valid fixture is mutated (see {@link Mutator}) and
 * imported, strictly or leniently. The import must succeed, and then the scenario must simulate with invariant
 * checks on, or fail with an {@link InputException} naming the trace file, on one line. Anything else (a parser's
 * own exception, a scenario the simulator refuses) fails with the seed and the mutated text.
 */
class TraceFuzzTest {
    private static final int MUTATIONS = 300;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "philly, philly.csv, 10000",
        "alibaba-openb, alibaba-openb.csv, 20000",
        "swf, sample.swf, 30000",
        "tiresias, tiresias.csv, 40000",
        "native, ../input/basic/workloads.csv, 50000",
    })
    void mutatedTracesImportOrFailWithAClearError(String format, String fixture, long firstSeed) {
        String original = Traces.text(fixture);
        String name = "fuzzed" + fixture.substring(fixture.lastIndexOf('.'));
        int rejected = 0;
        for (long seed = firstSeed; seed < firstSeed + MUTATIONS; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            String mutated = Mutator.mutate(r, original);
            boolean lenient = r.nextBoolean();
            Path file = Traces.write(tmp, name, mutated);
            try {
                Scenario s = TraceImport.of(TraceFormats.standard().get(format), file)
                        .cluster(TraceImport.uniformCluster(4, 8)).lenient(lenient).read();
                new Simulator(s, PolicyRegistry.standard(), "allocation",
                        Simulator.Options.defaults().withCheck(true)).run();
            } catch (InputException e) {
                assertThat(e.getMessage()).as(report(seed, lenient, mutated, e.getMessage()))
                        .startsWith(name).doesNotContain("\n");
                rejected++;
            } catch (Throwable t) {
                throw new AssertionError(report(seed, lenient, mutated, t.toString()), t);
            }
        }
        // the mutations must break the trace often, or the test proves little
        assertThat(rejected).as("mutations rejected").isGreaterThan(MUTATIONS / 10);
    }

    private static String report(long seed, boolean lenient, String text, String what) {
        return "seed " + seed + " (lenient " + lenient + "): " + what + "\n--- mutated text ---\n" + text
                + "\n--- end ---";
    }
}
