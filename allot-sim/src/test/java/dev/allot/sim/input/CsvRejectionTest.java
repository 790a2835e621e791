package dev.allot.sim.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.rules.WorkloadRules;
import dev.allot.sim.Scenario;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every reason to reject a {@code workloads.csv} row or header, with its exact location. The cluster is the basic
 * fixture (40 GPUs: four 8-GPU nodes and two 4-GPU nodes); the header puts the columns in canonical order, so
 * gpus is column 5, and the first row is line 2.
 */
class CsvRejectionTest {
    private static final String HEADER = String.join(",", WorkloadsReader.COLUMNS) + "\n";
    private static final String GOOD = "ok,0,detect,u,1,,1h,15m,false,normal,,train\n";

    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void folder() {
        dir = Folders.copy("basic", tmp);
    }

    private InputException rows(String rows) {
        Folders.write(dir, "workloads.csv", HEADER + rows);
        return Folders.error(dir);
    }

    /** One row with a single cell changed from {@link #GOOD}: column is 1-based. */
    private InputException cell(int column, String value) {
        String[] cells = GOOD.strip().split(",", -1);
        cells[column - 1] = value;
        return rows(String.join(",", cells) + "\n");
    }

    private static void assertError(InputException e, int line, int column, String field, String problem) {
        assertThat(e.file()).isEqualTo("workloads.csv");
        assertThat(e.line()).isEqualTo(line);
        assertThat(e.column()).isEqualTo(column);
        assertThat(e.field()).isEqualTo(field);
        assertThat(e.problem()).isEqualTo(problem);
    }

    @Test
    void malformedGpus() {
        InputException e = cell(5, "x");
        assertThat(e.getMessage()).isEqualTo("workloads.csv:2:5: field 'gpus': expected a whole number >= 1, got 'x'");
        assertError(cell(5, "0"), 2, 5, "gpus", "expected a whole number >= 1, got '0'");
        assertError(cell(5, "-3"), 2, 5, "gpus", "expected a whole number >= 1, got '-3'");
    }

    @Test
    void countsBeyondAnIntSayTheUpperLimit() {
        assertError(cell(5, "99999999999"), 2, 5, "gpus",
                "expected a whole number >= 1, at most 2,147,483,647, got '99999999999'");
        assertError(cell(5, "99999999999999999999999"), 2, 5, "gpus",
                "expected a whole number >= 1, at most 2,147,483,647, got '99999999999999999999999'");
        assertError(cell(6, "99999999999"), 2, 6, "gpus_per_node",
                "expected a whole number >= 0, at most 2,147,483,647 (0 or none for any packing), got '99999999999'");
    }

    @Test
    void timesAndDurationsBeyondTheScenariosReachSayTheLimit() {
        String most = "expected a duration of at most 24855d3h14m7s (2,147,483,647 seconds, about 68 years), got ";
        // 292 billion years: the simulator's clock overflowed ('time went back')
        assertError(cell(7, "9223372036854775000s"), 2, 7, "duration", most + "'9223372036854775000s'");
        // beyond a long: it read 'expected a duration such as 90s, ...', which it is
        assertError(cell(7, "99999999999999999d"), 2, 7, "duration", most + "'99999999999999999d'");
        assertError(cell(8, "99999999999999999999"), 2, 8, "min_runtime", most + "'99999999999999999999'");
        assertError(cell(11, "25000d"), 2, 11, "checkpoint_every", most + "'25000d'");
        String late = "expected a time at most 24855d3h14m7s (2,147,483,647 seconds, about 68 years) after time 0,"
                + " got ";
        // 10,000 years took 30 s and 5 GB; 292 billion years ended in a NegativeArraySizeException
        assertError(cell(2, "3650000d"), 2, 2, "submit", late + "'3650000d'");
        assertError(cell(2, "99999999999999999d"), 2, 2, "submit", late + "'99999999999999999d'");
    }

