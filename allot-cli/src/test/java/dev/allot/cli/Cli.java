package dev.allot.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

/** Runs the allot command in-process and captures what it prints. */
final class Cli {
    /** The repository root (tests run in the module folder). */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    record Result(int exit, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = AllotCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    static String example(String name) {
        return ROOT.resolve("examples").resolve(name).toString();
    }

    private Cli() {
    }
}
