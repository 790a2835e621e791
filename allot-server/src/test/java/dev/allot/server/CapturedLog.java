package dev.allot.server;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The events one class logs while a test provokes them, kept instead of printed: a test that makes the server log
 * an error on purpose checks that it was logged (with what) and leaves the build's output clean, where a stack
 * trace would read as a failure. Only that logger is taken over, only until {@link #close}.
 */
public final class CapturedLog implements AutoCloseable {
    private final Logger logger;
    private final boolean additive;
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();

    private CapturedLog(Class<?> of) {
        this.logger = (Logger) LoggerFactory.getLogger(of);
        this.additive = logger.isAdditive();
        events.start();
        logger.addAppender(events);
        logger.setAdditive(false);
    }

    /** Captures what {@code of}'s logger logs from now until {@link #close}. */
    public static CapturedLog of(Class<?> of) {
        return new CapturedLog(of);
    }

    /** The events so far, oldest first. */
    public List<ILoggingEvent> events() {
        return List.copyOf(events.list);
    }

    @Override
    public void close() {
        logger.detachAppender(events);
        logger.setAdditive(additive);
        events.stop();
    }
}
