package dev.allot.core.state;

import dev.allot.core.backend.Launch;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Turns a {@link Placement} (GPU counts per node) into concrete GPU indexes, lanes: on each node the lowest free
 * ones, with one refinement for a real cluster: a lane still held by an attempt that is stopping (its process may
 * hold the GPU through the grace period) is taken only when no lane free for good is left, so a start waits for a
 * fence only when it must. The simulator's per-GPU timeline and the service's scheduling loop both choose lanes
 * here, so a run simulated and a run launched land on the same GPU indexes.
 */
public final class GpuLanes {
    private GpuLanes() {
    }

    /**
     * The lanes chosen for a placement.
     *
     * @param lanes  per placement node (in placement order), the GPU indexes, ascending
     * @param fenced whether any chosen lane is still held by a stopping attempt
     */
    public record Choice(int[][] lanes, boolean fenced) {
        public List<Launch.NodeGpus> nodeGpus(Placement p, List<String> nodeNames) {
            List<Launch.NodeGpus> out = new ArrayList<>(p.nodeCount());
            for (int i = 0; i < p.nodeCount(); i++) {
                List<Integer> gpus = new ArrayList<>(lanes[i].length);
                for (int lane : lanes[i]) {
                    gpus.add(lane);
                }
                out.add(new Launch.NodeGpus(nodeNames.get(p.node(i)), gpus));
            }
            return out;
        }
    }

    /**
     * @param owned   per node, the lanes the core counts as used (live attempts not stopping, deferred launches)
     * @param held    per node, the lanes held by attempts that are stopping
     * @param sizes   per node, its GPU count
     */
    public static Choice choose(Placement p, BitSet[] owned, BitSet[] held, int[] sizes) {
        int[][] lanes = new int[p.nodeCount()][];
        boolean fenced = false;
        for (int i = 0; i < p.nodeCount(); i++) {
            int n = p.node(i);
            int need = p.gpusOn(i);
            int[] chosen = new int[need];
            int k = 0;
            for (int pass = 0; pass < 2 && k < need; pass++) {
                for (int lane = 0; lane < sizes[n] && k < need; lane++) {
                    if (owned[n].get(lane)) {
                        continue;
                    }
                    boolean isHeld = held[n].get(lane);
                    if ((pass == 0) != isHeld) {
                        chosen[k++] = lane;
                        fenced |= isHeld;
                    }
                }
            }
            if (k < need) {
                throw new IllegalStateException("node " + n + " has " + (sizes[n] - owned[n].cardinality())
                        + " GPUs not in use but the placement " + p + " needs " + need + " there;"
                        + " the caller's lane books disagree with the core's state");
            }
            java.util.Arrays.sort(chosen);
            lanes[i] = chosen;
        }
        return new Choice(lanes, fenced);
    }
}
