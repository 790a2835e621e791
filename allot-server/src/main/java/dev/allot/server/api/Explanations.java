package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.explain.WaitExplanation;
import dev.allot.core.model.Decimals;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The answer of {@code GET /v1/workloads/{id}/explain}: the workload's state, plain-words sentences, and the data they
 * are made of: the scheduler's explanation (the rule in force and, under {@code ranking=entitlement}, the instant
 * standings it decides by; queue position, fair share per tree level, what it waits for, or the protection of running
 * work) and every attempt that ended in a preemption (when, by whom, why, work lost).
 */
final class Explanations {
    private Explanations() {
    }

    /** The whole answer; {@code scheduler} says whose state it was made from (null when none had loaded). */
    record ExplainView(String id, String state, String allocation, List<String> summary, Data data,
                       ForecastViews.WorkloadForecast forecast, Source scheduler) {
        /** This answer saying where its scheduler's state came from, with a sentence when that was a standby's view. */
        ExplainView from(Optional<WorkloadExplainer.LiveView> view, long nowMillis) {
            Source s = Source.of(view, nowMillis);
            List<String> sentences = summary;
            if (s != null && s.standby() && data.seenByScheduler()) {
                sentences = new ArrayList<>(summary);
                sentences.add(s.sentence());
            }
            return new ExplainView(id, state, allocation, List.copyOf(sentences), data, forecast, s);
        }
    }

    /**
     * Whose scheduler state an answer was made from: {@code role} {@code leader} (the instance that schedules, also the
     * only one) or {@code standby} (another instance's view of the leader's, which follows what the leader records in
     * the store, a little later); {@code asOf} when it was last brought up to date, {@code ageMillis} how long before
     * the answer.
     */
    record Source(String role, String asOf, long ageMillis) {
        static Source of(Optional<WorkloadExplainer.LiveView> view, long nowMillis) {
            return view.map(v -> new Source(v.standby() ? "standby" : "leader",
                    Views.instant(v.asOfMillis()), Math.max(0, nowMillis - v.asOfMillis())))
                    .orElse(null);
        }

        boolean standby() {
            return "standby".equals(role);
        }

        String sentence() {
            return "This comes from a standby's view of the scheduler as of " + asOf + " ("
                    + Decimals.fixed(ageMillis / 1000.0, 1) + " s before this answer), which follows"
                    + " what the leader records; the leader's own may be newer.";
        }
    }

    /**
     * @param seenByScheduler false when the scheduler has not loaded yet or does not hold the workload (then the
     *                        scheduler fields are null)
     * @param at              the time of the scheduler's state the explanation was made from
     * @param hosts           the hosts that take no new work (unhealthy) and the healthy GPUs
     */
    record Data(boolean seenByScheduler, String at, String ranking, Double reclaimMargin, Standing standing,
                List<Standing> otherStandings, Queue queue, List<Level> fairShare, JsonNode waitsFor,
                Protection protection, List<Preemption> preemptions, Hosts hosts) {
    }

    /** {@code unhealthy}: the first hosts by name of the {@code unhealthyCount} that take no new work. */
    record Hosts(int unhealthyCount, List<String> unhealthy, int healthyGpus, int totalGpus) {
        static Hosts of(dev.allot.core.explain.WaitExplanation.Hosts h) {
            return h == null ? null : new Hosts(h.unhealthyCount(), h.unhealthy(), h.healthyGpus(), h.totalGpus());
        }
    }

    /**
     * An allocation's instant standing under {@code ranking=entitlement}: {@code quotaGpus} (entitlement x
     * {@code healthyGpus}) is what it is owed while its demand lasts, {@code heldGpus} what its allocated work holds,
     * {@code standing} the one over the other (null when the quota is zero); {@code owed} when it holds less.
     */
    record Standing(String allocation, double entitlement, int healthyGpus, double quotaGpus, long heldGpus,
                    Double standing, boolean owed) {
        static Standing of(WaitExplanation.Standing s) {
            return s == null ? null : new Standing(s.allocation(), s.entitlement(), s.healthyGpus(), s.quotaGpus(),
                    s.heldGpus(), Double.isInfinite(s.standing()) ? null : s.standing(), s.owed());
        }
    }

