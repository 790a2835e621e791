package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.campaign.ProtectedSlots;
import dev.allot.core.model.AllocationTree;
import dev.allot.sim.campaign.CampaignSpec;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Campaign files for the simulator: what they mean, and every mistake located at file, line, column and field. */
class CampaignFileTest {
    private static final AllocationTree TREE = AllocationTree.builder("lab")
            .child("platform", 1).leaf("evals", 1).leaf("infra", 1).up().build();

    private static final String HEAD = "name: oracle\nallocation: evals\nmin-runtime: 8h\nprotected-shards: 2\n"
            + "families:\n  find: 5m\n  restore: 25m\n";

    private static CampaignSpec read(String text) {
        return ScenarioReader.readCampaign("c.yaml", text, TREE);
    }

    private static String error(String text) {
        try {
            read(text);
        } catch (InputException e) {
            return e.getMessage();
        }
        throw new AssertionError("no error for:\n" + text);
    }

    @Test
    void aListOfShardsReadsWithItsDefaults() {
        CampaignSpec c = read(HEAD + "shards:\n  - {family: find, units: 40}\n  - {family: restore, units: 12, speed: 1.5}\n");
        assertThat(c.name()).isEqualTo("oracle");
        assertThat(c.allocation()).isEqualTo("evals");
        assertThat(c.submitAtSeconds()).isZero();
        assertThat(c.gpusPerShard()).isEqualTo(1);
        assertThat(c.minRuntime()).isEqualTo(Duration.ofHours(8));
        assertThat(c.slots()).isEqualTo(ProtectedSlots.shards(2));
        assertThat(c.declaredSecondsPerUnit()).isZero();
        assertThat(c.shards()).containsExactly(new CampaignSpec.Shard(0, "find", 40, 1.0),
                new CampaignSpec.Shard(1, "restore", 12, 1.5));
        assertThat(c.trueSecondsPerUnit(c.shards().get(1))).isEqualTo(2250);
        assertThat(c.shardId(1)).isEqualTo("oracle-s1");
    }

    @Test
    void aGeneratedCampaignSpreadsItsShardsOverTheHoursInTheFamiliesInTurn() {
        CampaignSpec c = read("name: oracle\nallocation: evals\nsubmit-at: 3d\ngpus: 2\nmin-runtime: 4h\n"
                + "protected-gpus: 8\ntime-per-unit: 10m\nfamilies:\n  find: 5m\n  restore: 25m\n"
                + "generate:\n  count: 40\n  hours: [2, 30]\n  speed: [0.8, 1.25]\n  seed: 7\n");
        assertThat(c.submitAtSeconds()).isEqualTo(3 * 86400);
        assertThat(c.gpusPerShard()).isEqualTo(2);
        assertThat(c.slots()).isEqualTo(ProtectedSlots.gpus(8));
        assertThat(c.declaredSecondsPerUnit()).isEqualTo(600);
        assertThat(c.shards()).hasSize(40);
        assertThat(c.shardId(3)).isEqualTo("oracle-s03");
        double min = Double.MAX_VALUE;
        double max = 0;
        for (CampaignSpec.Shard s : c.shards()) {
            assertThat(s.family()).isEqualTo(s.index() % 2 == 0 ? "find" : "restore");
            assertThat(s.speed()).isBetween(0.8, 1.25);
            double hours = c.trueSeconds(s) / 3600.0;
            assertThat(hours).isBetween(2 - 0.5, 30 + 0.5); // whole units round by at most half a unit
            min = Math.min(min, hours);
            max = Math.max(max, hours);
        }
        assertThat(min).isLessThan(3); // stratified: every seed spreads over the whole range
        assertThat(max).isGreaterThan(29);
        // same file, same shards; another seed, other shards
        assertThat(read("name: oracle\nallocation: evals\nmin-runtime: 4h\nprotected-shards: 1\nfamilies: {f: 5m}\n"
                + "generate: {count: 5, hours: [2, 30], seed: 7}\n").shards())
                .isEqualTo(read("name: oracle\nallocation: evals\nmin-runtime: 4h\nprotected-shards: 1\n"
                        + "families: {f: 5m}\ngenerate: {count: 5, hours: [2, 30], seed: 7}\n").shards())
                .isNotEqualTo(read("name: oracle\nallocation: evals\nmin-runtime: 4h\nprotected-shards: 1\n"
                        + "families: {f: 5m}\ngenerate: {count: 5, hours: [2, 30], seed: 8}\n").shards());
    }

