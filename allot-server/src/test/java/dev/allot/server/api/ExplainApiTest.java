package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.X;
import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.testing.ForwardingBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/workloads/{id}/explain} against a real server whose explanations come from a real scheduling loop
 * (the core's allocation policy, the simulated backend, a clock moved by hand, one cycle at a time).
 *
 * <p>The story: gpu-01 (8 GPUs) is the only healthy node. ms-member's 8-GPU workload of lab/vision/detect starts with
 * a 1h minimum runtime; member's 8-GPU workload of lab/nlp/pretrain (which ranks above, having used nothing) then
 * waits for that protection to end, and once it has, preempts it.
 */
class ExplainApiTest {
    private static final String DETECT = "lab/vision/detect";

    @RegisterExtension
    final LoopApiExtension fx = new LoopApiExtension();

    private String submit(String user, String allocation, String minRuntime) {
        Response r = fx.api.submit(user, body("allocation", "\"" + allocation + "\"", "gpusPerNode", "0",
                "minRuntime", "\"" + minRuntime + "\"", "duration", "\"1d\""));
        assertThat(r.status()).isEqualTo(201);
        return r.json().path("id").asText();
    }

    private JsonNode explain(String id, String user) {
        Response r = fx.api.get("/v1/workloads/" + id + "/explain", "tok-" + user);
        assertThat(r.status()).as("%s", r.json()).isEqualTo(200);
        return r.json();
    }

    @Test
    void aWaitingWorkloadIsExplainedWithItsPlaceItsFairShareAndTheProtectionItWaitsFor() {
        String detect = submit("ms-member", DETECT, "1h");
        fx.loop.runOnce();
        String pretrain = submit("member", X, "2h");
        fx.loop.runOnce();

        JsonNode e = explain(pretrain, "member");

        assertThat(e.path("id").asText()).isEqualTo(pretrain);
        assertThat(e.path("state").asText()).isEqualTo("pending");
        assertThat(e.path("allocation").asText()).isEqualTo(X);
        JsonNode data = e.path("data");
        assertThat(data.path("seenByScheduler").asBoolean()).isTrue();
        assertThat(data.path("at").asText()).isEqualTo("2026-03-01T09:00:00.000Z");
        assertThat(data.path("queue").path("position").asInt()).isEqualTo(1);
        assertThat(data.path("queue").path("waiting").asInt()).isEqualTo(1);
        assertThat(data.path("queue").path("positionInAllocation").asInt()).isEqualTo(1);
        List<String> levels = new ArrayList<>();
        data.path("fairShare").forEach(l -> levels.add(l.path("name").asText() + " " + l.path("rank").asInt() + "/"
                + l.path("siblings").asInt()));
        // lab is alone at the top; under lab, nlp (nothing used) ranks above vision (committed 8 GPU-hours)
        assertThat(levels).containsExactly("lab 1/1", "lab/nlp 1/2", X + " 1/1");
        assertThat(data.path("fairShare").get(1).path("usageGpuSeconds").asLong()).isZero();
        assertThat(data.path("fairShare").get(1).path("entitlement").asDouble()).isEqualTo(2.0 / 3);
        JsonNode waits = data.path("waitsFor");
        assertThat(waits.path("kind").asText()).isEqualTo("protected-until");
        assertThat(waits.path("until").asText()).isEqualTo("2026-03-01T10:00:00.000Z");
        assertThat(waits.path("neededGpus").asInt()).isEqualTo(8);
        assertThat(waits.path("protectedWork").get(0).path("id").asText()).isEqualTo(detect);
        assertThat(data.path("protection").isNull()).isTrue();
        assertThat(data.path("preemptions").size()).isZero();
        assertThat(e.path("summary").get(0).asText()).isEqualTo(pretrain + " waits: 1st of 1 waiting; 1st of 1 in " + X + ".");
        // the rule in force is the default ranking=entitlement: pretrain's allocation is owed, detect's holds 8 GPUs
        assertThat(data.path("ranking").asText()).isEqualTo("entitlement");
        assertThat(data.path("reclaimMargin").asDouble()).isEqualTo(0.1);
        JsonNode standing = data.path("standing");
        assertThat(standing.path("allocation").asText()).isEqualTo(X);
        assertThat(standing.path("healthyGpus").asInt()).isEqualTo(8);
        assertThat(standing.path("heldGpus").asLong()).isZero();
        assertThat(standing.path("standing").asDouble()).isZero();
        assertThat(standing.path("owed").asBoolean()).isTrue();
        // pretrain is entitled to 2/3 of the 8 healthy GPUs (gpu-02 is down), detect to 1/3
        assertThat(standing.path("entitlement").asDouble()).isCloseTo(2.0 / 3, within(1e-12));
        assertThat(standing.path("quotaGpus").asDouble()).isCloseTo(16.0 / 3, within(1e-12));
        assertThat(data.path("otherStandings").size()).isEqualTo(1);
        JsonNode detectStanding = data.path("otherStandings").get(0);
        assertThat(detectStanding.path("allocation").asText()).isEqualTo(DETECT);
        assertThat(detectStanding.path("heldGpus").asLong()).isEqualTo(8);
        assertThat(detectStanding.path("standing").asDouble()).isCloseTo(3.0, within(1e-12));
        assertThat(detectStanding.path("owed").asBoolean()).isFalse();
        assertThat(e.path("summary").get(2).asText()).isEqualTo("Right now " + X + " holds 0 GPUs of its quota of 5.33"
                + " (entitlement 66.7% x 8 healthy GPUs): it is owed GPUs, so its waiting work goes first and may"
                + " reclaim from allocations holding at least 1.1 x their quota, down to their quota; from those it is ahead of on the lookback window it may take"
                + " more, below their quota, while it would stand no higher than they do (taking turns).");
        assertThat(e.path("summary").get(3).asText()).isEqualTo("It needs 8 GPUs; 0 are idle and 0 could be preempted"
                + " now; the protection of " + detect + " (" + DETECT + ", 8 GPUs) ends at 2026-03-01T10:00:00.000Z (in 1h),"
                + " after which it may preempt them if the rules still allow it then (its allocation holds 0 of its"
                + " quota of 5.33 GPUs; " + DETECT + " holds 8 of its quota of 2.67).");

        JsonNode running = explain(detect, "ms-member");
        assertThat(running.path("state").asText()).isEqualTo("running");
        assertThat(running.path("data").path("protection").path("protectedNow").asBoolean()).isTrue();
        assertThat(running.path("data").path("protection").path("protectedUntil").asText()).isEqualTo("2026-03-01T10:00:00.000Z");
        assertThat(running.path("data").path("protection").path("preemptibleBy").toString()).isEqualTo("[\"" + pretrain + "\"]");
    }

    @Test
    void theExplanationSaysTheRuleTheCyclesRunNotTheDefaults() {
        // given an administrator's policy (reclaim-margin 0.3, not the default 0.1), applied at the next cycle
        dev.allot.core.policy.PolicyFactory f = dev.allot.core.policy.PolicyRegistry.standard().get("allocation");
        fx.loop.usePolicy(f.create(dev.allot.core.policy.Settings.parse(f.settings(),
                java.util.Map.of("reclaim-margin", "0.3"), "policy.yaml")), dev.allot.core.state.SchedulerConfig.defaults());
        submit("ms-member", DETECT, "1h");
        fx.loop.runOnce();
        String pretrain = submit("member", X, "2h");
        fx.loop.runOnce();

        JsonNode e = explain(pretrain, "member");

        // then the explanation states the margin of the cycles: it said 0.1 whatever the service ran
        assertThat(e.path("data").path("reclaimMargin").asDouble()).isEqualTo(0.3);
        assertThat(e.path("summary").get(2).asText()).contains("may reclaim from allocations holding at least 1.3 x"
                + " their quota, down to their quota");

        // and after a change to the seed's pure lookback ranking, the next explanation says that rule
        fx.loop.usePolicy(f.create(dev.allot.core.policy.Settings.parse(f.settings(),
                java.util.Map.of("ranking", "lookback"), "policy.yaml")), dev.allot.core.state.SchedulerConfig.defaults());
        fx.loop.runOnce();
        JsonNode after = explain(pretrain, "member");
        assertThat(after.path("data").path("ranking").asText()).isEqualTo("lookback");
        assertThat(after.path("data").path("standing").isNull()).isTrue();
    }

    @Test
    void aPreemptedWorkloadIsExplainedWithByWhomWhyAndTheWorkLost() {
        String detect = submit("ms-member", DETECT, "1h");
        fx.loop.runOnce();
        String pretrain = submit("member", X, "2h");
        fx.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(90));
        fx.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(1));
        fx.loop.runOnce();

        JsonNode e = explain(detect, "outsider");

        assertThat(e.path("state").asText()).isEqualTo("requeued");
        JsonNode p = e.path("data").path("preemptions").get(0);
        assertThat(p.path("attempt").asInt()).isEqualTo(1);
        assertThat(p.path("outcome").asText()).isEqualTo("requeued");
        assertThat(p.path("preemptor").asText()).isEqualTo(pretrain);
        // pretrain is owed and ahead on the window, so it takes all of detect's 8 GPUs (below its quota): taking turns
        assertThat(p.path("reason").asText())
                .contains("of lab/nlp/pretrain is owed and may take lab/vision/detect below its quota (taking turns)")
                .contains("standing");
        // it never reported a checkpoint or progress: its whole run, 8 GPUs x 90m, was lost
        assertThat(p.path("lostGpuHours").asDouble()).isEqualTo(12.0);
        assertThat(e.path("summary").toString()).contains("Attempt 1 was preempted and requeued at ")
                .contains(" by " + pretrain + ": ").contains("; 12.00 GPU-hours of work were lost.");
        // it waits again, now behind nothing but without GPUs it may take: pretrain ranks above it
        assertThat(e.path("data").path("queue").path("position").asInt()).isEqualTo(1);
        assertThat(e.path("data").path("waitsFor").path("kind").asText()).isEqualTo("gpus");

        JsonNode winner = explain(pretrain, "member");
        assertThat(winner.path("state").asText()).isEqualTo("running");
        assertThat(winner.path("data").path("protection").path("protectedNow").asBoolean()).isTrue();
    }

    @Test
    void aFailedWorkloadIsSaidToHaveFailedNotToBeCancelled() throws java.io.IOException {
        // given the simulated backend seen as if every command exited with code 1
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("allot-explain-failed");
        try (ApiFixture api = ApiFixture.withSchedulingLoop(dir, fx.clock, ExitsWithOne::new)) {
            Response r = api.submit("member", body("allocation", "\"" + X + "\"", "gpusPerNode", "0", "resumable",
                    "false", "duration", "\"1h\""));
            String id = r.json().path("id").asText();
            api.loop.runOnce();
            fx.clock.advance(Duration.ofHours(1));
            api.loop.runOnce();

            Response e = api.get("/v1/workloads/" + id + "/explain", "tok-member");

            // then its explanation says failed, as its state does: it said "is cancelled", the core's word for it
            assertThat(e.json().path("state").asText()).isEqualTo("failed");
            assertThat(e.json().path("data").path("seenByScheduler").asBoolean()).isTrue();
            assertThat(e.json().path("summary").get(0).asText()).isEqualTo(id + " is failed; it no longer waits.");
        } finally {
            ApiExtension.closeAndRemove(null, dir);
        }
    }

    /** The simulated backend, its attempts that exit said to exit with code 1. */
    private static final class ExitsWithOne extends ForwardingBackend {
        ExitsWithOne(dev.allot.core.backend.Backend simulated) {
            super(simulated);
        }

        @Override
        public List<dev.allot.core.backend.AttemptStatus> observe() {
            return backend.observe().stream().map(s -> s.phase() == dev.allot.core.backend.AttemptStatus.Phase.EXITED
                    ? new dev.allot.core.backend.AttemptStatus(s.attempt(), s.phase(), 1, "exited") : s).toList();
        }
    }

    @Test
    void aWorkloadTheSchedulerHasNotTakenInYetIsSaidSo() {
        String id = submit("member", X, "2h");

        JsonNode before = explain(id, "member"); // the loop has not even loaded
        assertThat(before.path("data").path("seenByScheduler").asBoolean()).isFalse();
        assertThat(before.path("data").path("queue").isNull()).isTrue();
        assertThat(before.path("data").path("ranking").isNull()).isTrue();
        assertThat(before.path("data").path("standing").isNull()).isTrue();
        assertThat(before.path("summary").get(0).asText()).contains("not yet seen by the scheduler");

        fx.loop.runOnce();
        String later = submit("member", X, "2h");
        assertThat(explain(later, "member").path("data").path("seenByScheduler").asBoolean()).isFalse();
    }

    @Test
    void unknownWorkloadsAre404AndAnonymousCallersAre401() {
        Response missing = fx.api.get("/v1/workloads/w-999/explain", "tok-member");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.error()).contains("no workload 'w-999'");

        String id = submit("member", X, "2h");
        assertThat(fx.api.get("/v1/workloads/" + id + "/explain", null).status()).isEqualTo(401);
        assertThat(fx.api.get("/v1/workloads/" + id + "/explain", "tok-nope").status()).isEqualTo(401);
    }

    @Test
    void anySignedInUserMayReadAnExplanationAsTheyMayReadTheWorkload() {
        String id = submit("member", X, "2h");
        // the same rule as GET /v1/workloads/{id}: reading needs only a valid token, so there is no 403 here
        for (String user : List.of("owner", "outsider", "ms", "root")) {
            assertThat(fx.api.get("/v1/workloads/" + id, "tok-" + user).status()).isEqualTo(200);
            assertThat(fx.api.get("/v1/workloads/" + id + "/explain", "tok-" + user).status()).isEqualTo(200);
        }
    }

    @Test
    void aMinimumRuntimeAboveTheCapIsAnsweredCappedWithANoteAndExplainedSo() {
        Response r = fx.api.submit("member", body("allocation", "\"" + X + "\"", "gpusPerNode", "0",
                "minRuntime", "\"9h\"", "duration", "\"1d\""));

        assertThat(r.status()).isEqualTo(201);
        assertThat(r.json().path("minRuntime").asText()).isEqualTo("8h");
        assertThat(r.json().path("minRuntimeAsked").asText()).isEqualTo("9h");
        assertThat(r.json().path("minRuntimeNote").asText())
                .isEqualTo("the minimum runtime is capped at 8h (the scheduler's maximum); 9h was asked");
        String id = r.json().path("id").asText();
        fx.loop.runOnce();
        assertThat(explain(id, "member").path("summary").get(1).asText())
                .isEqualTo("The minimum runtime is capped at 8h (the scheduler's maximum); 9h was asked.");
    }

    @Test
    void explainsChargeSplitsIntoTheRunThatBudgetUsageShowsAndTheCommittedProtectedTime() {
        // given detect (8 GPUs, 1h minimum runtime) has run for 30 minutes
        String detect = submit("ms-member", DETECT, "1h");
        fx.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(30));
        fx.loop.runOnce();

        // when explain and budget usage look at the same 7-day window
        JsonNode level = null;
        for (JsonNode l : explain(detect, "ms-member").path("data").path("fairShare")) {
            if (l.path("name").asText().equals(DETECT)) {
                level = l;
            }
        }
        JsonNode usage = fx.api.get("/v1/allocations/usage?since=7d", "tok-ms-member").json();
        double budgetRun = -1;
        for (JsonNode a : usage.path("allocations")) {
            if (a.path("path").asText().equals(DETECT)) {
                budgetRun = a.path("gpuSeconds").asDouble();
            }
        }

        // then the run part of explain's charge is budget usage's number, and the charge adds the unrun 30 minutes
        assertThat(level).as("the explanation has a level for %s", DETECT).isNotNull();
        assertThat(level.path("runGpuSeconds").asLong()).isEqualTo(8 * 1800);
        assertThat(budgetRun).isEqualTo(8 * 1800.0);
        assertThat(level.path("committedGpuSeconds").asLong()).isEqualTo(8 * 1800);
        assertThat(level.path("usageGpuSeconds").asLong()).isEqualTo(8 * 3600);
    }

    @Test
    void workRunUpToAProgressReportIsNotCountedAsLost() {
        // given detect (8 GPUs, resumable, 1h protected) runs and reports progress 30 minutes in
        String detect = submit("ms-member", DETECT, "1h");
        fx.loop.runOnce();
        String pretrain = submit("member", X, "2h");
        fx.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(30));
        fx.loop.runOnce();
        assertThat(fx.api.post("/v1/workloads/" + detect + "/progress", "tok-ms-member",
                "{\"done\": 600, \"total\": 1000}").status()).isEqualTo(200);
        // when it is preempted as its protection ends, 30 minutes later
        fx.clock.advance(Duration.ofMinutes(30));
        fx.loop.runOnce();
        fx.clock.advance(Duration.ofMinutes(1));
        fx.loop.runOnce();

        // then only the 30 minutes since the report are lost: 8 GPUs x 30m
        JsonNode p = explain(detect, "ms-member").path("data").path("preemptions").get(0);
        assertThat(p.path("preemptor").asText()).isEqualTo(pretrain);
        assertThat(p.path("lostGpuHours").asDouble()).isEqualTo(4.0);
    }
}
