package dev.allot.core.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a policy decided in one cycle, in the order it must be carried out (the preemptions that make room for a
 * start come before it), and when it wants to be asked again if nothing else happens.
 */
public final class Plan {
    /** No wake-up requested. */
    public static final long NO_WAKE_UP = Long.MAX_VALUE;

    private final List<Decision> decisions;
    private final long wakeAtSeconds;

    public Plan(List<Decision> decisions, long wakeAtSeconds) {
        this.decisions = Collections.unmodifiableList(new ArrayList<>(decisions));
        this.wakeAtSeconds = wakeAtSeconds;
    }

    public static Plan empty() {
        return new Plan(List.of(), NO_WAKE_UP);
    }

    public List<Decision> decisions() {
        return decisions;
    }

    /** The time at which the policy wants another cycle even without new events; {@link #NO_WAKE_UP} if none. */
    public long wakeAtSeconds() {
        return wakeAtSeconds;
    }

    public boolean isEmpty() {
        return decisions.isEmpty();
    }
}
