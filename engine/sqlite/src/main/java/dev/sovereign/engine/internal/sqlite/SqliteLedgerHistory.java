package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.journal.EventKind;
import java.sql.SQLException;
import java.util.List;

/**
 * The token counter's epochs and the ledger's history on a file (schema version 9; decisions 0603-0605): what an
 * open checks (a counter that is a whole number in range, a file that is not a backup), the history as operators
 * read it, a new epoch (a fence bump or the last step of a restore) and the report of a ledger gone backwards.
 * The schema's triggers guard every row written here too; this class only writes what they allow. Stateless.
 */
final class SqliteLedgerHistory {
    private static final String ENTRY = "SELECT seq, at, kind, epoch, from_token, to_token, seen_token, process_identity,"
            + " backup_id, detail FROM ledger_history";

    private SqliteLedgerHistory() {
    }

    /** A query on either kind of connection ({@link Tx#query}, {@link ReadConnection#query}). */
    @FunctionalInterface
    interface Query {
        <T> List<T> query(String sql, Tx.RowMapper<T> mapper, Object... args) throws SQLException;
    }

    /** The counter's value, or null when it is not a whole number (see {@link #counterProblem}). */
    static Long counter(Query q) throws SQLException {
        List<Long> v = q.query("SELECT CASE WHEN typeof(last_token) = 'integer' THEN last_token END FROM token_counter"
                + " WHERE id = 1", rs -> {
                    long value = rs.getLong(1);
                    return rs.wasNull() ? null : value;
                });
        return v.isEmpty() ? null : v.get(0);
    }

    /**
     * What is wrong with the counter, in one sentence naming {@code ledger}, or null: not a whole number (SQLite
     * stores text, blobs and reals in an INTEGER column, and version 1's CHECK compared them above every number),
     * or a value in an epoch the ledger's history never started (written by hand, e.g. 2^63 - 1).
     */
    static String counterProblem(Query q, String ledger) throws SQLException {
        List<String[]> rows = q.query("SELECT typeof(last_token), quote(last_token) FROM token_counter WHERE id = 1",
                rs -> new String[] {rs.getString(1), rs.getString(2)});
        if (rows.isEmpty()) {
            return "The ledger " + ledger + " has no fencing-token counter row, so the next token cannot be known;"
                    + " restore it from a backup ('sovereign restore').";
        }
        String type = rows.get(0)[0];
        String shown = rows.get(0)[1];
        if (!"integer".equals(type)) {
            return "The ledger " + ledger + "'s fencing-token counter holds " + shown + " (" + type + "), not a whole"
                    + " number: it was written by hand, so the next token cannot be known; restore the ledger from a"
                    + " backup ('sovereign restore').";
        }
        long value = Long.parseLong(shown);
        if (value < 0) {
            return "The ledger " + ledger + "'s fencing-token counter holds " + value + ", below 0: it was written by"
                    + " hand; restore the ledger from a backup ('sovereign restore').";
        }
        long started = q.query("SELECT coalesce(max(epoch), 0) FROM ledger_history WHERE kind IN ('restore', 'bump')",
                rs -> rs.getLong(1)).get(0);
        if (FencingTokens.epochOf(value) > started) {
            return "The ledger " + ledger + "'s fencing-token counter holds " + value + ", a token of epoch "
                    + FencingTokens.epochOf(value) + ", but the ledger's history never started an epoch after " + started
                    + ": the counter was written by hand (every later grant would fail or reach the end of the range);"
                    + " restore the ledger from a backup ('sovereign restore').";
        }
        return null;
    }

