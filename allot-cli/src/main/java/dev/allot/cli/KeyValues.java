package dev.allot.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The repeatable {@code KEY=VALUE} options ({@code simulate --set}, {@code --contract}, {@code --trace-set},
 * {@code whatif --share} and {@code --set}): one rule
 * for how they read. A key given twice is refused naming both values: it ran with the last one and dropped the first
 * without a word ({@code --set lookback=1d --set lookback=2d} ran with 2d), where {@code sweep --set} refused it.
 */
final class KeyValues {
    private KeyValues() {
    }

    /** Each key and its value, in the order given; {@code option} names the option in messages. */
    static Map<String, String> parse(String option, List<String> given) {
        return parse(option, given, "KEY=VALUE");
    }

    /**
     * As {@link #parse(String, List)}, with the form the option expects named in messages, e.g. {@code PATH=SHARE,
     * e.g. lab/team-b=2} for {@code whatif --share} (which put a path given twice into its request once, the last
     * value, without a word).
     */
    static Map<String, String> parse(String option, List<String> given, String form) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String o : given) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(option + " expects " + form + ", got '" + o + "'");
            }
            String key = o.substring(0, eq).trim();
            String value = o.substring(eq + 1).trim();
            String earlier = out.putIfAbsent(key, value);
            if (earlier != null) {
                throw new IllegalArgumentException(option + " names '" + key + "' twice (" + earlier + ", then " + value
                        + "); give each once");
            }
        }
        return out;
    }
}
