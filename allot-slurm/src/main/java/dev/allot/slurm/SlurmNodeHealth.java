package dev.allot.slurm;

import dev.allot.core.backend.BackendNode;
import dev.allot.core.backend.BackendUnavailableException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Slurm node listing says of each node's health, the one rule for it: a node runs Allot's work unless it is
 * broken (down, failed, not responding) or drained by someone other than Allot ({@link SlurmBackend#DRAIN_PREFIX}),
 * and the reason names Slurm's state, flags and reason. A node Slurm has not heard from since slurmctld restarted
 * ({@link SlurmNode#unheard}) says nothing: it is left out, so the service keeps what it knew of it; a listing in
 * which no node has been heard from says nothing of any (read as every node down, it drained them all and moved
 * unallocated work off them after each restart of slurmctld). Remembers which nodes it last logged as unheard, to log
 * them when they change rather than at every sync.
 */
final class SlurmNodeHealth {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmNodeHealth.class);

    private List<String> unheardLogged = List.of();

    /**
     * The nodes of {@code listed} whose state Slurm knows, sorted by name, with whether each can run work.
     *
     * @throws BackendUnavailableException when Slurm knows the state of none of them
     */
    List<BackendNode> read(List<SlurmNode> listed) {
        List<String> unheard = listed.stream().filter(SlurmNode::unheard).map(SlurmNode::name).toList();
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
            if (n.unheard()) {
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
}
