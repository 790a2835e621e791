package dev.allot.sim.input;

import java.util.regex.Pattern;

/**
 * Jackson's messages as people read them. Jackson names its own Java API in some ("the maximum allowed (1000, from
 * `StreamReadConstraints.getMaxNestingDepth()`)"): a reader of a scenario file or an API client cannot change that
 * setting and should not see the parser's class names. This is where the server's JSON bodies and the scenario's
 * YAML files drop them.
 */
public final class ParserMessages {
    /** Jackson's pointer to the setting a limit comes from, e.g. {@code , from `StreamReadConstraints.getMax...()`}. */
    private static final Pattern JAVA_SETTING = Pattern.compile(",? from `[^`]*`");

    private ParserMessages() {
    }

    /** {@code message} without the names of Jackson's settings; null stays null. */
    public static String plain(String message) {
        return message == null ? null : JAVA_SETTING.matcher(message).replaceAll("");
    }
}
