package dev.allot.server.backend;

import dev.allot.core.backend.AttemptKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * The files in which the local backend keeps what it knows of one attempt, all named {@code <workloadId>-<attempt>}
 * in the attempts directory, so that a scheduler restarted on the same data directory finds every attempt again:
 *
 * <ul>
 *   <li>{@code .log}: the attempt's stdout and stderr (created just before the process is launched)
 *   <li>{@code .pid}: the wrapper's pid and start instant, written once it is running (see {@link PidRecord})
 *   <li>{@code .claim}: the pid of the wrapper that runs the command, created exclusively by the wrapper itself: of
 *   two wrappers of one attempt only the one that created it runs anything (see {@link WorkloadLauncher})
 *   <li>{@code .exit}: the user command's exit code, written by the wrapper as it ends
 *   <li>{@code .stopped}: the backend was asked to stop it, and when the grace period runs out
 *   <li>{@code .failed}: why it could not be started
 *   <li>{@code .forgotten}: the scheduler no longer wants it reported
 *   <li>{@code .env.N}: its environment, one file per launch ({@code N} names the launch), from the launch until its
 *   wrapper has opened it, or has lost the attempt's claim
 * </ul>
 *
 * Files that must never be seen half-written are written to a {@code .tmp} sibling first and moved into place.
 */
record AttemptFiles(Path dir, AttemptKey key) {
    /** The suffixes whose presence shows an attempt was (or was being) launched here. */
    private static final List<String> TRACES = List.of(".pid", ".exit", ".failed", ".log", ".claim");

    String base() {
        return key.workloadId() + "-" + key.attempt();
    }

    Path log() {
        return dir.resolve(base() + ".log");
    }

    Path pid() {
        return dir.resolve(base() + ".pid");
    }

    Path exit() {
        return dir.resolve(base() + ".exit");
    }

    /** Created by the wrapper that runs the command (its name is the exit file's with {@code .claim} instead). */
    Path claim() {
        return dir.resolve(base() + ".claim");
    }

    /** The pid the claim holds, if the claim exists and holds one. */
    java.util.OptionalLong claimant() throws IOException {
        Optional<String> text = readIfExists(claim());
        if (text.isEmpty()) {
            return java.util.OptionalLong.empty();
        }
        try {
            return java.util.OptionalLong.of(Long.parseLong(text.get().trim()));
        } catch (NumberFormatException halfWritten) {
            return java.util.OptionalLong.empty(); // created, its pid not written yet
        }
    }

    Path stopped() {
        return dir.resolve(base() + ".stopped");
    }

    Path failed() {
        return dir.resolve(base() + ".failed");
    }

    /**
     * The prefix of the workload's environment files: every launch writes its own ({@link #environment(String)}),
     * read by its wrapper as it starts and deleted then (never a trace).
     */
    Path environment() {
        return dir.resolve(base() + ".env");
    }

    /**
     * The environment file of one launch of the attempt. One per launch: two launches of one attempt (a scheduler
     * paused inside its launch while a standby launched it again) wrote the same file, deleting and re-creating it
     * while the first launch's wrapper opened it, which then ran nothing and ended with status 2 (or could have read
     * it empty).
     */
    Path environment(String launch) {
        return dir.resolve(base() + ".env." + launch);
    }

    Path forgotten() {
        return dir.resolve(base() + ".forgotten");
    }

    /**
     * The wrapper's {@code $0}: names the attempt in the process table, so the backend can tell its own wrapper from
     * an unrelated process that happens to have the recorded pid, and find a wrapper whose pid was never recorded.
     */
    String wrapperToken() {
        return "allot:" + dir.toAbsolutePath().resolve(base());
    }

    /** Whether anything on disk shows this attempt was launched, or an attempt to launch it was made. */
    boolean anyTrace() {
        return TRACES.stream().anyMatch(suffix -> Files.exists(dir.resolve(base() + suffix)));
    }

    /** The attempt a file of the attempts directory belongs to, if it is one of the backend's trace files. */
    static Optional<AttemptKey> keyOf(String fileName) {
        for (String suffix : TRACES) {
            if (fileName.endsWith(suffix)) {
                String base = fileName.substring(0, fileName.length() - suffix.length());
                int dash = base.lastIndexOf('-');
                if (dash <= 0) {
                    return Optional.empty();
                }
                try {
                    int attempt = Integer.parseInt(base.substring(dash + 1));
                    return attempt >= 1 ? Optional.of(new AttemptKey(base.substring(0, dash), attempt))
                            : Optional.empty();
                } catch (NumberFormatException notOurs) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    /** Writes a whole file so that readers see either the old content or the new one, never a part. */
    static void writeAtomically(Path target, String content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** A file's content, or empty when it does not exist. */
    static Optional<String> readIfExists(Path file) throws IOException {
        try {
            return Optional.of(Files.readString(file));
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        }
    }

    /**
     * The content of a pid file: the wrapper's pid and when that process started, as the OS reports it. The start
     * instant is what tells the wrapper apart from a later process that was given the same pid.
     *
     * @param startInstant null when the OS did not say
     */
    record PidRecord(long pid, Instant startInstant) {
        String format() {
            return "pid=" + pid + "\nstart=" + (startInstant == null ? "unknown" : startInstant.toString()) + "\n";
        }

        /** @throws IllegalArgumentException if the text is not a pid record */
        static PidRecord parse(String text) {
            Long pid = null;
            Instant start = null;
            for (String line : text.split("\n")) {
                if (line.startsWith("pid=")) {
                    pid = Long.parseLong(line.substring(4).trim());
                } else if (line.startsWith("start=") && !line.substring(6).trim().equals("unknown")) {
                    try {
                        start = Instant.parse(line.substring(6).trim());
                    } catch (DateTimeParseException e) {
                        throw new IllegalArgumentException("bad start instant: " + line, e);
                    }
                }
            }
            if (pid == null) {
                throw new IllegalArgumentException("no pid= line in " + text.strip());
            }
            return new PidRecord(pid, start);
        }
    }
}
