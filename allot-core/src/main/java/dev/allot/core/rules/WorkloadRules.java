package dev.allot.core.rules;

import dev.allot.core.model.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The one rule for a workload's fields, whoever reads them: the API's submissions, the store's new workloads, the
 * core's {@code WorkloadSpec} and the simulator's workload files. {@link #check} returns every violation at once,
 * each naming its field (as the API names it; the constants below), what was expected and what came, so that each
 * boundary can answer in its own words (an HTTP 400 listing them, a {@code file:line:column} message) and the
 * inner layers can keep the same rules as invariants.
 *
 * <p>Parsing (is it a number, a duration text, a known priority) stays at each boundary, because the texts differ;
 * ranges and relations between fields live here. Whether a shape can ever fit the cluster is {@link ShapeFit}; the
 * cap on minimum runtimes ({@code max-min-runtime}, 8h by default) is the scheduler's, which caps rather than
 * refuses.
 */
public final class WorkloadRules {
    public static final String ID = "id";
    public static final String SUBMIT = "submit";
    public static final String ALLOCATION = "allocation";
    public static final String USER = "user";
    public static final String GPUS = "gpus";
    public static final String GPUS_PER_NODE = "gpusPerNode";
    public static final String DURATION = "duration";
    public static final String MIN_RUNTIME = "minRuntime";
    public static final String CHECKPOINT_EVERY = "checkpointEvery";
    public static final String KIND = "kind";
    public static final String COMMAND = "command";
    public static final String ENVIRONMENT = "environment";
    public static final String IDEMPOTENCY_KEY = "idempotencyKey";

    /** The longest allocation, kind, environment name or idempotency key, in characters. */
    public static final int MAX_TEXT = 256;
    /** The most items of a command. */
    public static final int MAX_COMMAND_ARGS = 4096;
    /** The longest command item or environment value, in characters. */
    public static final int MAX_ARG = 65_536;
    /** The most environment variables. */
    public static final int MAX_ENVIRONMENT = 1024;
    /**
     * What an environment variable's name may be: a POSIX shell's names, the only ones both backends can set (the
     * local backend exports them through a shell, Slurm passes no others). Checked at submission, so that a workload
     * is not accepted and then fail at every start.
     */
    public static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public static final String GPUS_EXPECTED = "a whole number >= 1";
    public static final String GPUS_PER_NODE_EXPECTED = "a whole number >= 0 (0 or none for any packing)";
    /** The most GPUs a workload, or one node's share of it, may ask for: what an {@code int} holds. */
    public static final long MAX_GPUS = Integer.MAX_VALUE;
    /**
     * What is added to the expectation of a count beyond {@link #MAX_GPUS}: "expected a whole number >= 1" alone
     * did not say why '99999999999' was refused, which it is.
     */
    public static final String AT_MOST_MAX_GPUS = String.format(java.util.Locale.ROOT, "at most %,d", MAX_GPUS);
    public static final String POSITIVE_DURATION = "a positive duration";
    /**
     * What to write instead of a checkpoint interval of 0: a scenario's writer who meant "never loses progress" (as
     * a trace's contract rule says it with {@code checkpoint-every 0s}) was told only "expected a positive duration".
     */
    public static final String CHECKPOINT_EVERY_HINT = "leave checkpoint_every empty for work that never loses"
            + " progress when preempted (what checkpoint-every 0s means in a trace's contract rule), or give how often"
            + " it checkpoints, such as 30m";
    /**
     * The longest duration or minimum runtime, in seconds (about 68 years): the simulator's scenarios reach no
     * further, and a forecast or what-if playing a longer duration forward overflowed its clock. A checkpoint interval
     * has no such limit ({@code WorkloadSpec.NO_CHECKPOINT_KNOWN} is the longest there is).
     */
    public static final long MAX_DURATION_SECONDS = Durations.MAX_SECONDS;
    /** What is added to the expectation of a duration beyond {@link #MAX_DURATION_SECONDS}. */
    public static final String AT_MOST_MAX_DURATION = "at most " + Durations.formatSeconds(MAX_DURATION_SECONDS)
            + " (about 68 years)";
    public static final String MIN_RUNTIME_EXPECTED = "a duration >= 0 (0 for unallocated: free, never charged,"
            + " always preemptible)";

    private WorkloadRules() {
    }

    /** Every rule the given fields break, in field order; empty when none (the common case allocates nothing). */
    public static List<Violation> check(WorkloadFields f) {
        List<Violation> out = null;
        if (f.id() != null && f.id().isBlank()) {
            out = add(out, new Violation(ID, "a workload id that is not blank", Violation.shown(f.id())));
        }
        if (f.submitSeconds() != null && f.submitSeconds() < 0) {
            out = add(out, new Violation(SUBMIT, "a time at or after the start (>= 0 seconds)",
                    f.submitSeconds() + " seconds"));
        }
        if (f.allocation() != null) {
            String a = f.allocation();
            if (a.isBlank() || a.length() > MAX_TEXT) {
                out = add(out, new Violation(ALLOCATION, "an allocation name that is not blank, of at most " + MAX_TEXT
                        + " characters", Violation.shown(a)));
            }
        }
        if (f.user() != null && f.user().isBlank()) {
            out = add(out, new Violation(USER, "a user name that is not blank", Violation.shown(f.user())));
        }
        Long gpus = f.gpus();
        boolean gpusOk = gpus == null || (gpus >= 1 && gpus <= MAX_GPUS);
        if (!gpusOk) {
            out = add(out, new Violation(GPUS, gpus > MAX_GPUS ? GPUS_EXPECTED + ", " + AT_MOST_MAX_GPUS
                    : GPUS_EXPECTED, Long.toString(gpus)));
        }
        Long perNode = f.gpusPerNode();
        if (perNode != null) {
            if (perNode < 0 || perNode > MAX_GPUS) {
                out = add(out, new Violation(GPUS_PER_NODE, perNode > MAX_GPUS
                        ? "a whole number >= 0, " + AT_MOST_MAX_GPUS + " (0 or none for any packing)"
                        : GPUS_PER_NODE_EXPECTED, Long.toString(perNode)));
            } else if (perNode > 0 && gpus != null && gpusOk && gpus % perNode != 0) {
                out = add(out, new Violation(GPUS_PER_NODE, "a whole number that divides gpus (" + gpus
                        + "), as a gang takes whole groups of that many GPUs on each node; 0 or none for any packing",
                        Long.toString(perNode)));
            }
        }
        if (f.duration() != null && (!positive(f.duration()) || tooLong(f.duration()))) {
            out = add(out, new Violation(DURATION, withLimit(POSITIVE_DURATION, f.duration()),
                    duration(f.duration())));
        }
        if (f.minRuntime() != null && (f.minRuntime().isNegative() || tooLong(f.minRuntime()))) {
            out = add(out, new Violation(MIN_RUNTIME, withLimit(MIN_RUNTIME_EXPECTED, f.minRuntime()),
                    duration(f.minRuntime())));
        }
        if (f.checkpointEvery() != null && !positive(f.checkpointEvery())) { // no limit: never is the live service's
            out = add(out, new Violation(CHECKPOINT_EVERY, POSITIVE_DURATION,
                    duration(f.checkpointEvery()), CHECKPOINT_EVERY_HINT));
        }
        if (f.kind() != null && f.kind().length() > MAX_TEXT) {
            out = add(out, new Violation(KIND, "a short word such as train or eval, of at most " + MAX_TEXT
                    + " characters", Violation.shown(f.kind())));
        }
        if (f.command() != null) {
            out = command(f.command(), out);
        }
        if (f.environment() != null) {
            out = environment(f.environment(), out);
        }
        String key = f.idempotencyKey();
        if (key != null && (key.isBlank() || key.length() > MAX_TEXT)) {
            out = add(out, new Violation(IDEMPOTENCY_KEY, "a text that is not blank, of at most " + MAX_TEXT
                    + " characters, new for each workload and the same when a submission is retried",
                    Violation.shown(key)));
        }
        return out == null ? List.of() : out;
    }

    private static List<Violation> command(List<String> command, List<Violation> out) {
        if (command.isEmpty()) {
            return add(out, new Violation(COMMAND, "at least the program", "an empty list"));
        }
        if (command.size() > MAX_COMMAND_ARGS) {
            return add(out, new Violation(COMMAND, "at most " + MAX_COMMAND_ARGS + " items", command.size() + " items"));
        }
        for (int i = 0; i < command.size(); i++) {
            String item = command.get(i);
            if (item == null) {
                out = add(out, new Violation(COMMAND, "a string at index " + i, "nothing"));
            } else if (item.length() > MAX_ARG || item.indexOf('\0') >= 0) {
                out = add(out, new Violation(COMMAND, "items of at most " + MAX_ARG + " characters without NUL"
                        + " characters", "item " + i + ", " + Violation.shown(item)));
            } else if (i == 0 && item.isBlank()) {
                out = add(out, new Violation(COMMAND, "the program as the first item", "a blank string"));
            }
        }
        return out;
    }

    private static List<Violation> environment(Map<String, String> environment, List<Violation> out) {
        if (environment.size() > MAX_ENVIRONMENT) {
            return add(out, new Violation(ENVIRONMENT, "at most " + MAX_ENVIRONMENT + " variables",
                    environment.size() + " variables"));
        }
        for (Map.Entry<String, String> e : environment.entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            if (name == null || !VARIABLE_NAME.matcher(name).matches() || name.length() > MAX_TEXT) {
                out = add(out, new Violation(ENVIRONMENT, "variable names of ASCII letters, digits and '_' that do not"
                        + " start with a digit, at most " + MAX_TEXT + " characters", "the name "
                        + Violation.shown(name)));
            } else if (value == null || value.length() > MAX_ARG || value.indexOf('\0') >= 0) {
                out = add(out, new Violation(ENVIRONMENT, "values of at most " + MAX_ARG + " characters without NUL"
                        + " characters", "the value of " + name + ", " + Violation.shown(value)));
            }
        }
        return out;
    }

    private static List<Violation> add(List<Violation> out, Violation v) {
        List<Violation> list = out == null ? new ArrayList<>(2) : out;
        list.add(v);
        return list;
    }

    private static boolean tooLong(Duration d) {
        return d.getSeconds() > MAX_DURATION_SECONDS;
    }

    /** The expectation, with the upper limit when {@code d} is beyond it (the rest of it alone would not say why). */
    private static String withLimit(String expected, Duration d) {
        return tooLong(d) ? expected + ", " + AT_MOST_MAX_DURATION : expected;
    }

    private static boolean positive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    private static String duration(Duration d) {
        return d.isNegative() ? "-" + Durations.format(d.negated()) : Durations.format(d);
    }
}
