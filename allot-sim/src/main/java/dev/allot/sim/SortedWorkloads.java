package dev.allot.sim;

import dev.allot.core.model.WorkloadSpec;
import java.util.List;

/**
 * An immutable list of workloads already sorted by submission time then id, whose elements may be created on
 * access (e.g. from a columnar table of an imported trace). A {@link Scenario} keeps such a list as it is instead of
 * copying it, so a large trace is not turned into an object per row before the first event.
 */
public interface SortedWorkloads extends List<WorkloadSpec> {
}
