package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerSummary;

/**
 * Reads a {@link LedgerSummary} of a server ledger ({@link JdbcLedgerSummary}) in one {@code REPEATABLE READ}
 * snapshot, so its counts agree: its location is the server's URL (shown without its secrets), its connection what
 * protects this engine's session (decision 0906).
 */
final class PgLedgerSummary {
    private PgLedgerSummary() {}

    static LedgerSummary read(PgDatabase db) {
        return db.snapshot(tx -> JdbcLedgerSummary.read(
                tx,
                new JdbcLedgerSummary.Own(
                        db.location(),
                        PgConnectionSecurity.of(tx, db.location()),
                        (int) tx.scalarLong("SELECT coalesce(max(schema_version), 0) FROM schema_migrations"),
                        tx.lastToken(),
                        PgLedgerHistory.read(tx, String.valueOf(db.location())),
                        null))); // a server ledger is never the source of a move (decision 0915)
    }
}
