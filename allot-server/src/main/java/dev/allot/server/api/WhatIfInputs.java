package dev.allot.server.api;

import dev.allot.core.state.ClusterState;
import dev.allot.sim.forecast.ArrivalModel;
import dev.allot.sim.forecast.DurationModel;
import java.util.Objects;

/**
 * What a what-if plays forward from: a fork of the live state (its own copy, which the what-if may change) and what
 * it assumes of durations and of new work.
 */
public record WhatIfInputs(ClusterState state, DurationModel durations, ArrivalModel arrivals) {
    public WhatIfInputs {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(durations, "durations");
        Objects.requireNonNull(arrivals, "arrivals");
    }
}
