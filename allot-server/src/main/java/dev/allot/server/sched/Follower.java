package dev.allot.server.sched;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import dev.allot.core.policy.Policy;
import dev.allot.core.state.SchedulerConfig;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A standby's view of the scheduler: while another instance leads, the standby's {@link SchedulerLoop} keeps a core
 * state of its own that follows what the leader records in the store, so that its API explains waiting work, shows
 * the queue and forecasts starts ({@code LoopExplainer}, {@code LiveForecaster}) as the leader's would, from a view
 * that is a little older (the answer says so, and how old: {@link SchedulerLoop#view}).
 *
 * <p><b>How it follows.</b> It loads the store as a new term of leadership does ({@link Adoption#load}: the tree,
 * the nodes, the window's usage, every workload not ended, the open attempts adopted on their stored placements) and
 * then, each cycle, takes in the workloads' change feed as the leader's {@link Intake} does (submissions admitted,
 * waiting work cancelled, the brakes' verdicts). What only the leader's acts change, a start, a stop or an end (the
 * store's open attempts), and a change of the tree or the nodes, make it load again, at most every
 * {@link #MIN_RELOAD_GAP_MILLIS} so that a busy leader does not make every standby read everything every tick; the
 * tree and the nodes are read again every {@link SchedulerLoop#TOPOLOGY_REFRESH_SECONDS}.
 *
 * <p><b>It never acts.</b> Its store is read only at the database ({@link Store#readOnly}: PostgreSQL refuses any
 * write in it); its backend refuses every call ({@link Refusing}); it never asks the policy; the parts it shares
 * with the leader's loop skip what would record or tell anything when their core is {@link LoopCore#following}
 * (a brake's hold, a node's health told to the backend, a stop of lost work). A running workload cancelled is left
 * running in the view until the leader's stop shows in its attempt.
 *
 * <p><b>What differs from the leader's view.</b> Only what the leader holds in memory and has not recorded: a start it
 * decided but deferred until a stopping attempt's GPUs are free is, in the view, still waiting; the view's usage is
 * seeded from the store at each load (the leader's since its own load). Works on the loop's thread.
 */
final class Follower {
    /** The least time between two loads of the view caused by the leader's starts and ends. */
    static final long MIN_RELOAD_GAP_MILLIS = 1000;

    /** The view's own core: a read-only store, a backend that refuses everything, {@link LoopCore#following}. */
    final LoopCore c;
    /** The open attempts (key, phase, node GPUs) as read before the last load; null before the first. */
    private List<String> loadedAttempts;
    /** The tree and the nodes the view was loaded with. */
    private CoreBuilder.Topology loadedTopology;
    private long loadedAtMillis;
    private long topologyReadAt;
    private long loads;

    Follower(Store readOnly, String backendName, Policy policy, SchedulerConfig config, Clock clock, Duration grace) {
        c = new LoopCore(Objects.requireNonNull(readOnly, "readOnly"), new Refusing(backendName), policy, config,
                clock, grace, true);
        c.adoption = new Adoption(c);
        c.changes = new TopologyChanges(c);
        c.intake = new Intake(c);
        c.decider = new Decider(c);
        c.carrier = new Carrier(c);
        c.brakes = new Brakes(readOnly, false);
    }

    /**
     * Brings the view up to date with the store (see the class notes), under the leader's current policy settings.
     * A view that cannot be brought up to date (the store out of reach) keeps its time, so its age grows.
     */
    void follow(long now, long nowMillis, Policy policy, SchedulerConfig config) {
        List<String> open = signature(c.store.attempts().openAttempts());
        boolean due = c.state == null || c.config != config || !open.equals(loadedAttempts);
        if (!due && now - topologyReadAt >= SchedulerLoop.TOPOLOGY_REFRESH_SECONDS) {
            topologyReadAt = now;
            List<Allocation> allocations = c.store.allocations().allocations();
            List<Node> nodes = c.store.nodes().nodes();
            due = !CoreBuilder.Topology.of(allocations, nodes).equals(loadedTopology);
            if (!due) {
                c.changes.markHealth(nodes, now);
            }
        }
        if (due) {
            if (c.state != null && nowMillis - loadedAtMillis < MIN_RELOAD_GAP_MILLIS) {
                return; // soon: the view keeps its time until then
            }
            load(open, now, nowMillis, policy, config);
            return;
        }
        c.state.advanceTo(Math.max(c.state.now(), now));
        c.lastNowSeconds = Math.max(c.lastNowSeconds, now);
        c.intake.syncWorkloads(now);
        c.syncedAtMillis = nowMillis;
    }

    private void load(List<String> open, long now, long nowMillis, Policy policy, SchedulerConfig config) {
        forget();
        c.policy = policy;
        c.config = config;
        c.restarts = policy.restartsWorkThatCannotResume();
        c.lastNowSeconds = now;
        try {
            if (!c.adoption.load(now, nowMillis)) {
                return;
            }
        } catch (RuntimeException e) {
            forget(); // no half-loaded view is ever read
            throw e;
        }
        c.toReconcile.clear(); // the leader reconciles with the backend; the view takes the store's word
        loadedAttempts = open;
        loadedTopology = c.topology;
        loadedAtMillis = nowMillis;
        topologyReadAt = now;
        c.syncedAtMillis = nowMillis;
        loads++;
    }

    /** Forgets the view (this instance leads now, or stops). */
    void forget() {
        c.forget();
        loadedAttempts = null;
        loadedTopology = null;
    }

    /** How many times the view was loaded. */
    long loads() {
        return loads;
    }

    private static List<String> signature(List<Attempt> open) {
        List<String> out = new ArrayList<>(open.size());
        for (Attempt a : open) {
            out.add(a.key() + " " + a.phase() + " " + a.placement());
        }
        out.sort(null);
        return out;
    }

    /** The backend of a view: every call refused, so that nothing a part of the loop might ask reaches a backend. */
    static final class Refusing implements Backend {
        private final String name;

        Refusing(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        private BackendUnavailableException refused(String what) {
            return new BackendUnavailableException("a standby's view of the scheduler does not " + what);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void start(Launch launch) {
            throw refused("start " + launch.attempt());
        }

        @Override
        public void stop(AttemptKey attempt, Duration grace) {
            throw refused("stop " + attempt);
        }

        @Override
        public List<AttemptStatus> observe() {
            throw refused("observe attempts");
        }

        @Override
        public void forget(AttemptKey attempt) {
            throw refused("forget " + attempt);
        }

        @Override
        public void drain(String node, String reason) {
            throw refused("drain " + node);
        }

        @Override
        public void resume(String node) {
            throw refused("resume " + node);
        }
    }
}
