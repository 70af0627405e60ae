package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.PruneReport;
import dev.sovereign.engine.admin.Retention;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * The journal's retention and its pruning (decision 0018), once for both backends. The database decides what may go:
 * its guards refuse a deleted journal row at or above the {@code retention} row's watermark, and below it every row
 * a live row still needs; the watermark only moves forward, never past the newest row and only over rows older than
 * the policy, measured from the newest row's own time. This class asks for exactly what those guards allow (the
 * same rules, in {@link #PRUNABLE}), in batches of one short write transaction each, so a prune never holds the write
 * lock for long. It never measures past its own clock (the server's on PostgreSQL): a journal row dated in the future
 * by a writer of the ledger does not make the rest old. Thread-safe: one prune at a time per ledger, each going on
 * from where the last unfinished one stopped (decision 0021).
 */
final class JdbcRetention {
    /**
     * Which journal rows (alias {@code e}) the database lets go once they are below the watermark: the rules of the
     * schema's guards (SQLite version 15, PostgreSQL version 13), word for word.
     */
    static final String PRUNABLE = "e.resource_type <> 'ledger'"
            + " AND NOT (e.kind IN ('LEASE_ACQUIRED', 'LEASE_TAKEN_OVER') AND EXISTS (SELECT 1 FROM actor_leases l"
            + " WHERE l.actor_id = e.actor_id AND l.token = e.token))"
            + " AND NOT (e.resource_type IN ('assignment', 'attempt') AND EXISTS (SELECT 1 FROM assignments a"
            + " WHERE a.id = CASE e.resource_type WHEN 'assignment' THEN e.resource_id"
            + " ELSE (SELECT t.assignment_id FROM execution_attempts t WHERE t.id = e.resource_id) END"
            + " AND (a.state IN ('CREATED', 'RUNNING') OR (a.state IN ('FAILED', 'BLOCKED')"
            + " AND a.acknowledged_at IS NULL AND NOT EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = a.id)))))"
            + " AND NOT (e.resource_type = 'message' AND EXISTS (SELECT 1 FROM messages m WHERE m.id = e.resource_id"
            + " AND m.state NOT IN ('DONE', 'DEAD')))"
            + " AND NOT (NOT EXISTS (SELECT 1 FROM fence_events n WHERE n.resource_type = e.resource_type"
            + " AND n.resource_id = e.resource_id AND n.seq > e.seq)"
            + " AND (e.resource_type = 'actor'"
            + " OR (e.resource_type = 'assignment' AND EXISTS (SELECT 1 FROM assignments a2 WHERE a2.id = e.resource_id))"
            + " OR (e.resource_type = 'message' AND EXISTS (SELECT 1 FROM messages m2 WHERE m2.id = e.resource_id))"
            + " OR (e.resource_type = 'process' AND EXISTS (SELECT 1 FROM processes p"
            + " WHERE p.identity = e.resource_id AND p.stopped_at IS NULL))))";

    private final Transactions db;

    /** The pass the last call left unfinished, or null; guarded by {@code this}, one prune at a time per ledger. */
    private Pass unfinished;

    JdbcRetention(Transactions db) {
        this.db = db;
    }

    /** The policy and the watermark, as the ledger holds them. */
    Retention read() {
        return db.read(JdbcRetention::read);
    }

    static Retention read(JdbcReads tx) throws SQLException {
        return tx.one(
                        "SELECT keep_ms, pruned_below, pruned_rows, pruned_at, set_at, set_by, runs_keep_ms,"
                                + " messages_keep_ms, processes_keep_ms, pruned_runs, pruned_messages,"
                                + " pruned_processes, last_backup_at FROM retention WHERE kind = 'journal'",
                        rs -> new Retention(
                                Duration.ofMillis(rs.getLong("keep_ms")),
                                rs.getLong("pruned_below"),
                                rs.getLong("pruned_rows"),
                                orMinusOne(JdbcTx.nullableLong(rs, "pruned_at")),
                                orMinusOne(JdbcTx.nullableLong(rs, "set_at")),
                                rs.getString("set_by"),
                                Duration.ofMillis(rs.getLong("runs_keep_ms")),
                                Duration.ofMillis(rs.getLong("messages_keep_ms")),
                                Duration.ofMillis(rs.getLong("processes_keep_ms")),
                                rs.getLong("pruned_runs"),
                                rs.getLong("pruned_messages"),
                                rs.getLong("pruned_processes"),
                                orMinusOne(JdbcTx.nullableLong(rs, "last_backup_at"))))
                .orElseThrow(() -> new IllegalStateException("the ledger's retention row is missing"));
    }

    /** Sets how long {@code kind} is kept (checked by {@code RetentionRules} before, and by the database's CHECK). */
    Retention keep(Retention.Kind kind, Duration keep) {
        return db.write(tx -> {
            tx.update(
                    "UPDATE retention SET " + kind.column() + " = ?, set_at = ?, set_by = ? WHERE kind = 'journal'",
                    keep.toMillis(),
                    tx.now(),
                    tx.processIdentity());
            return read(tx);
        });
    }

    /**
     * Prunes (or counts, for a dry run) what the policy lets go, in batches (decisions 0018 and 0020): the journal, its
     * ticks and contention windows first, then finished runs, finished messages and stopped processes (last: a run's
     * pruning frees the process that ran it). {@code prunedRun} hears each pruned run after its batch committed.
     */
    PruneReport prune(PruneOptions options, BiPredicate<String, String> prunedRun) {
        if (options.dryRun()) {
            return db.read(tx -> {
                PruneReport journal = dryRun(tx, options);
                Retention r = read(tx);
                Newest newest = newest(tx);
                if (newest == null) {
                    return journal;
                }
                long runs = 0;
                long runsCutoff = cutoff(newest.at, tx.now(), r.keepRuns());
                for (String[] root : roots(tx, runsCutoff, null, Integer.MAX_VALUE)) {
                    runs += chainIfPrunable(tx, root[0], runsCutoff).size();
                }
                long messages = tx.scalarLong(
                        "SELECT count(*) FROM messages WHERE state IN ('DONE', 'DEAD') AND updated_at <= ?",
                        cutoff(newest.at, tx.now(), r.keepMessages()));
                long processes = tx.scalarLong(
                        "SELECT count(*) FROM processes p WHERE " + PROCESS_PRUNABLE,
                        cutoff(newest.at, tx.now(), r.keepProcesses()));
                return withWork(journal, runs, messages, processes, 0);
            });
        }
        synchronized (this) {
            // a call without a batch limit prunes everything there is, from the start: going on with another's
            // pass would skip what is behind its cursors and still say finished
            boolean unlimited = options.maxBatches() == Integer.MAX_VALUE;
            Pass pass = unfinished != null && !unlimited ? unfinished : new Pass();
            unfinished = pass; // kept as far as it got, also when a batch fails
            PruneReport journal = pruneInBatches(options, pass);
            PruneReport report = pass.journalTablesDone() ? pruneWork(journal, options, pass, prunedRun) : journal;
            if (report.finished()) {
                unfinished = null;
            }
            return report;
        }
    }

    private static PruneReport dryRun(JdbcTx tx, PruneOptions options) throws SQLException {
        Retention r = read(tx);
        Newest newest = newest(tx);
        if (newest == null) {
            return new PruneReport(true, 0, 0, 0, 0, r.prunedBelow(), r.prunedBelow(), 0, 0, true, 0, 0, 0, 0);
        }
        long cutoff = cutoff(newest.at, tx.now(), r.keepJournal());
        Long young =
                nullable(tx, "SELECT min(seq) FROM fence_events WHERE seq >= ? AND at > ?", r.prunedBelow(), cutoff);
        long mark = Math.max(r.prunedBelow(), young == null ? newest.seq : young);
        long journal = tx.scalarLong(
                "SELECT count(*) FROM fence_events e WHERE e.seq < ? AND e.at <= ? AND " + PRUNABLE, mark, cutoff);
        long below = tx.scalarLong("SELECT count(*) FROM fence_events WHERE seq < ?", mark);
        Long newestTick = newestTick(tx);
        long ticks = newestTick == null
                ? 0
                : tx.scalarLong(
                        "SELECT count(*) FROM supervisor_ticks WHERE seq < (SELECT max(seq) FROM supervisor_ticks)"
                                + " AND at <= ?",
                        cutoff(newestTick, tx.now(), r.keepJournal()));
        long contention = tx.scalarLong(
                "SELECT count(*) FROM lease_contention WHERE window_start <= ? AND last_at <= ?", cutoff, cutoff);
        return new PruneReport(
                true, journal, ticks, contention, below - journal, r.prunedBelow(), mark, 0, 0, true, 0, 0, 0, 0);
    }

    /**
     * One prune's batches over the journal's tables, on from where the last unfinished call stopped ({@code pass}). */
    private PruneReport pruneInBatches(PruneOptions options, Pass pass) {
        long[] totals = new long[3];
        long before = read().prunedBelow();
        int batches = 0;
        long longest = 0;
        if (!pass.journalDone && pass.journalFrom == null) {
            pass.journalFrom = db.read(tx -> nullable(tx, "SELECT min(seq) FROM fence_events"));
            pass.journalDone = pass.journalFrom == null;
        }
        while (!pass.journalTablesDone() && batches < options.maxBatches()) {
            boolean journalStep = !pass.journalDone;
            boolean ticksStep = pass.journalDone && !pass.ticksDone;
            long from = journalStep ? pass.journalFrom : 0;
            Timed<Batch> t = timed(tx -> {
                if (journalStep) {
                    return journalBatch(tx, from, options);
                }
                if (ticksStep) {
                    return ticksBatch(tx, options);
                }
                return contentionBatch(tx, options);
            });
            Batch b = t.value;
            longest = Math.max(longest, t.millis());
            batches++;
            boolean interrupted = !giveWay(t.nanos);
            if (journalStep) {
                totals[0] += b.deleted;
                if (b.next < 0) {
                    pass.journalDone = true;
                } else {
                    pass.journalFrom = b.next;
                }
            } else if (ticksStep) {
                totals[1] += b.deleted;
                pass.ticksDone = b.next < 0;
            } else {
                totals[2] += b.deleted;
                pass.contentionDone = b.next < 0;
            }
            if (interrupted) {
                break;
            }
        }
        // the watermark and what the database kept below it, in one read
        long[] after = db.read(tx -> {
            long mark = read(tx).prunedBelow();
            return new long[] {mark, tx.scalarLong("SELECT count(*) FROM fence_events WHERE seq < ?", mark)};
        });
        return new PruneReport(
                false,
                totals[0],
                totals[1],
                totals[2],
                after[1],
                before,
                after[0],
                batches,
                longest,
                pass.journalTablesDone(),
                0,
                0,
                0,
                0);
    }

    /**
     * Where a prune has got to in its pass over the tables: the journal by sequence number, then its ticks and
     * contention windows, then runs, messages and processes, each by a cursor. A call that runs out of batches leaves
     * it for the next call, which goes on from there instead of from the start: rows that must stay are looked at once
     * per pass, so a prune of few batches (the supervisor's) over a journal with more of them than it has batches
     * still gets through (decision 0021). A pass that reaches the end starts the next from the beginning again, where
     * rows kept before may since have become prunable.
     */
    private static final class Pass {
        Long journalFrom; // null: from the journal's first row
        boolean journalDone;
        boolean ticksDone;
        boolean contentionDone;
        String[] runsFrom; // null: from the oldest run
        boolean runsDone;
        boolean messagesDone;
        String[] processesFrom; // null: from the process stopped first
        boolean processesDone;

        boolean journalTablesDone() {
            return journalDone && ticksDone && contentionDone;
        }
    }

    /**
     * Which stopped processes (alias {@code p}) the database lets go, given the cutoff as the one parameter: stopped
     * before it and holding nothing, and named by no attempt (the attempts' foreign key; a pruned run takes its
     * attempts with it). The rules of the schema's guards (SQLite version 16, PostgreSQL version 14).
     */
    static final String PROCESS_PRUNABLE = "p.stopped_at IS NOT NULL AND p.stopped_at <= ?"
            + " AND NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.process_identity = p.identity)"
            + " AND NOT EXISTS (SELECT 1 FROM execution_attempts t WHERE t.process_identity = p.identity)"
            + " AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.state = 'CLAIMED' AND m.claim_process = p.identity)";

    /** The runs, messages and processes of a prune, after its journal (decision 0020), on from {@code pass}. */
    private PruneReport pruneWork(
            PruneReport journal, PruneOptions options, Pass pass, BiPredicate<String, String> prunedRun) {
        int batches = journal.batches();
        long longest = journal.longestBatchMs();
        long[] done = new long[4]; // runs, messages, processes, folders
        // runs: keyset over the ended runs by age, so a run that must stay is looked at once per pass
        int step = Math.max(1, options.batchRows() / 5); // a run is up to a few rows in three tables and a look-up each
        while (!pass.runsDone && batches < options.maxBatches()) {
            String[] from = pass.runsFrom;
            Timed<RunsBatch> t = timed(tx -> runsBatch(tx, from, step, options));
            RunsBatch b = t.value;
            batches++;
            longest = Math.max(longest, t.millis());
            done[0] += b.pruned.size();
            for (String[] run : b.pruned) {
                if (prunedRun.test(run[0], run[1])) {
                    done[3]++;
                }
            }
            boolean interrupted = !giveWay(t.nanos);
            pass.runsDone = b.next == null;
            pass.runsFrom = b.next;
            if (interrupted) {
                break;
            }
        }
        while (pass.runsDone && !pass.messagesDone && batches < options.maxBatches()) {
            Timed<Batch> t = timed(tx -> messagesBatch(tx, options));
            batches++;
            longest = Math.max(longest, t.millis());
            done[1] += t.value.deleted;
            boolean interrupted = !giveWay(t.nanos);
            pass.messagesDone = t.value.next < 0;
            if (interrupted) {
                break;
            }
        }
        while (pass.messagesDone && !pass.processesDone && batches < options.maxBatches()) {
            String[] from = pass.processesFrom;
            Timed<ProcessesBatch> t = timed(tx -> processesBatch(tx, from, options));
            ProcessesBatch b = t.value;
            batches++;
            longest = Math.max(longest, t.millis());
            done[2] += b.deleted;
            boolean interrupted = !giveWay(t.nanos);
            pass.processesDone = b.next == null;
            pass.processesFrom = b.next;
            if (interrupted) {
                break;
            }
        }
        return new PruneReport(
                false,
                journal.journalRows(),
                journal.ticks(),
                journal.contentionRows(),
                journal.keptBelowMark(),
                journal.watermarkBefore(),
                journal.watermarkAfter(),
                batches,
                longest,
                pass.processesDone,
                done[0],
                done[1],
                done[2],
                done[3]);
    }

    private static PruneReport withWork(PruneReport r, long runs, long messages, long processes, long folders) {
        return new PruneReport(
                r.dryRun(),
                r.journalRows(),
                r.ticks(),
                r.contentionRows(),
                r.keptBelowMark(),
                r.watermarkBefore(),
                r.watermarkAfter(),
                r.batches(),
                r.longestBatchMs(),
                r.finished(),
                runs,
                messages,
                processes,
                folders);
    }

    /**
     * The first runs of retry chains that ended no later than {@code cutoff}, by age after {@code from} ({@code
     * updated_at}, id), at most {@code limit}: a chain is pruned from its first run (one that retried nothing, or whose
     * original is gone).
     */
    private static List<String[]> roots(JdbcTx tx, long cutoff, String[] from, int limit) throws SQLException {
        return tx.query(
                "SELECT a.id, a.updated_at FROM assignments a WHERE a.state IN ('COMPLETED', 'FAILED', 'BLOCKED')"
                        + " AND a.updated_at <= ?"
                        + (from == null ? "" : " AND (a.updated_at > ? OR (a.updated_at = ? AND a.id > ?))")
                        + " AND (a.retry_of IS NULL OR NOT EXISTS (SELECT 1 FROM assignments o WHERE o.id = a.retry_of))"
                        // settled itself: a run waiting for an operator is not looked at again and again (a prune
                        // with few batches, the supervisor's, would otherwise never get past a long queue of them)
                        + " AND (a.state = 'COMPLETED' OR a.acknowledged_at IS NOT NULL"
                        + " OR EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = a.id))"
                        + " ORDER BY a.updated_at, a.id" + (limit == Integer.MAX_VALUE ? "" : " LIMIT " + limit),
                rs -> new String[] {rs.getString(1), String.valueOf(rs.getLong(2))},
                from == null
                        ? new Object[] {cutoff}
                        : new Object[] {cutoff, Long.parseLong(from[1]), Long.parseLong(from[1]), from[0]});
    }

    /**
     * The chain that starts at {@code root} (the run, its retry, the retry's retry...), each as {id, workspace policy},
     * when every run of it may go: ended, settled (completed, acknowledged, or retried), no later than {@code cutoff},
     * with no attempt still active. Empty when any of it must stay: the database's rules, checked before asking it.
     */
    private static List<String[]> chainIfPrunable(JdbcTx tx, String root, long cutoff) throws SQLException {
        List<String[]> chain = new ArrayList<>();
        String id = root;
        while (id != null) {
            String current = id;
            Optional<String[]> row = tx.one(
                    "SELECT a.workspace_policy,"
                            + " CASE WHEN a.state IN ('COMPLETED', 'FAILED', 'BLOCKED') AND a.updated_at <= ?"
                            + " AND (a.state = 'COMPLETED' OR a.acknowledged_at IS NOT NULL"
                            + " OR EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = a.id))"
                            + " AND NOT EXISTS (SELECT 1 FROM execution_attempts t WHERE t.assignment_id = a.id"
                            + " AND t.state = 'ACTIVE') THEN 1 ELSE 0 END,"
                            + " (SELECT r.id FROM assignments r WHERE r.retry_of = a.id)"
                            + " FROM assignments a WHERE a.id = ?",
                    rs -> new String[] {rs.getString(1), String.valueOf(rs.getInt(2)), rs.getString(3)},
                    cutoff,
                    current);
            if (row.isEmpty() || !"1".equals(row.get()[1])) {
                return List.of();
            }
            chain.add(new String[] {current, row.get()[0]});
            id = row.get()[2];
        }
        return chain;
    }

    /**
     * One batch of runs: looks at up to {@code step} chains after {@code from} and deletes each that may go, its first
     * run first, each run's assignment before its attempts and receipt (foreign keys checked at the commit).
     */
    private static RunsBatch runsBatch(JdbcTx tx, String[] from, int step, PruneOptions options) throws SQLException {
        Retention r = read(tx);
        Newest newest = newest(tx);
        if (newest == null) {
            return new RunsBatch(List.of(), null);
        }
        long cutoff = cutoff(newest.at, tx.now(), r.keepRuns());
        List<String[]> roots = roots(tx, cutoff, from, step);
        List<String[]> pruned = new ArrayList<>();
        boolean deferred = false;
        for (String[] root : roots) {
            List<String[]> chain = chainIfPrunable(tx, root[0], cutoff);
            if (chain.isEmpty()) {
                continue;
            }
            if (!deferred) {
                tx.update(tx.dialect().deferForeignKeys());
                deferred = true;
            }
            for (String[] run : chain) {
                if (options.export() != null) {
                    export(tx, options, "assignments", "SELECT * FROM assignments WHERE id = ?", run[0]);
                    export(
                            tx,
                            options,
                            "execution_attempts",
                            "SELECT * FROM execution_attempts WHERE assignment_id = ? ORDER BY started_at, id",
                            run[0]);
                    export(tx, options, "receipts", "SELECT * FROM receipts WHERE assignment_id = ?", run[0]);
                }
                if (tx.update("DELETE FROM assignments WHERE id = ?", run[0]) == 0) {
                    continue; // another prune (PostgreSQL, read committed) took it first: counted there
                }
                tx.update("DELETE FROM execution_attempts WHERE assignment_id = ?", run[0]);
                tx.update("DELETE FROM receipts WHERE assignment_id = ?", run[0]);
                pruned.add(run);
            }
        }
        if (!pruned.isEmpty()) {
            tx.update(
                    "UPDATE retention SET pruned_runs = pruned_runs + ?, pruned_at = "
                            + tx.dialect().greatest() + "(coalesce(pruned_at, 0), ?) WHERE kind = 'journal'",
                    pruned.size(),
                    tx.now());
        }
        if (roots.size() < step) {
            return new RunsBatch(pruned, null);
        }
        return new RunsBatch(pruned, roots.get(roots.size() - 1));
    }

    private static Batch messagesBatch(JdbcTx tx, PruneOptions options) throws SQLException {
        Retention r = read(tx);
        Newest newest = newest(tx);
        if (newest == null) {
            return new Batch(0, -1);
        }
        long cutoff = cutoff(newest.at, tx.now(), r.keepMessages());
        String which = " FROM messages WHERE state IN ('DONE', 'DEAD') AND updated_at <= ? ORDER BY updated_at, id"
                + " LIMIT " + options.batchRows();
        if (options.export() != null) {
            List<Map<String, Object>> rows = tx.query("SELECT *" + which, JdbcRetention::row, cutoff);
            if (!rows.isEmpty()) {
                options.export().accept(new PruneOptions.PrunedRows("messages", rows));
            }
        }
        int deleted = tx.update("DELETE FROM messages WHERE id IN (SELECT id" + which + ")", cutoff);
        if (deleted > 0) {
            tx.update(
                    "UPDATE retention SET pruned_messages = pruned_messages + ?, pruned_at = "
                            + tx.dialect().greatest() + "(coalesce(pruned_at, 0), ?) WHERE kind = 'journal'",
                    deleted,
                    tx.now());
        }
        return new Batch(deleted, deleted < options.batchRows() ? -1 : 0);
    }

    private static ProcessesBatch processesBatch(JdbcTx tx, String[] from, PruneOptions options) throws SQLException {
        Retention r = read(tx);
        Newest newest = newest(tx);
        if (newest == null) {
            return new ProcessesBatch(0, null);
        }
        long cutoff = cutoff(newest.at, tx.now(), r.keepProcesses());
        // the stopped processes by age after the cursor; those that still hold something are passed over
        List<String[]> stopped = tx.query(
                "SELECT p.identity, p.stopped_at FROM processes p WHERE p.stopped_at IS NOT NULL AND p.stopped_at <= ?"
                        + (from == null ? "" : " AND (p.stopped_at > ? OR (p.stopped_at = ? AND p.identity > ?))")
                        + " ORDER BY p.stopped_at, p.identity LIMIT " + options.batchRows(),
                rs -> new String[] {rs.getString(1), String.valueOf(rs.getLong(2))},
                from == null
                        ? new Object[] {cutoff}
                        : new Object[] {cutoff, Long.parseLong(from[1]), Long.parseLong(from[1]), from[0]});
        long deleted = 0;
        for (String[] p : stopped) {
            String where = " FROM processes p WHERE p.identity = ? AND " + PROCESS_PRUNABLE;
            if (options.export() != null) {
                List<Map<String, Object>> rows = tx.query("SELECT p.*" + where, JdbcRetention::row, p[0], cutoff);
                if (!rows.isEmpty()) {
                    options.export().accept(new PruneOptions.PrunedRows("processes", rows));
                }
            }
            deleted +=
                    tx.update("DELETE FROM processes WHERE identity IN (SELECT p.identity" + where + ")", p[0], cutoff);
        }
        if (deleted > 0) {
            tx.update(
                    "UPDATE retention SET pruned_processes = pruned_processes + ?, pruned_at = "
                            + tx.dialect().greatest() + "(coalesce(pruned_at, 0), ?) WHERE kind = 'journal'",
                    deleted,
                    tx.now());
        }
        return new ProcessesBatch(
                deleted, stopped.size() < options.batchRows() ? null : stopped.get(stopped.size() - 1));
    }

    private static void export(JdbcTx tx, PruneOptions options, String table, String sql, Object... args)
            throws SQLException {
        List<Map<String, Object>> rows = tx.query(sql, JdbcRetention::row, args);
        if (!rows.isEmpty()) {
            options.export().accept(new PruneOptions.PrunedRows(table, rows));
        }
    }

    /**
     * Runs one batch in its own write transaction and measures the time inside it, once its write lock is held: what
     * the workers wait for (the wait for the lock itself, behind them, is not counted; a retried transaction counts its
     * last try).
     */
    private <T> Timed<T> timed(TxWork<T> work) {
        long[] held = {0};
        T value = db.write(tx -> {
            long started = System.nanoTime();
            try {
                return work.run(tx);
            } finally {
                held[0] = System.nanoTime() - started;
            }
        });
        return new Timed<>(value, held[0]);
    }

    /** A batch's result and the nanoseconds its transaction held the write lock. */
    private record Timed<T>(T value, long nanos) {
        long millis() {
            return nanos / 1_000_000L;
        }
    }

    /**
     * Waits as long as the batch just run took (at least a millisecond), so the writers that queued behind it get
     * the write lock before the next one: without it, back-to-back batches starved a worker of the lock for half a
     * second (docs/benchmarks.md, the prune stall probe). A prune then takes about twice its work's time.
     */
    private static boolean giveWay(long tookNanos) {
        try {
            Thread.sleep(Math.max(1, tookNanos / 1_000_000L));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller stops after this batch, unfinished
            return false;
        }
    }

    /**
     * One journal batch: moves the watermark over at most {@code batchRows} rows (as far as the policy allows), then
     * deletes what the database lets go among those rows from {@code from}. {@code next} is where the next batch
     * starts, -1 when nothing below the watermark is left to look at.
     */
    private static Batch journalBatch(JdbcTx tx, long from, PruneOptions options) throws SQLException {
        Retention r = read(tx);
        Newest newest = newest(tx);
        if (newest == null) {
            return new Batch(0, -1);
        }
        long cutoff = cutoff(newest.at, tx.now(), r.keepJournal());
        // the seq batchRows rows on from `from` (or past the newest): the end of this batch's rows
        long upper = tx.one(
                        "SELECT seq FROM fence_events WHERE seq >= ? ORDER BY seq LIMIT 1 OFFSET ?",
                        rs -> rs.getLong(1),
                        from,
                        options.batchRows())
                .orElse(newest.seq + 1);
        long mark = r.prunedBelow();
        long target = Math.min(upper, newest.seq);
        if (target > mark) {
            Long young = nullable(
                    tx,
                    "SELECT min(seq) FROM fence_events WHERE seq >= ? AND seq < ? AND at > ?",
                    mark,
                    target,
                    cutoff);
            if (young != null) {
                target = young;
            }
            if (target > mark) {
                tx.update(
                        "UPDATE retention SET pruned_below = ?, pruned_at = "
                                + tx.dialect().greatest() + "(coalesce(pruned_at, 0), ?) WHERE kind = 'journal'",
                        target,
                        tx.now());
                mark = target;
            }
        }
        long hi = Math.min(upper, mark);
        if (hi <= from) {
            return new Batch(0, -1);
        }
        // old enough as well as below the mark: on PostgreSQL a row drawn before the mark moved may commit after it
        String where = " FROM fence_events e WHERE e.seq >= ? AND e.seq < ? AND e.at <= ? AND " + PRUNABLE;
        if (options.export() != null) {
            List<Map<String, Object>> rows =
                    tx.query("SELECT e.*" + where + " ORDER BY e.seq", JdbcRetention::row, from, hi, cutoff);
            if (!rows.isEmpty()) {
                options.export().accept(new PruneOptions.PrunedRows("fence_events", rows));
            }
        }
        int deleted = tx.update("DELETE FROM fence_events WHERE seq IN (SELECT e.seq" + where + ")", from, hi, cutoff);
        if (deleted > 0) {
            tx.update(
                    "UPDATE retention SET pruned_rows = pruned_rows + ?, pruned_at = "
                            + tx.dialect().greatest() + "(coalesce(pruned_at, 0), ?) WHERE kind = 'journal'",
                    deleted,
                    tx.now());
        }
        return new Batch(deleted, hi >= mark && mark < upper ? -1 : hi);
    }

    private static Batch ticksBatch(JdbcTx tx, PruneOptions options) throws SQLException {
        Long newestTick = newestTick(tx);
        if (newestTick == null) {
            return new Batch(0, -1);
        }
        long cutoff = cutoff(newestTick, tx.now(), read(tx).keepJournal());
        String which = " FROM supervisor_ticks WHERE seq < (SELECT max(seq) FROM supervisor_ticks) AND at <= ?"
                + " ORDER BY seq LIMIT ?";
        if (options.export() != null) {
            List<Map<String, Object>> rows =
                    tx.query("SELECT *" + which, JdbcRetention::row, cutoff, options.batchRows());
            if (!rows.isEmpty()) {
                options.export().accept(new PruneOptions.PrunedRows("supervisor_ticks", rows));
            }
        }
        int deleted = tx.update(
                "DELETE FROM supervisor_ticks WHERE seq IN (SELECT seq" + which + ")", cutoff, options.batchRows());
        return new Batch(deleted, deleted < options.batchRows() ? -1 : 0);
    }

    /** The newest tick's time, or null without ticks. */
    private static Long newestTick(JdbcTx tx) throws SQLException {
        return tx.one("SELECT at FROM supervisor_ticks ORDER BY seq DESC LIMIT 1", rs -> rs.getLong(1))
                .orElse(null);
    }

    private static Batch contentionBatch(JdbcTx tx, PruneOptions options) throws SQLException {
        Newest newest = newest(tx);
        if (newest == null) {
            return new Batch(0, -1);
        }
        long cutoff = cutoff(newest.at, tx.now(), read(tx).keepJournal());
        Long window = nullable(tx, "SELECT min(window_start) FROM lease_contention WHERE window_start <= ?", cutoff);
        if (window == null) {
            return new Batch(0, -1);
        }
        String which = " FROM lease_contention WHERE window_start = ? AND last_at <= ?";
        if (options.export() != null) {
            List<Map<String, Object>> rows = tx.query("SELECT *" + which, JdbcRetention::row, window, cutoff);
            if (!rows.isEmpty()) {
                options.export().accept(new PruneOptions.PrunedRows("lease_contention", rows));
            }
        }
        int deleted = tx.update("DELETE" + which, window, cutoff);
        // a window whose last refusal is younger than the cutoff stays, and so do the windows after it
        return new Batch(deleted, deleted == 0 ? -1 : 0);
    }

    /**
     * The time below which rows are old: the newest row's time, never past this transaction's clock (the server's on
     * PostgreSQL), less the policy; saturating, so a row dated at the start of time by hand cannot wrap it round.
     */
    static long cutoff(long newestAt, long now, Duration keep) {
        long base = Math.min(newestAt, now);
        return base < Long.MIN_VALUE + keep.toMillis() ? Long.MIN_VALUE : base - keep.toMillis();
    }

    private static Newest newest(JdbcTx tx) throws SQLException {
        return tx.one(
                        "SELECT seq, at FROM fence_events ORDER BY seq DESC LIMIT 1",
                        rs -> new Newest(rs.getLong(1), rs.getLong(2)))
                .orElse(null);
    }

    private static Map<String, Object> row(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            Object v = rs.getObject(i);
            row.put(
                    md.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT),
                    v instanceof Integer n ? n.longValue() : v);
        }
        return row;
    }

    /** The one whole number {@code sql} reads (an aggregate), or null when it is NULL. */
    private static Long nullable(JdbcTx tx, String sql, Object... args) throws SQLException {
        long[] v = {0};
        boolean[] isNull = {true};
        tx.query(
                sql,
                rs -> {
                    v[0] = rs.getLong(1);
                    isNull[0] = rs.wasNull();
                    return Boolean.TRUE;
                },
                args);
        return isNull[0] ? null : v[0];
    }

    private static long orMinusOne(Long v) {
        return v == null ? -1 : v;
    }

    private record Newest(long seq, long at) {}

    /** One batch's deleted rows and where the next starts (-1: this table is done). */
    private record Batch(long deleted, long next) {}

    /** The runs one batch pruned, each {id, workspace policy}, and the cursor after it (null: done). */
    private record RunsBatch(List<String[]> pruned, String[] next) {}

    /** The processes one batch pruned and the cursor after it (null: done). */
    private record ProcessesBatch(long deleted, String[] next) {}
}