    @Test
    void anInstantBeyondTheScenariosReachFromTheEarliestIsLocated() {
        InputException e = rows(GOOD.replace("ok,0,", "a,2026-01-05T00:00:00Z,")
                + GOOD.replace("ok,0,", "b,2200-01-05T00:00:00Z,"));
        assertError(e, 3, 2, "submit", "expected a time at most 24855d3h14m7s (2,147,483,647 seconds, about 68 years)"
                + " after time 0 (the earliest instant, 2026-01-05T00:00:00Z), got 2200-01-05T00:00:00Z");
    }

    @Test
    void emptyRequiredCells() {
        assertError(cell(1, ""), 2, 1, "id", "expected a workload id, got nothing");
        assertError(cell(5, ""), 2, 5, "gpus", "expected a whole number >= 1, got nothing");
        assertError(cell(8, " "), 2, 8, "min_runtime",
                "expected a duration such as 90s, 15m, 8h, 2d, 1h30m or plain seconds, got nothing");
    }

    @Test
    void malformedSubmit() {
        assertError(cell(2, "soon"), 2, 2, "submit", "expected seconds, a duration such as 3d or 1h30m, or an ISO-8601"
                + " instant such as 2026-01-05T00:00:00Z, got 'soon'");
        assertError(cell(2, "2026-13-01T00:00:00Z"), 2, 2, "submit",
                "expected an ISO-8601 instant such as 2026-01-05T00:00:00Z, got '2026-13-01T00:00:00Z'");
    }

    @Test
    void anInstantWithoutItsZoneSaysHowToWriteIt() {
        assertError(cell(2, "2026-01-05T08:30:00"), 2, 2, "submit", "expected an ISO-8601 instant such as"
                + " 2026-01-05T00:00:00Z, got '2026-01-05T08:30:00'; an instant needs its time and zone:"
                + " 2026-01-05T08:30:00Z for UTC");
        assertError(cell(2, "2026-01-05 08:30:00"), 2, 2, "submit", "expected an ISO-8601 instant such as"
                + " 2026-01-05T00:00:00Z, got '2026-01-05 08:30:00'; an instant needs its time and zone:"
                + " 2026-01-05T08:30:00Z for UTC");
        assertThat(cell(2, "2026-01-05").problem()).endsWith("; an instant needs its time and zone:"
                + " 2026-01-05T00:00:00Z for UTC");
    }

    @Test
    void malformedDurations() {
        assertError(cell(7, "1x"), 2, 7, "duration",
                "expected a duration such as 90s, 15m, 8h, 2d, 1h30m or plain seconds, got '1x'");
        assertError(cell(7, "0"), 2, 7, "duration", "expected a positive duration, got '0'");
        // a unit given twice said only what a duration looks like, as if 5m5m were not one
        assertError(cell(8, "5m5m"), 2, 8, "min_runtime",
                "expected each of d, h, m and s at most once, e.g. 1h30m, got '5m5m': the unit 'm' is given twice");
        assertError(cell(8, "-5"), 2, 8, "min_runtime",
                "expected a duration such as 90s, 15m, 8h, 2d, 1h30m or plain seconds, got '-5'");
        // 0 said only "expected a positive duration": what to write for work that never loses progress?
        assertError(cell(11, "0s"), 2, 11, "checkpoint_every", "expected a positive duration, got '0s'; leave"
                + " checkpoint_every empty for work that never loses progress when preempted (what checkpoint-every 0s"
                + " means in a trace's contract rule), or give how often it checkpoints, such as 30m");
    }

    @Test
    void malformedFlagsAndNames() {
        assertError(cell(6, "two"), 2, 6, "gpus_per_node",
                "expected a whole number >= 0 (0 or none for any packing), got 'two'");
        assertError(cell(9, "maybe"), 2, 9, "resumable", "expected true, false, yes, no, 1 or 0, got 'maybe'");
        assertError(cell(10, "asap"), 2, 10, "priority", "expected one of low, normal, high, urgent, got 'asap'");
    }

