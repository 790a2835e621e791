package dev.allot.sim.detail;

import dev.allot.core.timeline.TimelineData;
import java.util.List;
import java.util.SortedMap;

/**
 * What the visual report draws for one policy's run beyond its headline metrics: hour-by-hour usage and
 * preemptions per allocation, the distribution of queue waits per class, the largest preemption events with the
 * policy's reasons, and the per-GPU timeline in a compact columnar encoding. Everything is deterministic and
 * serialises to the {@code runs} of the JSON document.
 *
 * @param policy      the policy's name
 * @param endSeconds  simulated time when the run stopped
 * @param hourly      usage, entitlement, owed and preemptions per allocation and hour
 * @param waitCurves  the queue-wait distribution per class ({@code all}, {@code debug}, {@code large})
 * @param largestPreemptions the preemption events that stopped the most GPUs, largest first
 * @param timeline    who ran on which GPU and when
 */
public record RunDetail(String policy, long endSeconds, HourlySeries hourly, SortedMap<String, WaitCurve> waitCurves,
                        List<PreemptionEvent> largestPreemptions, TimelineData timeline) {
}
