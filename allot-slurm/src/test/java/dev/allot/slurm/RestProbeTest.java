package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.allot.core.backend.BackendUnavailableException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RestProbe} against a stand-in slurmrestd on a local port answering what 22.05.8's does. */
class RestProbeTest {
    /** What slurmrestd 22.05.8 (openapi/v0.0.38) answers, with HTTP 500, for GET job/{id} of an id it does not know. */
    private static final String UNKNOWN_JOB = """
            {"meta": {"plugin": {"type": "openapi/v0.0.38"}}, "errors": [{"description": "Unable to find JobId=999999",
             "error_number": -1, "error": "Unspecified error", "source": "slurm_load_job"}], "jobs": []}""";

    @TempDir
    Path dir;
    private HttpServer server;
    private final Map<String, Integer> status = new ConcurrentHashMap<>();
    private final Map<String, String> body = new ConcurrentHashMap<>();
    private final Map<String, List<String>> headers = new ConcurrentHashMap<>();
    private RestProbe probe;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            String path = ex.getRequestURI().getPath().substring(RestProbe.API.length());
            headers.put("user", ex.getRequestHeaders().getOrDefault("X-SLURM-USER-NAME", List.of()));
            headers.put("token", ex.getRequestHeaders().getOrDefault("X-SLURM-USER-TOKEN", List.of()));
            byte[] b = body.getOrDefault(path, "").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status.getOrDefault(path, 404), b.length == 0 ? -1 : b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        });
        server.start();
        Path token = dir.resolve("token");
        Files.writeString(token, "SLURM_JWT=eyJ.test.token\n");
        SlurmConfig config = SlurmConfig.defaults(null, dir, "inst1")
                .withRest("http://127.0.0.1:" + server.getAddress().getPort() + "/", "allot", token)
                .withCommandTimeout(Duration.ofSeconds(20));
        probe = new RestProbe(config);
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(String path, int code, String text) {
        status.put(path, code);
        body.put(path, text);
    }

    @Test
    void jobsAreReadWithTheUserAndTheTokenWithoutItsPrefix() {
        answer("jobs", 200, Fixtures.read("squeue.json"));

        assertThat(probe.jobs()).hasSize(9);
        assertThat(headers.get("user")).containsExactly("allot");
        assertThat(headers.get("token")).containsExactly("eyJ.test.token");
    }

    @Test
    void aUrlWhereNothingListensIsUnavailableNamingTheUrlAndTheOption() {
        int port = server.getAddress().getPort();
        server.stop(0);

        assertThatThrownBy(() -> probe.jobs()).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("could not connect to http://127.0.0.1:" + port)
                .hasMessageContaining("--slurm-rest-url")
                .hasMessageNotContaining("java.net");
    }

    @Test
    void anErrorStatusOrATruncatedBodyIsUnavailable() {
        answer("jobs", 500, "{\"errors\": [{\"error\": \"Failed while looking for jobs\"}], \"jobs\": []}");
        assertThatThrownBy(probe::jobs).isInstanceOf(BackendUnavailableException.class).hasMessageContaining("HTTP 500")
                // Slurm's listed error, not its whole JSON, and where the credentials came from
                .hasMessageContaining("HTTP 500: Failed while looking for jobs (it was asked as user '")
                .hasMessageContaining("with the token in ").hasMessageNotContaining("\"jobs\": []");

        answer("jobs", 200, Fixtures.read("squeue.json").substring(0, 4000));
        assertThatThrownBy(probe::jobs).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("slurmrestd GET jobs: not complete JSON");

        answer("nodes", 200, "");
        assertThatThrownBy(probe::nodes).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("empty answer");
    }

    @Test
    void aRejectedTokenAnswerSaysHowToMakeAFreshToken() {
        // What slurmrestd 22.05.8 answered on the loopback cluster to GET jobs with a token slurmctld could not decode
        // (slurmctld's log: "auth_p_verify: jwt_decode failure"): HTTP 500, as for any failure. Allot retried for 30 s
        // and gave up naming the token file, but not what to do about it.
        answer("jobs", 500, "{\"errors\": [{\"description\": \"Failed while looking for jobs\", \"error_number\": -1,"
                + " \"error\": \"Unspecified error\", \"source\": \"slurm_load_jobs\"}], \"jobs\": []}");

        assertThatThrownBy(probe::jobs).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("HTTP 500: Failed while looking for jobs")
                .hasMessageContaining("if the token is wrong or has expired")
                .hasMessageContaining("`scontrol token username=")
                .hasMessageContaining("--slurm-rest-token-file");

        answer("nodes", 404, "not here");
        assertThatThrownBy(probe::nodes).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("HTTP 404").hasMessageNotContaining("scontrol token");
    }

    @Test
    void oneJobIsReadById() {
        answer("job/7", 200, Fixtures.read("squeue.json"));

        assertThat(probe.job(7)).hasValueSatisfying(j -> assertThat(j.exitCode()).isEqualTo(3));
    }

    @Test
    void anInvalidJobIdAnswerMeansNoSuchJob() {
        answer("job/999999", 500, "{\"errors\": [{\"error\": \"Invalid job id specified\", \"error_number\": 2017}],"
                + " \"jobs\": []}");

        assertThat(probe.job(999999)).isEmpty();
    }

    @Test
    void slurmrestd2205sAnswerForAnUnknownIdIsNotTakenForAbsenceItSaysNothingCertain() {
        // 22.05's v0.0.38 handler reports every slurm_load_job failure alike ("Unable to find JobId=..", error -1):
        // a purged job cannot be told from a controller that did not answer, so it stays unknown.
        answer("job/999999", 500, UNKNOWN_JOB);

        assertThatThrownBy(() -> probe.job(999999)).isInstanceOf(BackendUnavailableException.class);
    }

    @Test
    void nodesAreRead() {
        answer("nodes", 200, Fixtures.read("sinfo.json"));

        assertThat(probe.nodes()).hasSize(4);
    }
}
