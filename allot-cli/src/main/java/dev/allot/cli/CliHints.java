package dev.allot.cli;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The server's error hints in the words of the command line. The REST API answers API users: "GET /v1/allocations
 * lists them", "send the header 'Authorization: Bearer ...'". A person at the terminal did not send a request and
 * has no header to set, so the client prints the command that does the same ({@code allot budget show}) and the
 * options that carry the token ({@code --token}, {@code ALLOT_TOKEN}). The table below is the one place a REST
 * phrase becomes a CLI phrase, for error hints and for the sentences {@code allot explain} prints (a held workload's
 * "GET /v1/brakes shows the limits"); a hint with no entry is printed as the server wrote it.
 *
 * <p>The field an error is about is named once. The server names it by its JSON name ({@code field 'minRuntime':
 * ...}); when the command has the option that carries it ({@code --min-runtime}), the option stands in its place
 * ({@code --min-runtime: ...}), as in the errors the client words itself ({@code --share lab/a=x: expected ...}); it
 * said both, {@code field 'shards': ... (option --shard)}. An argument carries a field as an option does, named as the
 * usage names it ({@code DONE: ...}); a field without either keeps its name, and one the error does not name is said
 * after it.
 */
final class CliHints {
    private CliHints() {
    }

    /** A REST phrase (a regular expression over the hint) and what the command line says instead. */
    private record Rule(Pattern rest, String cli) {
        Rule(String rest, String cli) {
            this(Pattern.compile(rest), cli);
        }
    }

    /** What the server's hints say about the REST API, and the same for the command line; first match first. */
    private static final List<Rule> RULES = List.of(
            new Rule("send the header 'Authorization: Bearer <token>' with a token an administrator gave you",
                    "give your token with --token TOKEN or " + ClientOptions.TOKEN_ENV + " (or \"token\" in the client"
                            + " configuration); an administrator makes one with 'allot token create --user NAME'"),
            new Rule("PUT /v1/users/([^/ ]+) \\{\"disabled\": false\\}", "'allot user enable $1'"),
            new Rule("GET /v1/allocations", "'allot budget show'"),
            new Rule("GET /v1/nodes", "'allot nodes'"),
            new Rule("PUT changes the GPU count of one of those",
                    "'allot nodes set NAME --gpus N' changes the GPU count of one of those"),
            new Rule("GET /v1/workloads lists them", "'allot queue' lists them"),
            new Rule("GET /v1/users/([^/ ]+)/tokens", "'allot token list --user $1'"),
            new Rule("GET /v1/users", "'allot user list'"),
            new Rule("GET /v1/token-policy", "'allot token policy'"),
            new Rule("GET /v1/brakes", "'allot brakes show'"),
            new Rule("PUT /v1/brakes", "'allot brakes set'"),
            new Rule("GET /v1/policy", "'allot policy show'"),
            new Rule("PUT /v1/campaigns/([^/ ]+)/brakes", "'allot campaign brakes $1'"),
            new Rule("GET /v1/campaigns/([^/ ]+) shows it", "'allot campaign status $1' shows it"),
            new Rule("GET /v1/campaigns lists yours", "'allot campaign list' lists yours"),
            new Rule("^GET /v1/openapi\\.json describes a campaign.*",
                    "'allot campaign submit --help' lists the file's fields"),
            new Rule("PUT /v1/policy", "'allot policy set FILE'"),
            new Rule("^the body is the whole set of caps.*", "'%COMMAND% --help' describes the options"),
            new Rule("the body is policy\\.yaml text", "the file is policy.yaml text"),
            new Rule("GET /v1/openapi\\.json lists the endpoints",
                    "this client and the server may be different versions of Allot ('allot --version' tells this one's)"),
            new Rule("GET /v1/openapi\\.json describes it", "'%COMMAND% --help' describes the options"));

    /** The hint for the command {@code command} (e.g. {@code allot submit}); null stays null. */
    static String hint(String hint, String command) {
        if (hint == null) {
            return null;
        }
        String h = hint;
        for (Rule r : RULES) {
            Matcher m = r.rest().matcher(h);
            if (m.find()) {
                h = m.replaceAll(r.cli().replace("%COMMAND%", Matcher.quoteReplacement(command)));
            }
        }
        return h;
    }

    /**
     * The option of {@code spec} that carries the JSON field {@code field}, or null: the option named as the field in
     * kebab-case ({@code minRuntime}: --min-runtime), else the option whose Java field has the JSON field's name
     * ({@code allot token policy --default} sets {@code defaultLifetime}).
     */
    static String option(String field, CommandSpec spec) {
        if (field == null || spec == null || !field.matches("[A-Za-z][A-Za-z0-9]*")) {
            return null;
        }
        String name = "--" + field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
        if (spec.findOption(name) != null) {
            return name;
        }
        for (OptionSpec o : spec.options()) {
            if (o.userObject() instanceof Field f && f.getName().equals(field)) {
                return o.longestName();
            }
        }
        return null;
    }

    /**
     * The argument of {@code spec} that carries the JSON field {@code field}, as its usage names it, or null: the
     * positional parameter whose Java field has the JSON field's name ({@code allot progress ID DONE TOTAL}: {@code
     * done} is DONE, {@code allot submit ... -- COMMAND}: {@code command} is COMMAND). 'allot progress w-1 5 3' said
     * "field 'done': ...", a name its usage never shows.
     */
    static String argument(String field, CommandSpec spec) {
        if (field == null || spec == null) {
            return null;
        }
        for (picocli.CommandLine.Model.PositionalParamSpec p : spec.positionalParameters()) {
            if (p.userObject() instanceof Field f && f.getName().equals(field)) {
                return p.paramLabel();
            }
        }
        return null;
    }

    /** The option that carries {@code field}, else the argument, else null. */
    private static String carrier(String field, CommandSpec spec) {
        String option = option(field, spec);
        return option != null ? option : argument(field, spec);
    }

    private static final Pattern FIELD = Pattern.compile("field '([A-Za-z][A-Za-z0-9]*)': ");

    /** The server's error with each {@code field 'x': } the command has an option for said as that option. */
    static String inOptionWords(String error, CommandSpec spec) {
        return FIELD.matcher(error).replaceAll(r -> {
            String option = carrier(r.group(1), spec);
            return Matcher.quoteReplacement(option != null ? option + ": " : r.group());
        });
    }

    /**
     * The line printed after {@code allot: } for a failed call: the server's error, then in parentheses the option
     * (or field) it is about and the hint, both for the command line.
     */
    static String message(ApiClient.ClientException e, CommandSpec spec) {
        if (e.error() == null) {
            return e.getMessage();
        }
        String command = spec == null ? "allot" : spec.qualifiedName(" ");
        String option = carrier(e.field(), spec);
        String error = inOptionWords(e.error(), spec);
        // The field is named once: by its option (or argument) when the command has one, else by name unless the
        // error names it.
        String about = option != null ? error.contains(option + ": ") ? null
                : (option.startsWith("-") ? "option " : "argument ") + option
                : e.field() != null && !error.contains("field '" + e.field() + "'") ? "field: " + e.field() : null;
        String hint = hint(e.hint(), command);
        StringBuilder m = new StringBuilder(error);
        if (about != null || hint != null) {
            m.append(" (");
            if (about != null) {
                m.append(about);
            }
            if (hint != null) {
                m.append(about != null ? "; " : "").append("hint: ").append(hint);
            }
            m.append(')');
        }
        return m.toString();
    }
}
