package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.PolicyRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
    private static final String ALPHABET = " \n\t:-,#\"'{}[]&*!|>%@`?0123456789abdhmsxyzTZ.+_\\/é\r";
    private static final String[] TOKENS = {"-1", "0", "999999999999999999999", "null", "~", "*a", "&a ", "!!int ",
        "{}", "[]", "\"", "0x1F", "1e999", ".nan", "2026-01-05T00:00:00Z", "1969-12-31T23:59:59Z", "1h30m", "---\n",
        "? ", "NaN", "\u0000", "\uFEFF", "true", ": ", "- ", "\n  ", "gpu-01", "nlp", ",,", "{\"id\": 1}"};

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
            String mutated = mutate(r, original);
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

    static String mutate(SplittableRandom r, String text) {
        String s = text;
        int ops = 1 + r.nextInt(4);
        for (int i = 0; i < ops; i++) {
            s = switch (r.nextInt(8)) {
                case 0 -> deleteChars(r, s);
                case 1 -> insert(r, s, String.valueOf(ALPHABET.charAt(r.nextInt(ALPHABET.length()))));
                case 2 -> replaceChar(r, s);
                case 3 -> insert(r, s, TOKENS[r.nextInt(TOKENS.length)]);
                case 4 -> duplicateLine(r, s);
                case 5 -> dropLine(r, s);
                case 6 -> swapLines(r, s);
                default -> s.substring(0, r.nextInt(s.length() + 1));
            };
        }
        return s;
    }

    private static String deleteChars(SplittableRandom r, String s) {
        if (s.isEmpty()) {
            return s;
        }
        int at = r.nextInt(s.length());
        int end = Math.min(s.length(), at + 1 + r.nextInt(3));
        return s.substring(0, at) + s.substring(end);
    }

    private static String insert(SplittableRandom r, String s, String what) {
        int at = r.nextInt(s.length() + 1);
        return s.substring(0, at) + what + s.substring(at);
    }

    private static String replaceChar(SplittableRandom r, String s) {
        if (s.isEmpty()) {
            return s;
        }
        int at = r.nextInt(s.length());
        return s.substring(0, at) + ALPHABET.charAt(r.nextInt(ALPHABET.length())) + s.substring(at + 1);
    }

    private static List<String> lines(String s) {
        return new ArrayList<>(Arrays.asList(s.split("\n", -1)));
    }

    private static String duplicateLine(SplittableRandom r, String s) {
        List<String> lines = lines(s);
        int at = r.nextInt(lines.size());
        lines.add(at, lines.get(at));
        return String.join("\n", lines);
    }

    private static String dropLine(SplittableRandom r, String s) {
        List<String> lines = lines(s);
        lines.remove(r.nextInt(lines.size()));
        return String.join("\n", lines);
    }

    private static String swapLines(SplittableRandom r, String s) {
        List<String> lines = lines(s);
        int a = r.nextInt(lines.size());
        int b = r.nextInt(lines.size());
        String t = lines.get(a);
        lines.set(a, lines.get(b));
        lines.set(b, t);
        return String.join("\n", lines);
    }
}
