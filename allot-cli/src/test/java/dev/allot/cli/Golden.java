package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under {@code src/test/resources/golden}. Regenerate after an intended change with
 * {@code mvn -B test -pl allot-cli -am -Dgolden.update=true} and review the diff before committing.
 */
final class Golden {
    private static final Path DIR = Path.of("src/test/resources/golden");

    static void check(String name, String actual) throws IOException {
        Path file = DIR.resolve(name);
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(DIR);
            Files.writeString(file, actual, StandardCharsets.UTF_8);
        }
        assertThat(file).as("golden file %s (regenerate with -Dgolden.update=true)", file).exists();
        assertThat(actual).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }

    private Golden() {
    }
}
