package dev.allot.sim.input;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.allot.core.rules.PrintableText;
import dev.allot.core.rules.Violation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small YAML tree that remembers where every mapping, list, key and scalar was written, so that the readers can
 * report errors at the right line and column. Jackson's own tree model drops locations, so this reads the
 * document with the streaming {@link YAMLParser}. Scalars keep their text as written; the readers interpret it.
 *
 * <p>The helper methods check shapes and keys and throw {@link InputException}s located in {@link #file}.
 */
final class YamlTree {
    private static final YAMLFactory FACTORY = new YAMLFactory();

    /** A node of the tree, with the 1-based line and column where it starts. */
    sealed interface Node permits MapNode, ListNode, Scalar {
        int line();

        int column();

        /** What the node is, for "expected ..., got ..." messages. */
        String describe();
    }

    /** A key of a mapping, where it was written, and its value. */
    record Entry(String key, int line, int column, Node value) {
    }

    record MapNode(int line, int column, Map<String, Entry> entries) implements Node {
        @Override
        public String describe() {
            return "a mapping";
        }

        Entry get(String key) {
            return entries.get(key);
        }
    }

    record ListNode(int line, int column, List<Node> items) implements Node {
        @Override
        public String describe() {
            return "a list";
        }
    }

    /** A scalar's text as written; {@code isNull} for an empty value, {@code ~} or {@code null}. */
    record Scalar(int line, int column, String text, boolean isNull) implements Node {
        @Override
        public String describe() {
            return isNull ? "nothing" : "'" + text + "'";
        }
    }

    final String file;
    /** The document's root, or null when the file holds no document at all. */
    final Node root;

    private YamlTree(String file, Node root) {
        this.file = file;
        this.root = root;
    }

    /** Parses one YAML document; a syntax error becomes an {@link InputException} at Jackson's location. */
    static YamlTree parse(String file, String text) {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return new YamlTree(file, null);
            }
            Node root = read(file, p, t);
            if (p.nextToken() != null) {
                JsonLocation l = p.currentTokenLocation();
                throw new InputException(file, l.getLineNr(), l.getColumnNr(), null,
                        "expected a single YAML document, found a second one");
            }
            return new YamlTree(file, root);
        } catch (JsonProcessingException e) {
            int[] at = ParserMessages.yamlPosition(e);
            if (at == null) { // Jackson's limit on nesting comes without a location
                JsonLocation l = ParserMessages.locate(FACTORY, text);
                at = l == null || l.getLineNr() <= 0 ? null : new int[] {l.getLineNr(), Math.max(0, l.getColumnNr())};
            }
            int line = at == null ? 0 : at[0];
            int column = at == null ? 0 : at[1];
            throw new InputException(file, line, column, null, "YAML syntax error: "
                    + ParserMessages.yamlSyntax(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new InputException(file, 0, 0, null, "cannot read: " + e.getMessage());
        }
    }

    private static Node read(String file, JsonParser p, JsonToken t) throws IOException {
        JsonLocation loc = p.currentTokenLocation();
        int line = loc.getLineNr();
        int column = loc.getColumnNr();
        if (t == null) {
            throw new InputException(file, line, column, null, "unexpected end of the document");
        }
        switch (t) {
            case START_OBJECT: {
                Map<String, Entry> entries = new LinkedHashMap<>();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    if (k != JsonToken.FIELD_NAME) {
                        JsonLocation kl = p.currentTokenLocation();
                        throw new InputException(file, kl.getLineNr(), kl.getColumnNr(), null,
                                "expected a key, got " + (k == null ? "the end of the document" : k.asString()));
                    }
                    JsonLocation kl = p.currentTokenLocation();
                    String key = p.currentName();
                    Entry first = entries.get(key);
                    if (first != null) {
                        throw new InputException(file, kl.getLineNr(), kl.getColumnNr(), key,
                                "key appears twice in the same mapping; first on line " + first.line());
                    }
                    Node value = read(file, p, p.nextToken());
                    entries.put(key, new Entry(key, kl.getLineNr(), kl.getColumnNr(), value));
                }
                return new MapNode(line, column, Collections.unmodifiableMap(entries));
            }
            case START_ARRAY: {
                List<Node> items = new ArrayList<>();
                for (JsonToken i = p.nextToken(); i != JsonToken.END_ARRAY; i = p.nextToken()) {
                    items.add(read(file, p, i));
                }
                return new ListNode(line, column, Collections.unmodifiableList(items));
            }
            case VALUE_NULL:
                return new Scalar(line, column, "", true);
            case VALUE_STRING:
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
            case VALUE_TRUE:
            case VALUE_FALSE:
            case VALUE_EMBEDDED_OBJECT:
                if (p instanceof YAMLParser y && y.isCurrentAlias()) {
                    throw new InputException(file, line, column, null,
                            "YAML aliases (*" + p.getText() + ") are not supported; write the value out");
                }
                String text = p.getText();
                return new Scalar(line, column, text == null ? "" : text, false);
            default:
                throw new InputException(file, line, column, null, "unexpected YAML token " + t.asString());
        }
    }

    // ---- checks used by the readers -------------------------------------------------------------------------

    InputException error(Node at, String field, String problem) {
        return new InputException(file, at.line(), at.column(), field, problem);
    }

    InputException error(Entry at, String problem) {
        return new InputException(file, at.line(), at.column(), at.key(), problem);
    }

    /** The root as a mapping; an empty file or a root of another kind is an error naming the expected keys. */
    MapNode rootMap(Collection<String> validKeys) {
        if (root == null) {
            throw new InputException(file, 0, 0, null, "the file is empty; expected a mapping with keys "
                    + String.join(", ", validKeys));
        }
        return map(root, null, validKeys);
    }

    /** {@code node} as a mapping whose keys all belong to {@code validKeys}. */
    MapNode map(Node node, String field, Collection<String> validKeys) {
        if (!(node instanceof MapNode m)) {
            throw error(node, field, "expected a mapping with keys " + String.join(", ", validKeys)
                    + ", got " + node.describe());
        }
        for (Entry e : m.entries().values()) {
            if (!validKeys.contains(e.key())) {
                throw error(e, "unknown key; valid keys here: " + String.join(", ", validKeys));
            }
        }
        return m;
    }

    /** {@code node} as a mapping with free-form keys (labels, settings). */
    MapNode freeMap(Node node, String field, String expected) {
        if (node instanceof MapNode m) {
            return m;
        }
        throw error(node, field, "expected " + expected + ", got " + node.describe());
    }

    /** The entry for {@code key}, or an error at the mapping saying what needs it. */
    Entry required(MapNode m, String key, String what) {
        Entry e = m.get(key);
        if (e == null) {
            throw new InputException(file, m.line(), m.column(), key, "missing; " + what + " needs '" + key + "'");
        }
        if (e.value() instanceof Scalar s && s.isNull()) {
            throw error(e.value(), key, "expected a value, got nothing");
        }
        return e;
    }

    /**
     * The value of {@code key}, a single value (a share, a duration, a name), or null when it is absent. Written
     * without one ({@code share:}, {@code lookback: ~}) it is refused as {@link #required} refuses it: it silently
     * became the default, which whoever wrote the key did not mean.
     */
    Node optionalValue(MapNode m, String key) {
        Entry e = m.get(key);
        if (e != null && e.value() instanceof Scalar s && s.isNull()) {
            throw error(e.value(), key, "expected a value, got nothing");
        }
        return e == null ? null : e.value();
    }

    /** The value of {@code key}, a list or mapping, or null when it is absent or written empty ({@code labels:}). */
    Node optional(MapNode m, String key) {
        Entry e = m.get(key);
        if (e == null || (e.value() instanceof Scalar s && s.isNull())) {
            return null;
        }
        return e.value();
    }

    /** A scalar's text, which must not be blank. */
    String text(Node node, String field, String expected) {
        if (node instanceof Scalar s && !s.isNull() && !s.text().isBlank()) {
            return s.text();
        }
        throw error(node, field, "expected " + expected + ", got " + node.describe());
    }

    /** A scalar's text, not blank and without control characters: a name reports print ({@link PrintableText}). */
    String printableText(Node node, String field, String expected) {
        String text = text(node, field, expected);
        java.util.Optional<Violation> bad = PrintableText.check(field, text);
        if (bad.isPresent()) {
            throw error(node, field, bad.get().problemAndHint());
        }
        return text;
    }

    /**
     * A mapping's key as a name reports print ({@link PrintableText}): a key with a control character is refused
     * at the key, under {@code field} (the key itself is not a printable field name).
     */
    String printableKey(Entry entry, String field) {
        java.util.Optional<Violation> bad = PrintableText.check(field, entry.key());
        if (bad.isPresent()) {
            throw new InputException(file, entry.line(), entry.column(), field,
                    bad.get().problemAndHint());
        }
        return entry.key();
    }

    /**
     * A whole number in {@code [min, Integer.MAX_VALUE]}; one beyond says the upper limit ('count: 99999999999' read
     * 'expected a whole number >= 1', which it is).
     */
    int wholeNumber(Node node, String field, int min) {
        String expected = "a whole number >= " + min;
        long v = Values.parseWholeNumberOrMax(text(node, field, expected));
        if (v > Integer.MAX_VALUE) {
            throw error(node, field, "expected " + expected + ", " + Values.atMost(Integer.MAX_VALUE) + ", got "
                    + node.describe());
        }
        if (v < min) {
            throw error(node, field, "expected " + expected + ", got " + node.describe());
        }
        return (int) v;
    }

    /** {@code node} as a list. */
    ListNode list(Node node, String field, String ofWhat) {
        if (node instanceof ListNode l) {
            return l;
        }
        throw error(node, field, "expected a list of " + ofWhat + ", got " + node.describe());
    }
}
