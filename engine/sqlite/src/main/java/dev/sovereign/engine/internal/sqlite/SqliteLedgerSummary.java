package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerSummary;

/**
 * Reads a {@link LedgerSummary} of a file ({@link JdbcLedgerSummary}) with what only a file has: its path, a local
 * connection, {@code PRAGMA user_version}, a counter that may hold no whole number, and the mark of a move.
 */
final class SqliteLedgerSummary {
    private SqliteLedgerSummary() {}

    static LedgerSummary read(Database db) {
        return db.read(tx -> JdbcLedgerSummary.read(
                tx,
                new JdbcLedgerSummary.Own(
                        LedgerLocation.file(db.file()),
                        ConnectionSecurity.LOCAL_FILE,
                        (int) tx.scalarLong("PRAGMA user_version"),
                        SqliteLedgerHistory.counter(tx) == null ? -1 : tx.lastToken(),
                        SqliteLedgerHistory.read(tx, db.file().toString()),
                        tx.one("SELECT moved_to FROM ledger_retirement WHERE id = 1", rs -> rs.getString(1))
                                .orElse(null))));
    }
}
