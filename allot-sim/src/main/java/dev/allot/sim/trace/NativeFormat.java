package dev.allot.sim.trace;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.core.policy.Settings;
import dev.allot.sim.input.ScenarioReader;
import java.nio.file.Path;

/**
 * Allot's own {@code workloads.csv} or {@code workloads.jsonl} (see the README's scenario format), given as the file
 * or as a folder holding exactly one of them, read by the scenario reader itself: every column, check and message is
 * the same. Rows declare their whole contract (minimum runtime, resumable, checkpoints, priority, kind), so the
 * {@link ContractRule} does not apply and giving contract settings is an error. Instants are taken relative to
 * {@code start} when the scenario gives one, else to the earliest instant in the file.
 *
 * <p>Unlike the other formats, this one builds every workload while reading (it is meant for scenario-sized files),
 * then keeps them in the same columnar table.
 */
public final class NativeFormat implements TraceFormat {
    @Override
    public String name() {
        return "native";
    }

    @Override
    public String description() {
        return "Allot's workloads.csv or workloads.jsonl (a file, or a folder holding one); rows declare their contract";
    }

    @Override
    public boolean usesContract() {
        return false;
    }

    @Override
    public void read(Path path, Settings settings, TraceRows rows) {
        ScenarioReader.Workloads w = ScenarioReader.readWorkloads(path, rows.cluster(), rows.tree(), rows.start(),
                rows.lenient());
        rows.declaredTimeZero(w.timeZeroEpoch());
        for (WorkloadSpec spec : w.workloads()) {
            rows.addDeclared(spec);
        }
        rows.rejectAll(w.rejected());
    }
}
