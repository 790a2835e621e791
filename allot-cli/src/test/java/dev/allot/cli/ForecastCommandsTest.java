package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Allocation;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot explain} and {@code allot queue} show the forecast start of waiting work, against a real API server
 * whose forecasts come from a real scheduling loop's state (one 8-GPU node, a fixed clock, cycles and forecasts run by
 * hand). The story is worked by hand: a workload declared to run 1h holds the node from 09:00; the next waiting one
 * (declared 2h) starts at 10:00, the one after it (declaring nothing: the stated default, 1h) at 12:00.
 */
class ForecastCommandsTest {
    static final String X = "lab/x";

    @TempDir
    Path dataDir;

    LoopApi api;

    @AfterEach
    void stop() {
        if (api != null) {
            api.close();
        }
    }

    private String submit(String duration) {
        return duration == null
                ? api.submit("alice", "--allocation", X, "--gpus", "8", "--min-runtime", "0", "--", "train.py")
                : api.submit("alice", "--allocation", X, "--gpus", "8", "--min-runtime", "0", "--duration", duration,
                "--", "train.py");
    }

    @Test
    void explainAndQueueShowTheForecastStartWithItsAssumptions() {
        api = LoopApi.start(dataDir, List.of("alice"), store -> {
            long t = LoopApi.NOW.toEpochMilli();
            store.allocations().putAllocation(new Allocation("lab", 1, List.of(), List.of()), "root", t);
            store.allocations().putAllocation(new Allocation(X, 1, List.of(), List.of("alice")), "root", t);
        });
        String running = submit("1h");
        api.loop.runOnce();
        String next = submit("2h");
        String after = submit(null);
        api.loop.runOnce();

        Cli.Result before = api.as("alice", "queue");
        assertThat(before.exit()).as(before.err()).isZero();
        assertThat(before.out()).contains("EXPECTED START");
        assertThat(row(before.out(), next)).endsWith(" -");

        api.forecaster.forecastNow().orElseThrow();

        Cli.Result explain = api.as("alice", "explain", next);
        assertThat(explain.exit()).as(explain.err()).isZero();
        assertThat(explain.out()).contains("  Forecast (made at 2026-03-01T09:00:00.000Z from 10 futures played with the"
                + " policy allocation (defaults)): likely to start at 2026-03-01T10:00:00.000Z, p10-p90"
                + " 2026-03-01T10:00:00.000Z to 2026-03-01T10:00:00.000Z. It assumes its own duration from: declared;");
        assertThat(explain.out()).contains("new work: no new work (less than an hour of history).");
        Cli.Result explainAfter = api.as("alice", "explain", after);
        assertThat(explainAfter.out()).contains("likely to start at 2026-03-01T12:00:00.000Z")
                .contains("its own duration from: default 1h;");

        Cli.Result queue = api.as("alice", "queue");
        assertThat(row(queue.out(), next)).endsWith(" 2026-03-01T10:00:00.000Z");
        assertThat(row(queue.out(), after)).endsWith(" 2026-03-01T12:00:00.000Z");
        assertThat(row(queue.out(), running)).endsWith(" -");
    }

    private static String row(String out, String id) {
        return out.lines().filter(l -> l.startsWith(id + " ")).findFirst().orElseThrow().stripTrailing();
    }
}
