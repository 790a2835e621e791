package dev.allot.slurm;

import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Slurm backend's side of nodes: listing them with their health ({@link SlurmNodeHealth}), and mirroring Allot's
 * node health into Slurm by draining a node Allot finds unhealthy and resuming only the nodes it drained itself
 * (reason {@link SlurmBackend#DRAIN_PREFIX}). A drain or resume whose command fails is checked against a fresh
 * listing before it is called failed (the command may have acted and still exited non-zero). Called under the
 * backend's lock.
 */
final class SlurmNodes {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmNodes.class);

    private final SlurmProbe probe;
    private final SlurmActions actions;
    private final Clock clock;
    private final SlurmBackend.Counters counters;
    /** Told of every listing that failed or concluded nothing: to the backend, that is a failed probe. */
    private final Consumer<BackendUnavailableException> probeFailed;
    private final SlurmNodeHealth health = new SlurmNodeHealth();

    SlurmNodes(SlurmProbe probe, SlurmActions actions, Clock clock, SlurmBackend.Counters counters,
               Consumer<BackendUnavailableException> probeFailed) {
        this.probe = probe;
        this.actions = actions;
        this.clock = clock;
        this.counters = counters;
        this.probeFailed = probeFailed;
    }

    /** Drains {@code node} with Allot's reason, unless it is drained already (by Allot or by an operator). */
    void drain(String node, String reason) {
        SlurmNode n = node(node);
        if (n.drained()) {
            return; // drained already, by Allot or by someone else: nothing more to do
        }
        String r = SlurmBackend.DRAIN_PREFIX + reason.replaceAll("[\\r\\n]+", " ").strip();
        if (r.length() > 200) {
            r = r.substring(0, 200);
        }
        if (!actions.drain(node, r)) {
            if (!node(node).drained()) {
                throw new BackendUnavailableException("could not drain Slurm node " + node);
            }
            counters.commandClaimsCorrected++;
        }
        LOG.info("drained Slurm node {}: {}", node, r);
    }

    /** Resumes {@code node} if Allot drained it; an operator's drain is theirs to undo. */
    void resume(String node) {
        SlurmNode n = node(node);
        if (!n.drained() || !n.reason().startsWith(SlurmBackend.DRAIN_PREFIX.strip())) {
            return; // not drained, or drained by someone else: theirs to resume
        }
        if (!actions.resume(node)) {
            if (node(node).drained()) {
                throw new BackendUnavailableException("could not resume Slurm node " + node);
            }
            counters.commandClaimsCorrected++;
        }
        health.resumed(node, clock.millis());
        LOG.info("resumed Slurm node {}", node);
    }

    private SlurmNode node(String name) {
        for (SlurmNode n : listNodes()) {
            if (n.name().equals(name)) {
                return n;
            }
        }
        throw new BackendException("Slurm has no node named " + name);
    }

    /** The nodes whose state Slurm knows, with whether each can run work (see {@link SlurmNodeHealth}). */
    List<BackendNode> read() {
        List<SlurmNode> listed = listNodes();
        try {
            return health.read(listed, clock.millis());
        } catch (BackendUnavailableException e) {
            probeFailed.accept(e); // nothing concluded: as a failed probe
            throw e;
        }
    }

    private List<SlurmNode> listNodes() {
        try {
            return probe.nodes();
        } catch (BackendUnavailableException e) {
            probeFailed.accept(e);
            throw e;
        }
    }
}
