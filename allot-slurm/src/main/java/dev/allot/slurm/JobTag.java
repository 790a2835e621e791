package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import java.util.Optional;

/**
 * How Allot marks its Slurm jobs so that it can always find them again, across its own restarts: the job's name is
 * {@code allot:<workload>#<attempt>} (what a person reading {@code squeue} sees) and its comment is
 * {@code allot:<instance>} (which Allot instance submitted it), to which Allot adds why it stops a job
 * ({@code allot:<instance> preempted by <workload>}). A job whose name does not parse is not Allot's.
 */
public final class JobTag {
    /** What every Allot job name starts with. */
    public static final String PREFIX = "allot:";
    /** The name of the held job that marks which Allot instance drives a cluster ({@link InstanceLock}). */
    public static final String LOCK_NAME = "allot:lock";

    private JobTag() {
    }

    public static String name(AttemptKey key) {
        return PREFIX + key.workloadId() + "#" + key.attempt();
    }

    public static String comment(String instance) {
        return PREFIX + instance;
    }

    /** The comment with a note after the instance: {@code allot:<instance> preempted by w-7}. */
    public static String comment(String instance, String note) {
        String n = note.replaceAll("\\s+", " ").strip();
        return n.isEmpty() ? comment(instance) : PREFIX + instance + " " + n;
    }

    /** The attempt a job name stands for, or empty if it is not an Allot attempt's name. */
    public static Optional<AttemptKey> parse(String name) {
        if (name == null || !name.startsWith(PREFIX)) {
            return Optional.empty();
        }
        int hash = name.lastIndexOf('#');
        if (hash <= PREFIX.length() || hash == name.length() - 1) {
            return Optional.empty();
        }
        String workload = name.substring(PREFIX.length(), hash);
        String n = name.substring(hash + 1);
        if (!n.chars().allMatch(c -> c >= '0' && c <= '9') || n.length() > 9 || n.startsWith("0")) {
            return Optional.empty();
        }
        int attempt = Integer.parseInt(n);
        if (attempt < 1) {
            return Optional.empty();
        }
        return Optional.of(new AttemptKey(workload, attempt));
    }

    /** The instance a job's comment names (its first word after the prefix), or empty if it is not Allot's. */
    public static Optional<String> instance(String comment) {
        if (comment == null || !comment.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String rest = comment.substring(PREFIX.length());
        int space = rest.indexOf(' ');
        String instance = (space < 0 ? rest : rest.substring(0, space)).strip();
        return instance.isEmpty() ? Optional.empty() : Optional.of(instance);
    }
}
