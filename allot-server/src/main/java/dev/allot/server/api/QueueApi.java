package dev.allot.server.api;

import dev.allot.server.forecast.LiveForecast;
import dev.allot.core.explain.QueueSnapshot;
import dev.allot.core.explain.WaitExplanation;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The dashboard's read endpoints over the scheduler's live state ({@link ApiServer} routes them here):
 * <ul>
 *   <li>{@code GET /v1/queue}: every waiting workload in the order the policy would serve it
 *   ({@link dev.allot.core.explain.WaitExplainer#queue}), each allocation's fair-share numbers per tree level once
 *   ({@code levels}: the same numbers {@code GET /v1/workloads/{id}/explain} gives), then the waiting workloads the
 *   scheduler does not queue: those held by a safety brake ({@code state} {@code held}), those submitted since its
 *   last cycle ({@code position} null) and those it has decided to start whose start waits for GPUs that stopped work
 *   still holds ({@code aboutToStart}). Filters: {@code allocation} (that path and below), {@code user},
 *   {@code state} ({@code pending}, {@code preempted}, {@code requeued}, {@code held}); positions stay those of the
 *   whole queue.</li>
 *   <li>{@code GET /v1/forecasts}: the latest forecast start of every waiting workload, as a band, with what the
 *   forecast assumed (each queue entry has its band too: {@code forecast});</li>
 *   <li>{@code GET /v1/drains}: the nodes that are not healthy, as the scheduler holds them, with the work still on
 *   them and when the drain can complete.</li>
 * </ul>
 * All need only a signed-in user, as every read of the queue does; what a workload runs is not in them.
 */
final class QueueApi {
    static final Set<String> QUEUE_PARAMS = Set.of("allocation", "user", "state");
    static final Set<String> QUEUE_STATES = Set.of("pending", "requeued", "held");

    private final Store store;
    private final WorkloadExplainer explainer;
    private final UsersApi.Io io;
    private final java.time.Clock clock;

    /**
     * {@code forecast}: what the entries' forecasts share (null when there is none); each entry has its band.
     * {@code schedulerAwaits}: why the scheduler has not loaded when the store has no node or no allocation (a
     * sentence saying what to add), else null.
     */
    record QueueView(String at, boolean seenByScheduler, int waiting, List<QueueEntry> entries,
                     Map<String, List<Explanations.Level>> levels, ForecastViews.About forecast,
                     Explanations.Source scheduler, String schedulerAwaits) {
    }

    /**
     * A waiting workload; {@code position} null when the scheduler does not queue it (held, not seen yet, or about to
     * start); {@code forecast} its expected start, null when the latest forecast has none for it. {@code aboutToStart}:
     * the scheduler has decided to start it on GPUs that work it stopped still holds (a deferred start): the store has
     * it waiting, the scheduler has placed it, so it is out of the serving order, as its explanation says.
     * {@code cannotRun}: why the scheduler cannot take it in (its shape no longer fits the cluster), as its
     * explanation says it; null otherwise.
     */
    record QueueEntry(Integer position, Integer positionInAllocation, String id, String allocation, String user,
                      int gpus, boolean allocated, String priority, String state, boolean aboutToStart,
                      String submittedAt, String heldReason, String cannotRun, ForecastViews.Band forecast) {
    }

    record DrainView(String node, String status, String reason, int gpus, List<String> workloads, String completesAt) {
    }

    record DrainList(boolean seenByScheduler, List<DrainView> nodes) {
    }

    QueueApi(Store store, WorkloadExplainer explainer, UsersApi.Io io, java.time.Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.store = Objects.requireNonNull(store, "store");
        this.explainer = Objects.requireNonNull(explainer, "explainer");
        this.io = Objects.requireNonNull(io, "io");
    }

    void queue(Context ctx, User user) {
        QueryParams.only(ctx, QUEUE_PARAMS, "the filters are allocation, state, user");
        Map<String, List<String>> params = ctx.queryParamMap();
        String allocation = one(params, "allocation");
        String owner = one(params, "user");
        String state = one(params, "state");
        if (state != null && !QUEUE_STATES.contains(state)) {
            throw ApiException.badField("state", "unknown waiting state '" + state + "'",
                    "expected one of held, pending, requeued (preempted work that waits again is requeued)");
        }
        if (allocation != null) {
            List<String> paths = store.allocations().allocations().stream().map(a -> a.path()).sorted().toList();
            if (!paths.contains(allocation)) {
                throw ApiException.unknownAllocationFilter(allocation, paths);
            }
        }
        Map<String, Workload> waiting = waiting();
        Optional<WorkloadExplainer.LiveView> view = explainer.view();
        Optional<QueueSnapshot> snapshot = explainer.queue();
        Optional<LiveForecast> live = explainer.forecast();
        List<QueueEntry> entries = new ArrayList<>();
        Map<String, List<Explanations.Level>> levels = new LinkedHashMap<>();
        Map<String, Boolean> listed = new HashMap<>();
        if (snapshot.isPresent()) {
            for (QueueSnapshot.Entry e : snapshot.get().entries()) {
                Workload w = waiting.get(e.jobId());
                if (w == null || w.held()) {
                    continue; // ended or held since the scheduler's last cycle
                }
                listed.put(w.id(), true);
                QueueEntry q = entry(w, e.position(), e.positionInAllocation(), e.allocated(), false, null, live);
                if (matches(q, allocation, owner, state)) {
                    entries.add(q);
                    levels.computeIfAbsent(q.allocation(), a -> levels(snapshot.get().levels().get(a)));
                }
            }
        }
        Set<String> aboutToStart = explainer.aboutToStart();
        for (Workload w : waiting.values()) {
            if (!listed.containsKey(w.id())) {
                String cannotRun = explainer.cannotRun(w);
                QueueEntry q = entry(w, null, null, w.allocated(), !w.held() && aboutToStart.contains(w.id()),
                        cannotRun, live);
                if (matches(q, allocation, owner, state)) {
                    entries.add(q);
                }
            }
        }
        String at = snapshot.map(s -> Views.instantOfSeconds(s.atSeconds())).orElse(null);
        io.json(ctx, 200, new QueueView(at, snapshot.isPresent(), waiting.size(), entries, levels,
                live.map(ForecastViews::about).orElse(null),
                snapshot.isPresent() ? Explanations.Source.of(view, clock.millis()) : null,
                snapshot.isPresent() ? null : explainer.awaiting().orElse(null)));
    }

    /**
     * {@code GET /v1/forecasts}: the latest forecast of every workload still waiting that it covers, in the forecast's
     * order (the scheduler's job order), with what the forecast assumed and cost once. Takes no parameters.
     */
    void forecasts(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/forecasts");
        Map<String, Workload> waiting = waiting();
        Optional<LiveForecast> live = explainer.forecast();
        List<ForecastViews.Entry> out = new ArrayList<>();
        if (live.isPresent()) {
            for (dev.allot.sim.forecast.Forecast f : live.get().forecasts().byWorkload().values()) {
                Workload w = waiting.get(f.workloadId());
                if (w != null && !w.held()) {
                    out.add(new ForecastViews.Entry(w.id(), w.allocationPath(), w.user(), w.gpus(),
                            ForecastViews.band(f)));
                }
            }
        }
        io.json(ctx, 200, new ForecastViews.ForecastList(explainer.forecasting(),
                live.map(ForecastViews::about).orElse(null), waiting.size(), out));
    }

    /** Every waiting workload in the store, by id, in submission order. */
    private Map<String, Workload> waiting() {
        Map<String, Workload> waiting = new LinkedHashMap<>();
        long after = 0;
        while (true) {
            List<Workload> page = store.workloads().workloads(new WorkloadFilter(
                    Set.of(WorkloadState.PENDING, WorkloadState.REQUEUED), null, null, after,
                    WorkloadFilter.MAX_LIMIT));
            page.forEach(w -> waiting.put(w.id(), w));
            if (page.size() < WorkloadFilter.MAX_LIMIT) {
                return waiting;
            }
            after = page.get(page.size() - 1).seq();
        }
    }

    void drains(Context ctx, User user) {
        QueryParams.none(ctx, "GET /v1/drains");
        Map<String, dev.allot.server.store.Node> nodes = new HashMap<>();
        store.nodes().nodes().forEach(n -> nodes.put(n.name(), n));
        Optional<List<WorkloadExplainer.NodeDrain>> live = explainer.drains();
        List<DrainView> out = new ArrayList<>();
        if (live.isPresent()) {
            for (WorkloadExplainer.NodeDrain d : live.get()) {
                dev.allot.server.store.Node n = nodes.get(d.node());
                out.add(new DrainView(d.node(), d.status(), n == null ? null : n.reason(), n == null ? 0 : n.gpus(),
                        d.workloads(), d.completesAtSeconds() == null ? null
                        : Views.instantOfSeconds(d.completesAtSeconds())));
            }
        }
        io.json(ctx, 200, new DrainList(live.isPresent(), out));
    }

    private static QueueEntry entry(Workload w, Integer position, Integer inAllocation, boolean allocated,
                                    boolean aboutToStart, String cannotRun, Optional<LiveForecast> live) {
        ForecastViews.Band band = w.held() || cannotRun != null ? null
                : live.flatMap(l -> l.of(w.id())).map(ForecastViews::band).orElse(null);
        return new QueueEntry(position, inAllocation, w.id(), w.allocationPath(), w.user(), w.gpus(), allocated,
                w.priority().label(), w.held() ? "held" : w.state().label(), aboutToStart,
                Views.instant(w.submittedAtMillis()),
                w.heldReason(), cannotRun, band);
    }

    private static boolean matches(QueueEntry q, String allocation, String owner, String state) {
        return (allocation == null || q.allocation().equals(allocation) || q.allocation().startsWith(allocation + "/"))
                && (owner == null || q.user().equals(owner)) && (state == null || q.state().equals(state));
    }

    private static String one(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        if (values == null) {
            return null;
        }
        if (values.size() != 1 || values.get(0).isBlank()) {
            throw ApiException.badField(name, "expected one non-blank value", "give " + name + " once, or not at all");
        }
        return values.get(0).trim();
    }

    static List<Explanations.Level> levels(List<WaitExplanation.FairShareLevel> levels) {
        return levels == null ? List.of() : Explanations.levels(levels);
    }
}
