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
 * broken (down, failed) or drained by someone other than Allot ({@link SlurmBackend#DRAIN_PREFIX}), and the reason
 * names Slurm's state, flags and reason. A node Slurm has not heard from since slurmctld restarted
 * ({@link SlurmNode#unheard}), or whose slurmd missed a ping while Slurm has not declared it down
 * ({@link SlurmNode#notResponding}), says nothing: it is left out, so the service keeps what it knew of it, until Slurm
 * hears from it or sets it DOWN; a listing in which no node has been heard from says nothing of any (read as every
 * node down, it drained them all and moved unallocated work off them after each restart of slurmctld). Remembers
 * which nodes it last logged as unheard, to log them when they change rather than at every sync.
 */
final class SlurmNodeHealth {
    private static final Logger LOG = LoggerFactory.getLogger(SlurmNodeHealth.class);

    private static final String WHY_UNKNOWN = "UNKNOWN: slurmctld has not heard from their slurmd since it started,"
            + " or NOT_RESPONDING: their slurmd missed a ping and Slurm has not set them DOWN";

    private List<String> unheardLogged = List.of();

    /**
     * The nodes of {@code listed} whose state Slurm knows, sorted by name, with whether each can run work.
     *
     * @throws BackendUnavailableException when Slurm knows the state of none of them
     */
    List<BackendNode> read(List<SlurmNode> listed) {
        List<String> unheard = listed.stream().filter(SlurmNodeHealth::unknown).map(SlurmNode::name).toList();
        if (!unheard.isEmpty() && unheard.size() == listed.size()) {
            throw new BackendUnavailableException("Slurm does not know the state of " + String.join(", ", unheard)
                    + " yet (" + WHY_UNKNOWN + "); nothing concluded from this node listing");
        }
        if (!unheard.equals(unheardLogged)) {
            if (!unheard.isEmpty()) {
                LOG.info("Slurm does not know the state of {} yet ({}); left as they were, the other nodes read",
                        String.join(", ", unheard), WHY_UNKNOWN);
            }
            unheardLogged = unheard;
        }
        List<BackendNode> out = new ArrayList<>();
        for (SlurmNode n : listed) {
            if (unknown(n)) {
                continue; // one node Slurm does not know says nothing of it, nor of the others
            }
            boolean usable = !n.broken() && (!n.drained() || drainedByAllot(n));
            String why = usable ? null : n.state() + (n.flags().isEmpty() ? "" : "+" + String.join("+", n.flags()))
                    + (n.reason().isEmpty() ? "" : ": " + n.reason());
            out.add(new BackendNode(n.name(), n.gpus(), usable, why));
        }
        out.sort(Comparator.comparing(BackendNode::name));
        return out;
    }

    private static boolean drainedByAllot(SlurmNode n) {
        return n.reason().startsWith(SlurmBackend.DRAIN_PREFIX.strip());
    }

    /**
     * Slurm does not know its state: not heard from since slurmctld started, or its slurmd missed a ping and Slurm has
     * not declared it down. A node an operator drained is known to be drained whether it answers or not.
     */
    private static boolean unknown(SlurmNode n) {
        return n.unheard() || n.notResponding() && (!n.drained() || drainedByAllot(n));
    }

}
