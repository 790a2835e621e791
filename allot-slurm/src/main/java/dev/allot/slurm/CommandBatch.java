package dev.allot.slurm;

import dev.allot.core.backend.BackendUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the Slurm commands of one batch at once (the {@code sbatch}es of a cycle's starts, the {@code scancel}s of
 * its stops), at most {@link #AT_ONCE} at a time, and gives each one's outcome back in the order asked. Each command
 * is a process that waits on slurmctld (0.05 s unloaded, up to 0.8 s measured on a loaded 2-core machine); one after
 * another, the fifth start of a cycle reached Slurm seconds after its decision, and a preemption's {@code scancel}
 * after the workload it stopped had ended by itself. A batch of one runs on the caller's thread. The tasks must not
 * touch the backend's own state: the caller applies their outcomes afterwards, in order.
 */
final class CommandBatch implements AutoCloseable {
    /** How many commands run at once: enough for a cycle's starts, few enough not to flood slurmctld. */
    static final int AT_ONCE = 8;

    /** One command's outcome: its value, or what it threw. */
    record Done<T>(T value, RuntimeException failure) {
        T get() {
            if (failure != null) {
                throw failure;
            }
            return value;
        }
    }

    private final ExecutorService pool;

    CommandBatch() {
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(AT_ONCE, r -> {
            Thread t = new Thread(r, "allot-slurm-command-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs every task (at most {@link #AT_ONCE} at a time) and returns their outcomes, in the order given. */
    <T> List<Done<T>> run(List<Callable<T>> tasks) {
        List<Done<T>> out = new ArrayList<>(tasks.size());
        if (tasks.size() == 1) {
            out.add(call(tasks.get(0)));
            return out;
        }
        List<Future<Done<T>>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            futures.add(pool.submit(() -> call(task)));
        }
        boolean interrupted = false;
        for (Future<Done<T>> f : futures) {
            while (true) {
                try {
                    out.add(f.get());
                    break;
                } catch (InterruptedException e) {
                    // Every command is bounded by its own timeout: wait for its outcome, then say we were interrupted.
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    out.add(new Done<>(null, unknown(e.getCause())));
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return out;
    }

    private static <T> Done<T> call(Callable<T> task) {
        try {
            return new Done<>(task.call(), null);
        } catch (RuntimeException e) {
            return new Done<>(null, e);
        } catch (Exception e) {
            return new Done<>(null, unknown(e));
        }
    }

    private static RuntimeException unknown(Throwable t) {
        return t instanceof RuntimeException r ? r
                : new BackendUnavailableException("a Slurm command failed: " + t, t);
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
