package dev.allot.cli;

import java.io.PrintStream;
import java.util.function.Consumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * The progress bar of the commands that run many simulations (sweep, campaign simulate), on standard error. On a
 * terminal it redraws one line in place; otherwise (a log file, CI, a pipe) it writes a plain line, no bar drawn
 * ({@code sweep: 3/5 done (60%), 1m4s elapsed}), at most every {@link #LOG_INTERVAL_MILLIS} and at the end, none
 * before the first step: redrawing with carriage returns wrote a second's worth of bars run together into one line
 * of a log, and the bar's drawing ({@code sweep   0% [      ] 0/1 (0:00:00 / ?)}) is for a terminal's eyes.
 */
final class ProgressBars {
    /** How often a progress line is written when standard error is not a terminal. */
    static final int LOG_INTERVAL_MILLIS = 10_000;

    private ProgressBars() {
    }

    /** A bar over {@code max} steps named {@code task}, drawn as this process's terminal allows. */
    static ProgressBar open(String task, long max) {
        return open(task, max, standardErrorIsATerminal(), System.err);
    }

    /**
     * Whether standard error, where the bar is drawn, is a terminal. {@code System.console()} says whether standard
     * input and output are: {@code allot sweep DIR 2> log} on a terminal drew the live bar into the log. Where the
     * system names a process's open files (Linux's /proc/self/fd), standard error's own target is asked.
     */
    static boolean standardErrorIsATerminal() {
        java.nio.file.Path fd = java.nio.file.Path.of("/proc/self/fd/2");
        try {
            if (java.nio.file.Files.isSymbolicLink(fd)) {
                String target = java.nio.file.Files.readSymbolicLink(fd).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
            }
        } catch (java.io.IOException | SecurityException e) {
            // not said: as the console says
        }
        return System.console() != null;
    }

    /** A log's line of progress, no bar drawn; empty (not written) before the first step. */
    static String plainLine(me.tongfei.progressbar.ProgressState s) {
        if (s.getCurrent() <= 0) {
            return "";
        }
        long max = s.getMax();
        return s.getTaskName() + ": " + s.getCurrent() + "/" + max + " done"
                + (max > 0 ? " (" + s.getCurrent() * 100 / max + "%)" : "") + ", "
                + dev.allot.core.model.Durations.formatSeconds(s.getTotalElapsed().getSeconds()) + " elapsed";
    }

    /**
     * {@link #open(String, long)} with whether a terminal is there said explicitly.
     *
     * @param interactive draw in place (a terminal), else whole lines
     */
    static ProgressBar open(String task, long max, boolean interactive, PrintStream err) {
        ProgressBarBuilder b = new ProgressBarBuilder().setTaskName(task).setInitialMax(max)
                .setStyle(ProgressBarStyle.ASCII);
        if (interactive) {
            return b.setConsumer(new ConsoleProgressBarConsumer(err)).build();
        }
        String[] last = {null};
        Consumer<String> line = l -> {
            String text = l.strip();
            if (!text.isEmpty() && !text.equals(last[0])) { // the bar draws its last state twice: at the last step and when closed
                err.println(text);
                err.flush();
                last[0] = text;
            }
        };
        return b.setConsumer(new DelegatingProgressBarConsumer(line)).setUpdateIntervalMillis(LOG_INTERVAL_MILLIS)
                .setRenderer((state, width) -> plainLine(state)).build();
    }
}
