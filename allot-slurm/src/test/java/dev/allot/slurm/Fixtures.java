package dev.allot.slurm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Real Slurm 22.05.8 output captured from the test cluster, under {@code src/test/resources/slurm}. */
final class Fixtures {
    private Fixtures() {
    }

    static String read(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/slurm/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no fixture " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