    @Test
    void unknownAllocationListsTheLeaves() {
        assertError(cell(3, "nope"), 2, 3, "allocation",
                "expected one of the leaf allocations (pretrain, finetune, detect, scratch), got 'nope'");
    }

    @Test
    void anInnerNodeIsNotAnAllocationWorkloadsCanName() {
        assertError(cell(3, "nlp"), 2, 3, "allocation",
                "expected a leaf allocation, got 'nlp', an inner node of the allocation tree; its leaves: pretrain, finetune");
    }

    @Test
    void moreGpusThanTheClusterHas() {
        assertError(cell(5, "41"), 2, 5, "gpus", "expected at most 40 GPUs (the cluster has 40 GPUs on 6 nodes), got 41");
        assertThat(Folders.read(writeRow("ok,0,detect,u,40,,1h,15m,false,normal,,train")).workloads()).hasSize(1);
    }

    @Test
    void aGangTheClusterCanNeverHold() {
        // the shape rule is the API's and the core's (ShapeFit): a gang's misfit is on gpus_per_node
        assertError(rows("ok,0,detect,u,40,8,1h,15m,false,normal,,train\n"), 2, 6, "gpus_per_node",
                "expected a shape the cluster can hold: it has 4 nodes with at least 8 GPUs (40 GPUs on 6 nodes in all,"
                        + " at most 8 GPUs per node), got 5 nodes x 8 GPUs");
        assertError(rows("ok,0,detect,u,16,16,1h,15m,false,normal,,train\n"), 2, 6, "gpus_per_node",
                "expected a shape the cluster can hold: it has 0 nodes with at least 16 GPUs (40 GPUs on 6 nodes in"
                        + " all, at most 8 GPUs per node), got 1 node x 16 GPUs");
    }

    @Test
    void gpusMustBeAMultipleOfGpusPerNode() {
        assertError(rows("ok,0,detect,u,12,8,1h,15m,false,normal,,train\n"), 2, 6, "gpus_per_node",
                "expected a whole number that divides gpus (12), as a gang takes whole groups of that many GPUs on"
                        + " each node; 0 or none for any packing, got '8'");
    }

    @Test
    void everyRuleARowBreaksIsInItsOneMessage() {
        // given a row whose gpus, duration and checkpoint_every each break the workload rules
        // when read, then one error at the first names all three, with what was expected and the cells as written
        assertError(rows("ok,0,detect,u,0,,0s,15m,true,normal,0,train\n"), 2, 5, "gpus",
                "expected a whole number >= 1, got '0'; also field 'duration': expected a positive duration, got '0s';"
                        + " also field 'checkpoint_every': expected a positive duration, got '0'; "
                        + WorkloadRules.CHECKPOINT_EVERY_HINT);
    }

    @Test
    void duplicateIdNamesTheLineOfTheFirst() {
        InputException e = rows(GOOD + "# a comment\n\n" + GOOD);
        assertError(e, 5, 1, "id", "expected a unique id, got 'ok', already used on line 2");
    }

    @Test
    void wrongNumberOfCells() {
        InputException few = rows("ok,0,detect,u,1,,1h,15m,false,normal,\n");
        assertError(few, 2, 12, null, "expected 12 cells as in the header row, got 11");
        assertThat(few.getMessage()).isEqualTo("workloads.csv:2:12: expected 12 cells as in the header row, got 11");
        assertError(rows(GOOD.strip() + ",extra\n"), 2, 13, null, "expected 12 cells as in the header row, got 13");
    }

    @Test
    void anInstantBeforeStart() {
        Path d = Folders.copy("instants", tmp);
        Folders.write(d, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime\n"
                + "x,2026-01-04T23:59:59Z,team,1,1h,0\n");
        InputException e = Folders.error(d);
        assertThat(e.getMessage()).isEqualTo("workloads.csv:2:2: field 'submit': expected an instant at or after start"
                + " (2026-01-05T00:00:00Z in cluster.yaml), got '2026-01-04T23:59:59Z'");
    }

