package dev.allot.server.service;

import dev.allot.core.explain.WaitExplainer;
import dev.allot.core.explain.WaitExplanation;
import dev.allot.core.state.Job;
import dev.allot.server.api.WhatIfInputs;
import dev.allot.server.api.WorkloadExplainer;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.sched.WhatIfHistory;
import dev.allot.server.store.Store;
import java.util.Objects;
import java.util.Optional;

/**
 * Explains workloads from the scheduling loop's live core state as the loop last published it, between cycles or while
 * a cycle waits for the backend ({@link SchedulerLoop#inspect}; it never waits for the backend): empty before the
 * loop's first load and for workloads the loop has not taken in (or that have ended).
 */
public final class LoopExplainer implements WorkloadExplainer {
    private final SchedulerLoop loop;
    /** For a loop whose policy is not Allot's allocation policy (tests of other policies): its defaults. */
    private static final WaitExplainer DEFAULTS = new WaitExplainer();
    private final Store store;
    private final dev.allot.server.forecast.LiveForecaster forecaster;

    /**
     * @param store      where a what-if reads its models of durations and new work from; null: no what-ifs
     * @param forecaster whose latest forecasts explanations show ({@link #forecast()}); null: none
     */
    public LoopExplainer(SchedulerLoop loop, Store store, dev.allot.server.forecast.LiveForecaster forecaster) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.store = store;
        this.forecaster = forecaster;
    }

    public LoopExplainer(SchedulerLoop loop) {
        this(loop, null, null);
    }

    /**
     * Explains with the settings the loop's policy runs ({@link SchedulerLoop#inspectDecided}): the margin, the
     * ranking and the "would it start now?" of an explanation are those of the cycles, also after {@code PUT
     * /v1/policy} or with {@code --policy-file}.
     */
    private static WaitExplainer explainerFor(dev.allot.core.policy.Policy policy) {
        return policy instanceof dev.allot.core.policy.allocation.AllocationPolicy a ? new WaitExplainer(a::fresh)
                : DEFAULTS;
    }

    @Override
    public Optional<dev.allot.server.forecast.LiveForecast> forecast() {
        return forecaster == null ? Optional.empty() : forecaster.latest();
    }

    @Override
    public boolean forecasting() {
        return forecaster != null && forecaster.running();
    }

    /**
     * A fork of the live state, taken as the loop published it, and the models read from the store
     * ({@link WhatIfHistory}) as of the state's time.
     */
    @Override
    public Optional<WhatIfInputs> whatIfInputs() {
        if (store == null) {
            return Optional.empty();
        }
        return loop.inspect((state, now) -> state.fork(state.tree(), Job::durationSeconds)).map(fork -> {
            WhatIfHistory.Models m = WhatIfHistory.read(store, fork.now());
            return new WhatIfInputs(fork, m.durations(), m.arrivals());
        });
    }

    @Override
    public Optional<LiveView> view() {
        return loop.view().map(v -> new LiveView(v.standby(), v.asOfMillis()));
    }

    @Override
    public java.util.Set<String> aboutToStart() {
        return java.util.Set.copyOf(loop.deferredLaunches());
    }

    @Override
    public Optional<Refusal> refusal(String workloadId) {
        String reason = loop.refused().get(workloadId);
        return reason == null ? Optional.empty()
                : loop.inspect((state, now) -> new Refusal(reason, state.cluster()));
    }

    @Override
    public Optional<String> awaiting() {
        return loop.awaiting();
    }

    @Override
    public Optional<WaitExplanation> explain(String workloadId) {
        return loop.inspectDecided((state, policy) -> explainerFor(policy).explain(state, workloadId, state.now()))
                .flatMap(e -> e);
    }

    @Override
    public Optional<dev.allot.core.explain.QueueSnapshot> queue() {
        return loop.inspectDecided((state, policy) -> explainerFor(policy).queue(state, state.now()));
    }

    @Override
    public Optional<java.util.List<NodeDrain>> drains() {
        return loop.inspect((state, now) -> {
            java.util.List<NodeDrain> out = new java.util.ArrayList<>();
            for (int n = 0; n < state.nodes().count(); n++) {
                var status = state.nodes().status(n);
                if (status == dev.allot.core.state.NodeBooks.Status.HEALTHY) {
                    continue;
                }
                java.util.List<String> ids = state.nodes().jobsOn(n).stream().map(dev.allot.core.state.Job::id).sorted().toList();
                long end = state.nodes().latestProtectionEnd(n);
                Long completes = ids.isEmpty() || end == Long.MIN_VALUE || end <= state.now() ? null : end;
                out.add(new NodeDrain(state.nodes().name(n), status.name().toLowerCase(java.util.Locale.ROOT), ids,
                        completes));
            }
            return out;
        });
    }

    @Override
    public void progressReported(String workloadId) {
        loop.progressReported(workloadId);
    }
}
