package dev.allot.slurm;

import dev.allot.core.backend.AttemptKey;
import java.util.Optional;

/**
 * How Allot marks its Slurm jobs so that it can always find them again, across its own restarts: the job's name is
 * {@code allot:<workload>#<attempt>} (what a person reading {@code squeue} sees) and its comment is
 * {@code allot:<instance>} (which Allot instance submitted it). A job whose name does not parse is not Allot's.
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

    /** The instance a job's comment names, or empty if the comment is not Allot's. */
    public static Optional<String> instance(String comment) {
        if (comment == null || !comment.startsWith(PREFIX) || comment.length() == PREFIX.length()) {
            return Optional.empty();
        }
        return Optional.of(comment.substring(PREFIX.length()));
    }
}
