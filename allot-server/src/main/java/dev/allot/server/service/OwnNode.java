package dev.allot.server.service;

import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This machine's node in the store, as a built-in backend needs it: registered with its GPUs (from {@code
 * nvidia-smi}, {@link LocalGpus}, or the virtual count), its count updated when the machine's changed, its health
 * kept. On a shared store only the instance that leads may change the count: a standby started with another
 * {@code --gpus} made the leader stop the work on the GPUs it no longer counted, as lost.
 */
final class OwnNode {
    private static final Logger LOG = LoggerFactory.getLogger(OwnNode.class);

    private OwnNode() {
    }

    /**
     * Registers this machine's node as a built-in backend needs it (always for local, for the demo if simulated);
     * {@code update}: also sets the GPU count of a node already registered (only the instance that leads may).
     */
    static void register(ServiceConfig config, Clock clock, Store store, boolean update) {
        if (config.backend().equals(ServiceConfig.SIMULATED)) {
            if (config.demo() && store.nodes().nodes().isEmpty()) {
                registerOrUpdate(config, clock, store, update);
            }
            return;
        }
        registerOrUpdate(config, clock, store, update);
    }

    /** Creates this machine's node, or when {@code update} updates its GPU count (keeping its health). */
    private static void registerOrUpdate(ServiceConfig config, Clock clock, Store store, boolean update) {
        int gpus = config.virtualGpus() > 0 ? config.virtualGpus() : LocalGpus.detect(Service.DEFAULT_VIRTUAL_GPUS);
        java.util.Optional<Node> known = store.nodes().nodes().stream()
                .filter(n -> n.name().equals(config.nodeName())).findFirst();
        if (known.isEmpty()) {
            store.nodes().putNode(new Node(config.nodeName(), gpus, true, null, clock.millis()), Service.STARTUP_ACTOR);
            LOG.info("registered node {} with {} GPUs", config.nodeName(), gpus);
        } else if (known.get().gpus() != gpus && !update) {
            LOG.warn("node {} has {} GPUs in the store, this instance was started with {}: it sets that count when it"
                    + " leads, not while it stands by", config.nodeName(), known.get().gpus(), gpus);
        } else if (known.get().gpus() != gpus) {
            Node k = known.get();
            store.nodes().putNode(new Node(k.name(), gpus, k.healthy(), k.reason(), clock.millis()), Service.STARTUP_ACTOR);
            LOG.info("node {} now has {} GPUs (was {})", k.name(), gpus, k.gpus());
        }
    }
}
