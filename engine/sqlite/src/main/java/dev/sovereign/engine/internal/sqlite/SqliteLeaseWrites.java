package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import java.sql.SQLException;

/**
 * What SQLite's lease writes do their own way ({@link JdbcLeases.LeaseWrites}): only the release. Everything else is
 * the plain way, the file's one write lock ({@code BEGIN IMMEDIATE}) standing in for PostgreSQL's row locks. Stateless.
 */
final class SqliteLeaseWrites implements JdbcLeases.LeaseWrites {
    static final SqliteLeaseWrites INSTANCE = new SqliteLeaseWrites();

    private SqliteLeaseWrites() {}

    /**
     * The compare-and-set on (this process, {@code token}) that states the release in the row — its token, its time
     * and the journal row's detail — which the schema carries out in this same statement by deleting the row and
     * journalling {@code LEASE_RELEASED} (V0008): the only way a lease row is ever deleted, so a bare {@code DELETE}
     * is refused whatever came before it.
     */
    @Override
    public boolean release(JdbcTx tx, String actor, long token, long change) throws SQLException {
        Tx sqlite = (Tx) tx;
        sqlite.journalClaim(); // before the release's own row, as before any row the engine journals (decision 0802)
        return tx.update(
                        "UPDATE actor_leases SET change_seq = ?, presented_token = ?, presented_change = ?,"
                                + " released_at = ?, released_note = ? WHERE actor_id = ? AND process_identity = ? AND token = ?",
                        change,
                        token,
                        change,
                        tx.now(),
                        sqlite.attributed(null),
                        actor,
                        tx.processIdentity(),
                        token)
                == 1;
    }
}
