package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One rule for every file a command writes: missing parent directories are created; a path that cannot be written
 * (a file in the way of its folder, a folder where the file should be) is refused with one line naming the option,
 * the path and the reason, a non-zero exit, no stack trace, and before the work is done.
 */
class OutputFilesTest {
    @TempDir
    Path tmp;

    @Test
    void givenMissingFoldersEveryOutputOfSimulateIsWrittenIntoThem() {
        Path json = tmp.resolve("a/b/run.json");
        Path report = tmp.resolve("c/d/report.html");
        Path workloads = tmp.resolve("e/f/workloads.csv");
        Path events = tmp.resolve("g/h/events.txt");
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--json", json.toString(),
                "--report", report.toString(), "--workloads-out", workloads.toString(), "--events-out",
                events.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(json).isNotEmptyFile();
        assertThat(report).isNotEmptyFile();
        assertThat(workloads).isNotEmptyFile();
        assertThat(events).isNotEmptyFile();
    }

    @Test
    void givenAFileWhereTheFolderShouldBeSimulateJsonFailsInOneLineNamingTheOptionAndThePath() throws IOException {
        Path blocker = Files.writeString(tmp.resolve("blocker"), "a file, not a folder");
        Path json = blocker.resolve("run.json");
        Cli.Result r = Cli.run("simulate", Cli.example("tiny"), "--policy", "allocation", "--json", json.toString());
        assertRefused(r, "--json", json.toString());
        assertThat(r.err()).contains(blocker + " is a file, not a folder");
        assertThat(r.out()).as("refused before the run").isEmpty();
    }

