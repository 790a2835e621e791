package dev.allot.sim.check;

/** A broken invariant, with the simulated time and what was wrong. The simulation stops. */
public final class InvariantViolation extends RuntimeException {
    private final long time;

    public InvariantViolation(long time, String what) {
        super("invariant broken at t=" + time + "s: " + what);
        this.time = time;
    }

    public long time() {
        return time;
    }
}
