package dev.allot.core.sched;

import dev.allot.core.state.Job;
import java.util.NavigableSet;

/**
 * Walks one pending queue (one allocation, class and shape) during a cycle without removing anything: the head
 * is the next job to consider; {@link #advance()} moves past a job that was started or skipped;
 * {@link #exhaust()} gives up on the whole queue for this cycle (when its head cannot be placed, nothing behind
 * it of the same shape and no better priority can be).
 */
public final class ShapeCursor {
    private final NavigableSet<Job> queue;
    private Job head;
    private int passedOver;

    public ShapeCursor(NavigableSet<Job> queue) {
        this.queue = queue;
        this.head = queue.isEmpty() ? null : queue.first();
    }

    /** The job to consider next, or null when done. */
    public Job head() {
        return head;
    }

    public void advance() {
        head = head == null ? null : queue.higher(head);
    }

    public void exhaust() {
        head = null;
    }

    /**
     * Moves past a job that was held back but does not rule out the ones behind it, at most {@code limit} times per
     * cycle; then gives up on the queue like {@link #exhaust()}. Bounds a cycle's work on long queues.
     */
    public void passOver(int limit) {
        if (++passedOver >= limit) {
            exhaust();
        } else {
            advance();
        }
    }
}
