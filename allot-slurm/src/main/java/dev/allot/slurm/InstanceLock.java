package dev.allot.slurm;

import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which Allot instance drives a Slurm cluster, kept in Slurm itself: a held job named {@code allot:lock} whose
 * comment names the instance (it never runs and holds nothing). The instance whose lock job has the lowest id owns the
 * cluster: Slurm's job ids only grow, so two instances that start together agree on the winner, and the loser cancels
 * its own lock and refuses to start. A lock whose instance is gone for good is removed by a person with
 * {@code scancel}; the message says which job. An instance that finds its own lock (a restart) keeps it.
 */
final class InstanceLock {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceLock.class);

    private final String instance;
    private final SlurmActions actions;
    private long jobId = -1;
    private String fencedBy;

    InstanceLock(String instance, SlurmActions actions) {
        this.instance = instance;
        this.actions = actions;
    }

    long jobId() {
        return jobId;
    }

    /**
     * Finds or makes this instance's lock job and checks that no other instance holds an older one.
     *
     * @throws BackendException if another instance owns the cluster
     * @throws BackendUnavailableException if Slurm could not be read (nothing was decided)
     */
    void acquire(Supplier<List<SlurmJob>> listing) {
        List<SlurmJob> jobs = listing.get();
        refuseIfOwnedByAnother(jobs);
        Optional<SlurmJob> mine = oldest(jobs, true);
        if (mine.isEmpty()) {
            // An unanswered submission may still have made it: the next try reads it back before making another.
            long id = actions.submitLock();
            LOG.info("made lock job {} for Allot instance {}", id, instance);
            jobs = listing.get();
            mine = oldest(jobs, true);
            if (mine.isEmpty()) {
                throw new BackendUnavailableException("the lock job " + id + " just made is not in Slurm's listing");
            }
            try {
                refuseIfOwnedByAnother(jobs);
            } catch (BackendException e) {
                actions.cancel(mine.get().id());
                throw e;
            }
        }
        jobId = mine.get().id();
        for (SlurmJob j : jobs) {
            if (isLock(j) && ownedBy(j, instance) && j.id() != jobId) {
                actions.cancel(j.id()); // a spare from an earlier try
            }
        }
    }

    /** Checks a listing: if another instance's older lock has appeared, this instance is fenced (launches nothing). */
    void check(List<SlurmJob> jobs) {
        Optional<SlurmJob> other = oldest(jobs, false);
        Optional<SlurmJob> mine = oldest(jobs, true);
        if (other.isPresent() && (mine.isEmpty() || other.get().id() < mine.get().id())) {
            if (fencedBy == null) {
                LOG.error("another Allot instance ({}, lock job {}) drives this Slurm cluster; launching nothing",
                        JobTag.instance(other.get().comment()).orElse("?"), other.get().id());
            }
            fencedBy = describe(other.get());
        } else {
            fencedBy = null;
        }
    }

    /** @throws BackendException if another instance was found to own the cluster */
    void checkNotFenced() {
        if (fencedBy != null) {
            throw new BackendException(fencedBy);
        }
    }

    private void refuseIfOwnedByAnother(List<SlurmJob> jobs) {
        Optional<SlurmJob> other = oldest(jobs, false);
        Optional<SlurmJob> mine = oldest(jobs, true);
        if (other.isPresent() && (mine.isEmpty() || other.get().id() < mine.get().id())) {
            throw new BackendException(describe(other.get()));
        }
    }

    private String describe(SlurmJob other) {
        return "another Allot instance '" + JobTag.instance(other.comment()).orElse("?") + "' drives this Slurm"
                + " cluster: it holds lock job " + other.id() + " (" + JobTag.LOCK_NAME + "); this instance is '"
                + instance + "'. Two instances would both launch work. If that instance is gone for good, run"
                + " `scancel " + other.id() + "` and start again";
    }

    private Optional<SlurmJob> oldest(List<SlurmJob> jobs, boolean own) {
        SlurmJob best = null;
        for (SlurmJob j : jobs) {
            if (isLock(j) && ownedBy(j, instance) == own && (best == null || j.id() < best.id())) {
                best = j;
            }
        }
        return Optional.ofNullable(best);
    }

    private static boolean isLock(SlurmJob j) {
        return j.name().equals(JobTag.LOCK_NAME) && !j.ended();
    }

    private static boolean ownedBy(SlurmJob j, String instance) {
        return JobTag.instance(j.comment()).filter(instance::equals).isPresent();
    }
}