    record Queue(int position, int waiting, int positionInAllocation, int waitingInAllocation) {
    }

    /**
     * One tree level; {@code ratio} ({@code usageGpuSeconds} over {@code entitledGpuSeconds}) is null when the
     * entitlement is zero. {@code usageGpuSeconds} is what fair share charges: {@code runGpuSeconds}, run inside the
     * window (what {@code GET /v1/allocations/usage} shows as {@code gpuSeconds}), plus {@code committedGpuSeconds},
     * the unrun part of running work's protected minimum runtimes.
     */
    record Level(String name, String parent, long usageGpuSeconds, long runGpuSeconds, long committedGpuSeconds,
                 double entitlement, double entitledGpuSeconds, Double ratio, int rank, int siblings) {
    }

    /** {@code unhealthyHosts}: the hosts it runs on that are unhealthy (it is drained when its protection ends). */
    record Protection(boolean protectedNow, String protectedUntil, long protectedUntilSeconds, long minRuntimeSeconds,
                      int preemptibleByCount, List<String> preemptibleBy, List<String> unhealthyHosts) {
    }

    /** An attempt that ended in a preemption: by whom (null for a drain), why, and the work lost. */
    record Preemption(int attempt, String at, String outcome, String preemptor, String reason, Double lostGpuHours) {
    }

    /**
     * The whole answer, with the workload's forecast start while it waits ({@code forecast}, and a sentence), or a
     * sentence saying why there is none. The attempts' reasons carry the backend's words only when
     * {@code maySeeDetails} (the viewer may see the workload's command and environment).
     */
    static ExplainView of(Workload w, List<Attempt> attempts, boolean maySeeDetails,
                          Optional<WaitExplanation> explanation, ObjectMapper mapper,
                          dev.allot.core.state.SchedulerConfig scheduling,
                          Optional<dev.allot.server.forecast.LiveForecast> live, boolean forecasting,
                          Optional<String> awaiting, Optional<WorkloadExplainer.Refusal> refusal) {
        List<String> summary = new ArrayList<>();
        boolean refused = explanation.isEmpty() && w.state().waiting() && !w.held() && refusal.isPresent();
        Data data;
        if (explanation.isPresent()) {
            WaitExplanation e = explanation.get();
            summary.addAll(e.summary(s -> Views.instantOfSeconds(s)));
            boolean starting = w.state().waiting() && e.state() == dev.allot.core.state.JobState.RUNNING;
            if (starting) {
                startingSummary(w, e, summary);
            }
            if (w.state().ended() && e.state().isFinal()) {
                // The core knows no 'failed' (a failed workload ends there as cancelled): the store's state is the
                // one the workload has, as the answer's "state" and allot show say.
                summary.set(0, w.id() + " is " + w.state().label() + "; it no longer waits.");
            }
            boolean entitlement = e.ranking() == Ranking.ENTITLEMENT;
            data = new Data(true, Views.instantOfSeconds(e.atSeconds()), e.ranking().label(),
                    entitlement ? e.reclaimMargin() : null, Standing.of(e.standing()),
                    e.otherStandings().stream().map(Standing::of).toList(), queue(e), levels(e),
                    waitsFor(e, mapper), starting ? null : protection(e), preemptions(attempts, maySeeDetails),
                    Hosts.of(e.hosts()));
        } else {
            String unseen = awaiting.map(a -> "; " + a + ", so there is no queue position yet.")
                    .orElse("; it is not yet seen by the scheduler (it is taken in at the scheduler's next cycle), so"
                            + " there is no queue position yet.");
            if (refused) { // the scheduler will not take it in: say why, with the numbers, and what would let it run
                unseen = "; the scheduler cannot take it in, so it has no queue position and will not start.";
            }
            summary.add(w.id() + " is " + w.state().label() + (w.state().waiting() || w.state() == WorkloadState.RUNNING
                    ? unseen : "; it no longer waits."));
            if (refused) {
                summary.add(refusal.get().words(w.gpus(), w.gpusPerNode()));
            }
            data = new Data(false, null, null, null, null, null, null, null, null, null, preemptions(attempts, maySeeDetails),
                    null);
            String capNote = scheduling.minRuntimeCapNote(w.minRuntimeSeconds());
            if (capNote != null) { // the scheduler's own explanation says it too
                summary.add(Character.toUpperCase(capNote.charAt(0)) + capNote.substring(1) + ".");
            }
        }
        if (w.state() == WorkloadState.RUNNING && Views.launching(attempts)) {
            Attempt a = attempts.get(attempts.size() - 1);
            summary.add("Its attempt " + a.key().attempt() + " is starting: the backend was"
                    + " asked to launch it at " + Views.instant(a.startedAtMillis()) + " and has not yet"
                    + " reported it running; meanwhile its GPUs are held for it, as for running work.");
        }
        if (w.state().waiting() && w.held()) {
            // Held by a safety brake: the scheduler does not queue it, so its queue position says nothing.
            summary.clear();
            summary.add(w.id() + " is " + w.heldReason() + " (GET /v1/brakes shows the limits; an administrator"
                    + " changes them with PUT /v1/brakes). It will not be started until it is released.");
        }
        ForecastViews.WorkloadForecast forecast = null;
        if (w.state().waiting() && !w.held() && !refused) {
            forecast = ForecastViews.of(live, w.id()).orElse(null);
            if (forecast != null) {
                summary.add(ForecastViews.sentence(forecast));
            } else if (forecasting) {
                summary.add(ForecastViews.missing());
            }
        }
        for (Preemption p : data.preemptions()) {
            summary.add(sentence(p));
        }
        String end = w.state().ended() ? endSentence(attempts, maySeeDetails) : null;
        if (end != null) {
            summary.add(end);
        }
        return new ExplainView(w.id(), w.state().label(), w.allocationPath(), List.copyOf(summary), data, forecast,
                null);
    }

