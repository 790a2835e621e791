package dev.allot.core.timeline;

import java.util.List;

/**
 * The cluster's nodes in index order, the rows of the per-GPU timeline: {@link TimelineData}'s node indexes point
 * here. Part of the format the shared drawing code reads (the report's {@code nodes}, the live timeline's too).
 */
public record TimelineNodes(List<String> names, int[] gpus) {
}
