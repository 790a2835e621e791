package dev.allot.server.service;

import dev.allot.core.policy.PreemptionCause;
import dev.allot.server.sched.LoopObserver;
import dev.allot.server.store.AttemptOutcome;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs each start, preemption and end the scheduling loop reports, one event each with key-value pairs
 * ({@code workload}, {@code allocation}, {@code waitSeconds}; {@code cause}, {@code preemptor},
 * {@code lostGpuSeconds}; {@code outcome}), which the text format prints as {@code key=value} and the JSON format
 * as fields.
 */
public final class LoggingObserver implements LoopObserver {
    static final Logger LOG = LoggerFactory.getLogger("dev.allot.server.events");

    @Override
    public void started(String workloadId, String allocation, long waitSeconds) {
        LOG.atInfo().addKeyValue("workload", workloadId).addKeyValue("allocation", allocation)
                .addKeyValue("waitSeconds", waitSeconds).log("started");
    }

    @Override
    public void preempted(String workloadId, String allocation, PreemptionCause cause, long lostGpuSeconds) {
        var e = LOG.atInfo().addKeyValue("workload", workloadId).addKeyValue("allocation", allocation)
                .addKeyValue("cause", cause == null ? "unknown" : cause.kind().name().toLowerCase(Locale.ROOT));
        if (cause != null && cause.preemptorId() != null) {
            e = e.addKeyValue("preemptor", cause.preemptorId());
        }
        if (cause != null && cause.node() != null) {
            e = e.addKeyValue("node", cause.node());
        }
        e.addKeyValue("lostGpuSeconds", lostGpuSeconds).log("preempted");
    }

    @Override
    public void ended(String workloadId, String allocation, AttemptOutcome outcome) {
        LOG.atInfo().addKeyValue("workload", workloadId).addKeyValue("allocation", allocation)
                .addKeyValue("outcome", outcome.label()).log("ended");
    }
}
