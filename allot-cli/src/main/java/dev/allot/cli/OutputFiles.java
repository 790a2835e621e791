package dev.allot.cli;

import dev.allot.sim.input.VirtualFolders;
import dev.allot.sim.input.WholeFiles;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * The one rule for every file and folder a command writes (simulate {@code --json}, {@code --report},
 * {@code --workloads-out}, {@code --events-out}; sweep {@code --csv}; report {@code --report}; generate's
 * {@code DIR}): missing parent folders are created; a path that cannot be written is refused with one line, {@code
 * cannot write OPTION PATH: REASON} (the reason in the operating system's words where it gives them), exit code
 * {@link AllotCommand#EXIT_BAD_INPUT}; an output that is a file the run reads, or that another output writes too, is
 * refused the same way ({@link #checkDistinct}); {@code -} is refused (it reads as standard output, which no output
 * option writes). Commands {@link #check} their outputs before the work (a simulation
 * can take minutes), then write through {@link #write}, which maps a failure the same way.
 */
final class OutputFiles {
    private OutputFiles() {
    }

    /** An output path that cannot be written: the message is the whole line the user sees after {@code allot: }. */
    static final class CannotWriteException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CannotWriteException(String option, Path path, String reason) {
            super("cannot write " + option + (path.toString().isEmpty() ? "" : " " + path) + ": " + reason);
        }
    }

    /** What writes an output: given the path (its parent folder exists). */
    @FunctionalInterface
    interface PathWriter {
        void write(Path file) throws IOException;
    }

    /** What writes an output as UTF-8 text. */
    @FunctionalInterface
    interface TextWriter {
        void write(Writer w) throws IOException;
    }

    /**
     * Checks, before the work, that {@code file} can be written for {@code option}: its parent folders are created
     * if missing; the path must not be a folder, and it or (when it does not exist yet) its folder must be writable.
     * Does nothing for a null path (the option was not given).
     */
    static void check(String option, Path file) {
        if (file == null) {
            return;
        }
        refuseEmpty(option, file, "file");
        createParents(option, file);
        if (Files.isDirectory(file)) {
            throw new CannotWriteException(option, file, "it is a folder");
        }
        Path target = Files.exists(file) ? file : parentOf(file);
        if (target != null && !Files.isWritable(target)) {
            throw new CannotWriteException(option, file, "permission denied" + (target == file ? "" : " on " + target));
        }
        probe(option, file);
    }

    /**
     * Makes and removes a path that does not exist yet, the one proof that its folder takes new files: for root every
     * folder reads as writable, so {@code /sys/x.csv} and {@code /proc/x} passed the check and failed after the whole
     * sweep or forecast.
     */
    private static void probe(String option, Path file) {
        if (Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.createFile(file);
            Files.delete(file);
        } catch (IOException e) {
            throw new CannotWriteException(option, file, reason(e, file));
        }
    }

    /**
     * Refuses, before the work, an output that is a file the run reads, or that another of its outputs writes too:
     * the first would destroy what was read (the results written over a scenario's {@code workloads.csv}), the second
     * would keep only the last (one path for {@code --json} and {@code --report}). Paths name the same file when they
     * do once made absolute, or when both exist and the file system says so (links).
     *
     * @param outputs each output option and its path (null: not given), in the order the command writes them
     * @param inputs  what the run reads, described ("the scenario's workloads.csv", "--submit-times"), and its path
     */
    static void checkDistinct(java.util.Map<String, Path> outputs, java.util.Map<String, Path> inputs) {
        java.util.List<java.util.Map.Entry<String, Path>> seen = new java.util.ArrayList<>();
        for (java.util.Map.Entry<String, Path> out : outputs.entrySet()) {
            if (out.getValue() == null) {
                continue;
            }
            for (java.util.Map.Entry<String, Path> in : inputs.entrySet()) {
                if (in.getValue() != null && same(out.getValue(), in.getValue())) {
                    throw new CannotWriteException(out.getKey(), out.getValue(), "it is " + in.getKey() + ", which this"
                            + " run reads; give the output another path");
                }
            }
            for (java.util.Map.Entry<String, Path> earlier : seen) {
                if (same(out.getValue(), earlier.getValue())) {
                    throw new CannotWriteException(out.getKey(), out.getValue(), earlier.getKey() + " writes it too;"
                            + " give each output its own path");
                }
            }
            seen.add(out);
        }
    }

    /** The files a run of the scenario folder {@code dir} reads, described, that exist (none for a null folder). */
    static java.util.Map<String, Path> scenarioInputs(Path dir) {
        java.util.Map<String, Path> in = new java.util.LinkedHashMap<>();
        if (dir != null) {
            for (String name : dev.allot.sim.input.ScenarioReader.INPUT_FILES) {
                Path f = dir.resolve(name);
                if (Files.isRegularFile(f)) {
                    in.put("the scenario's " + name, f);
                }
            }
        }
        return in;
    }

    private static boolean same(Path a, Path b) {
        if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
            return true;
        }
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    /** Checks a folder a command writes files into ({@code generate DIR}): created with its parents if missing. */
    static void checkFolder(String option, Path dir) {
        refuseEmpty(option, dir, "folder");
        createParents(option, dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CannotWriteException(option, dir, reason(e, dir));
        }
        if (!Files.isWritable(dir)) {
            throw new CannotWriteException(option, dir, "permission denied");
        }
    }

    /**
     * Writes {@code file} for {@code option} (parents created), whole or not at all ({@link WholeFiles}: a run
     * interrupted while writing keeps the earlier file, not a truncated one); an I/O failure becomes one line.
     */
    static void write(String option, Path file, PathWriter writer) {
        refuseEmpty(option, file, "file");
        createParents(option, file);
        try {
            WholeFiles.write(file, writer::write);
        } catch (IOException e) {
            throw new CannotWriteException(option, file, reason(e, file));
        } catch (UncheckedIOException e) {
            throw new CannotWriteException(option, file, reason(e.getCause(), file));
        }
    }

    /** Writes {@code file} for {@code option} as UTF-8 text (parents created); an I/O failure becomes one line. */
    static void writeText(String option, Path file, TextWriter writer) {
        write(option, file, f -> {
            try (BufferedWriter w = Files.newBufferedWriter(f, StandardCharsets.UTF_8)) {
                writer.write(w);
            }
        });
    }

    /** Runs a writer that reports failures unchecked (as {@code ScenarioWriter} does), mapped to one line. */
    static void writeFolder(String option, Path dir, Runnable writer) {
        try {
            writer.run();
        } catch (UncheckedIOException e) {
            throw new CannotWriteException(option, dir, reason(e.getCause(), dir));
        }
    }

    /**
     * An empty path ({@code --json ""}) names the working folder: it was refused as "cannot write --json : it is a
     * folder", which blames a folder the user never named. A path {@code -} is refused too: it reads as standard
     * output, and was a file named {@code -}.
     */
    private static void refuseEmpty(String option, Path path, String what) {
        if (path.toString().isEmpty()) {
            throw new CannotWriteException(option, path, "expected a " + what + " path, got an empty one");
        }
        if (path.toString().equals("-")) {
            // '--events-out -' wrote a file named '-' and said "wrote -", where '-' commonly means standard output;
            // the outputs are written whole through a file (WholeFiles), so standard output is refused, not faked
            throw new CannotWriteException(option, path, "expected a " + what + " path; '-' (standard output) is"
                    + " not supported for this option, give a path such as ./" + (what.equals("file") ? "out.txt"
                    : "out"));
        }
    }

    private static void createParents(String option, Path file) {
        Path parent = parentOf(file);
        if (parent == null || Files.isDirectory(parent)) {
            return;
        }
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw new CannotWriteException(option, file, reason(e, parent));
        }
    }

    private static Path parentOf(Path file) {
        return file.toAbsolutePath().normalize().getParent();
    }

    /** The operating system's reason for an I/O failure, in words, naming the path it is about when not the output. */
    static String reason(IOException e, Path about) {
        String path = e instanceof FileSystemException fse && fse.getFile() != null ? fse.getFile() : about.toString();
        if (e instanceof FileAlreadyExistsException || e instanceof NotDirectoryException) {
            // createDirectories met a file where a folder should be
            Path p = Path.of(path);
            return Files.isDirectory(p) ? path + " already exists" : firstFileOnTheWay(p) + " is a file, not a folder";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied" + (path.equals(about.toString()) ? "" : " on " + path);
        }
        if (e instanceof NoSuchFileException) {
            String refused = refusedInExistingFolder(Path.of(path));
            return refused != null ? refused
                    : "no such file or folder" + (path.equals(about.toString()) ? "" : ": " + path);
        }
        if (e instanceof java.io.FileNotFoundException && e.getMessage() != null && e.getMessage().endsWith(")")
                && e.getMessage().contains(" (")) {
            // java.io's "/proc/x (No such file or directory)": the reason alone, in the words used above
            String why = e.getMessage().substring(e.getMessage().lastIndexOf(" (") + 2, e.getMessage().length() - 1);
            String refused = why.equals("No such file or directory") ? refusedInExistingFolder(about) : null;
            return refused != null ? refused : why.equals("No such file or directory") ? "no such file or folder"
                    : why.toLowerCase(java.util.Locale.ROOT);
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return fse.getReason().toLowerCase(java.util.Locale.ROOT);
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * The true cause when the system answered "no such file or directory" of making {@code p} in a folder that exists
     * ({@link VirtualFolders}). It said "no such file or folder" of {@code --csv /proc/nope/x.csv}, whose missing
     * folders are otherwise made. Null when {@code p}'s folder is missing too, or {@code p} exists.
     */
    private static String refusedInExistingFolder(Path p) {
        return VirtualFolders.whyNotMade(p)
                .map(why -> "could not create " + p.toAbsolutePath().normalize() + ": " + why).orElse(null);
    }

    /** The first path from the root down to {@code p} that exists and is not a folder (or {@code p} itself). */
    private static Path firstFileOnTheWay(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path at = abs.getRoot();
        for (Path part : abs) {
            at = at == null ? part : at.resolve(part);
            if (Files.exists(at) && !Files.isDirectory(at)) {
                return at;
            }
        }
        return p;
    }
}
