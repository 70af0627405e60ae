package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerHistory;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.journal.EventKind;
import java.sql.SQLException;
import java.util.List;

/**
 * The token counter's epochs and the ledger's history on PostgreSQL (schema version 10; decisions 0603-0605), the
 * twin of SQLite's: what an open checks, the history as operators read it, a new epoch ({@code sovereign fence
 * bump}, the owner's, after a {@code pg_restore}) and the report of a ledger gone backwards. The schema's guards
 * check every row written here too. Stateless.
 */
final class PgLedgerHistory {
    private PgLedgerHistory() {}

    /**
     * What is wrong with the counter, in one sentence, or null: a value in an epoch the ledger's history never
     * started (written before version 10 guarded it, e.g. 2^63 - 1 by a worker login). The column is a bigint, so
     * its type is the database's to keep.
     */
    static String counterProblem(JdbcTx tx, String ledger) throws SQLException {
        // the greatest of the stripes' rows (schema version 19, decision 0924): the highest token issued
        List<Long> rows =
                tx.query("SELECT max(last_token) FROM token_counter HAVING count(*) > 0", rs -> rs.getLong(1));
        if (rows.isEmpty()) {
            return "The PostgreSQL ledger " + ledger + " has no fencing-token counter row, so the next token cannot be"
                    + " known; restore it from a backup (pg_restore), then run 'sovereign fence bump'.";
        }
        long value = rows.get(0);
        long started =
                tx.scalarLong("SELECT coalesce(max(epoch), 0) FROM ledger_history WHERE kind IN ('restore', 'bump')");
        if (value < 0 || FencingTokens.epochOf(value) > started) {
            return "The PostgreSQL ledger " + ledger + "'s fencing-token counter holds " + value + ", a token of epoch "
                    + FencingTokens.epochOf(Math.max(0, value)) + ", but the ledger's history never started an epoch"
                    + " after " + started + ": the counter was written by hand; restore the ledger from a backup"
                    + " (pg_restore), then run 'sovereign fence bump'.";
        }
        return null;
    }

    /** Refuses a ledger whose counter is damaged, or one that is a backup of a file not yet restored. */
    static void requireUsable(JdbcTx tx, String ledger) throws SQLException {
        String problem = counterProblem(tx, ledger);
        if (problem != null) {
            throw new StorageException(Problem.CORRUPT, null, problem, null);
        }
        LedgerHistory.Entry last = JdbcLedgerHistory.last(tx);
        if (last != null && "backup".equals(last.kind())) {
            throw new StorageException(
                    Problem.A_BACKUP,
                    null,
                    "The PostgreSQL ledger " + ledger + " holds a backup of"
                            + " a ledger file (" + last.detail()
                            + "), not a live ledger; its owner must run 'sovereign fence"
                            + " bump' on it first.",
                    null);
        }
    }

    /** The history as operators read it. */
    static LedgerHistory read(JdbcTx tx, String ledger) throws SQLException {
        return JdbcLedgerHistory.read(tx, tx.lastToken(), counterProblem(tx, ledger));
    }

    /** The highest epoch the ledger has been in or heard of ({@link JdbcLedgerHistory#highestEpoch}). */
    static long highestEpoch(JdbcTx tx) throws SQLException {
        return JdbcLedgerHistory.highestEpoch(tx, FencingTokens.epochOf(Math.max(0, tx.lastToken())));
    }

    /**
     * Starts a new epoch in {@code tx} (decision 0604), as SQLite's twin does: the row, the jump, every lease row
     * deleted through the release path, the journal. Locks in decision 0900's order: the token counter, the lease
     * change counter, then each lease row.
     */
    static EpochStart startEpoch(JdbcTx tx, String kind, long aboveEpoch, String detail) throws SQLException {
        if (!tx.one(
                        "SELECT pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = 'ledger_history'::regclass),"
                                + " 'USAGE')",
                        rs -> rs.getBoolean(1))
                .orElse(false)) {
            throw new StorageException(
                    Problem.READ_ONLY,
                    null,
                    "Only the owner of the PostgreSQL ledger (the role that"
                            + " ran 'sovereign init' or pg_restore) may start a new epoch of its token counter; connect as it.",
                    null);
        }
        tx.lockTokenCounter(null);
        long counter = tx.lastToken();
        long epoch = Math.max(highestEpoch(tx), Math.max(aboveEpoch, 0)) + 1;
        if (epoch > FencingTokens.MAX_EPOCH) {
            throw new StorageException(
                    Problem.EPOCH_EXHAUSTED,
                    null,
                    "The PostgreSQL ledger has no epoch left after " + (epoch - 1) + " (the last is "
                            + FencingTokens.MAX_EPOCH + "); it cannot start another.",
                    null);
        }
        long start = FencingTokens.startOf(epoch);
        long now = tx.now();
        String said = detail + "; epoch " + epoch + "'s tokens are above " + start + " (the counter was at "
                + FencingTokens.describe(counter) + ")";
        tx.update(
                "INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token, process_identity,"
                        + " backup_id, detail) VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, ?)",
                now,
                kind,
                (long) epoch,
                counter,
                start,
                tx.processIdentity(),
                said);
        // every stripe to the epoch's start, each on its own residue: the guard lets nothing else through
        tx.update("UPDATE token_counter SET last_token = ? + id", start);
        tx.lockLeaseChanges();
        List<Object[]> leases = tx.query(
                "SELECT actor_id, process_identity, token FROM actor_leases ORDER BY actor_id" + " FOR UPDATE",
                rs -> new Object[] {rs.getString(1), rs.getString(2), rs.getLong(3)});
        for (Object[] l : leases) {
            long change = tx.nextLeaseChange();
            long token = (Long) l[2];
            tx.update(
                    "UPDATE actor_leases SET change_seq = ?, presented_token = ?, presented_change = ? WHERE actor_id = ?"
                            + " AND token = ?",
                    change,
                    token,
                    change,
                    l[0],
                    token);
            tx.update("DELETE FROM actor_leases WHERE actor_id = ? AND token = ?", l[0], token);
            tx.journal(
                    EventKind.LEASE_RELEASED,
                    "actor",
                    (String) l[0],
                    (String) l[0],
                    (String) l[1],
                    token,
                    null,
                    null,
                    null,
                    "voided by the " + ("restore".equals(kind) ? "restore" : "fence bump") + " that started epoch "
                            + epoch + ": its holder must acquire it again");
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
        return new EpochStart(kind, epoch, counter, start + 1, leases.size(), now);
    }

    /** Records that this engine had seen {@code seen} above the counter ({@link JdbcLedgerHistory#recordWentBackwards}). */
    static void recordWentBackwards(JdbcTx tx, long seen) throws SQLException {
        JdbcLedgerHistory.recordWentBackwards(tx, seen, JdbcTx::lastToken, "a fence bump");
    }
}
