package dev.allot.server.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Group commit: callers that write at the same time share one transaction, so that a durable commit (a sync of the
 * log to disk) is paid once per group instead of once per caller. Each caller still returns only after the
 * transaction holding its item committed: durability before acknowledgement is unchanged.
 *
 * <p>Leader and followers: a caller that finds no leader becomes one, takes everything queued (up to
 * {@code maxGroup}) and writes it as one group; followers wait. A leader leads until its own item is written, then
 * hands over to a waiting caller. If a group's transaction fails, each of its items is written again alone, so one bad
 * item fails only its own caller. A lone caller pays nothing more than a plain transaction.
 */
final class GroupCommit<I, O> {
    private final Function<List<I>, List<O>> writeGroup;
    private final Function<I, O> writeOne;
    private final int maxGroup;
    private final ArrayDeque<Entry<I, O>> queue = new ArrayDeque<>();
    private boolean leading;

    private static final class Entry<I, O> {
        final I item;
        boolean done;
        O result;
        RuntimeException error;

        Entry(I item) {
            this.item = item;
        }
    }

    GroupCommit(Function<List<I>, List<O>> writeGroup, Function<I, O> writeOne, int maxGroup) {
        this.writeGroup = Objects.requireNonNull(writeGroup, "writeGroup");
        this.writeOne = Objects.requireNonNull(writeOne, "writeOne");
        if (maxGroup < 1) {
            throw new IllegalArgumentException("maxGroup must be at least 1, got " + maxGroup);
        }
        this.maxGroup = maxGroup;
    }

    /** Writes the item, in a group with whatever other callers write at the same time, and returns its result. */
    O write(I item) {
        Entry<I, O> mine = new Entry<>(item);
        synchronized (this) {
            queue.add(mine);
            boolean interrupted = false;
            while (leading && !mine.done) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the item is queued: it will be written, so wait for it
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (mine.done) {
                return resultOf(mine);
            }
            leading = true;
        }
        try {
            while (!mine.done) {
                List<Entry<I, O>> group = new ArrayList<>();
                synchronized (this) {
                    while (!queue.isEmpty() && group.size() < maxGroup) {
                        group.add(queue.poll());
                    }
                }
                writeAll(group);
                synchronized (this) {
                    notifyAll();
                }
            }
        } finally {
            synchronized (this) {
                leading = false;
                notifyAll();
            }
        }
        return resultOf(mine);
    }

    private void writeAll(List<Entry<I, O>> group) {
        if (group.size() > 1) {
            try {
                List<O> results = writeGroup.apply(group.stream().map(e -> e.item).toList());
                synchronized (this) {
                    for (int i = 0; i < group.size(); i++) {
                        group.get(i).result = results.get(i);
                        group.get(i).done = true;
                    }
                }
                return;
            } catch (RuntimeException e) {
                // fall through: each alone, so that only the faulty item fails
            }
        }
        for (Entry<I, O> e : group) {
            O result = null;
            RuntimeException error = null;
            try {
                result = writeOne.apply(e.item);
            } catch (RuntimeException x) {
                error = x;
            }
            synchronized (this) {
                e.result = result;
                e.error = error;
                e.done = true;
            }
        }
    }

    private synchronized O resultOf(Entry<I, O> e) {
        if (e.error != null) {
            throw e.error;
        }
        return e.result;
    }
}
