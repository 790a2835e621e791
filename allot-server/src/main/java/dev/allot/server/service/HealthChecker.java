package dev.allot.server.service;

import dev.allot.server.store.Node;
import dev.allot.server.store.NotFoundException;
import dev.allot.server.store.Store;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The external health check: every period, for each node in the store, runs a command through {@code /bin/sh}
 * with the node's name as its argument ({@code $1}) and in {@code ALLOT_NODE}. Exit 0 means healthy; another exit
 * means unhealthy, with the first line of its output (standard output and error together) as the reason. A probe
 * that times out or cannot run (including the shell's 126 and 127: not executable, not found) tells nothing: it is logged as a warning and the node is left as it was (a broken
 * probe never takes a node out of service). Only changes are recorded in the store, and then the scheduling loop is
 * told (so a drain or a return to service is decided at once). One thread of its own; {@link #close} stops it.
 */
public final class HealthChecker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HealthChecker.class);
    /** The actor the audit trail names for changes made by the health checker. */
    public static final String ACTOR = "system:health-check";
    /** The default time one probe may take. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    private static final int MAX_REASON = 500;
    /** The shell's exits for a command it found but could not execute, and for one it did not find. */
    private static final int SH_CANNOT_EXECUTE = 126;
    private static final int SH_NOT_FOUND = 127;

    private final Store store;
    private final String command;
    private final Duration timeout;
    private final Clock clock;
    private final Runnable changed;
    private ScheduledExecutorService thread;

    /** What one probe found. */
    public enum Verdict { HEALTHY, UNHEALTHY, UNKNOWN }

    /** A probe's verdict, with the reason when unhealthy (or why it is unknown). */
    public record Probe(Verdict verdict, String reason) {
    }

    public HealthChecker(Store store, String command, Duration timeout, Clock clock, Runnable changed) {
        this.store = Objects.requireNonNull(store, "store");
        this.command = Objects.requireNonNull(command, "command");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.changed = Objects.requireNonNull(changed, "changed");
        if (command.isBlank()) {
            throw new IllegalArgumentException("the health check command must not be blank");
        }
    }

    /** Checks every node every {@code period} (the first check at once) on a daemon thread. */
    public synchronized void start(Duration period) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("the health check period must be positive, got " + period);
        }
        if (thread != null) {
            throw new IllegalStateException("the health check is already running");
        }
        thread = dev.allot.server.Daemons.single("allot-health-check");
        thread.scheduleWithFixedDelay(() -> {
            try {
                checkAll();
            } catch (RuntimeException e) {
                LOG.warn("health check round failed: {}", e.toString());
            }
        }, 0, period.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** One round: probes every node and records the changes; returns how many nodes changed. */
    public int checkAll() {
        int changes = 0;
        for (Node node : store.nodes().nodes()) {
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
            Probe p = probe(node.name());
            if (p.verdict() == Verdict.UNKNOWN) {
                LOG.atWarn().addKeyValue("node", node.name()).addKeyValue("reason", p.reason())
                        .log("health check of node {} told nothing ({}); leaving it as it is", node.name(), p.reason());
                continue;
            }
            boolean healthy = p.verdict() == Verdict.HEALTHY;
            if (healthy == node.healthy()) {
                continue;
            }
            try {
                store.nodes().setHealth(node.name(), healthy, healthy ? null : p.reason(), clock.millis(), ACTOR);
            } catch (NotFoundException e) {
                continue; // removed meanwhile
            }
            changes++;
            var event = LOG.atInfo().addKeyValue("node", node.name()).addKeyValue("healthy", healthy);
            if (!healthy) {
                event = event.addKeyValue("reason", p.reason());
            }
            event.log(healthy ? "node {} is healthy again" : "node {} is unhealthy", node.name());
        }
        if (changes > 0) {
            changed.run();
        }
        return changes;
    }

    /** Runs the command for one node. */
    public Probe probe(String node) {
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", command + " \"$1\"", "allot-health-check", node)
                .redirectErrorStream(true);
        pb.environment().put("ALLOT_NODE", node);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Probe(Verdict.UNKNOWN, "could not run the command: " + e.getMessage());
        }
        try {
            p.getOutputStream().close();
            StringBuilder out = new StringBuilder();
            Thread reader = new Thread(() -> {
                try (InputStream in = p.getInputStream()) {
                    byte[] all = in.readNBytes(64 * 1024);
                    synchronized (out) {
                        out.append(new String(all, StandardCharsets.UTF_8));
                    }
                    in.transferTo(java.io.OutputStream.nullOutputStream());
                } catch (IOException e) {
                    // the process was killed
                }
            }, "allot-health-check-output");
            reader.setDaemon(true);
            reader.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new Probe(Verdict.UNKNOWN, "no answer within " + timeout.toSeconds() + " s");
            }
            reader.join(1000);
            if (p.exitValue() == 0) {
                return new Probe(Verdict.HEALTHY, null);
            }
            String text;
            synchronized (out) {
                text = out.toString();
            }
            if (p.exitValue() == SH_CANNOT_EXECUTE || p.exitValue() == SH_NOT_FOUND) {
                return new Probe(Verdict.UNKNOWN, "the command could not run (exit " + p.exitValue() + "): "
                        + LocalGpus.firstLine(text));
            }
            String first = text.lines().map(String::trim).filter(l -> !l.isEmpty()).findFirst()
                    .orElse("the health check exited with " + p.exitValue());
            if (first.length() > MAX_REASON) {
                first = first.substring(0, MAX_REASON);
            }
            return new Probe(Verdict.UNHEALTHY, first);
        } catch (IOException e) {
            return new Probe(Verdict.UNKNOWN, e.getMessage());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Probe(Verdict.UNKNOWN, "interrupted");
        }
    }

    /** Stops the thread, killing a probe in progress. */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = thread;
            thread = null;
        }
        dev.allot.server.Daemons.stop(t, Duration.ofSeconds(5), "the health check thread");
    }
}
