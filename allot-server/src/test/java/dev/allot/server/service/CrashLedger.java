package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ledger {@link CrashSafetyTest}'s workloads write: one line when a workload's process starts and one when it
 * ends ({@code <workload> <attempt> <pid> start|end <epoch nanos>}, each an {@code O_APPEND} write of a short line, so
 * atomic). Read back, it says which (workload, attempt) ran, when, and whether its process reached its end.
 */
final class CrashLedger {
    /** The shell command a workload runs: a start line, {@code $WORK} seconds of sleep, an end line. */
    static final String SCRIPT = "echo \"$ALLOT_WORKLOAD_ID $ALLOT_ATTEMPT $$ start $(date +%s%N)\" >> \"$LEDGER\"; "
            + "sleep \"$WORK\"; "
            + "echo \"$ALLOT_WORKLOAD_ID $ALLOT_ATTEMPT $$ end $(date +%s%N)\" >> \"$LEDGER\"";

    /** One ledger line. */
    record Entry(String workload, int attempt, long pid, boolean start, long nanos) {
        String key() {
            return workload + "#" + attempt;
        }
    }

    private final Path file;

    CrashLedger(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    /** Every line, in the order written; each must be whole. */
    List<Entry> entries() throws IOException {
        List<Entry> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        for (String line : Files.readAllLines(file)) {
            String[] p = line.split(" ");
            assertThat(p).as("ledger line '%s' is whole", line).hasSize(5);
            assertThat(p[3]).isIn("start", "end");
            out.add(new Entry(p[0], Integer.parseInt(p[1]), Long.parseLong(p[2]), p[3].equals("start"),
                    Long.parseLong(p[4])));
        }
        return out;
    }

    /** The start lines by {@code workload#attempt}, in the order written. */
    static Map<String, List<Entry>> starts(List<Entry> entries) {
        Map<String, List<Entry>> starts = new LinkedHashMap<>();
        for (Entry e : entries) {
            if (e.start()) {
                starts.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
            }
        }
        return starts;
    }

    /** When the process of {@code workload#attempt} wrote its end line, if it did. */
    static Optional<Long> endNanos(List<Entry> entries, String key) {
        return entries.stream().filter(e -> !e.start() && e.key().equals(key)).map(Entry::nanos).findFirst();
    }

    /**
     * The processes started and not yet ended, still alive ({@link #process}), sorted by key: what the test may kill
     * while the service is down.
     */
    List<Entry> alive() throws IOException {
        List<Entry> entries = entries();
        List<Entry> out = new ArrayList<>();
        for (Entry s : entries) {
            if (s.start() && endNanos(entries, s.key()).isEmpty() && ServiceTestSupport.alive(s.pid())
                    && process(s).isPresent()) {
                out.add(s);
            }
        }
        out.sort((a, b) -> a.key().compareTo(b.key()));
        return out;
    }

    /**
     * The live process that wrote a start line, if it still runs: the pid, running {@link #SCRIPT} (on its command
     * line), started within a few seconds of the line, so that a reused pid is never taken for it.
     */
    static Optional<ProcessHandle> process(Entry start) {
        return ProcessHandle.of(start.pid()).filter(h -> h.info().commandLine().orElse("").contains(SCRIPT_MARK)
                && h.info().startInstant().map(i -> Math.abs(i.getEpochSecond() * 1_000_000_000L + i.getNano()
                - start.nanos()) < 5_000_000_000L).orElse(false));
    }

    /** A part of {@link #SCRIPT} that is on the command line of every workload process. */
    private static final String SCRIPT_MARK = "$ALLOT_WORKLOAD_ID $ALLOT_ATTEMPT $$ start";
}
