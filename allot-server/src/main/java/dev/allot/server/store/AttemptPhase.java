package dev.allot.server.store;

import java.util.Locale;

/**
 * Where an attempt is as the scheduler recorded it: asked of the backend ({@link #LAUNCHING}), seen running,
 * asked to stop, or ended. Every phase but {@link #ENDED} is an open attempt that a restarted scheduler must
 * reconcile with the backend.
 */
public enum AttemptPhase {
    LAUNCHING, RUNNING, STOPPING, ENDED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static AttemptPhase parse(String label) {
        for (AttemptPhase p : values()) {
            if (p.label().equals(label)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown attempt phase '" + label + "'");
    }
}
