package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mistakes in {@code cluster.yaml} and the YAML machinery shared by all YAML files (syntax errors, repeated keys,
 * aliases, several documents, empty files), plus missing files. Line numbers refer to the basic fixture.
 */
class ClusterYamlTest {
    private static final String CLUSTER = Folders.resource("basic", "cluster.yaml");

    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void folder() {
        dir = Folders.copy("basic", tmp);
    }

    private InputException cluster(String text) {
        Folders.write(dir, "cluster.yaml", text);
        return Folders.error(dir);
    }

    private InputException replaced(String from, String to) {
        assertThat(CLUSTER).contains(from);
        return cluster(CLUSTER.replace(from, to));
    }

    @Test
    void unknownKeyInAGroupListsTheValidKeys() {
        InputException e = replaced("    gpu-type: a100", "    gpu_type: a100");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:11:5: field 'gpu_type': unknown key; valid keys here:"
                + " name-prefix, count, gpus, gpu-type, labels");
    }

    @Test
    void unknownTopLevelKey() {
        InputException e = replaced("health-events:", "health:");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:12:1: field 'health': unknown key; valid keys here:"
                + " start, node-groups, health-events");
    }

    @Test
    void unknownKeyInAHealthEvent() {
        InputException e = replaced("    at: 7200", "    when: 7200");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:17:5: field 'when': unknown key; valid keys here:"
                + " node, at, state");
    }

    @Test
    void wrongTypes() {
        assertThat(replaced("count: 4", "count: [4]").getMessage())
                .isEqualTo("cluster.yaml:4:12: field 'count': expected a whole number >= 1, got a list");
        assertThat(replaced("gpus: 8", "gpus: {n: 8}").getMessage())
                .isEqualTo("cluster.yaml:5:11: field 'gpus': expected a whole number >= 1, got a mapping");
        assertThat(replaced("gpus: 8", "gpus: 8.5").getMessage())
                .isEqualTo("cluster.yaml:5:11: field 'gpus': expected a whole number >= 1, got '8.5'");
        assertThat(replaced("labels: {rack: r1, zone: a}", "labels: [r1]").getMessage())
                .isEqualTo("cluster.yaml:7:13: field 'labels': expected a mapping of label names to values, e.g."
                        + " {rack: r1}, got a list");
        assertThat(replaced("zone: a}", "zone: [a]}").getMessage())
                .isEqualTo("cluster.yaml:7:30: field 'zone': expected a label value, got a list");
        assertThat(cluster("node-groups: 5\n").getMessage())
                .isEqualTo("cluster.yaml:1:14: field 'node-groups': expected a list of node groups, got '5'");
        assertThat(cluster("node-groups:\n  - gpu\n").getMessage()).isEqualTo("cluster.yaml:2:5: field 'node-groups':"
                + " expected a mapping with keys name-prefix, count, gpus, gpu-type, labels, got 'gpu'");
        assertThat(cluster("- gpu\n").getMessage()).isEqualTo(
                "cluster.yaml:1:1: expected a mapping with keys start, node-groups, health-events, got a list");
    }

    @Test
    void missingRequiredKeys() {
        assertThat(replaced("    gpus: 4\n", "").getMessage())
                .isEqualTo("cluster.yaml:8:5: field 'gpus': missing; a node group needs 'gpus'");
        assertThat(replaced("    count: 4\n", "    count:\n").getMessage())
                .isEqualTo("cluster.yaml:4:11: field 'count': expected a value, got nothing");
        assertThat(cluster("start: 2026-01-05T00:00:00Z\n").getMessage())
                .isEqualTo("cluster.yaml:1:1: field 'node-groups': missing; a cluster needs 'node-groups'");
        assertThat(cluster("node-groups: []\n").getMessage())
                .isEqualTo("cluster.yaml:1:14: field 'node-groups': expected at least one node group, got an empty list");
    }

    @Test
    void groupsWhoseNodeNamesClash() {
        InputException e = replaced("name-prefix: small", "name-prefix: gpu");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:8:18: field 'name-prefix': expected node names not used by"
                + " another group, got 'gpu', which names the same nodes as the group on line 3");
    }

    @Test
    void aNamePrefixThatIsNotOneNameIsRefused() {
        // given the group 'small' renamed '..', then 'a/b': node names that would not be one name each
        for (String bad : new String[] {"..", "a/b", "."}) {
            InputException e = replaced("name-prefix: small", "name-prefix: '" + bad + "'");
            assertThat(e.getMessage()).isEqualTo("cluster.yaml:8:18: field 'name-prefix': expected "
                    + dev.allot.core.rules.Names.NAME_EXPECTED + ", got '" + bad + "'");
        }
    }

    @Test
    void unknownNodeInAHealthEventNamesTheNamingPattern() {
        InputException e = replaced("  - node: gpu-03\n    at: 7200", "  - node: gpu-3\n    at: 7200");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:16:11: field 'node': expected the name of a node"
                + " (gpu-01 .. gpu-04, small-01 .. small-02), got 'gpu-3'");
    }

    @Test
    void badHealthTimesAndStates() {
        assertThat(replaced("at: 7200", "at: later").getMessage()).isEqualTo("cluster.yaml:17:9: field 'at': expected"
                + " seconds, a duration such as 3d or 1h30m, or an ISO-8601 instant such as 2026-01-05T00:00:00Z,"
                + " got 'later'");
        assertThat(replaced("state: healthy", "state: fine").getMessage())
                .isEqualTo("cluster.yaml:18:12: field 'state': expected unhealthy or healthy, got 'fine'");
        assertThat(replaced("at: 7200", "at: -5").getMessage()).startsWith("cluster.yaml:17:9: field 'at': expected");
    }

    @Test
    void startAndInstantsBeforeIt() {
        assertThat(cluster("start: yesterday\n" + CLUSTER).getMessage()).isEqualTo("cluster.yaml:1:8: field 'start':"
                + " expected an ISO-8601 instant such as 2026-01-05T00:00:00Z, got 'yesterday'");
        Path d = Folders.copy("instants", tmp);
        Folders.write(d, "cluster.yaml", Folders.resource("instants", "cluster.yaml")
                .replace("at: 2026-01-05T06:00:00Z", "at: 2026-01-04T06:00:00Z"));
        assertThat(Folders.error(d).getMessage()).isEqualTo("cluster.yaml:8:9: field 'at': expected an instant at or"
                + " after start (2026-01-05T00:00:00Z), got '2026-01-04T06:00:00Z'");
    }

    @Test
    void aNodeOfABillionGpusIsRefusedNamingTheMostOneNodeMayHave() {
        // it was read, and the simulation ran out of memory, blaming the workloads and the hours
        assertThat(replaced("gpus: 8", "gpus: 1000000000").getMessage()).isEqualTo("cluster.yaml:5:11: field"
                + " 'gpus': expected a whole number from 1 to 4,096 (the GPUs of one machine), got 1000000000");
    }

    @Test
    void countsBeyondAnIntSayTheUpperLimit() {
        assertThat(replaced("gpus: 8", "gpus: 99999999999").getMessage()).isEqualTo("cluster.yaml:5:11: field"
                + " 'gpus': expected a whole number >= 1, at most 2,147,483,647, got '99999999999'");
        assertThat(replaced("count: 4", "count: 99999999999999999999999").getMessage()).isEqualTo("cluster.yaml:4:12:"
                + " field 'count': expected a whole number >= 1, at most 2,147,483,647, got '99999999999999999999999'");
    }

    @Test
    void aHealthEventBeyondTheScenariosReachSaysTheLimit() {
        String late = "field 'at': expected a time at most 24855d3h14m7s (2,147,483,647 seconds, about 68 years) after"
                + " time 0, got ";
        assertThat(replaced("at: 7200", "at: 3650000d").getMessage()).endsWith(late + "3650000d");
        assertThat(replaced("at: 7200", "at: 99999999999999999d").getMessage()).endsWith(late + "'99999999999999999d'");
    }

    @Test
    void tooManyNodes() {
        InputException e = replaced("count: 2", "count: 999999999");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:9:12: field 'count': expected at most 1000000 nodes in the"
                + " whole cluster, got 1000000003 so far");
    }

    @Test
    void syntaxErrorsCarryTheirLocation() {
        InputException e = replaced("labels: {rack: r1, zone: a}", "labels: {rack: r1, zone: a");
        assertThat(e.file()).isEqualTo("cluster.yaml");
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.column()).isPositive();
        assertThat(e.problem()).startsWith("YAML syntax error: while parsing a flow mapping; expected ',' or '}'");

        e = replaced("    count: 2", "   count: 2");
        assertThat(e.getMessage()).startsWith("cluster.yaml:9:4: YAML syntax error: ");

        // SnakeYAML places a tab in the indentation at the end of the line before it.
        e = replaced("    count: 4", "\tcount: 4");
        assertThat(e.line()).isBetween(3, 4);
        assertThat(e.problem()).startsWith("YAML syntax error: ").doesNotContain("\n");
    }

    @Test
    void aTokenLeftUnfinishedIsPlacedWhereItBeginsNotWhereTheParserGaveUp() {
        // "count 4" (no colon) on line 4 was placed at the end of line 3 (3:21), an unclosed quote at the end of the
        // file: where the parser stood, not where the mistake is
        InputException e = replaced("    count: 4", "    count 4");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:4:5: YAML syntax error: while scanning a simple key;"
                + " could not find expected ':'");
        e = replaced("gpu-type: h100", "gpu-type: \"h100");
        assertThat(e.line()).isEqualTo(6);
        assertThat(e.column()).isEqualTo(15);
        assertThat(e.problem()).startsWith("YAML syntax error: while scanning a quoted scalar");
        // the parser's structural errors stay where it found them: the line indented one space too few
        e = replaced("    gpus: 8", "   gpus: 8");
        assertThat(e.getMessage()).startsWith("cluster.yaml:5:4: YAML syntax error: while parsing a block");
    }

    @Test
    void anIndentationThatMatchesNoLevelIsSaidInTheFilesWordsNotTheParsersTokens() {
        // it said "expected <block end>, but found '<block sequence start>'", the parser's own token names
        InputException item = replaced("  - name-prefix: small", " - name-prefix: small");
        assertThat(item.getMessage()).isEqualTo("cluster.yaml:8:2: YAML syntax error: while parsing a block mapping; a"
                + " list item ('- ') indented to no level above it: line it up with the fields or list items it belongs"
                + " with");
        InputException field = replaced("    gpus: 4", "   gpus: 4");
        assertThat(field.getMessage()).isEqualTo("cluster.yaml:10:4: YAML syntax error: while parsing a block collection;"
                + " a field indented to no level above it: line it up with the fields or list items it belongs with");
        // and "mapping values are not allowed here" said nothing of what makes one
        InputException under = replaced("    gpu-type: a100", "    gpu-type: a100\n      rack: r2");
        assertThat(under.getMessage()).startsWith("cluster.yaml:").endsWith(": YAML syntax error: mapping values are"
                + " not allowed here: a 'key: value' where a plain value was expected (a line indented under a value,"
                + " or ': ' inside an unquoted value: quote that value)");
    }

    @Test
    void complexKeysAreErrors() {
        assertThat(cluster("? [a, b]\n: 1\n").getMessage())
                .isEqualTo("cluster.yaml:1:4: YAML syntax error: expected a plain key, got a list or mapping used as a key");
    }

    @Test
    void repeatedKeysAreErrors() {
        InputException e = replaced("    count: 4\n", "    count: 4\n    count: 5\n");
        assertThat(e.getMessage())
                .isEqualTo("cluster.yaml:5:5: field 'count': key appears twice in the same mapping; first on line 4");
    }

    @Test
    void aliasesAndSecondDocumentsAreErrors() {
        assertThat(replaced("gpus: 4", "gpus: *eight").getMessage()).isEqualTo(
                "cluster.yaml:10:11: YAML aliases (*eight) are not supported; write the value out");
        assertThat(cluster(CLUSTER + "---\nnode-groups: []\n").getMessage())
                .isEqualTo("cluster.yaml:20:1: expected a single YAML document, found a second one");
    }

    @Test
    void emptyFile() {
        assertThat(cluster("# nothing yet\n").getMessage())
                .isEqualTo("cluster.yaml: the file is empty; expected a mapping with keys start, node-groups, health-events");
    }

    @Test
    void missingFilesNameTheFolderAndTheExpectedFiles() {
        Folders.delete(dir, "cluster.yaml");
        assertThat(Folders.error(dir).getMessage()).isEqualTo("cluster.yaml: missing in " + dir + "; a scenario folder"
                + " holds cluster.yaml, allocations.yaml, one of workloads.csv or workloads.jsonl, and optionally"
                + " policy.yaml (or, to replay a real trace, cluster.yaml, trace.yaml and optionally allocations.yaml"
                + " and policy.yaml)");

        Folders.write(dir, "cluster.yaml", CLUSTER);
        Folders.delete(dir, "allocations.yaml");
        assertThat(Folders.error(dir).getMessage()).startsWith("allocations.yaml: missing in " + dir + "; ");

        Path nowhere = tmp.resolve("nowhere");
        assertThat(Folders.error(nowhere).getMessage()).startsWith(nowhere + ": no such folder; a scenario folder"
                + " holds");
        Path file = dir.resolve("cluster.yaml");
        assertThat(Folders.error(file).getMessage()).startsWith(file + ": a file, not a folder; a scenario folder"
                + " holds");
    }

    @Test
    void aGpuTypeWithAControlCharacterIsRefused() {
        // the report's header printed 'cluster ... (h100<ESC>[31m x24)' as it was
        InputException e = replaced("gpu-type: h100", "gpu-type: \"h100\\e[31m\"");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:6:15: field 'gpu-type': expected text without control"
                + " characters (line breaks, tabs, escapes), got 'h100\\u001b[31m'; remove the control character"
                + " \\u001b (U+001B) at character 5; ids and names are printed in reports and on terminals");
    }

    @Test
    void yamlNestedBeyondTheParsersLimitIsLocatedAndSaidInWords() {
        // it said 'cluster.yaml: YAML syntax error: Document nesting depth (1001) exceeds the maximum allowed (1000)'
        // the 1000th '[' (column 1013) is depth 1001; the column is the one after it, as in the parser's other errors
        InputException e = cluster("node-groups: " + "[".repeat(2000) + "]".repeat(2000) + "\n");
        assertThat(e.getMessage()).isEqualTo("cluster.yaml:1:1014: YAML syntax error: nested too deeply (limit 1000):"
                + " lists and objects more than 1000 deep inside one another");
    }
}
