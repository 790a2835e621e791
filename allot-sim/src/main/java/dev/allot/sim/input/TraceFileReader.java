package dev.allot.sim.input;

import dev.allot.core.policy.SettingSpec;
import dev.allot.sim.input.YamlTree.Entry;
import dev.allot.sim.input.YamlTree.MapNode;
import dev.allot.sim.input.YamlTree.Node;
import dev.allot.sim.trace.ContractRule;
import dev.allot.sim.trace.TraceFormat;
import dev.allot.sim.trace.TraceFormats;
import dev.allot.sim.trace.TraceImport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Reads {@code trace.yaml}, which makes a scenario folder replay a real trace instead of {@code workloads.csv}:
 *
 * <pre>
 * format: philly            # a trace format: philly, alibaba-openb, swf, tiresias or native
 * path: philly.csv          # the trace file, relative to the folder
 * contract:                 # optional: the contract rule for what the trace lacks (defaults otherwise)
 *   min-runtime: 2h
 * settings:                 # optional: the format's own settings, e.g. allocation-by: group for swf
 *   allocation-by: group
 * </pre>
 * Every problem is located at its key or value.
 */
final class TraceFileReader {
    static final String FILE = "trace.yaml";
    static final List<String> KEYS = List.of("format", "path", "contract", "settings");

    private TraceFileReader() {
    }

    /** What {@code trace.yaml} asks for; {@code contract} is null when the file gives no contract section. */
    record Spec(TraceFormat format, Path path, ContractRule contract, Map<String, String> settings) {
    }

    static Spec read(String text, Path dir, TraceFormats formats) {
        YamlTree y = YamlTree.parse(FILE, text);
        MapNode root = y.rootMap(KEYS);

        Node formatNode = y.required(root, "format", "a trace folder").value();
        String name = y.text(formatNode, "format", "a trace format (" + String.join(", ", formats.names()) + ")");
        TraceFormat format;
        try {
            format = formats.get(name);
        } catch (IllegalArgumentException e) {
            throw y.error(formatNode, "format", "expected one of the trace formats (" + String.join(", ",
                    formats.names()) + "), got '" + name + "'");
        }

        Node pathNode = y.required(root, "path", "a trace folder").value();
        String pathText = y.text(pathNode, "path", "the trace file, relative to the folder");
        Path path = inside(y, pathNode, dir, pathText);

        Entry contractEntry = root.get("contract");
        ContractRule contract = null;
        if (contractEntry != null) {
            if (!format.usesContract()) {
                throw y.error(contractEntry, "the " + format.name() + " format declares the contract in every row;"
                        + " remove this section");
            }
            Map<String, String> given = settings(y, contractEntry, "contract settings");
            String where = FILE + ", section 'contract'";
            contract = locate(y, contractEntry, ContractRule.SETTINGS, given,
                    one -> ContractRule.parse(one, where), () -> ContractRule.parse(given, where));
        }

        Entry settingsEntry = root.get("settings");
        Map<String, String> settings = Map.of();
        if (settingsEntry != null) {
            Map<String, String> given = settings(y, settingsEntry, "settings of the " + format.name() + " format");
            String where = FILE + ", section 'settings'";
            locate(y, settingsEntry, format.settings(), given,
                    one -> TraceImport.formatSettings(format, one, where),
                    () -> TraceImport.formatSettings(format, given, where));
            settings = given;
        }
        return new Spec(format, path, contract, settings);
    }

    /**
     * The trace file {@code text} names, which must be inside the scenario folder: a relative path that does not
     * lead out of it with {@code ..}, and, once resolved, not a link to a file outside it. A scenario folder is
     * something one downloads and runs; it must not make the simulator read (and report on) any file on the machine.
     */
    private static Path inside(YamlTree y, Node node, Path dir, String text) {
        String expected = "expected a file inside the scenario folder, named relative to it (no absolute path, no"
                + " '..' or link leading out of the folder), got '" + text + "'";
        Path given;
        try {
            given = Path.of(text);
        } catch (java.nio.file.InvalidPathException e) {
            throw y.error(node, "path", expected);
        }
        Path base = dir.toAbsolutePath().normalize();
        Path path = base.resolve(given).normalize();
        if (given.isAbsolute() || given.getRoot() != null || !path.startsWith(base) || path.equals(base)) {
            throw y.error(node, "path", expected);
        }
        if (!Files.exists(path)) {
            throw y.error(node, "path", "no such file: " + path);
        }
        try {
            if (!path.toRealPath().startsWith(base.toRealPath())) {
                throw y.error(node, "path", expected + ", which links to " + path.toRealPath());
            }
        } catch (java.io.IOException e) {
            throw y.error(node, "path", "cannot read: " + TextFiles.inWords(e));
        }
        return path;
    }

    private static Map<String, String> settings(YamlTree y, Entry section, String what) {
        Map<String, String> out = new TreeMap<>();
        if (section.value() instanceof YamlTree.Scalar s && s.isNull()) {
            return out;
        }
        MapNode m = y.freeMap(section.value(), section.key(), "a mapping of " + what + " to values");
        for (Entry e : m.entries().values()) {
            out.put(e.key(), y.text(e.value(), e.key(), "a value for the setting"));
        }
        return out;
    }

    /**
     * Parses a section; when it fails, finds the first setting that fails on its own and reports at its key (an
     * unknown key) or its value, else at the section, as {@code policy.yaml} does.
     */
    private static <T> T locate(YamlTree y, Entry section, List<SettingSpec> specs, Map<String, String> given,
                                Consumer<Map<String, String>> checkOne, Supplier<T> parseAll) {
        try {
            return parseAll.get();
        } catch (IllegalArgumentException whole) {
            String prefix = FILE + ", section '" + section.key() + "': ";
            if (section.value() instanceof MapNode m) {
                for (Entry s : m.entries().values()) {
                    try {
                        checkOne.accept(Map.of(s.key(), given.get(s.key())));
                    } catch (IllegalArgumentException e) {
                        String problem = e.getMessage().startsWith(prefix)
                                ? e.getMessage().substring(prefix.length()) : e.getMessage();
                        boolean known = specs.stream().anyMatch(spec -> spec.key().equals(s.key()));
                        return known ? throwAt(y.error(s.value(), section.key(), problem))
                                : throwAt(new InputException(FILE, s.line(), s.column(), section.key(), problem));
                    }
                }
            }
            String problem = whole.getMessage().startsWith(prefix)
                    ? whole.getMessage().substring(prefix.length()) : whole.getMessage();
            throw y.error(section, problem);
        }
    }

    private static <T> T throwAt(InputException e) {
        throw e;
    }
}