    @Test
    void givenAFolderWhereTheFileShouldBeEachOptionIsRefusedInOneLine() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("taken"));
        String[][] cases = {
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--report", dir.toString()},
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--workloads-out", dir.toString()},
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--events-out", dir.toString()},
                {"sweep", "--preset", "lab", "--seeds", "1", "--set", "lookback=1d", "--csv", dir.toString()},
                {"report", tmp.resolve("missing.json").toString(), "--report", dir.toString()},
        };
        for (String[] args : cases) {
            Cli.Result r = Cli.run(args);
            String option = args[args.length - 2];
            assertRefused(r, option, dir.toString());
            assertThat(r.err()).as(String.join(" ", args)).contains("is a folder");
        }
    }

    @Test
    void givenAFolderThatTakesNoNewFiles_whenSweepOrForecastAccuracyWrite_thenTheyAreRefusedBeforeTheWork() {
        // for root, /sys and /proc read as writable: sweep --csv and forecast accuracy --json ran all the work first,
        // and forecast accuracy then printed Java's "/proc/x (No such file or directory)"
        String[][] cases = {
                {"sweep", Cli.example("tiny"), "--csv", "/sys/allot-output-test.csv"},
                {"forecast", "accuracy", Cli.example("tiny"), "--json", "/proc/allot-output-test.json"},
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--json", "/proc/allot-output-test.json"},
        };
        for (String[] args : cases) {
            Cli.Result r = Cli.run(args);
            assertRefused(r, args[args.length - 2], args[args.length - 1]);
            assertThat(r.err()).as(String.join(" ", args)).doesNotContain("(No such file");
            assertThat(r.out()).as("refused before the work: " + String.join(" ", args)).isEmpty();
        }
    }

    @Test
    void givenAMissingFolderInAFolderThatTakesNoNewEntries_thenTheRefusalSaysWhyTheFolderCouldNotBeMade() {
        // it said "no such file or folder" of a path whose missing folders are otherwise made: /proc exists, and the
        // system answers "no such file or directory" of making anything in it
        Cli.Result sweep = Cli.run("sweep", Cli.example("tiny"), "--csv", "/proc/allot-nope/x.csv");
        assertThat(sweep.err()).isEqualTo("allot: cannot write --csv /proc/allot-nope/x.csv: could not create"
                + " /proc/allot-nope: the folder /proc takes no new files or folders (a virtual file system such as"
                + " /proc or /sys)\n");
        assertThat(sweep.out()).isEmpty();
        Cli.Result generate = Cli.run("generate", "/proc/allot-nope");
        assertThat(generate.err()).isEqualTo("allot: cannot write DIR /proc/allot-nope: could not create"
                + " /proc/allot-nope: the folder /proc takes no new files or folders (a virtual file system such as"
                + " /proc or /sys)\n");
        assertThat(generate.exit()).isNotZero();
    }

    @Test
    void givenADashForAnOutput_whenRun_thenItIsRefusedBeforeTheWorkNotWrittenAsAFileNamedDash() {
        // '--events-out -' wrote a file named '-' in the working folder and said "wrote -"
        String[][] cases = {
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--events-out", "-"},
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--workloads-out", "-"},
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--json", "-"},
                {"sweep", Cli.example("tiny"), "--csv", "-"},
        };
        for (String[] args : cases) {
            Cli.Result r = Cli.run(args);
            assertThat(r.err()).as(String.join(" ", args)).isEqualTo("allot: cannot write " + args[args.length - 2]
                    + " -: expected a file path; '-' (standard output) is not supported for this option, give a path"
                    + " such as ./out.txt\n");
            assertThat(r.exit()).isNotZero();
            assertThat(r.out()).as("refused before the work").isEmpty();
        }
        assertThat(Path.of("-")).doesNotExist();
    }

    @Test
    void givenAFileWhereTheScenarioFolderShouldBeGenerateIsRefusedInOneLine() throws IOException {
        Path blocker = Files.writeString(tmp.resolve("blocker"), "x");
        Cli.Result r = Cli.run("generate", blocker.resolve("scenario").toString(), "--days", "1");
        assertRefused(r, "DIR", blocker.resolve("scenario").toString());
    }

    @Test
    void givenAMissingParentGenerateAndReportCreateIt() throws IOException {
        Path scenario = tmp.resolve("x/y/scenario");
        Cli.Result g = Cli.run("generate", scenario.toString(), "--days", "1");
        assertThat(g.exit()).as(g.err()).isZero();
        Path json = tmp.resolve("run.json");
        assertThat(Cli.run("simulate", scenario.toString(), "--policy", "allocation", "--json", json.toString())
                .exit()).isZero();
        Path report = tmp.resolve("p/q/report.html");
        Cli.Result r = Cli.run("report", json.toString(), "--report", report.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(report).isNotEmptyFile();
    }

    @Test
    void givenAnOutputThatIsAnInputOrAnotherOutputTheRunIsRefusedAndTheInputKept() throws IOException {
        // given a copy of tiny, and a saved run
        Path scenario = Files.createDirectories(tmp.resolve("tiny"));
        for (String f : new String[] {"cluster.yaml", "allocations.yaml", "workloads.csv", "policy.yaml"}) {
            Files.copy(Path.of(Cli.example("tiny")).resolve(f), scenario.resolve(f));
        }
        byte[] workloads = Files.readAllBytes(scenario.resolve("workloads.csv"));
        Path saved = tmp.resolve("run.json");
        assertThat(Cli.run("simulate", scenario.toString(), "--json", saved.toString()).exit()).isZero();
        byte[] run = Files.readAllBytes(saved);
        Path same = tmp.resolve("same.out");

        // then writing the results over the scenario's workloads.csv is refused, the file as it was
        Cli.Result over = Cli.run("simulate", scenario.toString(), "--workloads-out",
                scenario.resolve("./workloads.csv").toString());
        assertRefused(over, "--workloads-out", scenario.resolve("./workloads.csv").toString());
        assertThat(over.err()).contains("it is the scenario's workloads.csv, which this run reads");
        assertThat(over.out()).as("refused before the run").isEmpty();
        assertThat(scenario.resolve("workloads.csv")).hasBinaryContent(workloads);
        // two outputs on one path: only the last would survive
        Cli.Result twice = Cli.run("simulate", scenario.toString(), "--json", same.toString(), "--report",
                same.toString());
        assertRefused(twice, "--report", same.toString());
        assertThat(twice.err()).contains("--json writes it too; give each output its own path");
        // the report over its own saved run
        Cli.Result report = Cli.run("report", saved.toString(), "--report", saved.toString());
        assertRefused(report, "--report", saved.toString());
        assertThat(saved).hasBinaryContent(run);
        // the sweep's CSV over the scenario's policy.yaml
        Cli.Result sweep = Cli.run("sweep", scenario.toString(), "--csv", scenario.resolve("policy.yaml").toString());
        assertRefused(sweep, "--csv", scenario.resolve("policy.yaml").toString());
        // a page written earlier may be rendered again in its place: its run data is in it
        Path page = tmp.resolve("page.html");
        assertThat(Cli.run("report", saved.toString(), "--report", page.toString()).exit()).isZero();
        Cli.Result again = Cli.run("report", page.toString(), "--report", page.toString());
        assertThat(again.exit()).as(again.err()).isZero();
    }

    @Test
    void givenAnEmptyPathForAnOutput_whenRun_thenItIsRefusedAsEmptyNotAsAFolder() {
        // it said "cannot write --json : it is a folder": the empty path named the working folder
        String[][] cases = {
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--json", ""},
                {"simulate", Cli.example("tiny"), "--policy", "allocation", "--report", ""},
                {"sweep", "--preset", "lab", "--seeds", "1", "--set", "lookback=1d", "--csv", ""},
        };
        for (String[] args : cases) {
            Cli.Result r = Cli.run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
            assertThat(r.err()).as(String.join(" ", args)).isEqualTo("allot: cannot write " + args[args.length - 2]
                    + ": expected a file path, got an empty one\n");
            assertThat(r.out()).as("refused before the run").isEmpty();
        }
        Cli.Result generate = Cli.run("generate", "", "--days", "1");
        assertThat(generate.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(generate.err()).isEqualTo("allot: cannot write DIR: expected a folder path, got an empty one\n");
    }

    @Test
    void givenAnEarlierOutput_whenTheNewWriteStopsHalfway_thenTheEarlierOutputIsKeptWhole() throws IOException {
        Path json = Files.writeString(tmp.resolve("run.json"), "{\"schema\":\"allot.simulate/1\"}\n");

        // Ctrl-C or a full disk while the results are written: the file was left cut short, over the earlier run's
        assertThatThrownBy(() -> OutputFiles.writeText("--json", json, w -> {
            w.write("{\"sche");
            w.flush();
            throw new IOException("No space left on device");
        })).isInstanceOf(OutputFiles.CannotWriteException.class)
                .hasMessage("cannot write --json " + json + ": No space left on device");

        assertThat(Files.readString(json)).isEqualTo("{\"schema\":\"allot.simulate/1\"}\n");
        try (java.util.stream.Stream<Path> files = Files.list(tmp)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly("run.json");
        }
    }

    private static void assertRefused(Cli.Result r, String option, String path) {
        assertThat(r.exit()).as(r.err()).isNotZero();
        String err = r.err().strip();
        assertThat(err).as("one line").doesNotContain("\n");
        assertThat(err).startsWith("allot: cannot write " + option + " " + path + ": ");
        assertThat(err).doesNotContain("Exception").doesNotContain("\tat ");
    }
}
