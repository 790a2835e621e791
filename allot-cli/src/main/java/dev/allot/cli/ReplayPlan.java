package dev.allot.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.model.AllocationTree;
import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code allot replay} submits for each workload of a scenario, time-scaled: when (milliseconds after the
 * replay's time 0), the submission the service gets, and the small program that stands for the workload. Times are
 * divided by the time scale; what the service counts in whole seconds (the minimum runtime, the declared duration)
 * is rounded up to the second, at least one second when it is not zero.
 *
 * <p>The program ({@link #PROGRAM}, run by {@code sh}) works for the workload's scaled duration, in steps of its
 * scaled checkpoint interval when it is resumable, and after each step writes the work it has done (milliseconds)
 * to its state file; a later attempt starts from what that file says, so a preempted resumable workload resumes
 * from its last checkpoint, as the simulator assumes. A workload that checkpoints continuously in the simulator
 * ({@code checkpoint-every: 0s}) checkpoints every real second. Each start appends {@code $ALLOT_ATTEMPT} to its
 * runs file, so that an attempt started twice shows. The files are in the replay's state folder, which the nodes
 * must see (on one machine, any folder; on a cluster, a shared file system).
 *
 * <p><b>Its clock is the second of Allot's decision, not its own start.</b> The simulator charges a workload its
 * duration from the moment the policy starts it; a backend starts the process later (Slurm: a quarter to one second
 * after {@code sbatch}), and a program that worked for its duration from its own start would hold its GPUs that much
 * longer, delaying everything queued behind it. So each step ends at a time counted from the attempt's start as
 * Allot stamped it ({@code ALLOT_ATTEMPT_STARTED_AT}, epoch milliseconds, which both backends set), <em>rounded down
 * to its whole second</em>: step k of an attempt that resumed from {@code from} ends at
 * {@code second(started) + done_k - from}, and a step already due when the process gets there ends at once. The
 * whole second is what a duration means to the simulator and to the service's scheduler alike: both count whole
 * seconds, and a workload of duration d started in second s ends at s + d, whether the start was decided at the
 * second's first millisecond or, after a listing, a preemption and its stop, some tenths into it. Counting from the
 * millisecond instead makes each start decided late end late, so ends the simulator has at one instant come apart
 * live, the first seen alone is decided on alone, and the drift grows down each chain of starts. (The replay's time 0
 * is a whole second, so scenario second s is the service's second s at time scale 1.) Without the variable (a
 * service that does not set it) the program counts from its own start, to the millisecond. It reads the clock with
 * GNU {@code date +%s%3N}.
 *
 * @param timeScale scenario seconds per real second (60: an hour of the scenario plays in a minute)
 */
record ReplayPlan(Scenario scenario, double timeScale, List<Submission> submissions) {
    /** How often a workload that never loses progress in the simulator checkpoints, in real milliseconds. */
    static final long CONTINUOUS_CHECKPOINT_MILLIS = 1000;

    /**
     * The workload's program: {@code sh -c PROGRAM replay WORK_MS EVERY_MS STATE_FILE RUNS_FILE}, EVERY_MS 0 for a
     * workload that is not resumable (it starts from nothing each time and keeps no state).
     */
    static final String PROGRAM = "work=$1; every=$2; state=$3; echo \"${ALLOT_ATTEMPT:-?}\" >> \"$4\"; done=0;"
            + " if [ \"$every\" -gt 0 ] && [ -s \"$state\" ]; then done=$(cat \"$state\"); fi;"
            + " if [ -n \"${ALLOT_ATTEMPT_STARTED_AT:-}\" ]; then begin=$((ALLOT_ATTEMPT_STARTED_AT / 1000 * 1000));"
            + " else begin=$(date +%s%3N); fi; from=$done;"
            + " while [ \"$done\" -lt \"$work\" ]; do step=$((work - done));"
            + " if [ \"$every\" -gt 0 ] && [ \"$step\" -gt \"$every\" ]; then step=$every; fi;"
            + " done=$((done + step)); left=$((begin + done - from - $(date +%s%3N)));"
            + " if [ \"$left\" -gt 0 ]; then sleep $((left / 1000)).$(printf %03d $((left % 1000))); fi;"
            + " if [ \"$every\" -gt 0 ]; then echo \"$done\" > \"$state.tmp\" && mv \"$state.tmp\" \"$state\"; fi;"
            + " done";

    /**
     * One workload as replayed.
     *
     * @param submitAfterMillis  when to submit, after the replay's time 0
     * @param workMillis         how long its program works in all attempts together
     * @param checkpointMillis   the program's checkpoint interval; 0 when it is not resumable
     * @param minRuntimeSeconds  the minimum runtime the service is told (0: unallocated)
     * @param durationSeconds    the expected running time the service is told
     */
    record Submission(String id, String allocation, String allocationPath, long submitAfterMillis, int gpus,
                      int gpusPerNode, long minRuntimeSeconds, long durationSeconds, boolean resumable,
                      String priority, String kind, long workMillis, long checkpointMillis) {
        /** The state file of the program: its work done, in milliseconds. */
        Path stateFile(Path stateDir) {
            return stateDir.resolve(id + ".done");
        }

        /** The runs file: one line, {@code ALLOT_ATTEMPT}, per start of the program. */
        Path runsFile(Path stateDir) {
            return stateDir.resolve(id + ".runs");
        }

        /** The body of {@code POST /v1/workloads}. */
        ObjectNode body(Path stateDir) {
            ObjectNode b = ApiClient.JSON.createObjectNode();
            b.put("allocation", allocationPath);
            b.put("gpus", gpus);
            if (gpusPerNode > 0) {
                b.put("gpusPerNode", gpusPerNode);
            }
            b.put("minRuntime", minRuntimeSeconds + "s");
            b.put("duration", durationSeconds + "s");
            b.put("resumable", resumable);
            b.put("priority", priority);
            if (!kind.isBlank()) {
                b.put("kind", kind);
            }
            var command = b.putArray("command");
            command.add("sh").add("-c").add(PROGRAM).add("allot-replay").add(Long.toString(workMillis))
                    .add(Long.toString(checkpointMillis)).add(stateFile(stateDir).toString())
                    .add(runsFile(stateDir).toString());
            return b;
        }
    }

    /**
     * The plan of a scenario at a time scale.
     *
     * @throws IllegalArgumentException for a time scale that is not a positive number
     */
    static ReplayPlan of(Scenario scenario, double timeScale) {
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("--time-scale expects a number > 0 (scenario seconds per real second,"
                    + " e.g. 60 to play an hour in a minute), got " + timeScale);
        }
        AllocationTree tree = scenario.tree();
        List<Submission> out = new ArrayList<>();
        for (WorkloadSpec w : scenario.workloads()) {
            long workMillis = Math.max(1, Math.round(w.duration().toMillis() / timeScale));
            long every = 0;
            if (w.resumable()) {
                Duration c = w.checkpointEvery();
                every = c == null || c.isZero() ? CONTINUOUS_CHECKPOINT_MILLIS
                        : c.equals(WorkloadSpec.NO_CHECKPOINT_KNOWN) ? workMillis
                        : Math.max(1, Math.round(c.toMillis() / timeScale));
            }
            out.add(new Submission(w.id(), w.allocation(), tree.path(tree.node(w.allocation()).orElseThrow()),
                    Math.round(w.submitSeconds() * 1000 / timeScale), w.gpus(), w.gpusPerNode(),
                    scaledSeconds(w.minRuntime(), timeScale), Math.max(1, scaledSeconds(w.duration(), timeScale)),
                    w.resumable(), w.priority().label(), w.kind(), workMillis, every));
        }
        return new ReplayPlan(scenario, timeScale, List.copyOf(out));
    }

    /** A scenario duration as real whole seconds: rounded up, so that a non-zero one stays non-zero. */
    static long scaledSeconds(Duration d, double timeScale) {
        return d.isZero() ? 0 : (long) Math.ceil(d.toMillis() / timeScale / 1000 - 1e-9);
    }

    /** Real milliseconds after time 0 as scenario seconds (to the millisecond). */
    double scenarioSeconds(long realMillis) {
        return Math.round(realMillis * timeScale) / 1000.0;
    }

    /** How long to wait for every workload to end: twice the scenario played serially, plus a minute. */
    Duration defaultTimeout() {
        long lastSubmit = submissions.isEmpty() ? 0 : submissions.get(submissions.size() - 1).submitAfterMillis();
        long work = submissions.stream().mapToLong(Submission::workMillis).sum();
        return Duration.ofMillis(2 * (lastSubmit + work) + 60_000);
    }

    String describe() {
        return String.format(Locale.ROOT, "%d workloads of %s at time scale %s", submissions.size(), scenario.name(),
                timeScale == Math.rint(timeScale) ? Long.toString((long) timeScale) : Double.toString(timeScale));
    }
}
