package dev.allot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * High availability on the real Slurm cluster: two {@code allot serve --backend slurm} processes on one PostgreSQL
 * database (a fresh schema of the database {@code ALLOT_TEST_POSTGRES_URL} names), with the same Allot instance id
 * (their Slurm jobs are one instance's). Round after round, work is submitted through the standby, the leader is
 * killed with SIGKILL while jobs run, the standby takes over and adopts them, and the killed one comes back as the
 * standby. Checked against Slurm's own records: no attempt ever became two jobs, no job was requeued; and every
 * workload completed, none of its attempts taken for lost.
 *
 * <p>Needs PostgreSQL as well as Slurm: skipped without {@code ALLOT_TEST_POSTGRES_URL}, unless
 * {@code ALLOT_REQUIRE_SLURM=1} (set by {@code .ci/run}, which starts both), which makes its absence a failure.
 */
class SlurmHighAvailabilityTest extends SlurmStories {
    private static final int ROUNDS = Integer.getInteger("allot.it.haRounds", 3);
    private static final Duration BOUND = Duration.ofMillis(1500 + 300);
    private static final Duration MARGIN = Duration.ofSeconds(3);

    private final String url = System.getenv("ALLOT_TEST_POSTGRES_URL");
    private final String user = System.getenv("ALLOT_TEST_POSTGRES_USER");
    private final String password = System.getenv("ALLOT_TEST_POSTGRES_PASSWORD");
    private String schema;
    private Story standby;

    @AfterEach
    void dropSchema() throws Exception {
        if (standby != null) {
            standby.close();
        }
        if (schema != null) {
            execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }

    @Test
    void givenTwoServicesOnOneDatabaseWhenTheLeaderIsKilledThenTheOtherAdoptsItsSlurmJobsAndNoAttemptBecomesTwoJobs()
            throws Exception {
        if (url == null || url.isBlank()) {
            String why = "the Slurm high-availability story needs PostgreSQL too (ALLOT_TEST_POSTGRES_URL unset)";
            if ("1".equals(System.getenv("ALLOT_REQUIRE_SLURM"))) {
                throw new AssertionError(why + "; ALLOT_REQUIRE_SLURM=1 makes that a failure");
            }
            assumeTrue(false, why + "; .ci/run starts one");
        }
        schema = "allot_it_" + UUID.randomUUID().toString().replace("-", "");
        execute("CREATE SCHEMA " + schema);
        String jdbc = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        story = new Story(slurm, dir.resolve("data-a"), "it-ha").onDatabase(jdbc, user, password).seed();
        standby = new Story(slurm, dir.resolve("data-b"), story).onDatabase(jdbc, user, password);
        Story.startProcesses(story, standby); // together: whichever takes the lease first leads
        Story.until("one of them leads", Duration.ofSeconds(30),
                () -> story.role().equals("leader") || standby.role().equals("leader"));

        Random random = new Random(20261202);
        List<String> ids = new ArrayList<>();
        List<Long> failoverMillis = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            Story leader = story.role().equals("leader") ? story : standby;
            Story other = leader == story ? standby : story;
            List<String> these = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String who = random.nextBoolean() ? "alice" : "bob";
                these.add(other.submit(who, who.equals("alice") ? "lab/a" : "lab/b", 1 + random.nextInt(4), "1m",
                        false, "sleep " + (4 + random.nextInt(5))));
            }
            ids.addAll(these);
            Story.until("a job of round " + round + " runs in Slurm", Duration.ofSeconds(30),
                    () -> these.stream().anyMatch(id -> other.runningInSlurm(id, 1)));
            long killedAt = System.nanoTime();
            leader.kill();
            Story.until("the other service leads", Duration.ofSeconds(30), () -> other.role().equals("leader"));
            long millis = (System.nanoTime() - killedAt) / 1_000_000;
            failoverMillis.add(millis);
            System.out.printf("round %d: killed the leader (%s); the other leads after %d ms%n", round,
                    leader.dataDir.getFileName(), millis);
            leader.startProcess(); // back, as the standby
        }
        Story last = story.role().equals("leader") ? story : standby;
        Story.until("every workload to end", Duration.ofMinutes(2), () -> ids.stream().allMatch(id -> {
            try {
                String s = last.state(id);
                return !s.equals("pending") && !s.equals("running") && !s.equals("requeued")
                        && !s.equals("preempted");
            } catch (Exception e) {
                return false;
            }
        }));
        System.out.printf("SlurmHighAvailabilityTest: %d kills of the leader; failover ms %s (bound %d ms, margin %d"
                + " ms)%n", ROUNDS, failoverMillis, BOUND.toMillis(), MARGIN.toMillis());
        assertThat(failoverMillis).as("failovers within the bound (lease + renewal) and a margin")
                .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(BOUND.plus(MARGIN).toMillis()));

        List<SlurmCluster.Job> jobs = slurm.jobs().stream()
                .filter(j -> SlurmCluster.ofInstance(j, story.instance) && !j.name().equals("allot:lock")).toList();
        Map<String, Long> jobsPerAttempt = jobs.stream().collect(Collectors.groupingBy(SlurmCluster.Job::name,
                TreeMap::new, Collectors.counting()));
        assertThat(jobsPerAttempt).as("Slurm jobs per attempt").allSatisfy((name, n) -> assertThat(n).isEqualTo(1));
        assertThat(jobs).as("jobs Slurm requeued").allSatisfy(j -> assertThat(j.restarts()).isZero());
        for (String id : ids) {
            assertThat(last.state(id)).as(id).isEqualTo("completed");
            for (JsonNode a : last.attempts(id)) {
                assertThat(a.path("outcome").asText()).as("%s attempt %s: %s", id, a.path("attempt").asInt(),
                        a.path("reason").asText()).isNotEqualTo("lost");
                assertThat(jobsPerAttempt).as("a Slurm job for %s#%s", id, a.path("attempt").asInt())
                        .containsKey("allot:" + id + "#" + a.path("attempt").asInt());
            }
        }
    }

    private void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
