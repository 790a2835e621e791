package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * No stack trace reaches the user: given a command that fails in a way no command maps (an I/O failure, a fault in
 * allot), {@code allot} prints one line (and, for a fault, how to get the trace) and exits 1.
 */
class UnexpectedFailureTest {
    @Command(name = "boom")
    static final class Boom implements Runnable {
        Throwable failure;

        @Override
        public void run() {
            if (failure instanceof Error e) {
                throw e;
            }
            throw (RuntimeException) failure;
        }
    }

    private static String[] run(Throwable failure) {
        Boom boom = new Boom();
        boom.failure = failure;
        CommandLine cl = AllotCommand.commandLine().addSubcommand("boom", boom);
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute("boom");
        return new String[] {Integer.toString(exit), err.toString()};
    }

    @Test
    void aFaultInAllotIsOneLineAndHowToSeeItsTraceNotTheTrace() {
        String[] r = run(new IllegalStateException("the books disagree"));
        assertThat(r[0]).isEqualTo("1");
        assertThat(r[1]).startsWith("allot: unexpected IllegalStateException: the books disagree\n")
                .contains("ALLOT_DEBUG=1").doesNotContain("\tat ");
        assertThat(r[1].strip().lines()).hasSize(2);
    }

    @Test
    void anIoFailureIsOneLineInTheOperatingSystemsWords() {
        String[] r = run(new UncheckedIOException(new AccessDeniedException("/data/x", null, "Permission denied")));
        assertThat(r[0]).isEqualTo("1");
        assertThat(r[1]).startsWith("allot: /data/x: Permission denied").doesNotContain("\tat ");
    }

    @Test
    void runningOutOfMemoryIsOneLineSayingHowToGiveMoreNotTheJvmsTrace() {
        // a workload submitted at 99999999d made the hourly series ask for more than the heap: the JVM printed
        // 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space' and its trace
        String[] r = run(new OutOfMemoryError("Java heap space"));
        assertThat(r[0]).isEqualTo("1");
        assertThat(r[1]).startsWith("allot: out of memory: the run needed more than the JVM's maximum heap of ")
                .contains("ALLOT_JAVA_OPTS=-Xmx8g").doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(r[1].strip().lines()).hasSize(1);
    }
}
