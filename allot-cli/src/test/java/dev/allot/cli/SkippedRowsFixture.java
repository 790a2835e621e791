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

    /** The tiny example whose workloads.csv is a header and {@code count} rows of 'many' GPUs, from line 2 on. */
    static Path tinyWithOnlyBadRows(Path tmp, int count) throws IOException {
        Path dir = tinyWithBadRows(tmp, count);
        List<String> lines = Files.readAllLines(dir.resolve("workloads.csv"));
        List<String> kept = new java.util.ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("id,") || line.startsWith("bad-")) {
                kept.add(line);
            }
        }
        Files.write(dir.resolve("workloads.csv"), kept);
        return dir;
    }

    /** What --lenient refuses of {@link #tinyWithOnlyBadRows} with 7 rows: the file, the count, the first five. */
    static final String ALL_SEVEN_REJECTED = "allot: workloads.csv: no row became a workload: 7 rows were rejected"
            + " (--lenient skips bad rows, but a run needs at least one workload); the first:"
            + " workloads.csv:2:5: field 'gpus': expected a whole number >= 1, got 'many';"
            + " workloads.csv:3:5: field 'gpus': expected a whole number >= 1, got 'many';"
            + " workloads.csv:4:5: field 'gpus': expected a whole number >= 1, got 'many';"
            + " workloads.csv:5:5: field 'gpus': expected a whole number >= 1, got 'many';"
            + " workloads.csv:6:5: field 'gpus': expected a whole number >= 1, got 'many'; and 2 more\n";
}
