package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.journal.EventKind;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What both backends do alike with the ledger's history (decisions 0603-0605): its rows as operators read them, the
 * highest epoch it heard of, and the report of a ledger gone backwards. Each backend reads its token counter its own
 * way (SQLite checks that it holds a whole number; PostgreSQL's column is a bigint) and keeps what differs: the
 * checks an open makes, and how a new epoch voids the leases. Stateless.
 */
public final class JdbcLedgerHistory {
    private static final String ENTRY =
            "SELECT seq, at, kind, epoch, from_token, to_token, seen_token, process_identity,"
                    + " backup_id, detail FROM ledger_history";

    private JdbcLedgerHistory() {}

    /** The last row of the history, or null. */
    public static LedgerHistory.Entry last(JdbcReads q) throws SQLException {
        return q.one(ENTRY + " ORDER BY seq DESC LIMIT 1", JdbcLedgerHistory::entry)
                .orElse(null);
    }

    /**
     * The history as operators read it (status, the console): the epoch of {@code counter} (null, or below 0, when
     * it holds no usable value: epoch 0 is shown), the start of that epoch, the first report of the ledger going
     * backwards since, and the counter's {@code problem} (null: none).
     */
    public static LedgerHistory read(JdbcReads q, Long counter, String problem) throws SQLException {
        LedgerHistory.Entry start = q.one(
                        ENTRY + " WHERE kind IN ('restore', 'bump') ORDER BY seq DESC LIMIT 1",
                        JdbcLedgerHistory::entry)
                .orElse(null);
        LedgerHistory.Entry backwards = q.one(
                        ENTRY + " WHERE kind = 'backwards' AND seq > ? ORDER BY seq LIMIT 1",
                        JdbcLedgerHistory::entry,
                        start == null ? 0L : start.seq())
                .orElse(null);
        long epoch = counter == null || counter < 0 ? 0 : FencingTokens.epochOf(counter);
        return new LedgerHistory(epoch, start, backwards, problem);
    }

    /**
     * The highest epoch the ledger has been in or heard of: {@code counterEpoch} (the counter's), every epoch its
     * history started, and the epoch of every token an engine reported seeing above the counter. A new epoch goes
     * above it.
     */
    public static long highestEpoch(JdbcReads q, long counterEpoch) throws SQLException {
        long fromHistory = q.scalarLong("SELECT " + q.dialect().greatest()
                + "(coalesce((SELECT max(epoch) FROM ledger_history), 0),"
                + " coalesce((SELECT max(seen_token) FROM ledger_history WHERE kind = 'backwards'), 0) / "
                + FencingTokens.EPOCH_SPAN + ")");
        return Math.max(counterEpoch, fromHistory);
    }

    /**
     * Records, in its own transaction {@code tx}, that this engine had seen {@code seen} while the counter (read by
     * the backend's {@code counter}, after the counter's row lock of decision 0900) is below it (decision 0605): a
     * {@code backwards} history row (from now on the schema lets the counter step no more until a new epoch starts)
     * and a {@code LEDGER_WENT_BACKWARDS} journal row, whose sentence says the ledger was put back without
     * {@code putBackWithout} (the backend's own way to put one back). Writes nothing when the counter holds no
     * whole number (null) or is no longer below {@code seen} (a new epoch started meanwhile).
     */
    public static void recordWentBackwards(JdbcTx tx, long seen, TxWork<Long> counter, String putBackWithout)
            throws SQLException {
        tx.lockTokenCounter(null);
        Long current = counter.run(tx);
        if (current == null || current >= seen) {
            return;
        }
        String said = "process " + tx.processIdentity() + " had seen token " + FencingTokens.describe(seen)
                + " but the counter is at " + FencingTokens.describe(current) + ": the ledger was put back without "
                + putBackWithout + "; no token is issued until 'sovereign fence bump'";
        tx.update(
                "INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token, process_identity,"
                        + " backup_id, detail) VALUES (?, 'backwards', ?, ?, ?, ?, ?, NULL, ?)",
                tx.now(),
                FencingTokens.epochOf(current),
                current,
                current,
                seen,
                tx.processIdentity(),
                said);
        tx.journal(
                EventKind.LEDGER_WENT_BACKWARDS,
                "ledger",
                "ledger",
                null,
                tx.processIdentity(),
                null,
                seen,
                current,
                null,
                said);
    }

    private static LedgerHistory.Entry entry(ResultSet rs) throws SQLException {
        return new LedgerHistory.Entry(
                rs.getLong("seq"),
                rs.getLong("at"),
                rs.getString("kind"),
                rs.getLong("epoch"),
                rs.getLong("from_token"),
                rs.getLong("to_token"),
                JdbcTx.nullableLong(rs, "seen_token"),
                rs.getString("process_identity"),
                rs.getString("backup_id"),
                rs.getString("detail"));
    }
}
