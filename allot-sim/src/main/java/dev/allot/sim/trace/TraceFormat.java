package dev.allot.sim.trace;

import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One workload-trace format: how its rows become workloads. Each implementation reads exactly one format and
 * documents, in its class comment, every column it uses, their units, and its rule for what the trace lacks
 * (allocation, ids, what to skip); the scheduling contract comes from the shared {@link ContractRule}.
 */
public interface TraceFormat {
    /** The name used in {@code --trace NAME:PATH} and {@code trace.yaml}, e.g. {@code philly}. */
    String name();

    /** One line on what the format is. */
    String description();

    /** The format's own settings (e.g. which SWF field is the allocation); none by default. */
    default List<SettingSpec> settings() {
        return List.of();
    }

    /** Checks the values of the settings beyond their types (e.g. one of a few choices); throws with the problem. */
    default void validate(Settings settings) {
    }

    /** Whether the {@link ContractRule} fills in the contract; false for formats whose rows declare it. */
    default boolean usesContract() {
        return true;
    }

    /**
     * Reads the rows of {@code path} into {@code rows}, row by row: parse, check, then {@link TraceRows#add} or
     * {@link TraceRows#reject} or {@link TraceRows#skip}.
     *
     * @param settings the format's settings, validated against {@link #settings()}
     */
    void read(Path path, Settings settings, TraceRows rows) throws IOException;
}
