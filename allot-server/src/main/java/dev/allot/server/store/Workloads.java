package dev.allot.server.store;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * The workloads part of the {@link Store} ({@link Store#workloads()}): submitting, reading and listing workloads,
 * and the changes of a workload that involve no attempt (compare-and-set of its state, cancellation, progress).
 * Starting and ending runs is {@link Attempts}, which also moves a workload into and out of running; it reads
 * workloads through {@link #find} and {@link #require} here, so the workload columns and their query live in one
 * place.
 */
public final class Workloads {
    static final String WORKLOAD_COLUMNS = "seq, id, allocation_path, user_name, gpus, gpus_per_node,"
            + " duration_seconds, min_runtime_seconds, resumable, priority, kind, command, environment, state,"
            + " submitted_at_ms, progress_done, progress_total, cancel_requested, idempotency_key, held_reason";
    /** {@link #WORKLOAD_COLUMNS} of a query that calls the workloads table {@code w}. */
    static final String WORKLOAD_COLUMNS_OF_W = Arrays.stream(WORKLOAD_COLUMNS.split(","))
            .map(c -> "w." + c.trim()).collect(Collectors.joining(", "));

    private final Transactions transactions;
    private final Store.Vendor vendor;

    /** Submissions made at the same time are committed together (one log sync for the group). */
    private static final int MAX_SUBMISSIONS_PER_COMMIT = 256;

    private final GroupCommit<NewWorkload, Workload> submissions;

    Workloads(Transactions transactions, Store.Vendor vendor) {
        this.transactions = transactions;
        this.vendor = vendor;
        this.submissions = new GroupCommit<>(
                group -> transactions.tx("submit " + group.size() + " workloads", h -> insertAll(h, group)),
                w -> transactions.tx("submit a workload", h -> insert(h, w)),
                MAX_SUBMISSIONS_PER_COMMIT);
    }

    /**
     * Stores a new workload, pending, and returns it with its id {@code w-<seq>}. When the submission carries an
     * idempotency key that an earlier one already used, nothing is stored and that earlier workload is returned
     * (whatever its state now), so a client may retry a submission whose answer it did not get. Durable when it
     * returns; submissions made at the same time by other threads share the commit ({@link GroupCommit}).
     */
    public Workload submit(NewWorkload w) {
        Objects.requireNonNull(w, "workload");
        return submissions.write(w);
    }

    /**
     * Stores many new workloads in one transaction, all or none, in the order given (each as {@link #submit} would,
     * idempotency keys included). Durable when it returns.
     */
    public List<Workload> submitAll(List<NewWorkload> ws) {
        return submitAll(ws, (i, asked, answer) -> { });
    }

    /**
     * {@link #submitAll(List)}, with {@code check} shown each submission and the workload that answers it (itself,
     * or the earlier one its idempotency key names) inside the transaction: an exception it throws rolls the whole
     * batch back, so a batch refused for one of its submissions stores none of them.
     */
    public List<Workload> submitAll(List<NewWorkload> ws, AnswerCheck check) {
        List<NewWorkload> all = List.copyOf(ws);
        Objects.requireNonNull(check, "check");
        return transactions.tx("submit " + all.size() + " workloads", h -> {
            List<Workload> stored = insertAll(h, all);
            for (int i = 0; i < all.size(); i++) {
                check.check(i, all.get(i), stored.get(i));
            }
            return stored;
        });
    }

    /** Looks at a submission of a batch ({@code index}: its place) and the workload stored to answer it. */
    @FunctionalInterface
    public interface AnswerCheck {
        void check(int index, NewWorkload asked, Workload answer);
    }

    /** Inserts a submission in the transaction {@code h} (see {@link #submit}); also for a campaign's shards. */
    Workload insert(Handle h, NewWorkload w) {
        return insertAll(h, List.of(w)).get(0);
    }

    /** Inserts submissions in the transaction {@code h}, in order, each as {@link #insert} would. */
    List<Workload> insertAll(Handle h, List<NewWorkload> ws) {
        if (vendor == Store.Vendor.SQLITE) {
            return SqliteInsert.insertAll(h, ws, this::byIdempotencyKey);
        }
        return ws.stream().map(w -> insertPostgres(h, w)).toList();
    }

    /** The workload stored under a (scoped) idempotency key, in the transaction {@code h}. */
    private Workload byIdempotencyKey(Handle h, String key) {
        return h.createQuery("SELECT " + WORKLOAD_COLUMNS + " FROM workloads WHERE idempotency_key = :key")
                .bind("key", key)
                .map((rs, ctx) -> Rows.workloadInColumnOrder(rs))
                .findOne()
                .orElseThrow(() -> new StoreException("idempotency key '" + key + "' conflicted but no workload has it"));
    }

    /**
     * PostgreSQL's insert: the next value of the sequence first, then the row whole, so that its id {@code w-<seq>}
     * is right from the start. It does not read the table back: under SERIALIZABLE every read of a shared index page
     * is a chance for a (needless) serialization failure. (SQLite's is {@link SqliteInsert}.)
     */
    private Workload insertPostgres(Handle h, NewWorkload w) {
        long seq = h.createQuery("SELECT nextval(pg_get_serial_sequence('workloads', 'seq'))").mapTo(Long.class).one();
        String id = "w-" + seq;
        Optional<Long> inserted = h.createQuery("INSERT INTO workloads (seq, " + SqliteInsert.COLUMNS
                        + ") OVERRIDING SYSTEM VALUE VALUES (:seq, :id, :allocation, :user, :gpus, :gpusPerNode,"
                        + " :duration, :minRuntime, :resumable, :priority, :kind, :command, :environment, 'pending',"
                        + " :submittedAt, :no, :key) ON CONFLICT (idempotency_key) DO NOTHING RETURNING seq")
                .bind("seq", seq)
                .bind("id", id)
                .bind("allocation", w.allocationPath())
                .bind("user", w.user())
                .bind("gpus", w.gpus())
                .bind("gpusPerNode", w.gpusPerNode())
                .bind("duration", w.durationSeconds())
                .bind("minRuntime", w.minRuntimeSeconds())
                .bind("resumable", w.resumable())
                .bind("priority", w.priority().label())
                .bind("kind", w.kind())
                .bind("command", Rows.toJson(w.command()))
                .bind("environment", Rows.toJson(w.environment()))
                .bind("submittedAt", w.submittedAtMillis())
                .bind("no", false)
                .bind("key", w.idempotencyKey())
                .mapTo(Long.class)
                .findOne();
        if (inserted.isEmpty()) {
            return byIdempotencyKey(h, w.idempotencyKey());
        }
        return stored(seq, w);
    }

    /** A submission as stored under {@code seq}: pending, id {@code w-<seq>}. */
    static Workload stored(long seq, NewWorkload w) {
        return new Workload(seq, "w-" + seq, w.allocationPath(), w.user(), w.gpus(), w.gpusPerNode(),
                w.durationSeconds(), w.minRuntimeSeconds(), w.resumable(), w.priority(), w.kind(), w.command(),
                w.environment(), WorkloadState.PENDING, w.submittedAtMillis(), null, null, false, w.idempotencyKey(),
                null);
    }

    /**
     * The cursor from which {@link #changesSince} reads every change not yet committed now: taken <em>before</em> a
     * full read of the workloads, so that a change the full read misses is read as a change next (a change the full
     * read saw may be read again; a reader takes that in as it is).
     */
    public long changeCursor() {
        return transactions.read("read the workloads' change cursor", h -> h.createQuery(CURSOR.get(vendor))
                .mapTo(Long.class).one());
    }

    /**
     * The workloads whose rows changed at or after {@code cursor} (a submission, a change of state, a cancellation, a
     * brake's hold: every column but the progress columns; migration V9 stamps them), each as it is now, and the
     * cursor for the next call: what a scheduler that keeps the workloads in memory reads each cycle instead of every
     * workload not ended. All of them in one answer (a cycle takes them all in).
     *
     * <p>The cursor is the rule that nothing is missed, and it is each store's own. SQLite has one writer, and a
     * change's number is the highest of the table plus one, taken under the write lock: numbers commit in order, so the
     * next cursor is the highest number read plus one. PostgreSQL commits transactions in any order, so a number from a
     * sequence could be read past while the transaction that took a lower one has yet to commit (and would then be
     * missed for good); each row is stamped with its transaction's id instead, and the next cursor is the
     * {@code xmin} of a snapshot taken before the rows are read: every transaction not committed by then has an id at
     * or above it, so it is read next time (with the rows of the transactions that were in progress, read again). A
     * transaction that stays open long (one that has written and not committed) holds the cursor back, and its rows
     * and everything changed since are read again every time until it ends.
     */
    public WorkloadChanges changesSince(long cursor) {
        return transactions.read("read the workloads changed", h -> {
            long next = vendor == Store.Vendor.POSTGRESQL ? h.createQuery(CURSOR.get(vendor)).mapTo(Long.class).one()
                    : cursor;
            long[] highest = {cursor - 1};
            List<Workload> changed = h.createQuery(CHANGES)
                    .bind("cursor", cursor)
                    .map((rs, ctx) -> {
                        highest[0] = Math.max(highest[0], rs.getLong(CHANGE_SEQ_COLUMN));
                        return Rows.workloadInColumnOrder(rs);
                    })
                    .list();
            if (vendor == Store.Vendor.SQLITE) {
                next = highest[0] + 1;
            }
            return new WorkloadChanges(changed, next);
        });
    }

    /** {@link #changesSince}' query (the index {@code workloads_by_change}); package-private for the plan's test. */
    static final String CHANGES = "SELECT " + WORKLOAD_COLUMNS + ", change_seq FROM workloads"
            + " WHERE change_seq >= :cursor ORDER BY change_seq, seq";
    /** Where {@link #CHANGES} puts {@code change_seq}: after the workload's columns. */
    private static final int CHANGE_SEQ_COLUMN = WORKLOAD_COLUMNS.split(",").length + 1;

    /** {@link #changeCursor}'s query on each store: see {@link #changesSince} for what a cursor means there. */
    private static final java.util.Map<Store.Vendor, String> CURSOR = java.util.Map.of(
            Store.Vendor.SQLITE, "SELECT COALESCE(MAX(change_seq), 0) + 1 FROM workloads",
            Store.Vendor.POSTGRESQL, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint");

    /** The workload with this id, if there is one. */
    public Optional<Workload> workload(String id) {
        Objects.requireNonNull(id, "id");
        return transactions.read("read workload " + id, h -> find(h, id));
    }

    /**
     * The workload stored under a (scoped, as {@link NewWorkload#idempotencyKey}) idempotency key, if one is: what a
     * submission with that key would be answered.
     */
    public Optional<Workload> withIdempotencyKey(String key) {
        Objects.requireNonNull(key, "key");
        return transactions.read("read the workload of an idempotency key", h -> h.createQuery("SELECT "
                        + WORKLOAD_COLUMNS + " FROM workloads WHERE idempotency_key = :key")
                .bind("key", key)
                .map((rs, ctx) -> Rows.workloadInColumnOrder(rs))
                .findOne());
    }

    /** The workloads the filter selects, in submission order. */
    public List<Workload> workloads(WorkloadFilter filter) {
        Objects.requireNonNull(filter, "filter");
        StringBuilder sql = new StringBuilder("SELECT " + WORKLOAD_COLUMNS + " FROM workloads WHERE seq > :afterSeq");
        if (!filter.states().isEmpty()) {
            sql.append(" AND state IN (<states>)");
        }
        if (filter.allocationPrefix() != null) {
            // By whole path segments; substr rather than LIKE, which would need escaping and is case-blind in SQLite.
            sql.append(" AND (allocation_path = :prefix"
                    + " OR substr(allocation_path, 1, length(:prefix) + 1) = :prefix || '/')");
        }
        if (filter.user() != null) {
            sql.append(" AND user_name = :user");
        }
        sql.append(" ORDER BY seq LIMIT :limit");
        List<String> states = filter.states().stream().sorted().map(WorkloadState::label).toList();
        return transactions.read("list workloads", h -> {
            Query q = h.createQuery(sql.toString())
                    .bind("afterSeq", filter.afterSeq())
                    .bind("limit", filter.limit());
            if (!states.isEmpty()) {
                q.bindList("states", states);
            }
            if (filter.allocationPrefix() != null) {
                q.bind("prefix", filter.allocationPrefix());
            }
            if (filter.user() != null) {
                q.bind("user", filter.user());
            }
            return q.map((rs, ctx) -> Rows.workloadInColumnOrder(rs)).list();
        });
    }

    /**
     * Moves a workload from {@code expected} to {@code next} if it is in {@code expected} (compare and set): true
     * if it moved, false if it was in another state. For the transitions that involve no attempt (cancelling
     * before a start, putting a waiting workload back to pending); {@code running} is entered only by
     * {@link Attempts#beginAttempt} and left only by {@link Attempts#endAttempt}, so it may be neither.
     *
     * @throws NotFoundException when there is no such workload
     */
    public boolean setState(String id, WorkloadState expected, WorkloadState next) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(next, "next");
        if (expected == WorkloadState.RUNNING || next == WorkloadState.RUNNING) {
            throw new IllegalArgumentException("workload " + id + ": setState cannot move a workload into or out of"
                    + " running; that is what beginAttempt and endAttempt do");
        }
        return transactions.txGuarded("set the state of workload " + id, h -> {
            int n = h.createUpdate("UPDATE workloads SET state = :next WHERE id = :id AND state = :expected")
                    .bind("next", next.label()).bind("id", id).bind("expected", expected.label())
                    .execute();
            if (n == 0) {
                require(h, id);
            }
            return n == 1;
        });
    }

    /**
     * Asks for a workload to be cancelled and returns it as it is afterwards. One that waits is cancelled at once;
     * a running one is marked (its cancellation requested) and stays running until the scheduler stops it and ends
     * its attempt; an ended one is left as it is. Asking twice is harmless.
     *
     * @throws NotFoundException when there is no such workload
     */
    public Workload requestCancel(String id) {
        Objects.requireNonNull(id, "id");
        return transactions.tx("cancel workload " + id, h -> {
            Workload w = require(h, id);
            if (w.state().ended()) {
                return w;
            }
            String set = w.state().waiting() ? "state = 'cancelled', cancel_requested = :yes, held_reason = NULL"
                    : "cancel_requested = :yes";
            h.createUpdate("UPDATE workloads SET " + set + " WHERE id = :id AND state = :state")
                    .bind("yes", true).bind("id", id).bind("state", w.state().label())
                    .execute();
            return require(h, id);
        });
    }

    /**
     * Holds a waiting workload with the reason given (a safety brake tripped: the scheduler will not start it), or
     * releases it with {@code null}. True if the workload waits (and so took the change), false if it does not (it
     * runs or ended; nothing changed).
     *
     * @throws NotFoundException when there is no such workload
     */
    public boolean setHeld(String id, String reason) {
        Objects.requireNonNull(id, "id");
        return transactions.txGuarded((reason == null ? "release" : "hold") + " workload " + id, h -> {
            int n = h.createUpdate("UPDATE workloads SET held_reason = :reason WHERE id = :id"
                            + " AND state IN ('pending', 'requeued')")
                    .bind("reason", reason).bind("id", id)
                    .execute();
            if (n == 0) {
                require(h, id);
            }
            return n == 1;
        });
    }

    /**
     * Records a workload's progress ({@code done} out of {@code total}, in whatever unit it reports: steps,
     * samples), without a time: a campaign shard's units done are raised, its measured time is not.
     *
     * @throws NotFoundException when there is no such workload
     */
    public void reportProgress(String id, long done, long total) {
        reportProgress(id, done, total, null);
    }

    /**
     * Records a workload's progress reported at {@code nowMillis}. For the workload of a campaign's shard, in the same
     * transaction, the shard's units done become {@code done} if that is more, and the running time that produced
     * them is added to its measured time ({@link Campaigns}).
     *
     * <p>Only a workload that runs or waits to run takes a report: one that ended (completed, failed, cancelled,
     * preempted for good) will never run again, so a report for it is stale and nothing is recorded. The state is
     * checked by the same statement that records, so a report racing the end of an attempt either lands before the end
     * or is refused after it; a report arriving after a preemption that requeued the workload is still taken (its
     * checkpoint is what the next attempt resumes from).
     *
     * @param nowMillis when it was reported; null when unknown (no time is measured)
     * @throws NotFoundException when there is no such workload
     * @throws ConflictException when the workload has ended
     */
    public void reportProgress(String id, long done, long total, Long nowMillis) {
        Objects.requireNonNull(id, "id");
        if (done < 0 || total < 0 || done > total) {
            throw new IllegalArgumentException("workload " + id + ": progress must satisfy 0 <= done <= total, got "
                    + done + " of " + total);
        }
        transactions.tx("record the progress of workload " + id, h -> {
            int n = h.createUpdate("UPDATE workloads SET progress_done = :done, progress_total = :total WHERE id = :id"
                            + " AND state NOT IN " + ENDED_LABELS)
                    .bind("done", done).bind("total", total).bind("id", id)
                    .execute();
            if (n == 0) {
                Workload w = require(h, id);
                throw new ConflictException("workload " + id + " is " + w.state().label() + ": progress is taken only"
                        + " from a workload that runs or waits to run (" + NOT_ENDED_NAMES + "); nothing was recorded");
            }
            Campaigns.progress(h, id, done, nowMillis);
            return null;
        });
        if (campaigns != null) {
            campaigns.changed();
        }
    }

    /** The labels of the ended states, as an SQL list: {@code ('preempted', 'completed', ...)}. */
    private static final String ENDED_LABELS = Arrays.stream(WorkloadState.values())
            .filter(WorkloadState::ended).map(s -> "'" + s.label() + "'")
            .collect(Collectors.joining(", ", "(", ")"));
    /** The labels of the states that take a progress report, for people: {@code pending, running, requeued}. */
    private static final String NOT_ENDED_NAMES = Arrays.stream(WorkloadState.values())
            .filter(s -> !s.ended()).map(WorkloadState::label)
            .collect(Collectors.joining(", "));

    /** Told of progress reports, which may change a campaign's shard. */
    private Campaigns campaigns;

    void campaigns(Campaigns c) {
        this.campaigns = c;
    }

    /** The workload with this id, read in the transaction {@code h}, if there is one. */
    static Optional<Workload> find(Handle h, String id) {
        return h.createQuery("SELECT " + WORKLOAD_COLUMNS + " FROM workloads WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> Rows.workloadInColumnOrder(rs))
                .findOne();
    }

    /**
     * The workload with this id, read in the transaction {@code h}.
     *
     * @throws NotFoundException when there is no such workload
     */
    static Workload require(Handle h, String id) {
        return find(h, id).orElseThrow(() -> new NotFoundException("no workload " + id));
    }
}
