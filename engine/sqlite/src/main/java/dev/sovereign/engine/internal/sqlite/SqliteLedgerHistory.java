package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerHistory;
import dev.sovereign.engine.internal.jdbc.JdbcReads;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
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
    private SqliteLedgerHistory() {}

    /**
     * The counter's value, or null when it is not a whole number (see {@link #counterProblem}); on either kind of
     * connection ({@link Tx}, {@link ReadConnection}).
     */
    static Long counter(JdbcReads q) throws SQLException {
        List<Long> v = q.query(
                "SELECT CASE WHEN typeof(last_token) = 'integer' THEN last_token END FROM token_counter"
                        + " WHERE id = 1",
                rs -> {
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
    static String counterProblem(JdbcReads q, String ledger) throws SQLException {
        List<String[]> rows =
                q.query("SELECT typeof(last_token), quote(last_token) FROM token_counter WHERE id = 1", rs ->
                        new String[] {rs.getString(1), rs.getString(2)});
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
        long started = q.query(
                        "SELECT coalesce(max(epoch), 0) FROM ledger_history WHERE kind IN ('restore', 'bump')",
                        rs -> rs.getLong(1))
                .get(0);
        if (FencingTokens.epochOf(value) > started) {
            return "The ledger " + ledger + "'s fencing-token counter holds " + value + ", a token of epoch "
                    + FencingTokens.epochOf(value) + ", but the ledger's history never started an epoch after "
                    + started
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
        String problem = counterProblem(tx, file);
        if (problem != null) {
            throw new StorageException(Problem.CORRUPT, ((Tx) tx).file(), problem, null);
        }
        LedgerHistory.Entry last = JdbcLedgerHistory.last(tx);
        if (!restoring && last != null && "backup".equals(last.kind())) {
            throw new StorageException(
                    Problem.A_BACKUP,
                    ((Tx) tx).file(),
                    "The file " + file + " is a backup made by"
                            + " 'sovereign backup' (" + last.detail()
                            + "), not a live ledger: opening it as one could issue"
                            + " again every token granted after it was taken; put it in place with 'sovereign restore "
                            + file
                            + " --db <ledger file>'.",
                    null);
        }
    }

    /** The history as operators read it (status, the console), with the counter's problem if it has one. */
    static LedgerHistory read(JdbcReads q, String ledger) throws SQLException {
        return JdbcLedgerHistory.read(q, counter(q), counterProblem(q, ledger));
    }

    /** The highest epoch the ledger has been in or heard of ({@link JdbcLedgerHistory#highestEpoch}). */
    static long highestEpoch(JdbcReads q) throws SQLException {
        Long counter = counter(q);
        return JdbcLedgerHistory.highestEpoch(q, counter == null ? 0 : FencingTokens.epochOf(counter));
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
        Long counter = counter(tx);
        if (counter == null) {
            throw new StorageException(
                    Problem.CORRUPT, ((Tx) tx).file(), counterProblem(tx, String.valueOf(((Tx) tx).file())), null);
        }
        long epoch = Math.max(highestEpoch(tx), Math.max(aboveEpoch, 0)) + 1;
        if (epoch > FencingTokens.MAX_EPOCH) {
            throw new StorageException(
                    Problem.EPOCH_EXHAUSTED,
                    ((Tx) tx).file(),
                    "The ledger " + ((Tx) tx).file() + " has no epoch" + " left after " + (epoch - 1) + " (the last is "
                            + FencingTokens.MAX_EPOCH + "); it cannot start another.",
                    null);
        }
        long start = FencingTokens.startOf(epoch);
        String said = detail + "; epoch " + epoch + " starts at token " + (start + 1) + " (the counter was at "
                + FencingTokens.describe(counter) + ")";
        tx.update(
                "INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token, process_identity,"
                        + " backup_id, detail) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)",
                tx.now(),
                kind,
                epoch,
                counter,
                start,
                tx.processIdentity(),
                backupId,
                said);
        tx.update("UPDATE token_counter SET last_token = ? WHERE id = 1", start);
        List<String[]> leases =
                tx.query("SELECT actor_id, process_identity, token FROM actor_leases ORDER BY actor_id", rs ->
                        new String[] {rs.getString(1), rs.getString(2), Long.toString(rs.getLong(3))});
        for (String[] l : leases) {
            long change = tx.nextLeaseChange();
            long token = Long.parseLong(l[2]);
            // the one way a lease row is deleted (V0008, decision 0011): a release that states itself in the row;
            // the schema removes the row in this statement and journals LEASE_RELEASED with this detail
            tx.update(
                    "UPDATE actor_leases SET change_seq = ?, presented_token = ?, presented_change = ?, released_at = ?,"
                            + " released_note = ? WHERE actor_id = ? AND token = ?",
                    change,
                    token,
                    change,
                    tx.now(),
                    "voided by the " + ("restore".equals(kind) ? "restore" : "fence bump") + " that started epoch "
                            + epoch + ": its holder must acquire it again",
                    l[0],
                    token);
        }
        tx.journal(
                "restore".equals(kind) ? EventKind.LEDGER_RESTORED : EventKind.FENCE_BUMPED,
                "ledger",
                "ledger",
                null,
                tx.processIdentity(),
                start + 1,
                null,
                counter,
                null,
                said + "; " + leases.size() + (leases.size() == 1 ? " lease voided" : " leases voided"));
        return new EpochStart(kind, epoch, counter, start + 1, leases.size(), tx.now());
    }

    /** Records that this engine had seen {@code seen} above the counter ({@link JdbcLedgerHistory#recordWentBackwards}). */
    static void recordWentBackwards(JdbcTx tx, long seen) throws SQLException {
        JdbcLedgerHistory.recordWentBackwards(tx, seen, SqliteLedgerHistory::counter, "'sovereign restore'");
    }
}
