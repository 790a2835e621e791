package dev.allot.slurm;

import dev.allot.core.backend.Backend;
import dev.allot.core.backend.BackendUnavailableException;
import dev.allot.core.backend.Launch;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Mirrors on Slurm a contract Allot changed in place: unallocated work that becomes allocated while it runs (a
 * campaign's shard taking a protected slot where it is: the same attempt, the same Slurm job, the same process). Allot
 * alone decides preemption, so the promotion holds whatever Slurm shows; this makes Slurm's own tools ({@code squeue},
 * {@code scontrol show job}, accounting) show as much of it as Slurm allows, and says what they show.
 *
 * <p><b>QOS.</b> When allocated work has a QOS of its own, the job is asked to move to it
 * ({@code scontrol update JobId=ID QOS=NAME}), then read back ({@code scontrol -o show job ID}) whatever scontrol
 * printed or exited with: a researcher driving Slurm by hand saw "Access/permission denied" printed for a QOS change
 * Slurm applied, Slurm 22.05 refuses the change for a job that is no longer pending, and without accounting it
 * answers success and keeps no QOS. Only the read-back decides.
 *
 * <p><b>Partition.</b> A running job's partition cannot change ("Job is no longer pending execution"), and what could
 * move it (a requeue, a new job) would not leave its process running: it is not attempted, and the answer says where
 * the job stays. A job still pending is moved, and read back.
 *
 * <p><b>What Slurm still sees.</b> A job left in the preemptible QOS or partition is still preemptible by Slurm's own
 * preemption, where a site enables it: on the test cluster in QOS mode ({@code PreemptType=preempt/qos}), a job of QOS
 * {@code allot} needing the GPUs of a promoted job Slurm kept in {@code allot-free} got them, and the promoted job was
 * requeued (Restarts=1), which the backend then cancels as any Slurm requeue. The answer says so; Allot's promise holds
 * only where Slurm preempts nothing Allot did not decide.
 *
 * <p><b>Comment.</b> In every case the comment becomes {@code allot:<instance> protected since <instant>}: Slurm
 * changes comments of running jobs (every component of a heterogeneous one), so whoever reads {@code squeue} sees
 * why Allot will not preempt a job left in the preemptible partition or QOS.
 *
 * <p>Nothing here submits, requeues, signals or cancels a job. A read that fails is unknown, never a job gone: it
 * throws {@link BackendUnavailableException}.
 */
final class SlurmPromotion {
    private final SlurmConfig config;
    private final SlurmActions actions;

    SlurmPromotion(SlurmConfig config, SlurmActions actions) {
        this.config = config;
        this.actions = actions;
    }

    /**
     * What the promotion shows in Slurm.
     *
     * @param mirror         whether Slurm shows the new terms, and in words what it shows and why
     * @param claimCorrected scontrol reported a failure for a change the read-back shows applied
     */
    record Outcome(Backend.Mirror mirror, boolean claimCorrected) {
    }

    /** What scontrol answered to one update: {@code ok} when it exited 0 without an error. */
    private record Said(boolean ok, String words) {
    }

    /** A job read back: its leader (the job itself when it is not heterogeneous) and each component's QOS. */
    private record Seen(SlurmJob job, List<String> qos) {
        static Seen of(long id, List<String> lines) {
            String leader = lines.stream().filter(l -> CliProbe.field(l, "JobId").equals(Long.toString(id)))
                    .findFirst().orElse(lines.get(0));
            return new Seen(CliProbe.fromScontrol(id, leader),
                    lines.stream().map(l -> CliProbe.field(l, "QOS")).distinct().toList());
        }

        boolean hasQos(String name) {
            return qos.stream().allMatch(name::equalsIgnoreCase);
        }

        /** {@code QOS allot}, or {@code no QOS} as Slurm without accounting shows every job ({@code (null)}). */
        String qosText() {
            return qos.equals(List.of("(null)")) || qos.equals(List.of("")) ? "no QOS" : "QOS " + String.join(",", qos);
        }
    }

