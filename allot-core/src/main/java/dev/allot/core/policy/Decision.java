package dev.allot.core.policy;

import dev.allot.core.state.Job;
import dev.allot.core.state.Placement;

/** One step of a {@link Plan}: start a waiting job somewhere, or stop a running one. Each carries its reason. */
public sealed interface Decision permits Decision.Start, Decision.Preempt {
    Job job();

    /** Start a waiting job on these GPUs; {@code reason} says in plain words why it and why now. */
    record Start(Job job, Placement placement, String reason) implements Decision {
    }

    /** Stop a running job before it is done; the cause says who or what needs its GPUs. */
    record Preempt(Job job, PreemptionCause cause) implements Decision {
    }
}
