package dev.allot.slurm;

import dev.allot.core.backend.BackendUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs Slurm's commands: always with {@code SLURM_CONF} set (never a DNS lookup for the controller), a timeout
 * after which the command is killed and its outcome unknown, and both outputs kept. {@code sbatch} runs isolated
 * ({@link #runIsolated}): a built environment and umask 077, since a job takes both from it.
 */
final class Commands {
    private final Path binDir;
    private final Path slurmConf;
    private final Duration timeout;

    Commands(SlurmConfig config) {
        this.binDir = config.binDir();
        this.slurmConf = config.slurmConf();
        this.timeout = config.commandTimeout();
    }

    /** What a command printed and how it exited. */
    record Result(List<String> command, int exit, String out, String err) {
        boolean ok() {
            return exit == 0;
        }

        /** One line for logs and errors: the command, its exit and the first line of its error output. */
        String summary() {
            String e = err.strip();
            int nl = e.indexOf('\n');
            return String.join(" ", command.subList(0, Math.min(2, command.size()))) + (command.size() > 2 ? " ..." : "")
                    + " exited " + exit + (e.isEmpty() ? "" : ": " + (nl < 0 ? e : e.substring(0, nl)));
        }
    }

    /**
     * Runs {@code program args...} with {@code env} added to the environment.
     *
     * @throws BackendUnavailableException if it could not be run or did not finish in time (it was killed)
     */
    Result run(String program, List<String> args, Map<String, String> env) {
        List<String> cmd = new ArrayList<>();
        cmd.add(binDir == null ? program : binDir.resolve(program).toString());
        cmd.addAll(args);
        return exec(program, cmd, cmd, env, false);
    }

    /**
     * Runs {@code program args...} with exactly {@code env} and {@code SLURM_CONF} as its environment (nothing of
     * the service's own) and umask 077: for {@code sbatch}, whose own umask becomes the job's (and so that of the
     * job's output file), and whose environment must not carry the service's secrets anywhere.
     *
     * @throws BackendUnavailableException if it could not be run or did not finish in time (it was killed)
     */
    Result runIsolated(String program, List<String> args, Map<String, String> env) {
        List<String> cmd = new ArrayList<>();
        cmd.add(executable(program));
        cmd.addAll(args);
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", "unset PWD; umask 077 && exec \"$0\" \"$@\""));
        argv.addAll(cmd);
        return exec(program, cmd, argv, env, true);
    }

    /** The program's path: in the configured directory, else found on the service's PATH (the child has none). */
    String executable(String program) {
        if (binDir != null) {
            return binDir.resolve(program).toString();
        }
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "" : path).split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p.toAbsolutePath().toString();
            }
        }
        return program; // not found: running it fails, and says so
    }

    private Result exec(String program, List<String> cmd, List<String> argv, Map<String, String> env,
                        boolean clean) {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("allot-slurm", ".out");
            err = Files.createTempFile("allot-slurm", ".err");
            ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            if (clean) {
                pb.environment().clear();
            }
            pb.environment().putAll(env);
            if (slurmConf != null) {
                pb.environment().put("SLURM_CONF", slurmConf.toString());
            }
            Process p = pb.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                throw new BackendUnavailableException(program + " did not answer within " + timeout.toMillis()
                        + " ms (killed); its outcome is unknown");
            }
            return new Result(cmd, p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new BackendUnavailableException("could not run " + cmd.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while running " + program, e);
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    Result run(String program, List<String> args) {
        return run(program, args, Map.of());
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // a temp file left behind is harmless
            }
        }
    }
}
