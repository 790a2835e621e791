package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.AllocationTree;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Mistakes in {@code allocations.yaml}; line numbers refer to the basic fixture. */
class AllocationsYamlTest {
    private static final String TREE = Folders.resource("basic", "allocations.yaml");

    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void folder() {
        dir = Folders.copy("basic", tmp);
    }

    private InputException tree(String text) {
        Folders.write(dir, "allocations.yaml", text);
        return Folders.error(dir);
    }

    private InputException replaced(String from, String to) {
        assertThat(TREE).contains(from);
        return tree(TREE.replace(from, to));
    }

    @Test
    void negativeShare() {
        assertThat(replaced("share: 2", "share: -2").getMessage())
                .isEqualTo("allocations.yaml:10:16: field 'share': expected a finite number >= 0, the weight among its siblings (e.g. 1 or 2.5), got '-2'");
    }

    @Test
    void aShareWrittenWithoutAValueIsRefusedNotTakenAsOne() {
        assertThat(replaced("share: 2", "share:").getMessage())
                .isEqualTo("allocations.yaml:10:15: field 'share': expected a value, got nothing");
        assertThat(replaced("share: 2", "share: ~").getMessage())
                .isEqualTo("allocations.yaml:10:16: field 'share': expected a value, got nothing");
    }

    @Test
    void sharesThatAreNotNumbers() {
        assertThat(replaced("share: 2", "share: .inf").getMessage())
                .isEqualTo("allocations.yaml:10:16: field 'share': expected a finite number >= 0, the weight among its siblings (e.g. 1 or 2.5), got '.inf'");
        assertThat(replaced("share: 2", "share: [2]").getMessage())
                .isEqualTo("allocations.yaml:10:16: field 'share': expected a finite number >= 0, the weight among its siblings (e.g. 1 or 2.5), got a list");
        assertThat(replaced("share: 2", "share: 1e400").getMessage())
                .isEqualTo("allocations.yaml:10:16: field 'share': expected a finite number >= 0, the weight among its siblings (e.g. 1 or 2.5), got '1e400'");
    }

    @Test
    void siblingsNeedAPositiveShare() {
        // pretrain and finetune (the children of nlp, listed from line 9) both get share 0.
        InputException e = tree(TREE.replace("share: 2", "share: 0")
                .replace("share: 1\n  - name: vision", "share: 0\n  - name: vision"));
        assertThat(e.getMessage()).isEqualTo("allocations.yaml:9:7: field 'share': expected at least one positive share"
                + " among the children of 'nlp', got shares summing to 0");
    }

    @Test
    void namesThatAreNotOneSegmentAreRefused() {
        // given the leaf pretrain renamed '..', then 'a/b', then '.'
        for (String bad : new String[] {"..", "a/b", "."}) {
            InputException e = replaced("name: pretrain", "name: '" + bad + "'");
            assertThat(e.field()).isEqualTo("name");
            assertThat(e.line()).isEqualTo(9);
            assertThat(e.problem()).isEqualTo("expected " + dev.allot.core.rules.Names.NAME_EXPECTED + ", got '" + bad
                    + "'");
        }
    }

    @Test
    void missingName() {
        assertThat(replaced("      - name: detect", "      - share: 1").getMessage())
                .isEqualTo("allocations.yaml:16:9: field 'name': missing; every allocation needs 'name'");
        assertThat(tree("children: []\n").getMessage())
                .isEqualTo("allocations.yaml:1:1: field 'name': missing; every allocation needs 'name'");
        assertThat(replaced("name: detect", "name:").getMessage())
                .isEqualTo("allocations.yaml:16:14: field 'name': expected a value, got nothing");
        assertThat(replaced("name: detect", "name: ' '").getMessage())
                .isEqualTo("allocations.yaml:16:15: field 'name': expected an allocation name, got ' '");
    }

    @Test
    void duplicateNameNamesTheFirstLine() {
        assertThat(replaced("name: detect", "name: pretrain").getMessage()).isEqualTo("allocations.yaml:16:15:"
                + " field 'name': expected a name not used elsewhere in the tree, got 'pretrain', already used on line 9");
        assertThat(replaced("name: scratch", "name: lab").getMessage()).endsWith("already used on line 2");
    }

    @Test
    void unknownKeyListsTheValidKeys() {
        assertThat(replaced("managers: [alice, bob]", "manager: [alice, bob]").getMessage()).isEqualTo(
                "allocations.yaml:7:5: field 'manager': unknown key; valid keys here: name, share, managers, children");
        assertThat(replaced("name: lab", "name: lab\nowner: me").getMessage()).isEqualTo(
                "allocations.yaml:3:1: field 'owner': unknown key; valid keys here: name, share, managers, children");
    }

    @Test
    void aManagerNameWithAControlCharacterIsRefused() {
        // managers were read as any text: 'allot report' printed an escape or a tab in a manager's name as it was
        assertThat(replaced("managers: [alice, bob]", "managers: [alice, \"b\\e[2Job\"]").getMessage())
                .isEqualTo("allocations.yaml:7:23: field 'managers': expected text without control characters (line"
                        + " breaks, tabs, escapes), got 'b\\u001b[2Job'; remove the control character \\u001b (U+001B)"
                        + " at character 2; ids and names are printed in reports and on terminals");
    }

    @Test
    void wrongTypes() {
        assertThat(replaced("managers: [alice, bob]", "managers: alice").getMessage())
                .isEqualTo("allocations.yaml:7:15: field 'managers': expected a list of manager names, got 'alice'");
        assertThat(replaced("managers: [alice, bob]", "managers: [alice, [bob]]").getMessage())
                .isEqualTo("allocations.yaml:7:23: field 'managers': expected a manager name, got a list");
        assertThat(replaced("    children:\n      - name: detect", "    children: {name: detect}").getMessage())
                .isEqualTo("allocations.yaml:15:15: field 'children': expected a list of allocations, got a mapping");
        assertThat(replaced("  - name: scratch\n    share: 0\n", "  - scratch\n").getMessage())
                .isEqualTo("allocations.yaml:17:5: field 'children': expected a mapping with keys name, share,"
                        + " managers, children, got 'scratch'");
        assertThat(replaced("name: lab", "name: [lab]").getMessage())
                .isEqualTo("allocations.yaml:2:7: field 'name': expected an allocation name, got a list");
    }

    @Test
    void theRootsShareIsIgnoredAndChildrenMayBeEmpty() {
        Folders.write(dir, "allocations.yaml", "name: solo\nshare: 7\nchildren: []\n");
        Folders.write(dir, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime\nx,0,solo,1,1h,0\n");
        AllocationTree t = Folders.read(dir).tree();
        assertThat(t.nodeCount()).isEqualTo(1);
        assertThat(t.leafNames()).containsExactly("solo");
        assertThat(t.entitlement(0)).isEqualTo(1.0);
    }

    @Test
    void syntaxErrorAndEmptyFile() {
        InputException e = replaced("managers: [alice, bob]", "managers: [alice, bob");
        assertThat(e.file()).isEqualTo("allocations.yaml");
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.problem()).startsWith("YAML syntax error: ");
        assertThat(tree("").getMessage()).isEqualTo("allocations.yaml: the file is empty; expected a mapping with keys"
                + " name, share, managers, children");
    }
}