    /**
     * A waiting workload the scheduler has already placed: it decided to start it on GPUs that work it stopped still
     * holds, and starts it once that work has ended (a deferred start; the store has it waiting until then). The
     * scheduler's own sentences are those of running work ("runs in", "is protected until"), which it is not yet:
     * they give way to one saying so, keeping the fair share, the standing and a note on a capped minimum runtime.
     * The sentences of running work are {@code [runs in, note?, protection, fair share, standing?]}.
     */
    private static void startingSummary(Workload w, WaitExplanation e, List<String> summary) {
        summary.remove(e.minRuntimeNote() == null ? 1 : 2); // the protection it will have once it starts
        summary.set(0, w.id() + " is " + w.state().label() + " and about to start: the scheduler has given it GPUs"
                + " that work it stopped still holds, and starts it as soon as that work has ended (a stop gives the"
                + " work its grace period first). Its minimum runtime protects it from its start.");
    }

    private static Queue queue(WaitExplanation e) {
        var q = e.position();
        return q == null ? null : new Queue(q.position(), q.waiting(), q.positionInAllocation(), q.waitingInAllocation());
    }

    private static List<Level> levels(WaitExplanation e) {
        return levels(e.fairShare());
    }

    static List<Level> levels(List<WaitExplanation.FairShareLevel> fairShare) {
        return fairShare.stream().map(l -> new Level(l.name(), l.parent(), l.usageGpuSeconds(), l.runGpuSeconds(),
                l.committedGpuSeconds(), l.entitlement(),
                l.entitledGpuSeconds(), Double.isInfinite(l.ratio()) ? null : l.ratio(), l.rank(), l.siblings())).toList();
    }

