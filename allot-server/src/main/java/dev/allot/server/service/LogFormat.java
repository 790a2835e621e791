package dev.allot.server.service;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.URL;
import java.util.Locale;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * The format of the service's logs, one line per event on standard error: {@link #TEXT} (time, level, logger,
 * message, then the event's {@code key=value} pairs) or {@link #JSON} (one JSON object per line, the key-value pairs
 * as top-level fields). Both come from {@code logback.xml}; {@link #apply} reloads it with the chosen one.
 */
public enum LogFormat {
    TEXT, JSON;

    /** The property {@code logback.xml} picks its appender by. */
    static final String PROPERTY = "allot.log.format";

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code text} or {@code json}; the message names the choices. */
    public static LogFormat parse(String text) {
        for (LogFormat f : values()) {
            if (f.label().equals(text)) {
                return f;
            }
        }
        throw new IllegalArgumentException("--log-format expects text or json, got '" + text + "'");
    }

    /** Reconfigures logging with this format (when logback is the SLF4J binding; otherwise does nothing). */
    public void apply() {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            return;
        }
        URL config = LogFormat.class.getClassLoader().getResource("logback.xml");
        if (config == null) {
            return;
        }
        context.reset();
        context.putProperty(PROPERTY, label());
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        try {
            configurator.doConfigure(config);
        } catch (JoranException e) {
            throw new IllegalStateException("could not configure logging from " + config + ": " + e.getMessage(), e);
        }
    }
}
