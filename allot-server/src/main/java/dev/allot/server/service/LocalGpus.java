package dev.allot.server.service;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many GPUs this machine has: what {@code nvidia-smi --query-gpu=index --format=csv,noheader} lists when
 * {@code nvidia-smi} is on the {@code PATH}, else a configured number of virtual GPUs. A failing {@code nvidia-smi}
 * is logged as a warning and the virtual count used.
 */
public final class LocalGpus {
    private static final Logger LOG = LoggerFactory.getLogger(LocalGpus.class);
    static final String NVIDIA_SMI = "nvidia-smi";
    private static final long TIMEOUT_SECONDS = 20;

    private LocalGpus() {
    }

    /** The GPUs of this machine: nvidia-smi's count when it is on the PATH and answers, else {@code virtualGpus}. */
    public static int detect(int virtualGpus) {
        return detect(System.getenv("PATH"), virtualGpus);
    }

    /** {@link #detect(int)} with the search path given (for tests). */
    static int detect(String searchPath, int virtualGpus) {
        Path smi = onPath(searchPath, NVIDIA_SMI);
        if (smi == null) {
            return virtualGpus;
        }
        try {
            Process p = new ProcessBuilder(smi.toString(), "--query-gpu=index", "--format=csv,noheader")
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                LOG.warn("nvidia-smi did not answer within {} s; using {} virtual GPUs", TIMEOUT_SECONDS, virtualGpus);
                return virtualGpus;
            }
            if (p.exitValue() != 0) {
                LOG.warn("nvidia-smi failed (exit {}: {}); using {} virtual GPUs", p.exitValue(), firstLine(out),
                        virtualGpus);
                return virtualGpus;
            }
            int count = parseIndexes(out);
            if (count == 0) {
                LOG.warn("nvidia-smi lists no GPUs; using {} virtual GPUs", virtualGpus);
                return virtualGpus;
            }
            return count;
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("could not read the GPUs from nvidia-smi ({}); using {} virtual GPUs", e.getMessage(), virtualGpus);
            return virtualGpus;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return virtualGpus;
        }
    }

    /** The number of GPU indexes in nvidia-smi's CSV (one integer a line); refuses anything else. */
    static int parseIndexes(String csv) {
        int count = 0;
        for (String line : csv.lines().map(String::trim).filter(l -> !l.isEmpty()).toList()) {
            try {
                Integer.parseInt(line);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("unexpected line '" + line + "'", e);
            }
            count++;
        }
        return count;
    }

    static String firstLine(String text) {
        List<String> lines = text.lines().map(String::trim).filter(l -> !l.isEmpty()).limit(1).toList();
        return lines.isEmpty() ? "no output" : lines.get(0);
    }

    private static Path onPath(String searchPath, String program) {
        if (searchPath == null) {
            return null;
        }
        for (String dir : searchPath.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }
}
