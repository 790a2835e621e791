package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The health check with small shell scripts: verdicts, recorded changes only, and probes that tell nothing. */
class HealthCheckerTest {
    static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");

    @TempDir
    Path dir;
    Store store;
    final AtomicInteger nudges = new AtomicInteger();

    @BeforeEach
    void open() {
        store = Store.sqlite(dir.resolve("data"));
        store.nodes().putNode(new Node("gpu-01", 8, true, null, T0.toEpochMilli()));
        store.nodes().putNode(new Node("gpu-02", 8, true, null, T0.toEpochMilli()));
    }

    @AfterEach
    void close() {
        store.close();
    }

    Path script(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    HealthChecker checker(Path script, Duration timeout) {
        return new HealthChecker(store, script.toString(), timeout, new MutableClock(T0), nudges::incrementAndGet);
    }

    Node node(String name) {
        return store.nodes().nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void nonZeroExitMarksUnhealthyWithTheFirstLineAndZeroHealthyAgain() throws IOException {
        Path flag = dir.resolve("broken");
        Path s = script("check.sh", "if [ \"$1\" = gpu-02 ] && [ \"$ALLOT_NODE\" = gpu-02 ] && [ -e " + flag + " ]; then\n"
                + "  echo 'GPU 3: Xid 79 (fallen off the bus)'; echo 'second line' >&2; exit 3\nfi\nexit 0");
        HealthChecker c = checker(s, Duration.ofSeconds(30));

        assertThat(c.checkAll()).isZero();
        assertThat(nudges).hasValue(0);

        Files.createFile(flag);
        assertThat(c.checkAll()).isEqualTo(1);
        assertThat(node("gpu-02").healthy()).isFalse();
        assertThat(node("gpu-02").reason()).isEqualTo("GPU 3: Xid 79 (fallen off the bus)");
        assertThat(node("gpu-01").healthy()).isTrue();
        assertThat(nudges).hasValue(1);

        assertThat(c.checkAll()).as("no change, nothing recorded").isZero();
        assertThat(nudges).hasValue(1);

        Files.delete(flag);
        assertThat(c.checkAll()).isEqualTo(1);
        assertThat(node("gpu-02").healthy()).isTrue();
        assertThat(node("gpu-02").reason()).isNull();
        assertThat(nudges).hasValue(2);
        assertThat(store.allocations().audit(10)).as("each change audited as the health check, and only changes")
                .extracting(e -> e.action() + " " + e.subject() + " by " + e.actor() + " " + e.afterJson())
                .containsExactly(
                        "node.health node:gpu-02 by system:health-check"
                                + " {\"name\":\"gpu-02\",\"gpus\":8,\"healthy\":true,\"reason\":null}",
                        "node.health node:gpu-02 by system:health-check {\"name\":\"gpu-02\",\"gpus\":8,"
                                + "\"healthy\":false,\"reason\":\"GPU 3: Xid 79 (fallen off the bus)\"}");
    }

    @Test
    void aProbeThatTimesOutOrCannotRunChangesNothing() throws IOException {
        store.nodes().setHealth("gpu-01", false, "by hand", T0.toEpochMilli());
        HealthChecker slow = checker(script("slow.sh", "sleep 30"), Duration.ofMillis(200));
        assertThat(slow.probe("gpu-02").verdict()).isEqualTo(HealthChecker.Verdict.UNKNOWN);
        assertThat(slow.checkAll()).isZero();

        HealthChecker missing = checker(dir.resolve("no-such-script"), Duration.ofSeconds(30));
        // sh runs, the command is not found (exit 127): unknown too, never unhealthy.
        assertThat(missing.probe("gpu-02").verdict()).isEqualTo(HealthChecker.Verdict.UNKNOWN);
        assertThat(missing.checkAll()).isZero();

        assertThat(node("gpu-01").healthy()).isFalse();
        assertThat(node("gpu-01").reason()).isEqualTo("by hand");
        assertThat(node("gpu-02").healthy()).isTrue();
        assertThat(nudges).hasValue(0);
    }
}
