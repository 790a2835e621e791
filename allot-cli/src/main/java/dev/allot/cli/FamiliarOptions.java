package dev.allot.cli;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;

/**
 * Options people bring from other tools, by Allot's name for them: {@code allot serve --host 0.0.0.0} said only
 * "Unknown options" (picocli suggests by spelling, and {@code --host} is spelt like nothing Allot has). Where the
 * command has the option a familiar word stands for, the refusal names it. Only a hint: the word is still refused.
 */
final class FamiliarOptions {
    /** A familiar word and Allot's option for it (each a long option, without its value). */
    static final Map<String, String> ALLOTS_NAME = Map.ofEntries(
            Map.entry("--host", "--bind"),
            Map.entry("--listen", "--bind"),
            Map.entry("--address", "--bind"),
            Map.entry("--bind-address", "--bind"),
            Map.entry("--listen-address", "--bind"),
            Map.entry("--data", "--data-dir"),
            Map.entry("--datadir", "--data-dir"),
            Map.entry("--state-dir", "--data-dir"),
            Map.entry("--db", "--db-url"),
            Map.entry("--database", "--db-url"),
            Map.entry("--database-url", "--db-url"),
            Map.entry("--jdbc-url", "--db-url"),
            Map.entry("--policies", "--policy"),
            Map.entry("--output", "--out"),
            Map.entry("--outdir", "--out"),
            Map.entry("-o", "--out"),
            Map.entry("--seed-count", "--seeds"),
            Map.entry("--url", "--server"));

    private FamiliarOptions() {
    }

    /**
     * The hint for the words {@code cmd} did not know, one line per familiar word whose Allot name {@code cmd} has,
     * e.g. {@code allot serve calls it --bind, not --host}; none for an option picocli already suggested
     * ({@code suggested}).
     */
    static List<String> hints(CommandLine cmd, List<String> unmatched, List<String> suggested) {
        Set<String> out = new LinkedHashSet<>();
        for (String word : unmatched) {
            String name = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
            Optional.ofNullable(ALLOTS_NAME.get(name))
                    .filter(allots -> cmd.getCommandSpec().findOption(allots) != null && !suggested.contains(allots))
                    .ifPresent(allots -> out.add("Hint: '" + cmd.getCommandSpec().qualifiedName(" ") + "' calls it "
                            + allots + ", not " + name + "."));
        }
        return List.copyOf(out);
    }
}