    @Test
    void theExampleReads() {
        CampaignSpec c = ScenarioReader.readCampaign(Path.of("../examples/campaign/oracle-eval.yaml"),
                AllocationTree.builder("lab").child("platform", 1).leaf("evals", 1).up().build());
        assertThat(c.shards()).hasSize(40);
        assertThat(c.slots()).isEqualTo(ProtectedSlots.shards(6));
        assertThat(c.familySecondsPerUnit()).containsEntry("find", 300L).containsEntry("restore", 1500L);
    }

    @Test
    void missingAndUnknownKeysNameWhatIsValid() {
        assertThat(error("name: oracle\n")).isEqualTo("c.yaml:1:1: field 'allocation': missing; a campaign needs"
                + " 'allocation'");
        assertThat(error(HEAD + "shard:\n  - {family: find, units: 1}\n")).isEqualTo("c.yaml:8:1: field 'shard':"
                + " unknown key; valid keys here: name, allocation, submit-at, gpus, min-runtime, protected-shards,"
                + " protected-gpus, time-per-unit, families, shards, generate");
        assertThat(error(HEAD)).isEqualTo("c.yaml:1:1: field 'shards': missing; a campaign needs a 'shards' list of"
                + " {family, units, speed} or a 'generate' section {count, hours, seed}");
        assertThat(error("name: oracle\nallocation: evals\nmin-runtime: 8h\nfamilies: {f: 5m}\nshards: [{family: f,"
                + " units: 1}]\n")).isEqualTo("c.yaml:1:1: field 'protected-shards': missing; a campaign needs"
                + " 'protected-shards' (how many shards may run protected at once) or 'protected-gpus'");
        assertThat(error("")).startsWith("c.yaml: the file is empty; expected a mapping with keys name, allocation");
        // the service's campaign file said only "unknown key; valid keys here: ..." at its command
        assertThat(error("name: local-eval\nallocation: evals\ncommand: [./shard.sh]\n")).isEqualTo("c.yaml:3:1:"
                + " field 'command': unknown key; valid keys here: name, allocation, submit-at, gpus, min-runtime,"
                + " protected-shards, protected-gpus, time-per-unit, families, shards, generate (hint: this looks like"
                + " a service campaign file, for 'allot campaign submit'; 'campaign simulate' reads the simulator's"
                + " format, with families and shards of units instead of a command, as in"
                + " examples/campaign/oracle-eval.yaml, see docs/campaigns.md)");
    }

    @Test
    void valuesAreCheckedWhereTheyAreWritten() {
        assertThat(error("name: oracle eval\n")).isEqualTo("c.yaml:1:7: field 'name': expected a name of letters,"
                + " digits, '.', '_' and '-' (at most 64, starting with a letter or digit), got 'oracle eval'");
        assertThat(error("name: oracle\nallocation: platform\n")).isEqualTo("c.yaml:2:13: field 'allocation':"
                + " expected a leaf allocation, got 'platform', an inner node of the allocation tree; its leaves:"
                + " evals, infra");
        assertThat(error("name: oracle\nallocation: evalz\n")).isEqualTo("c.yaml:2:13: field 'allocation': expected"
                + " one of the leaf allocations (evals, infra), got 'evalz'");
        assertThat(error("name: oracle\nallocation: evals\nmin-runtime: 0s\n")).isEqualTo("c.yaml:3:14: field"
                + " 'min-runtime': expected a duration above zero, got '0s'");
        assertThat(error("name: oracle\nallocation: evals\nsubmit-at: soon\n")).isEqualTo("c.yaml:3:12: field"
                + " 'submit-at': expected a duration such as 90s, 15m, 8h, 2d, 1h30m or plain seconds, got 'soon'");
        assertThat(error("name: oracle\nallocation: evals\ngpus: 0\n")).isEqualTo("c.yaml:3:7: field 'gpus':"
                + " expected a whole number >= 1, got '0'");
        assertThat(error("name: oracle\nallocation: evals\nmin-runtime: 8h\nprotected-shards: 2\nprotected-gpus: 4\n"))
                .isEqualTo("c.yaml:5:1: field 'protected-gpus': give protected-shards or protected-gpus, not both");
        assertThat(error("name: oracle\nallocation: evals\nmin-runtime: 8h\nprotected-shards: -1\n")).isEqualTo(
                "c.yaml:4:19: field 'protected-shards': expected a whole number >= 0, got '-1'");
    }