    /**
     * Moves job {@code jobId} to the QOS (or, while it is pending, the partition) of {@code terms}, notes since when in
     * its comment, and reads it back.
     *
     * @param since when Allot changed the contract, written in the comment (to the second)
     * @throws BackendUnavailableException if the job could not be read, before or after: nothing is concluded
     */
    Outcome promote(long jobId, Launch.Terms terms, Instant since) {
        String qos = terms.unallocated() ? config.freeQos() : config.qos();
        String partition = terms.unallocated() && config.freePartition() != null ? config.freePartition()
                : config.partition();
        String job = "Slurm job " + jobId;
        Optional<Seen> before = read(jobId, "before mirroring its new terms");
        if (before.isEmpty()) {
            return new Outcome(new Backend.Mirror(false, "Slurm no longer knows job " + jobId
                    + " (Invalid job id); nothing to mirror"), false);
        }
        Seen b = before.get();
        if (b.job().ended()) {
            return new Outcome(new Backend.Mirror(false, job + " has ended (" + b.job().state()
                    + "); nothing to mirror"), false);
        }
        boolean moveQos = qos != null && !b.hasQos(qos);
        boolean movePartition = partition != null && !b.job().partition().equals(partition);
        boolean askPartition = movePartition && b.job().pending();
        Said qosSaid = moveQos ? ask(jobId, "QOS", qos) : null;
        Said partitionSaid = askPartition ? ask(jobId, "Partition", partition) : null;
        String note = JobTag.comment(config.instance(), (terms.unallocated() ? "unallocated since " : "protected since ")
                + since.truncatedTo(ChronoUnit.SECONDS));
        Said commentSaid = ask(jobId, "Comment", note);

        Optional<Seen> after = read(jobId, "after asking to mirror its new terms");
        if (after.isEmpty()) {
            return new Outcome(new Backend.Mirror(false, "Slurm no longer knows job " + jobId + " (Invalid job id)"
                    + " after it was asked to mirror its new terms"), false);
        }
        Seen a = after.get();
        List<String> parts = new ArrayList<>();
        boolean mirrored = true;
        boolean corrected = false;
        List<String> kept = new ArrayList<>(); // what Slurm's own preemption still sees
        if (qos != null) {
            if (!moveQos) {
                parts.add(job + " already has QOS " + qos);
            } else if (a.hasQos(qos)) {
                corrected = !qosSaid.ok();
                parts.add(job + " now has QOS " + qos + " (was " + b.qosText() + ")" + (qosSaid.ok() ? ""
                        : "; scontrol " + qosSaid.words() + ", yet the read-back shows the change"));
            } else {
                mirrored = false;
                if (!a.qosText().equals("no QOS")) {
                    kept.add(a.qosText());
                }
                parts.add("Slurm keeps " + a.qosText() + " for job " + jobId + ": asked for QOS " + qos + ", scontrol "
                        + qosSaid.words() + (qosSaid.ok() ? ", but the read-back shows " + a.qosText() : ""));
            }
        }
        if (movePartition) {
            String was = b.job().partition();
            if (!askPartition) {
                mirrored = false;
                kept.add("partition " + was);
                parts.add("Slurm keeps job " + jobId + " in partition " + was + ": a " + b.job().state()
                        .toLowerCase(java.util.Locale.ROOT) + " job's partition cannot change");
            } else if (a.job().partition().equals(partition)) {
                corrected |= !partitionSaid.ok();
                parts.add(job + " moved to partition " + partition + " (was " + was + ")" + (partitionSaid.ok() ? ""
                        : "; scontrol " + partitionSaid.words() + ", yet the read-back shows the change"));
            } else {
                mirrored = false;
                kept.add("partition " + a.job().partition());
                parts.add("Slurm keeps job " + jobId + " in partition " + a.job().partition() + ": asked for "
                        + partition + ", scontrol " + partitionSaid.words());
            }
        } else if (qos == null && partition != null) {
            parts.add(job + " is already in partition " + partition);
        }
        if (!mirrored) {
            parts.add((terms.unallocated() ? "Allot treats it as unallocated from now" : "Allot protects it from now")
                    + (kept.isEmpty() || terms.unallocated() ? "" : " (Slurm's own preemption, where enabled, still"
                    + " sees " + String.join(" and ", kept) + ")"));
        }
        parts.add(a.job().comment().equals(note) ? "its comment reads '" + note + "'"
                : "its comment still reads '" + a.job().comment() + "' (scontrol " + commentSaid.words() + ")");
        return new Outcome(new Backend.Mirror(mirrored, String.join("; ", parts)), corrected);
    }

    /** Asks for one change; what scontrol said, which the read-back confirms or contradicts. */
    private Said ask(long jobId, String field, String value) {
        try {
            Commands.Result r = actions.update(jobId, field, value);
            String err = firstLine(r.err());
            String out = firstLine(r.out());
            String words = err.isEmpty() ? out : err;
            boolean ok = r.ok() && err.isEmpty();
            return new Said(ok, words.isEmpty() ? "exited " + r.exit() + " without a word"
                    : "said \"" + words + "\" (exit " + r.exit() + ")");
        } catch (BackendUnavailableException e) {
            return new Said(false, "gave no answer (" + e.getMessage() + ")"); // unknown: the read-back decides
        }
    }

    private Optional<Seen> read(long jobId, String when) {
        try {
            return actions.showJob(jobId).map(lines -> Seen.of(jobId, lines));
        } catch (BackendUnavailableException e) {
            throw new BackendUnavailableException(e.getMessage() + " (" + when + "); nothing concluded", e);
        }
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }
}