    private static JsonNode waitsFor(WaitExplanation e, ObjectMapper mapper) {
        if (e.waitsFor() == null) {
            return null;
        }
        ObjectNode n = mapper.createObjectNode();
        n.put("kind", e.waitsFor().kind());
        n.setAll((ObjectNode) mapper.valueToTree(e.waitsFor()));
        if (e.waitsFor() instanceof dev.allot.core.explain.WaitsFor.ProtectedUntil p) {
            n.put("until", Views.instantOfSeconds(p.untilSeconds()));
        } else if (e.waitsFor() instanceof dev.allot.core.explain.WaitsFor.Gang g && g.roomAtSeconds() >= 0) {
            n.put("roomAt", Views.instantOfSeconds(g.roomAtSeconds()));
        }
        return n;
    }

    private static Protection protection(WaitExplanation e) {
        var p = e.protection();
        return p == null ? null : new Protection(p.protectedNow(), Views.instantOfSeconds(p.protectedUntilSeconds()),
                p.protectedUntilSeconds(), p.minRuntimeSeconds(), p.preemptibleByCount(), p.preemptibleByIds(),
                p.unhealthyHosts());
    }

    /** The attempts that ended in a preemption; their reasons with the backend's words only when {@code maySeeDetails}. */
    static List<Preemption> preemptions(List<Attempt> attempts, boolean maySeeDetails) {
        List<Preemption> out = new ArrayList<>();
        for (Attempt a : attempts) {
            if (a.preempted()) {
                out.add(new Preemption(a.key().attempt(), a.endedAtMillis() == null ? null : Views.instant(a.endedAtMillis()),
                        a.outcome().label(), a.preemptor(), a.reasonFor(maySeeDetails),
                        a.lostGpuSeconds() == null ? null : a.lostGpuSeconds() / 3600));
            }
        }
        return List.copyOf(out);
    }

    /**
     * How an ended workload ended, in one sentence: its last attempt's outcome, when and why (the backend's words only
     * when {@code maySeeDetails}), so that asking why a workload failed is answered where one asks; "It never started."
     * when it has no attempt; null when the last attempt was preempted, which its preemption's sentence says.
     */
    static String endSentence(List<Attempt> attempts, boolean maySeeDetails) {
        Attempt last = attempts.stream().filter(a -> !a.open() && a.outcome() != null)
                .max(java.util.Comparator.comparingInt(a -> a.key().attempt())).orElse(null);
        if (last == null) {
            return "It never started.";
        }
        if (last.preempted()) {
            return null;
        }
        String verb = switch (last.outcome()) {
            case COMPLETED -> "completed";
            case FAILED -> "failed";
            case CANCELLED -> "was cancelled";
            case LOST -> "was lost";
            default -> "ended " + last.outcome().label();
        };
        StringBuilder sb = new StringBuilder("Attempt " + last.key().attempt() + " " + verb);
        if (last.endedAtMillis() != null) {
            sb.append(" at ").append(Views.instant(last.endedAtMillis()));
        }
        String reason = last.reasonFor(maySeeDetails);
        if (reason != null && !reason.isBlank()) {
            sb.append(": ").append(reason);
        }
        return sb.append('.').toString();
    }

    private static String sentence(Preemption p) {
        StringBuilder sb = new StringBuilder("Attempt " + p.attempt() + " was ")
                .append(p.outcome().equals("requeued") ? "preempted and requeued" : "preempted for good");
        if (p.at() != null) {
            sb.append(" at ").append(p.at());
        }
        if (p.preemptor() != null) {
            sb.append(" by ").append(p.preemptor());
        }
        if (p.reason() != null) {
            sb.append(": ").append(p.reason());
        }
        if (p.lostGpuHours() != null) {
            sb.append("; ").append(Decimals.fixed(p.lostGpuHours(), 2)).append(" GPU-hours of work were lost");
        }
        return sb.append('.').toString();
    }
}
