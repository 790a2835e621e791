package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.Launch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlurmActionsTest {
    private static final Path WORK = Path.of("/srv/allot");
    private static final SlurmConfig CONFIG = SlurmConfig.defaults(null, WORK, "inst1");
    private static final Path ENV_FILE = Path.of("/tmp/allot-job-env1.env");
    private static final Map<String, UnixAccounts.Account> ACCOUNTS = Map.of(
            "root", new UnixAccounts.Account("root", 0, 0, Path.of("/root")),
            "allot", new UnixAccounts.Account("allot", 990, 990, Path.of("/var/lib/allot")),
            "alice", new UnixAccounts.Account("alice", 1001, 1001, Path.of("/home/alice")),
            "bob", new UnixAccounts.Account("bob", 1002, 100, Path.of("/home/bob")),
            "nobody", new UnixAccounts.Account("nobody", 65534, 65534, Path.of("/nonexistent")));

    /** This test's passwd database (root, allot, alice, bob), the service running as {@code self}. */
    static UnixAccounts passwd(String self) {
        return new UnixAccounts() {
            @Override
            public Optional<Account> find(String name) {
                return Optional.ofNullable(ACCOUNTS.get(name));
            }

            @Override
            public Account self() {
                return ACCOUNTS.get(self);
            }

            @Override
            public boolean homeExists(Account account) {
                return !account.home().equals(Path.of("/nonexistent"));
            }
        };
    }

    static Launch as(Launch l, String account) {
        return new Launch(l.attempt(), l.placement(), l.command(), l.environment(), l.duration(), l.terms(), account,
                l.startedAtMillis());
    }

    private static SlurmActions actions(SlurmConfig config, String self) {
        return new SlurmActions(new Commands(config), config, passwd(self));
    }

    static Launch launch(String workload, int attempt, Launch.Terms terms, Object... nodesAndGpus) {
        List<Launch.NodeGpus> placement = new ArrayList<>();
        for (int i = 0; i < nodesAndGpus.length; i += 2) {
            List<Integer> gpus = new ArrayList<>();
            for (int g = 0; g < (Integer) nodesAndGpus[i + 1]; g++) {
                gpus.add(g);
            }
            placement.add(new Launch.NodeGpus((String) nodesAndGpus[i], gpus));
        }
        return new Launch(new AttemptKey(workload, attempt), placement, List.of("python", "train.py"),
                new TreeMap<>(), null, terms);
    }

    /** The arguments for a launch run by a service that runs as {@code allot} (not root). */
    private static List<String> args(SlurmConfig config, Launch launch) {
        SlurmActions actions = actions(config, "allot");
        return actions.sbatchArgs(launch, actions.identity(launch), ENV_FILE);
    }

    @Test
    void aUniformPlacementPinsTheNodesAndAsksTheSameGpusOnEach() {
        List<String> a = args(CONFIG, launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 3, "n2", 3));

        assertThat(a).containsExactly("--parsable", "--job-name=allot:w-1#1", "--comment=allot:inst1",
                "--partition=allot", "--requeue", "--chdir=/srv/allot", "--output=/srv/allot/allot-%j.out",
                "--export-file=" + ENV_FILE, "--dependency=singleton", "--nodelist=n1,n2", "--nodes=2",
                "--gres=gpu:3", wrap("w-1", 1));
    }

    @Test
    void givenARootServiceALaunchWithAnAccountIsSubmittedAsItsUserAndPrimaryGroupInItsHome() {
        SlurmActions actions = actions(CONFIG, "root");
        Launch l = as(launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 2), "bob");

        SlurmActions.JobIdentity who = actions.identity(l);

        assertThat(who.switchUser()).isTrue();
        assertThat(actions.sbatchArgs(l, who, ENV_FILE)).containsExactly("--parsable", "--job-name=allot:w-1#1",
                "--comment=allot:inst1", "--partition=allot", "--requeue", "--uid=bob", "--gid=100",
                "--chdir=/home/bob", "--output=/home/bob/allot-%j.out", "--export-file=" + ENV_FILE,
                "--dependency=singleton", "--nodelist=n1", "--nodes=1", "--gres=gpu:2", wrap("w-1", 1));
    }

    @Test
    void anAccountWithoutAHomeWorksInTmpWhereItCanWriteItsOutput() {
        // given a root service and a workload mapped to nobody (the demo as root), whose home is /nonexistent
        SlurmActions actions = actions(CONFIG, "root");
        Launch l = as(launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 2), "nobody");

        SlurmActions.JobIdentity who = actions.identity(l);

        assertThat(who.switchUser()).isTrue();
        assertThat(who.dir()).isEqualTo(Path.of("/tmp"));
        assertThat(actions.sbatchArgs(l, who, ENV_FILE)).contains("--uid=nobody", "--chdir=/tmp",
                "--output=/tmp/allot-%j.out");
    }

    @Test
    void theOperatorsExtraOptionsComeBeforeTheIdentitySoTheyCannotOverrideIt() {
        SlurmConfig c = CONFIG.withExtraSbatchArgs(List.of("--uid=root", "--export=ALL", "--dependency=afterok:7"));
        SlurmActions actions = actions(c, "root");
        Launch l = as(launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 1), "alice");

        List<String> a = actions.sbatchArgs(l, actions.identity(l), ENV_FILE);

        assertThat(a.indexOf("--uid=alice")).isGreaterThan(a.indexOf("--uid=root"));
        assertThat(a.indexOf("--export-file=" + ENV_FILE)).isGreaterThan(a.indexOf("--export=ALL"));
        assertThat(a.indexOf("--dependency=singleton")).isGreaterThan(a.indexOf("--dependency=afterok:7"));
    }

    @Test
    void aLaunchWithoutAnAccountRunsAsTheServicesOwnUserInTheWorkDirectoryWithoutSwitching() {
        SlurmActions actions = actions(CONFIG, "allot");
        Launch l = launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 1);

        SlurmActions.JobIdentity who = actions.identity(l);

        assertThat(who.account().name()).isEqualTo("allot");
        assertThat(who.switchUser()).isFalse();
        assertThat(actions.sbatchArgs(l, who, ENV_FILE)).noneMatch(x -> x.startsWith("--uid") || x.startsWith("--gid"))
                .contains("--chdir=/srv/allot", "--output=/srv/allot/allot-%j.out");
        // Its own account named explicitly: no switch either (sbatch refuses --uid from anyone but root), and it works
        // where the service's jobs do.
        SlurmActions.JobIdentity self = actions.identity(as(l, "allot"));
        assertThat(self.switchUser()).isFalse();
        assertThat(self.dir()).isEqualTo(Path.of("/srv/allot"));
    }

    @Test
    void noJobRunsAsRootUnlessRootWorkloadsAreAllowed() {
        Launch unnamed = launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 1);

        assertThatThrownBy(() -> actions(CONFIG, "root").identity(unnamed)).isInstanceOf(BackendException.class)
                .hasMessageContaining("w-1#1 would run as root (it names no account and the service runs as root)")
                .hasMessageContaining("unless the service is told to allow root workloads");
        assertThatThrownBy(() -> actions(CONFIG, "allot").identity(as(unnamed, "root")))
                .isInstanceOf(BackendException.class).hasMessageContaining("its account is 'root'");
        assertThatThrownBy(() -> actions(CONFIG, "root").identity(as(unnamed, "root")))
                .isInstanceOf(BackendException.class).hasMessageContaining("would run as root");

        SlurmActions allowed = actions(CONFIG.withRootWorkloads(true), "root");
        assertThat(allowed.identity(unnamed).account().name()).isEqualTo("root");
        assertThat(allowed.identity(as(unnamed, "alice")).account().name()).isEqualTo("alice");
    }

    @Test
    void anAccountThatDoesNotExistOrThatTheServiceCannotSwitchToIsRefusedWithTheReason() {
        Launch l = as(launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 1), "carol");

        assertThatThrownBy(() -> actions(CONFIG, "root").identity(l)).isInstanceOf(BackendException.class)
                .hasMessageContaining("w-1#1 runs as Unix account 'carol', which does not exist on the Allot host");
        assertThatThrownBy(() -> actions(CONFIG, "allot").identity(as(l, "alice")))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("the service runs as allot, not root: Slurm lets only root submit a job as"
                        + " another user");
    }

    @Test
    void theJobEnvironmentIsTheAccountsPathHomeAndUserTheDeclaredVariablesAndAllotsAndNothingElse() {
        Launch l = new Launch(new AttemptKey("w-9", 4), List.of(new Launch.NodeGpus("n1", List.of(0))),
                List.of("x"), new TreeMap<>(Map.of("SEED", "7", "MULTI", "a\nb,c d", "ALLOT_ATTEMPT", "99",
                "ALLOT_ATTEMPT_STARTED_AT", "5", "SBATCH_QOS", "high")), null, Launch.Terms.ALLOCATED, "alice",
                1_796_198_400_123L);

        SortedMap<String, String> env = SlurmActions.jobEnvironment(l, ACCOUNTS.get("alice"));

        assertThat(env).containsExactlyEntriesOf(new TreeMap<>(Map.of("ALLOT_ATTEMPT", "4", "ALLOT_WORKLOAD_ID",
                "w-9", "ALLOT_ATTEMPT_STARTED_AT", "1796198400123", "HOME", "/home/alice", "MULTI", "a\nb,c d",
                "PATH", SlurmActions.USER_PATH, "SBATCH_QOS", "high", "SEED", "7", "USER", "alice")));
        assertThat(SlurmActions.jobEnvironment(as(l, null), ACCOUNTS.get("root"))).containsEntry("PATH",
                SlurmActions.ROOT_PATH).containsEntry("HOME", "/root").containsEntry("USER", "root");
        // The submitter may set PATH (or HOME) for its own job.
        Launch own = new Launch(l.attempt(), l.placement(), l.command(), new TreeMap<>(Map.of("PATH", "/opt/x/bin")),
                null, Launch.Terms.ALLOCATED, "alice");
        assertThat(SlurmActions.jobEnvironment(own, ACCOUNTS.get("alice"))).containsEntry("PATH", "/opt/x/bin")
                .as("a launch with no stored start").doesNotContainKey(Launch.STARTED_AT_VARIABLE);
    }

    @Test
    void aVariableNameSlurmWouldSilentlyDropIsRefusedNamingIt() {
        for (String name : List.of("A-B", "A.B", "1ABC", "A B", "A,B", "\u00c4X")) {
            Launch l = new Launch(new AttemptKey("w-1", 1), List.of(new Launch.NodeGpus("n1", List.of(0))),
                    List.of("x"), new TreeMap<>(Map.of(name, "1")), null, Launch.Terms.ALLOCATED, "alice");

            assertThatThrownBy(() -> SlurmActions.jobEnvironment(l, ACCOUNTS.get("alice")))
                    .isInstanceOf(BackendException.class).hasMessageContaining("got '" + name + "'");
        }
    }

    @Test
    void aNonUniformPlacementIsAHeterogeneousJobOfOneComponentPerNodeEachPinnedToItsCount() {
        Launch launch = launch("w-2", 3, Launch.Terms.ALLOCATED, "n1", 6, "n2", 2);
        List<String> a = args(CONFIG, launch);

        // Each component repeats the job-wide options (Slurm reads them per component); the script comes last.
        List<String> common = List.of("--job-name=allot:w-2#3", "--comment=allot:inst1", "--partition=allot",
                "--requeue", "--chdir=/srv/allot", "--output=/srv/allot/allot-%j.out", "--export-file=" + ENV_FILE);
        List<String> expected = new ArrayList<>(List.of("--parsable"));
        expected.addAll(common);
        expected.addAll(List.of("--nodelist=n1", "--nodes=1", "--gres=gpu:6", ":"));
        expected.addAll(common);
        expected.addAll(List.of("--nodelist=n2", "--nodes=1", "--gres=gpu:2", wrap("w-2", 3, false)));
        assertThat(a).containsExactlyElementsOf(expected);
        assertThat(a).noneMatch(s -> s.startsWith("--gpus") || s.startsWith("--ntasks")
                || s.startsWith("--distribution"));
        // no singleton: Slurm 22.05 would hold a later component behind its own leader for ever
        assertThat(a).noneMatch(s -> s.startsWith("--dependency"));
        assertThat(SlurmActions.uniform(launch)).isFalse();
    }

    @Test
    void aThreeNodeSplitIsThreeComponentsInPlacementOrder() {
        List<String> a = args(CONFIG, launch("w-3", 1, Launch.Terms.ALLOCATED, "n3", 4, "n1", 3, "n2", 1));

        assertThat(a.stream().filter(s -> s.startsWith("--nodelist=") || s.startsWith("--gres=") || s.equals(":")))
                .containsExactly("--nodelist=n3", "--gres=gpu:4", ":", "--nodelist=n1", "--gres=gpu:3", ":",
                        "--nodelist=n2", "--gres=gpu:1");
        assertThat(a.stream().filter(s -> s.startsWith("--wrap="))).hasSize(1);
        assertThat(a.get(a.size() - 1)).startsWith("--wrap=");
    }

    @Test
    void unallocatedWorkGoesToTheFreePartition() {
        List<String> a = args(CONFIG, launch("w-3", 1, new Launch.Terms(true, true), "n4", 1));

        assertThat(a).contains("--partition=allot-free", "--nodelist=n4", "--nodes=1", "--gres=gpu:1")
                .doesNotContain("--partition=allot").noneMatch(s -> s.startsWith("--qos"));
    }

    @Test
    void qosAccountAndExtraArgumentsAreAddedWhenConfigured() {
        SlurmConfig c = CONFIG.withQos("protected", "scavenger").withAccount("proj-7")
                .withExtraSbatchArgs(List.of("--mem=0", "--exclusive"));

        List<String> allocated = args(c, launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 2));
        List<String> free = args(c, launch("w-1", 2, new Launch.Terms(true, false), "n1", 2));

        assertThat(allocated).contains("--qos=protected", "--account=proj-7", "--mem=0", "--exclusive");
        assertThat(free).contains("--qos=scavenger", "--account=proj-7", "--partition=allot-free");
        assertThat(allocated.get(allocated.size() - 1)).startsWith("--wrap=");
        assertThat(allocated.indexOf("--mem=0")).isLessThan(allocated.size() - 1);
    }

    @Test
    void aQosOnlyConfigurationNamesNoPartition() {
        SlurmConfig c = CONFIG.withQos("protected", "scavenger").withPartitions(null, null);

        assertThat(args(c, launch("w-1", 1, Launch.Terms.ALLOCATED, "n1", 1)))
                .noneMatch(s -> s.startsWith("--partition")).contains("--qos=protected");
    }

    /** A stand-in sbatch: records its argv, its environment as exec gave it, its umask and the export file. */
    private static final String SBATCH = """
            #!/bin/sh
            d=$(dirname "$0")
            cat /proc/$$/environ > "$d/sbatch.environ"
            umask > "$d/sbatch.umask"
            for a in "$@"; do printf '%s\\0' "$a"; done > "$d/sbatch.argv"
            for a in "$@"; do
              case $a in --export-file=*)
                f=${a#--export-file=}
                cat "$f" > "$d/sbatch.export"; stat -c %a "$f" > "$d/sbatch.export.mode"; echo "$f" > "$d/sbatch.export.path";;
              esac
            done
            echo 4242
            """;

    @TempDir
    Path bin;

    private SlurmActions standIn(String self) throws IOException {
        Path p = bin.resolve("sbatch");
        Files.writeString(p, SBATCH);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        SlurmConfig c = SlurmConfig.defaults(Path.of("/etc/test-slurm/slurm.conf"), bin.resolve("work"), "inst1")
                .withBinDir(bin).withCommandTimeout(Duration.ofSeconds(20));
        return new SlurmActions(new Commands(c), c, passwd(self));
    }

    private Map<String, String> nulSeparated(String file) throws IOException {
        Map<String, String> m = new TreeMap<>();
        for (String entry : Files.readString(bin.resolve(file), StandardCharsets.UTF_8).split("\0")) {
            if (!entry.isEmpty()) {
                int eq = entry.indexOf('=');
                m.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return m;
    }

    @Test
    void sbatchRunsWithNothingOfTheServicesEnvironmentAndUmask077AndGetsTheJobsEnvironmentAsAPrivateFile()
            throws Exception {
        SlurmActions actions = standIn("root");
        // Declared names that sbatch would read as its own options if they reached its environment.
        Launch l = new Launch(new AttemptKey("w-5", 2), List.of(new Launch.NodeGpus("n1", List.of(0, 1))),
                List.of("python", "train.py"), new TreeMap<>(Map.of("TOKEN", "s3cret\nline2", "SBATCH_QOS", "high",
                "SLURM_CONF", "/elsewhere")), null, Launch.Terms.ALLOCATED, "alice", 1_796_198_400_123L);

        assertThat(actions.submit(l, actions.identity(l))).isEqualTo(4242);

        // sbatch's own environment: the cluster's configuration, and nothing else: no PATH, HOME, no test variable.
        assertThat(nulSeparated("sbatch.environ")).containsExactlyEntriesOf(
                Map.of("SLURM_CONF", "/etc/test-slurm/slurm.conf"));
        assertThat(System.getenv()).isNotEmpty(); // there was something to leak
        assertThat(Files.readString(bin.resolve("sbatch.umask")).strip()).isEqualTo("0077");
        List<String> argv = Arrays.asList(Files.readString(bin.resolve("sbatch.argv")).split("\0"));
        assertThat(argv).contains("--uid=alice", "--gid=1001", "--chdir=/home/alice",
                "--output=/home/alice/allot-%j.out").noneMatch(a -> a.startsWith("--export="));
        // The job's whole environment, exactly; written 0600, and gone once sbatch returned.
        assertThat(nulSeparated("sbatch.export")).containsExactlyEntriesOf(new TreeMap<>(Map.of("TOKEN",
                "s3cret\nline2", "SBATCH_QOS", "high", "SLURM_CONF", "/elsewhere", "PATH", SlurmActions.USER_PATH,
                "HOME", "/home/alice", "USER", "alice", "ALLOT_WORKLOAD_ID", "w-5", "ALLOT_ATTEMPT", "2",
                "ALLOT_ATTEMPT_STARTED_AT", "1796198400123")));
        assertThat(Files.readString(bin.resolve("sbatch.export.mode")).strip()).isEqualTo("600");
        assertThat(Path.of(Files.readString(bin.resolve("sbatch.export.path")).strip())).doesNotExist();
    }

    @Test
    void aNonUniformPlacementGetsNothingOfTheServiceEither() throws Exception {
        SlurmActions actions = standIn("allot");
        Launch l = launch("w-6", 1, Launch.Terms.ALLOCATED, "n1", 2, "n2", 1);

        actions.submit(l, actions.identity(l));

        assertThat(nulSeparated("sbatch.environ")).containsExactlyEntriesOf(
                Map.of("SLURM_CONF", "/etc/test-slurm/slurm.conf"));
        assertThat(Arrays.asList(Files.readString(bin.resolve("sbatch.argv")).split("\0")))
                .noneMatch(a -> a.startsWith("--uid")).contains("--chdir=" + bin.resolve("work"), ":");
    }

    @Test
    void theLockJobIsSubmittedWithNothingOfTheServicesEnvironmentEither() throws Exception {
        standIn("root").submitLock();

        assertThat(nulSeparated("sbatch.environ")).containsExactlyEntriesOf(
                Map.of("SLURM_CONF", "/etc/test-slurm/slurm.conf"));
    }

    @Test
    void theWrappedCommandGivesTheProgramExactlyItsArguments() throws Exception {
        List<String> command = List.of("python", "train.py", "--name", "two words", "it's", "say \"hi\"", "$HOME",
                "`id`", "$(echo no)", "back\\slash", "", "semi;colon", "*", "new\nline", "'", "''", "tab\there");

        assertThat(run("bash", SlurmActions.shellCommand(command))).isEqualTo(command);
        assertThat(run("sh", SlurmActions.shellCommand(command))).isEqualTo(command); // sbatch --wrap uses sh
    }

    /**
     * The job script of a uniform attempt (it carries the singleton) whose command is {@code python train.py}: the
     * check of {@link OnceGuard} first.
     */
    private static String wrap(String workload, int attempt) {
        return wrap(workload, attempt, true);
    }

    private static String wrap(String workload, int attempt, boolean singleton) {
        String squeue = new Commands(CONFIG).executable("squeue");
        return "--wrap=" + OnceGuard.script(new AttemptKey(workload, attempt), "inst1", squeue, "'python' 'train.py'",
                singleton);
    }

    /** Runs {@code printf '%s\0' <line>} in a shell and splits what it printed. */
    private static List<String> run(String shell, String line) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(shell, "-c", "printf '%s\\0' " + line).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return Arrays.asList(out.substring(0, out.length() - 1).split("\0", -1));
    }
}
