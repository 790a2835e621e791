package dev.allot.slurm;

import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Slurm node listing says of each node's health, the one rule for it: a node runs Allot's work unless it is
 * broken (down, failed, not responding) or drained by someone other than Allot ({@link SlurmBackend#DRAIN_PREFIX}),
 * and the reason names Slurm's state, flags and reason. A node Slurm has not heard from since slurmctld restarted
 * ({@link SlurmNode#unheard}) says nothing: it is left out, so the service keeps what it knew of it; a listing in
 * which no node has been heard from says nothing of any (read as every node down, it drained them all and moved
 * unallocated work off them after each restart of slurmctld). Likewise a node Allot has just resumed: Slurm marks it
 * NOT_RESPONDING until its slurmd answers the ping the resume sends (about a second on Slurm 22.05), which read as
 * broken drained the node again at once and resumed it two seconds later; for {@link #RESUME_GRACE} after Allot's own
 * resume, NOT_RESPONDING alone (not DOWN, not failed, not drained by someone else) is no answer yet, and the node is
 * left out. Only Allot's resume opens that grace: a node that stops answering on its own is broken at once, so no work
 * is placed on a node Slurm may already have found dead. Remembers which nodes it last logged as unheard, to log them
 * when they change rather than at every sync.
 */
final class SlurmNodeHealth {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmNodeHealth.class);

    /** How long after Allot resumes a node a NOT_RESPONDING flag on it means "not heard since the resume". */
    static final Duration RESUME_GRACE = Duration.ofSeconds(30);

    private List<String> unheardLogged = List.of();
    /** When Allot last resumed each node (epoch milliseconds), until the grace has passed. */
    private final Map<String, Long> resumedAtMillis = new HashMap<>();

    /** Allot has just resumed {@code node} at {@code nowMillis}: Slurm will not have heard from it for a moment. */
    void resumed(String node, long nowMillis) {
        resumedAtMillis.put(node, nowMillis);
    }

    /**
     * The nodes of {@code listed} whose state Slurm knows, sorted by name, with whether each can run work, as of
     * {@code nowMillis}.
     *
     * @throws BackendUnavailableException when Slurm knows the state of none of them
     */
    List<BackendNode> read(List<SlurmNode> listed, long nowMillis) {
        resumedAtMillis.values().removeIf(at -> nowMillis - at > RESUME_GRACE.toMillis());
        List<String> unheard = listed.stream().filter(n -> unheard(n)).map(SlurmNode::name).toList();
        if (!unheard.isEmpty() && unheard.size() == listed.size()) {
            throw new BackendUnavailableException("Slurm does not know the state of " + String.join(", ", unheard)
                    + " yet (UNKNOWN: slurmctld has not heard from its slurmd since it started); nothing concluded"
                    + " from this node listing");
        }
        if (!unheard.equals(unheardLogged)) {
            if (!unheard.isEmpty()) {
                LOG.info("Slurm does not know the state of {} yet (UNKNOWN: slurmctld has not heard from its slurmd"
                        + " since it started); left as they were, the other nodes read", String.join(", ", unheard));
            }
            unheardLogged = unheard;
        }
        List<BackendNode> out = new ArrayList<>();
        for (SlurmNode n : listed) {
            if (unheard(n)) {
                continue; // one node not heard from says nothing of it, nor of the others
            }
            boolean ours = n.reason().startsWith(SlurmBackend.DRAIN_PREFIX.strip());
            boolean usable = !n.broken() && (!n.drained() || ours);
            String why = usable ? null : n.state() + (n.flags().isEmpty() ? "" : "+" + String.join("+", n.flags()))
                    + (n.reason().isEmpty() ? "" : ": " + n.reason());
            out.add(new BackendNode(n.name(), n.gpus(), usable, why));
        }
        out.sort(Comparator.comparing(BackendNode::name));
        return out;
    }

    /** Slurm has not heard from {@code n} since slurmctld started, or since Allot resumed it moments ago. */
    private boolean unheard(SlurmNode n) {
        return n.unheard() || n.onlyNotResponding() && resumedAtMillis.containsKey(n.name());
    }
}
