package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.rules.Shares;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.User;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.ScenarioReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One rule for shares and one for allocation names, seen from the three places that take them: the API
 * ({@code PUT /v1/allocations/...}), the CLI ({@code allot budget set}) and the simulator's {@code allocations.yaml}.
 * For the same values all three give the same verdict, the verdict of {@link Shares}.
 */
class SharesAndNamesAcrossBoundariesTest {
    static final Instant NOW = ApiServerExtension.NOW;
    /** Share values as a user would type them, in JSON, on the command line and in YAML alike. */
    static final List<String> SHARES = List.of("-1", "-0.001", "0", "0.5", "2.5", "1e400", "1000000");

    @TempDir
    Path scenarios;

    @RegisterExtension
    final ApiServerExtension cluster = ApiServerExtension.builder()
            .user("root", User.Role.ADMIN)
            .allocation("lab", 1, List.of(), List.of())
            .allocation("lab/nlp", 3, List.of(), List.of())
            .allocation("lab/nlp/pretrain", 1, List.of(), List.of())
            .build();

    @Test
    void theApiTheCliAndTheReaderGiveTheSameVerdictOnEachShare() throws Exception {
        for (int i = 0; i < SHARES.size(); i++) {
            String share = SHARES.get(i);
            // given a new allocation beside lab/nlp (share 3), with this share
            boolean rule = Shares.valid(Double.parseDouble(share));

            // when the API, the CLI and the simulator's reader are each given it
            int api = put("/v1/allocations/lab/api" + i, "{\"share\": " + share + ", \"managers\": [], \"members\": []}");
            Cli.Result cli = cli("budget", "set", "lab/cli" + i, "--share", share);
            boolean reader = readsTree("name: lab\nchildren:\n  - name: a\n    share: " + share
                    + "\n  - name: b\n    share: 3\n");

            // then each accepts it exactly when the rule does
            assertThat(api).as("API on share %s", share).isEqualTo(rule ? 201 : 400);
            assertThat(cli.exit()).as("CLI on share %s: %s", share, cli.err()).isEqualTo(rule ? 0 : 2);
            assertThat(reader).as("reader on share %s", share).isEqualTo(rule);
            if (!rule) {
                assertThat(cli.err()).contains("--share: expected " + Shares.EXPECTED);
            }
        }
        // and what the API and the CLI refused was not created
        assertThat(cluster.store().allocations().allocations()).extracting(Allocation::path)
                .containsExactlyInAnyOrder("lab", "lab/nlp", "lab/nlp/pretrain", "lab/api2", "lab/api3", "lab/api4",
                        "lab/api6", "lab/cli2", "lab/cli3", "lab/cli4", "lab/cli6");
    }

    @Test
    void siblingsWithNoPositiveShareAreRefusedEverywhere() throws Exception {
        // given lab/nlp/pretrain, the only child of lab/nlp: a share of 0 would leave nlp's children entitled to nothing
        int api = put("/v1/allocations/lab/nlp/pretrain", "{\"share\": 0, \"managers\": [], \"members\": []}");
        Cli.Result cli = cli("budget", "set", "lab/nlp/pretrain", "--share", "0");
        boolean reader = readsTree("name: lab\nchildren:\n  - name: nlp\n    children:\n      - name: pretrain\n"
                + "        share: 0\n");

        assertThat(api).isEqualTo(409);
        assertThat(cli.exit()).isNotZero();
        assertThat(cli.err()).contains("expected at least one positive share among the children of 'lab/nlp'");
        assertThat(reader).isFalse();
        assertThat(cluster.store().allocations().allocations()).filteredOn(a -> a.path().equals("lab/nlp/pretrain"))
                .extracting(Allocation::share).containsExactly(1.0);
    }

    @Test
    void namesThatAreNotOneSegmentAreRefusedByTheCliBeforeAnyRequest() {
        for (String path : new String[] {"lab/..", "lab/../x", "lab/./x", "..", "lab//x", "/lab", "lab/\u0001"}) {
            Cli.Result r = cli("budget", "set", path, "--share", "1");

            assertThat(r.exit()).as(path).isEqualTo(2);
            assertThat(r.err()).as(path).startsWith("allot: PATH: expected names joined by '/'");
        }
        assertThat(cluster.store().allocations().allocations()).hasSize(3);
    }

    private Cli.Result cli(String... args) {
        return cluster.as("root", args);
    }

    private int put(String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.url() + path))
                .header("Authorization", "Bearer tok-root").header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    /**
     * Whether the simulator reads this allocations.yaml, as it reads a scenario's (the scenario's workloads have
     * rules of their own: a header without rows is refused).
     */
    private boolean readsTree(String allocationsYaml) throws IOException {
        Path dir = Files.createTempDirectory(scenarios, "s");
        Files.writeString(dir.resolve("allocations.yaml"), allocationsYaml);
        try {
            ScenarioReader.readAllocations(dir.resolve("allocations.yaml"));
            return true;
        } catch (InputException e) {
            return false;
        }
    }
}
