package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.WorkloadFilter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /v1/workloads/batch}: a sweep in one request, all or nothing, the refused item named by its index. */
class BatchSubmissionTest {
    @RegisterExtension
    final ApiExtension fx = new ApiExtension();

    static String batch(String... items) {
        return "{\"workloads\": [" + String.join(", ", items) + "]}";
    }

    int stored() {
        return fx.api.store.workloads().workloads(WorkloadFilter.all()).size();
    }

    @Test
    void aSweepIsStoredInOrderInOneRequest() {
        Response r = fx.api.post("/v1/workloads/batch", "tok-member",
                batch(body("kind", "\"sweep-1\""), body("kind", "\"sweep-2\""), body("kind", "\"sweep-3\"")));
        assertThat(r.status()).as("%s", r.json()).isEqualTo(201);
        List<String> kinds = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        r.json().path("workloads").forEach(w -> {
            kinds.add(w.path("kind").asText());
            ids.add(w.path("id").asText());
        });
        assertThat(kinds).containsExactly("sweep-1", "sweep-2", "sweep-3");
        assertThat(ids).doesNotHaveDuplicates().allSatisfy(id -> assertThat(id).startsWith("w-"));
        assertThat(r.json().path("workloads").get(0).path("user").asText()).isEqualTo("member");
        assertThat(stored()).isEqualTo(3);
    }

    @Test
    void oneBadItemRefusesTheWholeBatchAndNamesItsIndex() {
        Response bad = fx.api.post("/v1/workloads/batch", "tok-member",
                batch(body(), body("gpus", "\"8\""), body()));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.field()).isEqualTo("workloads[1].gpus");
        assertThat(bad.error()).startsWith("workloads[1]: field 'gpus'");
        Response forbidden = fx.api.post("/v1/workloads/batch", "tok-member",
                batch(body(), body("allocation", "\"lab/vision/detect\"")));
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.error()).startsWith("workloads[1]: ");
        assertThat(stored()).as("all or nothing").isZero();
    }

    @Test
    void aBatchReusingAKeyForAnotherSubmissionIsRefusedWholeAndARetryGetsTheSameWorkloads() {
        Response first = fx.api.post("/v1/workloads/batch", "tok-member",
                batch(body("idempotencyKey", "\"k-1\""), body("idempotencyKey", "\"k-2\"")));
        assertThat(first.status()).as("%s", first.json()).isEqualTo(201);
        String k2 = first.json().path("workloads").get(1).path("id").asText();

        Response retry = fx.api.post("/v1/workloads/batch", "tok-member",
                batch(body("idempotencyKey", "\"k-1\""), body("idempotencyKey", "\"k-2\"")));
        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.json().path("workloads").get(1).path("id").asText()).isEqualTo(k2);

        Response other = fx.api.post("/v1/workloads/batch", "tok-member",
                batch(body("idempotencyKey", "\"k-3\""), body("idempotencyKey", "\"k-2\"", "gpus", "4")));
        assertThat(other.status()).as("%s", other.json()).isEqualTo(409);
        assertThat(other.field()).isEqualTo("workloads[1].idempotencyKey");
        assertThat(other.error()).startsWith("workloads[1]: field 'idempotencyKey': the key was used by " + k2)
                .contains("its gpus is 8, not 4");
        assertThat(stored()).as("k-3 is not stored either: all or nothing").isEqualTo(2);

        Response twice = fx.api.post("/v1/workloads/batch", "tok-member",
                batch(body("idempotencyKey", "\"k-4\""), body("idempotencyKey", "\"k-4\"", "gpus", "4")));
        assertThat(twice.status()).as("one key for two submissions of one batch").isEqualTo(409);
        assertThat(twice.field()).isEqualTo("workloads[1].idempotencyKey");
        assertThat(stored()).isEqualTo(2);
    }

    @Test
    void malformedBatchesAreClear400sAndNeedAToken() {
        assertThat(fx.api.post("/v1/workloads/batch", "tok-member", batch()).field()).isEqualTo("workloads");
        assertThat(fx.api.post("/v1/workloads/batch", "tok-member", "[" + body() + "]").status()).isEqualTo(400);
        assertThat(fx.api.post("/v1/workloads/batch", "tok-member", "{\"workloads\": {}}").status()).isEqualTo(400);
        assertThat(fx.api.post("/v1/workloads/batch", "tok-member", "{\"workloads\": [], \"x\": 1}").status()).isEqualTo(400);
        assertThat(fx.api.post("/v1/workloads/batch", "tok-member", "{\"workloads\": [" + body()).status()).isEqualTo(400);
        String tooMany = batch(Collections.nCopies(WorkloadsApi.MAX_BATCH + 1, body()).toArray(String[]::new));
        assertThat(fx.api.post("/v1/workloads/batch", "tok-member", tooMany).field()).isEqualTo("workloads");
        assertThat(fx.api.post("/v1/workloads/batch", null, batch(body())).status()).isEqualTo(401);
        assertThat(fx.api.post("/v1/workloads/batch", "tok-member", batch("42")).field()).isEqualTo("workloads[0]");
        assertThat(stored()).isZero();
        assertThat(X).isNotBlank();
    }
}
