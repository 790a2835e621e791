package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.api.ApiFixture.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Listing workloads by an allocation that does not exist: {@code GET /v1/workloads?allocation=lab/nope} answered an
 * empty 200 (nothing in a typo of a path) where {@code GET /v1/queue?allocation=lab/nope} answered 400 naming it. Both
 * now refuse it alike; an allocation removed since still lists its ended workloads (their history stays).
 */
class WorkloadsByAllocationTest {
    @RegisterExtension
    final ApiExtension fx = new ApiExtension();

    @Test
    void givenNoSuchAllocation_whenWorkloadsAreListedByIt_thenItIs400NamingItAsTheQueueAnswers() {
        fx.api.submit("member", body());

        Response workloads = fx.api.get("/v1/workloads?allocation=lab/nope", "tok-member");
        Response queue = fx.api.get("/v1/queue?allocation=lab/nope", "tok-member");

        assertThat(workloads.status()).isEqualTo(400);
        assertThat(workloads.field()).isEqualTo("allocation");
        assertThat(workloads.error()).contains("unknown allocation 'lab/nope'");
        assertThat(workloads.json().path("hint").asText()).contains("lab/nlp/pretrain", "lab/vision/detect");
        assertThat(queue.status()).isEqualTo(400);
        assertThat(workloads.json().path("error")).isEqualTo(queue.json().path("error"));
        assertThat(workloads.json().path("hint")).isEqualTo(queue.json().path("hint"));
    }

    @Test
    void givenAnAllocationWithNoWorkloads_whenListedByIt_thenTheListIsEmpty() {
        Response r = fx.api.get("/v1/workloads?allocation=lab/vision", "tok-member");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("workloads").size()).isZero();
    }

    @Test
    void givenAnAllocationRemovedAfterItsWorkEnded_whenListedByIt_thenItsEndedWorkloadsAreStillListed() {
        String id = fx.api.submit("ms-member", body("allocation", "\"lab/vision/detect\"")).json().path("id").asText();
        assertThat(fx.api.post("/v1/workloads/" + id + "/cancel", "tok-ms-member", null).status()).isEqualTo(200);
        Response removed = fx.api.delete("/v1/allocations/lab/vision/detect", "tok-root");
        assertThat(removed.status()).as(String.valueOf(removed.json())).isBetween(200, 204);

        Response r = fx.api.get("/v1/workloads?allocation=lab/vision/detect", "tok-member");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("workloads").get(0).path("id").asText()).isEqualTo(id);
    }
}