    @Test
    void unknownColumnListsTheValidOnes() {
        Folders.write(dir, "workloads.csv", "# header next\nid,submit,allocation,gpu,duration,min_runtime\n");
        InputException e = Folders.error(dir);
        assertThat(e.getMessage()).isEqualTo("workloads.csv:2:4: field 'gpu': unknown column; valid columns: id, submit,"
                + " allocation, user, gpus, gpus_per_node, duration, min_runtime, resumable, priority, checkpoint_every,"
                + " kind");
    }

    @Test
    void aHeaderThatIsNotCommaSeparatedLowerCaseColumnNamesSaysWhatItLooksLike() {
        Folders.write(dir, "workloads.csv", "id;submit;allocation;gpus;duration;min_runtime\n");
        assertThat(Folders.error(dir).problem()).endsWith("; the file is separated by ';': workloads.csv is"
                + " comma-separated (CSV)");
        Folders.write(dir, "workloads.csv", "id\tsubmit\tallocation\tgpus\tduration\tmin_runtime\n");
        assertThat(Folders.error(dir).problem()).endsWith("; the file is separated by tabs: workloads.csv is"
                + " comma-separated (CSV)");
        Folders.write(dir, "workloads.csv", "id,Submit,allocation,gpus,duration,min_runtime\n");
        assertThat(Folders.error(dir).getMessage()).startsWith("workloads.csv:1:2: field 'Submit': unknown column;")
                .endsWith("; column names are lower case, e.g. 'submit'");
        Folders.write(dir, "workloads.csv", GOOD);
        assertThat(Folders.error(dir).getMessage()).startsWith("workloads.csv:1:1: field 'ok': unknown column;")
                .endsWith("; is the header row missing? The first line that is not a # comment names the columns");
        Folders.write(dir, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime,\n");
        assertThat(Folders.error(dir).getMessage()).startsWith("workloads.csv:1:7: an empty column name (a comma at"
                + " the end of the header?); valid columns: id,");
    }

    @Test
    void missingAndRepeatedColumns() {
        Folders.write(dir, "workloads.csv", "id,submit,allocation,duration\n");
        assertThat(Folders.error(dir).getMessage()).isEqualTo("workloads.csv:1: the header row lacks required columns"
                + " gpus, min_runtime; required columns: id, submit, allocation, gpus, duration, min_runtime");

        Folders.write(dir, "workloads.csv", "id,submit,allocation,gpus,duration,min_runtime,gpus\n");
        assertThat(Folders.error(dir).getMessage())
                .isEqualTo("workloads.csv:1:7: field 'gpus': column appears twice in the header; first at column 4");
    }

    @Test
    void aByteOrderMarkBeforeACommentOrAloneIsNotAHeader() {
        // a comment after a BOM was the header: "field '# a comment': unknown column"
        Folders.write(dir, "workloads.csv", "\uFEFF# a comment, with commas\n" + HEADER + GOOD);
        assertThat(Folders.read(dir).workloads()).extracting(WorkloadSpec::id).containsExactly("ok");
        // a BOM alone was "an empty column name"
        Folders.write(dir, "workloads.csv", "\uFEFF");
        assertThat(Folders.error(dir).getMessage())
                .startsWith("workloads.csv: the file is empty; expected a header row such as id,submit,");
    }

    @Test
    void utf16IsSaidToBeUtf16() throws java.io.IOException {
        java.nio.file.Files.write(dir.resolve("workloads.csv"),
                (HEADER + GOOD).getBytes(java.nio.charset.StandardCharsets.UTF_16));
        assertThat(Folders.error(dir).getMessage()).isEqualTo("workloads.csv: expected UTF-8 text, got UTF-16 (the"
                + " file starts with its byte-order mark, as spreadsheets write 'Unicode text'); save it as UTF-8,"
                + " e.g. as 'CSV UTF-8'");
    }

    @Test
    void emptyFile() {
        Folders.write(dir, "workloads.csv", "# only a comment\n\n");
        assertThat(Folders.error(dir).getMessage())
                .startsWith("workloads.csv: the file is empty; expected a header row such as id,submit,");
    }

    private static final String UNCLOSED = "malformed CSV: a quoted value opened here is never closed (hint: add the"
            + " closing \"; a value that starts with \" runs to the next \", across commas and lines, and a \" inside"
            + " it is written \"\")";

    @Test
    void anUnclosedQuoteIsReportedOnTheLineItOpensNotAtTheEndOfTheFile() {
        // it said 'workloads.csv:17: malformed CSV: Missing closing quote for value' of a quote opened on line 6
        String later = "x,0,detect,u,1,,1h,15m,false,normal,,train\n".repeat(10);
        String before = "a,0,detect,u,1,,1h,15m,false,normal,,train\n" + "b,0,detect,u,1,,1h,15m,false,normal,,train\n"
                + "c,0,detect,u,1,,1h,15m,false,normal,,train\n" + "d,0,detect,u,1,,1h,15m,false,normal,,train\n";
        InputException e = rows(before + "\"broken,0,detect,u,1,,1h,15m,false,normal,,train\n" + later);
        assertThat(e.getMessage()).isEqualTo("workloads.csv:6: " + UNCLOSED);
    }

    @Test
    void anUnclosedQuoteAfterCommentsAndAClosedValueSpanningLinesIsReportedWhereItOpens() {
        InputException e = rows("# a comment\n\n"
                + "a,0,detect,\"two\nlines\",1,,1h,15m,false,normal,\"\",\"train\n"
                + "b,0,detect,u,1,,1h,15m,false,normal,,train\n");
        assertThat(e.getMessage()).isEqualTo("workloads.csv:5: " + UNCLOSED); // the row starts on 4
    }

    @Test
    void anUnclosedQuoteInTheHeaderIsReportedOnTheHeaderLine() {
        Folders.write(dir, "workloads.csv", "# columns\nid,\"submit,allocation\n" + GOOD + GOOD);
        assertThat(Folders.error(dir).getMessage()).isEqualTo("workloads.csv:2: " + UNCLOSED);
    }

    @Test
    void lenientReadingThatRejectsEveryRowIsRefusedNotReadAsNoWorkloads() {
        Path d = writeRow("bad,0,detect,u,x,,1h,15m,false,normal,,train\n"
                + "short,0,detect\n");
        InputException[] caught = new InputException[1];
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Folders.readLenient(d))
                .isInstanceOfSatisfying(InputException.class, e -> caught[0] = e);
        assertThat(caught[0].getMessage()).isEqualTo("workloads.csv: no row became a workload: 2 rows were rejected"
                + " (--lenient skips bad rows, but a run needs at least one workload); the first: workloads.csv:2:5:"
                + " field 'gpus': expected a whole number >= 1, got 'x'; workloads.csv:3:4: expected 12 cells as in"
                + " the header row, got 3");
    }

