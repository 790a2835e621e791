package dev.allot.core.rules;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the client counts as a secret, and how it shows one without echoing it whole: an API token ({@code allot_}
 * and its secret), and the value of a variable or {@code --option=} whose name says secret ({@code ALLOT_TOKEN},
 * {@code WANDB_API_KEY}, {@code --password=}). A workload's environment often carries the token its script reports
 * progress with; {@code allot show} printed it whole on the submitter's terminal, for whoever looks over a shoulder or
 * reads a pasted output. One rule, used by every place the client prints such a value; in the core, which the client
 * and the service both use, so that the dashboard's mirror of it ({@code secrets.js}, which masks on screen what the
 * API shows the owner whole) is held to the same examples ({@code SecretsBrowserTest}).
 */
public final class Secrets {
    /** What an API token looks like: {@code allot_} and its base64url secret. */
    public static final Pattern TOKEN_SHAPE = Pattern.compile("allot_[A-Za-z0-9_-]{16,}");

    /** Name parts that say secret wherever they stand in a name ({@code PGPASSWORD}, {@code HF_TOKEN}). */
    public static final List<String> SECRET_WORDS = List.of("TOKEN", "SECRET", "PASSW", "CREDENTIAL", "APIKEY",
            "API_KEY", "ACCESS_KEY", "PRIVATE_KEY");

    /** Name parts that say secret only as a whole part between underscores or dashes ({@code SSH_KEY}, not {@code KEYBOARD}). */
    public static final Set<String> SECRET_PARTS = Set.of("KEY", "PASS", "PWD", "AUTH");

    private static final Pattern OPTION_WITH_VALUE = Pattern.compile("(--?[A-Za-z0-9_.-]+=)(.+)", Pattern.DOTALL);

    private Secrets() {
    }

    /** Whether a variable's or option's name says that its value is a secret. */
    public static boolean isSecretName(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        for (String word : SECRET_WORDS) {
            if (upper.contains(word)) {
                return true;
            }
        }
        for (String part : upper.split("[_.-]+")) {
            if (SECRET_PARTS.contains(part)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A secret as shown: its first four characters when it is long enough that they give nothing away (16 or more),
     * and its length, e.g. {@code allo...[43 chars]}; a shorter one by its length alone.
     */
    public static String masked(String value) {
        int n = value.codePointCount(0, value.length());
        String start = n >= 16 ? value.substring(0, value.offsetByCodePoints(0, 4)) : "";
        return start + "...[" + n + (n == 1 ? " char]" : " chars]");
    }

    /** The value of a variable as shown: masked when its name or its shape says secret, else as it is. */
    public static String variable(String name, String value) {
        return isSecretName(name) ? masked(value) : tokensMasked(value);
    }

    /**
     * A command-line word as shown, or null when it holds no secret: an {@code --option=value} whose option names a
     * secret, its value masked; else every token in it masked.
     */
    public static String word(String word) {
        Matcher m = OPTION_WITH_VALUE.matcher(word);
        if (m.matches() && isSecretName(m.group(1))) {
            return m.group(1) + masked(m.group(2));
        }
        String masked = tokensMasked(word);
        return masked.equals(word) ? null : masked;
    }

    /** The text with every token in it masked. */
    public static String tokensMasked(String text) {
        return TOKEN_SHAPE.matcher(text).replaceAll(r -> Matcher.quoteReplacement(masked(r.group())));
    }
}
