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
 * terminal it redraws one line in place; otherwise (a log file, CI, a pipe) it writes a whole line at most every
 * {@link #LOG_INTERVAL_MILLIS} and at the end: redrawing with carriage returns wrote a second's worth of bars run
 * together into one line of a log.
 */
final class ProgressBars {
    /** How often a progress line is written when standard error is not a terminal. */
    static final int LOG_INTERVAL_MILLIS = 10_000;

    private ProgressBars() {
    }

    /** A bar over {@code max} steps named {@code task}, drawn as this process's terminal allows. */
    static ProgressBar open(String task, long max) {
        return open(task, max, System.console() != null, System.err);
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
            if (!text.equals(last[0])) { // the bar draws its last state twice: at the last step and when closed
                err.println(text);
                err.flush();
                last[0] = text;
            }
        };
        return b.setConsumer(new DelegatingProgressBarConsumer(line)).setUpdateIntervalMillis(LOG_INTERVAL_MILLIS)
                .build();
    }
}
