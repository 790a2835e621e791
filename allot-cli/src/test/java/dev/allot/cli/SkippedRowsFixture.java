package dev.allot.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** The tiny example with rows appended that --lenient skips: 'many' GPUs, from line 17 on. */
final class SkippedRowsFixture {
    private SkippedRowsFixture() {
    }

    static Path tinyWithBadRows(Path tmp, int count) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("bad-rows"));
        for (String f : List.of("cluster.yaml", "allocations.yaml", "policy.yaml", "workloads.csv")) {
            Files.copy(Cli.ROOT.resolve("examples/tiny").resolve(f), dir.resolve(f));
        }
        StringBuilder rows = new StringBuilder();
        for (int i = 1; i <= count; i++) {
            rows.append("bad-").append(i).append(",1h,nlp-eval,cy,many,,5m,5m,false,normal,,debug\n");
        }
        Files.writeString(dir.resolve("workloads.csv"), rows, StandardOpenOption.APPEND);
        return dir;
    }
}
