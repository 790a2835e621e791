package dev.allot.server.sched;

import java.time.Duration;

/**
 * Whether a cycle that saw work end holds its decision for a later cycle ({@code allot serve --settle}; off by
 * default). A backend reports ends that happened together some tenths of a second apart: Slurm shows a job COMPLETED
 * about 0.1 s after its program exits, and two programs that exit in the same instant can show a listing apart. The
 * policy, asked on the first end alone, may start a small job on its GPUs where, had it seen both ends, it would have
 * started the larger job that needed them all (the simulator, which counts whole seconds, always sees them together).
 * So, with a settle time, a cycle whose observation found ends does not ask the policy; the next cycle that finds no
 * further end does, and so does the first cycle once the settle time has passed since the first of the ends (so a
 * steady stream of ends cannot hold decisions back for longer). Each start that follows an end waits one cycle more;
 * nothing else changes.
 *
 * <p>Used only on the loop's thread.
 */
final class EndSettling {
    private final long settleMillis;
    /** When the first of the ends now settling was seen; {@link Long#MIN_VALUE} when none is. */
    private long firstEndMillis = Long.MIN_VALUE;

    EndSettling(Duration settle) {
        if (settle.isNegative()) {
            throw new IllegalArgumentException("the settle time must not be negative, got " + settle);
        }
        this.settleMillis = settle.toMillis();
    }

    /** Whether the cycle at {@code nowMillis}, whose observation of the backend found {@code ends} ends, holds. */
    boolean holds(int ends, long nowMillis) {
        if (settleMillis == 0 || ends == 0) {
            firstEndMillis = Long.MIN_VALUE;
            return false;
        }
        if (firstEndMillis == Long.MIN_VALUE) {
            firstEndMillis = nowMillis;
        }
        if (nowMillis - firstEndMillis >= settleMillis) {
            firstEndMillis = Long.MIN_VALUE;
            return false;
        }
        return true;
    }
}