    @Test
    void familiesAndShardsAreCheckedOneByOne() {
        assertThat(error("name: oracle\nallocation: evals\nmin-runtime: 8h\nprotected-shards: 2\nfamilies: []\n"))
                .isEqualTo("c.yaml:5:11: field 'families': expected a mapping of family names to their true time per"
                        + " unit, such as 'find: 5m', got a list");
        assertThat(error("name: oracle\nallocation: evals\nmin-runtime: 8h\nprotected-shards: 2\nfamilies:\n"
                + "  find: fast\n")).isEqualTo("c.yaml:6:9: field 'families.find': expected a duration such as 90s,"
                + " 15m, 8h, 2d, 1h30m or plain seconds, got 'fast'");
        assertThat(error(HEAD + "shards:\n  - {family: fnd, units: 4}\n")).isEqualTo("c.yaml:9:14: field 'family':"
                + " expected one of the families (find, restore), got 'fnd'");
        assertThat(error(HEAD + "shards:\n  - {family: find, units: 4}\n  - {family: find, units: 0}\n"))
                .isEqualTo("c.yaml:10:27: field 'units': expected a whole number >= 1, got '0'");
        assertThat(error(HEAD + "shards:\n  - {family: find, units: 4, speed: -2}\n")).isEqualTo("c.yaml:9:37:"
                + " field 'speed': expected a number > 0, got '-2'");
        assertThat(error(HEAD + "shards:\n  - {family: find, unit: 4}\n")).isEqualTo("c.yaml:9:20: field 'unit':"
                + " unknown key; valid keys here: family, units, speed");
        assertThat(error(HEAD + "shards: []\n")).isEqualTo("c.yaml:8:1: field 'shards': expected at least one shard");
    }

    @Test
    void theGenerateSectionIsChecked() {
        assertThat(error(HEAD + "generate: {count: 40, hours: [30, 2]}\n")).isEqualTo("c.yaml:8:30: field 'hours':"
                + " expected a list [min, max] of two hours with 0 < min <= max, got min 30 above max 2");
        assertThat(error(HEAD + "generate: {count: 40, hours: [2]}\n")).isEqualTo("c.yaml:8:30: field 'hours':"
                + " expected a list [min, max] of two hours with 0 < min <= max, got a list of 1");
        assertThat(error(HEAD + "generate: {count: 0, hours: [2, 30]}\n")).isEqualTo("c.yaml:8:19: field 'count':"
                + " expected a whole number >= 1, got '0'");
        assertThat(error(HEAD + "generate: {count: 4, hours: [2, 30], speed: [0, 1]}\n")).isEqualTo("c.yaml:8:46:"
                + " field 'speed': expected a number > 0, got '0'");
        assertThat(error(HEAD + "generate: {count: 4, hours: [2, 30]}\nshards: [{family: find, units: 1}]\n"))
                .isEqualTo("c.yaml:8:1: field 'generate': give a shards list or a generate section, not both");
    }

    @Test
    void aFamilyOrCampaignNameWithAControlCharacterIsRefusedWhereItIsWritten() {
        // family names were any key (the campaign table lists them) and the campaign name any text: an escape in either
        // reached the terminal as it was
        assertThat(error("name: oracle\nallocation: evals\nmin-runtime: 8h\nprotected-shards: 2\n"
                + "families:\n  find: 5m\n  \"re\\tstore\": 25m\nshards: [{family: find, units: 1}]\n"))
                .isEqualTo("c.yaml:7:3: field 'families': expected text without control characters (line breaks,"
                        + " tabs, escapes), got 're\\tstore'; remove the control character \\t (U+0009) at character 3;"
                        + " ids and names are printed in reports and on terminals");
        assertThat(error(HEAD.replace("name: oracle", "name: \"or\\e[31macle\"") + "shards: [{family: find, units: 1}]\n"))
                .isEqualTo("c.yaml:1:7: field 'name': expected text without control characters (line breaks,"
                        + " tabs, escapes), got 'or\\u001b[31macle'; remove the control character \\u001b (U+001B) at"
                        + " character 3; ids and names are printed in reports and on terminals");
    }

    @Test
    void aFileThatIsNotThereIsNamed() {
        assertThatThrownBy(() -> ScenarioReader.readCampaign(Path.of("no/such/campaign.yaml"), TREE))
                .isInstanceOf(InputException.class).hasMessageStartingWith("no/such/campaign.yaml: ");
    }
}