    @Test
    void controlCharactersInIdsAndNamesAreRefusedShownEscaped() {
        // an id of 'pre-ESC[31mX' and a user with a tab were read and printed as they were: the escape coloured the
        // terminal of whoever read the report, and a line break in a quoted cell split a row of its table
        String expected = "expected text without control characters (line breaks, tabs, escapes), got ";
        String why = "; ids and names are printed in reports and on terminals";
        assertError(cell(1, "pre-\u001b[31mX"), 2, 1, "id", expected + "'pre-\\u001b[31mX'; remove the control"
                + " character \\u001b (U+001B) at character 5" + why);
        assertError(cell(4, "an\ta"), 2, 4, "user", expected + "'an\\ta'; remove the control character \\t (U+0009)"
                + " at character 3" + why);
        // (a NUL is refused sooner, as a sign of a binary file; the reader trims control characters around a cell)
        assertError(cell(1, "a\u0007b"), 2, 1, "id", expected + "'a\\u0007b'; remove the control character"
                + " \\u0007 (U+0007) at character 2" + why);
        assertError(cell(12, "\"train\nfake-line\""), 2, 12, "kind", expected + "'train\\nfake-line'; remove the"
                + " control character \\n (U+000A) at character 6" + why);
        assertError(cell(3, "det\u009bect"), 2, 3, "allocation", expected + "'det\\u009bect'; remove the control"
                + " character \\u009b (U+009B) at character 4" + why);
    }