    /**
     * Refuses (one sentence) a ledger whose counter is damaged ({@code CORRUPT}) or a file that is a backup not yet
     * put in place ({@code A_BACKUP}; only the restore's own open, {@code restoring}, accepts one).
     */
    static void requireUsable(JdbcTx tx, boolean restoring) throws SQLException {
        String file = String.valueOf(((Tx) tx).file());
        String problem = counterProblem(tx::query, file);
        if (problem != null) {
            throw new StorageException(Problem.CORRUPT, ((Tx) tx).file(), problem, null);
        }
        LedgerHistory.Entry last = last(tx::query);
        if (!restoring && last != null && "backup".equals(last.kind())) {
            throw new StorageException(Problem.A_BACKUP, ((Tx) tx).file(), "The file " + file + " is a backup made by"
                    + " 'sovereign backup' (" + last.detail() + "), not a live ledger: opening it as one could issue"
                    + " again every token granted after it was taken; put it in place with 'sovereign restore " + file
                    + " --db <ledger file>'.", null);
        }
    }

    /** The last row of the history, or null. */
    static LedgerHistory.Entry last(Query q) throws SQLException {
        List<LedgerHistory.Entry> rows = q.query(ENTRY + " ORDER BY seq DESC LIMIT 1", SqliteLedgerHistory::entry);
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** The history as operators read it (status, the console), with the counter's problem if it has one. */
    static LedgerHistory read(Query q, String ledger) throws SQLException {
        String problem = counterProblem(q, ledger);
        Long counter = counter(q);
        List<LedgerHistory.Entry> starts = q.query(ENTRY + " WHERE kind IN ('restore', 'bump') ORDER BY seq DESC LIMIT 1",
                SqliteLedgerHistory::entry);
        LedgerHistory.Entry start = starts.isEmpty() ? null : starts.get(0);
        List<LedgerHistory.Entry> backwards = q.query(ENTRY + " WHERE kind = 'backwards' AND seq > ? ORDER BY seq LIMIT 1",
                SqliteLedgerHistory::entry, start == null ? 0L : start.seq());
        long epoch = counter == null || counter < 0 ? 0 : FencingTokens.epochOf(counter);
        return new LedgerHistory(epoch, start, backwards.isEmpty() ? null : backwards.get(0), problem);
    }

    /**
     * The highest epoch the ledger has been in or heard of: its counter's, every epoch its history started, and the
     * epoch of every token an engine reported seeing above the counter. A new epoch goes above it.
     */
    static long highestEpoch(Query q) throws SQLException {
        Long counter = counter(q);
        long fromHistory = q.query("SELECT max(coalesce((SELECT max(epoch) FROM ledger_history), 0),"
                + " coalesce((SELECT max(seen_token) FROM ledger_history WHERE kind = 'backwards'), 0) / "
                + FencingTokens.EPOCH_SPAN + ")", rs -> rs.getLong(1)).get(0);
        return Math.max(counter == null ? 0 : FencingTokens.epochOf(counter), fromHistory);
    }

    /**
     * Starts a new epoch in {@code tx} (decision 0604): above {@link #highestEpoch} and {@code aboveEpoch}; a history
     * row of {@code kind} ({@code restore} or {@code bump}) stating the jump, the counter moved to the epoch's start
     * (the schema allows exactly that jump, and only with that row), every lease row deleted through the release
     * path (it presents each row's token: their holders must acquire them again, with tokens of the new epoch), and
     * the journal told. Attempts and claims of older epochs are left to expire: with their lease gone, no write
     * presenting their tokens passes the fence (an attempt's renewal and terminal write need the lease row with its
     * bound token; a claim's finish is refused under a lease of a later epoch), and the supervisor recovers and
     * sweeps them as usual.
     */
    static EpochStart startEpoch(JdbcTx tx, String kind, long aboveEpoch, String backupId, String detail)
            throws SQLException {
        Long counter = counter(tx::query);
        if (counter == null) {
            throw new StorageException(Problem.CORRUPT, ((Tx) tx).file(), counterProblem(tx::query, String.valueOf(((Tx) tx).file())), null);
        }
        long epoch = Math.max(highestEpoch(tx::query), Math.max(aboveEpoch, 0)) + 1;
        if (epoch > FencingTokens.MAX_EPOCH) {
            throw new StorageException(Problem.EPOCH_EXHAUSTED, ((Tx) tx).file(), "The ledger " + ((Tx) tx).file() + " has no epoch"
                    + " left after " + (epoch - 1) + " (the last is " + FencingTokens.MAX_EPOCH + "); it cannot start another.", null);
        }
        long start = FencingTokens.startOf(epoch);
        String said = detail + "; epoch " + epoch + " starts at token " + (start + 1) + " (the counter was at "
                + FencingTokens.describe(counter) + ")";
        tx.update("INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token, process_identity,"
                + " backup_id, detail) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)",
                tx.now(), kind, epoch, counter, start, tx.processIdentity(), backupId, said);
        tx.update("UPDATE token_counter SET last_token = ? WHERE id = 1", start);
        List<String[]> leases = tx.query("SELECT actor_id, process_identity, token FROM actor_leases ORDER BY actor_id",
                rs -> new String[] {rs.getString(1), rs.getString(2), Long.toString(rs.getLong(3))});
        for (String[] l : leases) {
            long change = tx.nextLeaseChange();
            long token = Long.parseLong(l[2]);
            // the one way a lease row is deleted (V0008, decision 0011): a release that states itself in the row;
            // the schema removes the row in this statement and journals LEASE_RELEASED with this detail
            tx.update("UPDATE actor_leases SET change_seq = ?, presented_token = ?, presented_change = ?, released_at = ?,"
                    + " released_note = ? WHERE actor_id = ? AND token = ?", change, token, change, tx.now(),
                    "voided by the " + ("restore".equals(kind) ? "restore" : "fence bump") + " that started epoch "
                            + epoch + ": its holder must acquire it again", l[0], token);
        }
        tx.journal("restore".equals(kind) ? EventKind.LEDGER_RESTORED : EventKind.FENCE_BUMPED, "ledger", "ledger", null,
                tx.processIdentity(), start + 1, null, counter, null, said + "; " + leases.size()
                        + (leases.size() == 1 ? " lease voided" : " leases voided"));
        return new EpochStart(kind, epoch, counter, start + 1, leases.size(), tx.now());
    }

    /**
     * Records, in its own transaction {@code tx}, that this engine had seen {@code seen} while the counter is at
     * {@code counter} (decision 0605): a {@code backwards} history row (from now on the schema lets the counter step
     * no more until a new epoch starts) and a {@code LEDGER_WENT_BACKWARDS} journal row. Writes nothing when the
     * counter is no longer below {@code seen} (a new epoch started meanwhile).
     */
    static void recordWentBackwards(JdbcTx tx, long seen) throws SQLException {
        Long counter = counter(tx::query);
        if (counter == null || counter >= seen) {
            return;
        }
        String said = "process " + tx.processIdentity() + " had seen token " + FencingTokens.describe(seen)
                + " but the counter is at " + FencingTokens.describe(counter) + ": the ledger was put back without"
                + " 'sovereign restore'; no token is issued until 'sovereign fence bump'";
        tx.update("INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token, process_identity,"
                + " backup_id, detail) VALUES (?, 'backwards', ?, ?, ?, ?, ?, NULL, ?)",
                tx.now(), FencingTokens.epochOf(counter), counter, counter, seen, tx.processIdentity(), said);
        tx.journal(EventKind.LEDGER_WENT_BACKWARDS, "ledger", "ledger", null, tx.processIdentity(), null, seen, counter,
                null, said);
    }

    private static LedgerHistory.Entry entry(java.sql.ResultSet rs) throws SQLException {
        return new LedgerHistory.Entry(rs.getLong("seq"), rs.getLong("at"), rs.getString("kind"), rs.getLong("epoch"),
                rs.getLong("from_token"), rs.getLong("to_token"), JdbcTx.nullableLong(rs, "seen_token"),
                rs.getString("process_identity"), rs.getString("backup_id"), rs.getString("detail"));
    }
}
