package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import java.util.List;

/**
 * What an attempt's job script does before its command: it asks Slurm ({@code squeue}) for the jobs of the attempt's
 * name and the job's own user in every state Slurm still keeps, and if one of them is older (a lower id) it exits
 * {@value #OLDER_JOB_STATUS} having run nothing. So of two submissions of one attempt only the older runs its command,
 * even when the later one starts: after the first ended and before any observation cancelled the later (the singleton
 * dependency holds it only while the first is pending or running), or on a heterogeneous job, which cannot carry the
 * singleton ({@link SlurmActions#SINGLETON}). The older job sees only later ones and runs. If {@code squeue} does not
 * answer in {@value #TRIES} tries, a second apart, it cannot tell: a job that carries the singleton runs its command,
 * saying so (Slurm holds any second job of the attempt while it runs; only a first job that ended unseen could be
 * repeated, and a controller that stops answering for seconds is far more common than that, so refusing would fail
 * work for nothing); a heterogeneous job, which has no singleton, runs nothing (as the local backend's wrapper runs
 * nothing when it cannot claim its attempt).
 *
 * <p>Only this instance's jobs count (their comment). What it cannot see: an older job Slurm no longer keeps ({@code MinJobAge} after it ended, 300 s by default).
 * The job script has neither {@code SLURM_JOB_NAME} nor the service's environment ({@code --export-file} replaces
 * it), so the name is written into the script and the user and id come from what slurmd sets
 * ({@code SLURM_JOB_UID}, {@code SLURM_JOB_ID}, and {@code SLURM_CONF} for {@code squeue}).
 */
final class OnceGuard {
    /** How a job that found an older job of its attempt exits (it ran nothing); as the local backend's wrapper. */
    static final int OLDER_JOB_STATUS = 125;
    /** How many times the script asks {@code squeue} before it gives up and runs nothing. */
    static final int TRIES = 3;

    private OnceGuard() {
    }

    /**
     * The job script's line: the check, then {@code command} (a shell line, see {@link SlurmActions#shellCommand}).
     * Only jobs of this Allot instance count (the first word of their comment, {@link JobTag#comment}): another
     * instance, or an earlier installation, may have used the same attempt name, and its ended jobs stay listed.
     *
     * @param squeue    the {@code squeue} to run on the node (the service's, by absolute path when it has one)
     * @param singleton whether the job carries the singleton dependency: then a {@code squeue} that does not answer
     *                  lets the command run (see the class comment)
     */
    static String script(AttemptKey key, String instance, String squeue, String command, boolean singleton) {
        String name = SlurmActions.shellCommand(List.of(JobTag.name(key)));
        String ours = SlurmActions.shellCommand(List.of(JobTag.comment(instance)));
        String attempt = SlurmActions.shellCommand(List.of(key.toString())); // quoted: never interpreted
        String sq = SlurmActions.shellCommand(List.of(squeue));
        return "n=0; until o=$(" + sq + " -h -a -t all -u \"$SLURM_JOB_UID\" -n " + name + " -o '%A %k'); do"
                + " n=$((n+1)); if [ \"$n\" -ge " + TRIES + " ]; then echo \"allot: could not ask Slurm whether an"
                + " older job of attempt \"" + attempt + "\" exists; " + (singleton
                        ? "running it: the singleton dependency holds any other job of it while this one runs\" >&2;"
                          + " o=; break"
                        : "running nothing\" >&2; exit " + OLDER_JOB_STATUS)
                + "; fi; sleep 1; done;"
                + " older=$(printf '%s\\n' \"$o\" | while read -r i c rest; do"
                + " if [ \"$c\" = " + ours + " ] && [ \"$i\" -lt \"$SLURM_JOB_ID\" ]; then echo \"$i\"; break; fi;"
                + " done);"
                + " if [ -n \"$older\" ]; then echo \"allot: Slurm job $older of attempt \"" + attempt + "\" is older"
                + " than this one ($SLURM_JOB_ID); running nothing\" >&2; exit " + OLDER_JOB_STATUS + "; fi; "
                + command;
    }
}