    @Test
    void aHeaderWithoutRowsIsRefusedLenientOrNot() {
        // it ran 'workloads 0; 0 rejected', printed a report of nothing and exited 0, with or without --lenient
        String problem = "the file has a header row and no workload rows (a run needs at least one); expected one"
                + " row per workload under the header, with at least the columns id, submit, allocation, gpus,"
                + " duration and min_runtime (hint: 'allot generate DIR' writes a scenario folder with workloads to"
                + " start from)";
        Folders.write(dir, "workloads.csv", "# only comments follow the header\n" + HEADER + "# none yet\n\n");
        assertError(Folders.error(dir), 0, 0, null, problem);
        InputException[] caught = new InputException[1];
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Folders.readLenient(dir))
                .isInstanceOfSatisfying(InputException.class, e -> caught[0] = e);
        assertError(caught[0], 0, 0, null, problem);
        assertThat(caught[0].getMessage()).isEqualTo("workloads.csv: " + problem);
    }

    @Test
    void aJsonlFileWithoutLinesIsRefused() {
        Folders.delete(dir, "workloads.csv");
        Folders.write(dir, "workloads.jsonl", "\n");
        assertThat(Folders.error(dir).getMessage()).isEqualTo("workloads.jsonl: the file has no workload lines (a run"
                + " needs at least one); expected one JSON object per line, with at least the fields id, submit,"
                + " allocation, gpus, duration and min_runtime (hint: 'allot generate DIR' writes a scenario folder"
                + " with workloads to start from)");
    }

    @Test
    void lenientSkipsBadRowsAndKeepsEveryMessage() {
        Path d = writeRow(GOOD
                + "bad,0,detect,u,x,,1h,15m,false,normal,,train\n"
                + "b,0,detect,u,2,,1h,15m,false,normal,,train\n"
                + GOOD
                + "short,0,detect\n"
                + "c,0,nope,u,2,,1h,15m,false,normal,,train\n"
                + "d,5,detect,u,2,,1h,15m,false,normal,,train");

        Scenario s = Folders.readLenient(d);

        assertThat(s.workloads()).extracting(WorkloadSpec::id).containsExactly("b", "ok", "d");
        assertThat(s.rejected()).containsExactly(
                "workloads.csv:3:5: field 'gpus': expected a whole number >= 1, got 'x'",
                "workloads.csv:5:1: field 'id': expected a unique id, got 'ok', already used on line 2",
                "workloads.csv:6:4: expected 12 cells as in the header row, got 3",
                "workloads.csv:7:3: field 'allocation': expected one of the leaf allocations (pretrain, finetune, detect,"
                        + " scratch), got 'nope'");

        // Without lenient the first bad row stops the reading.
        assertThat(Folders.error(d).line()).isEqualTo(3);
    }

    @Test
    void lenientStillFailsOnABadHeader() {
        Folders.write(dir, "workloads.csv", "id,when\nx,0\n");
        InputException[] caught = new InputException[1];
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Folders.readLenient(dir))
                .isInstanceOfSatisfying(InputException.class, e -> caught[0] = e);
        assertThat(caught[0].field()).isEqualTo("when");
    }

    private Path writeRow(String rows) {
        Folders.write(dir, "workloads.csv", HEADER + rows + "\n");
        return dir;
    }
}
