package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptOutput;
import dev.allot.core.backend.BackendException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code allot logs} on Slurm: an attempt's output is the file its job writes ({@code allot-<jobid>.out}, see
 * {@link SlurmActions#sbatchArgs}), on the node that ran its script. Where that file is readable from the service's
 * host (a shared home or {@code --slurm-workdir}, or one machine, as on the test cluster), its end is read; where it
 * is not, the error names the file and the node. Before, the service never read it and said only "allot-<Slurm job
 * id>.out in the submitter's home", which was not even where it was for an account without a home ({@code /tmp}).
 *
 * <p>The job is found by its attempt's name among this instance's jobs (the oldest, as the observer keeps), and the
 * file from what Slurm says of the job ({@code StdOut=}, {@code UserId=}). The service may run as root, and the file
 * lies in a folder its user controls, so it is read only if it is what Allot made: named {@code allot-<jobid>.out},
 * a regular file and not a link, owned by the job's own user, the same file when opened as when checked. Anything
 * else is refused, naming it. Slurm no longer knowing the job (older than its {@code MinJobAge}) means no output
 * here: {@link #read} is empty and the backend's general word on where output goes stands.
 *
 * <p>Takes no lock of the backend's: a read runs two Slurm commands (a listing and one job) and a file read, and
 * must not wait for a scheduling cycle's commands, nor make them wait.
 */
final class SlurmOutput {
    private static final Pattern UID = Pattern.compile("\\((\\d+)\\)$");

    private final String instance;
    private final SlurmProbe probe;
    private final SlurmActions actions;

    SlurmOutput(String instance, SlurmProbe probe, SlurmActions actions) {
        this.instance = instance;
        this.probe = probe;
        this.actions = actions;
    }

    /**
     * The end of the attempt's output, empty when Slurm knows no job of it.
     *
     * @throws BackendException if Slurm could not be asked, or the job's output file cannot be read here (saying
     *                          where it is and why)
     */
    Optional<AttemptOutput> read(AttemptKey key, int maxBytes) {
        String name = JobTag.name(key);
        SlurmJob job = null;
        for (SlurmJob j : SlurmJob.joinComponents(probe.jobs())) {
            boolean ours = JobTag.instance(j.comment()).map(instance::equals).orElse(false);
            if (j.name().equals(name) && ours && (job == null || j.id() < job.id())) {
                job = j;
            }
        }
        if (job == null) {
            return Optional.empty();
        }
        if (job.pending()) {
            return Optional.of(new AttemptOutput("", 0, 0)); // nothing written yet
        }
        Optional<List<String>> shown = actions.showJob(job.id());
        if (shown.isEmpty()) {
            return Optional.empty();
        }
        String line = shown.get().get(0);
        String out = CliProbe.field(line, "StdOut");
        String host = CliProbe.field(line, "BatchHost");
        String where = "Slurm job " + job.id() + " writes " + key + "'s output to " + out
                + (host.isEmpty() || host.equals("(null)") ? "" : " on " + host);
        Matcher uid = UID.matcher(CliProbe.field(line, "UserId"));
        if (out.isEmpty() || !uid.find()) {
            throw new BackendException("Slurm did not say where job " + job.id() + " of " + key + " writes its"
                    + " output (scontrol -o show job " + job.id() + " names no StdOut= or UserId=)");
        }
        return Optional.of(readOwned(Path.of(out), job.id(), Long.parseLong(uid.group(1)), maxBytes, where));
    }

    /**
     * The end of {@code file} if it is Allot's output file of job {@code jobId}, owned by {@code uid}; {@code where}
     * starts every refusal. A file that is not there yet (the job has not started) is empty output.
     */
    static AttemptOutput readOwned(Path file, long jobId, long uid, int maxBytes, String where) {
        if (!file.isAbsolute() || !file.getFileName().toString().equals("allot-" + jobId + ".out")) {
            throw new BackendException(where + ", not a file Allot names (allot-" + jobId + ".out): not read");
        }
        try {
            BasicFileAttributes before = Files.readAttributes(file, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            Object owner = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!before.isRegularFile() || !(owner instanceof Integer o) || o != uid) {
                throw new BackendException(where + ", which is " + (before.isRegularFile() ? "owned by uid " + owner
                        : "not a regular file") + " where the job ran as uid " + uid + ": not read");
            }
            try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ,
                    LinkOption.NOFOLLOW_LINKS)) {
                BasicFileAttributes opened = Files.readAttributes(file, BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
                if (before.fileKey() == null || !before.fileKey().equals(opened.fileKey())) {
                    throw new BackendException(where + ", which was replaced while it was opened: not read");
                }
                long size = ch.size();
                long from = Math.max(0, size - maxBytes);
                ByteBuffer buf = ByteBuffer.allocate((int) (size - from));
                ch.position(from);
                while (buf.hasRemaining() && ch.read(buf) > 0) {
                    // read to the size seen: what is written meanwhile is for the next read
                }
                byte[] bytes = java.util.Arrays.copyOf(buf.array(), buf.position());
                int start = AttemptOutput.lineStart(bytes, from);
                return new AttemptOutput(new String(bytes, start, bytes.length - start, StandardCharsets.UTF_8),
                        from + bytes.length, from + start);
            }
        } catch (NoSuchFileException e) {
            throw new BackendException(where + ", which is not on this host (the node's folder is not shared with"
                    + " the service's host, or the job has not started); read it there");
        } catch (IOException | UnsupportedOperationException e) {
            throw new BackendException(where + ", which could not be read here: " + e.getMessage()
                    + "; read it there", e);
        }
    }
}
