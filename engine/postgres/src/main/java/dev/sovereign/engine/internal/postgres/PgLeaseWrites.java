package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.lease.Lease;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What PostgreSQL's lease writes do their own way ({@link JdbcLeases.LeaseWrites}): the common case in one round trip
 * through the ledger's lease functions (schema version 5, decision 0506), the holder's session locked before a takeover
 * of an attached lease (decision 0913), and a compare-and-set that lost a race its row locks should have excluded run
 * again whole ({@link PgConflict}). The release itself is the plain one (its statement, its {@code DELETE}, its
 * journal row). Stateless.
 *
 * <p>Each function does the simple case of its operation (a free actor; the caller's own sane row with the presented
 * token) with the same statements, locks and journal row as the full path, and otherwise writes nothing and answers
 * "not done": {@link JdbcLeases} then runs the full path in the same transaction, which asks the rule book and words
 * the refusal, takeover or corruption. A function is offered only the FIRST work of a transaction the engine opened
 * for that one operation, and only when this engine acts under no identity claim ({@link PgTx#mayDelegateWrites}):
 * a claimed transaction takes the full path. The casts pin the overload a call resolves to.
 */
final class PgLeaseWrites implements JdbcLeases.LeaseWrites {
    static final PgLeaseWrites INSTANCE = new PgLeaseWrites();

    /** The lease columns of a function's row, aliased as the table. */
    private static final String COLUMNS = JdbcLeases.columns(Dialect.POSTGRES);

    private PgLeaseWrites() {}

    @Override
    public Optional<Lease> grantInOneCall(JdbcTx tx, String actor, long ttlMs) throws SQLException {
        if (!((PgTx) tx).mayDelegateWrites()) {
            return Optional.empty();
        }
        Optional<Lease> granted = tx.one(
                "SELECT " + COLUMNS + " FROM sovereign_lease_grant(?::text, ?::text," + " ?::bigint) AS actor_leases",
                JdbcLeases::mapLease,
                actor,
                tx.processIdentity(),
                ttlMs);
        granted.ifPresent(l -> ((PgTx) tx).sawMinted(l.token()));
        return granted;
    }

    @Override
    public Optional<Lease> renewInOneCall(JdbcTx tx, String actor, long token, long ttlMs) throws SQLException {
        if (!((PgTx) tx).mayDelegateWrites()) {
            return Optional.empty();
        }
        return tx.one(
                "SELECT " + COLUMNS + " FROM sovereign_lease_renew(?::text, ?::text, ?::bigint, ?::bigint)"
                        + " AS actor_leases",
                JdbcLeases::mapLease,
                actor,
                tx.processIdentity(),
                token,
                ttlMs);
    }

    @Override
    public boolean releaseInOneCall(JdbcTx tx, String actor, long token) throws SQLException {
        if (!((PgTx) tx).mayDelegateWrites()) {
            return false;
        }
        return tx.one(
                        "SELECT sovereign_lease_release(?::text, ?::text, ?::bigint)",
                        rs -> rs.getBoolean(1),
                        actor,
                        tx.processIdentity(),
                        token)
                .orElse(false);
    }

    /**
     * Locks the holder's session row (its {@code processes} row) FOR SHARE until the end of {@code tx}: after the lease
     * row, in decision 0900's order as amended by 0913. It conflicts with the holder's beat (an UPDATE of that row), so
     * a takeover and a beat of the same lease are never both in flight.
     */
    @Override
    public boolean lockHoldersSession(JdbcTx tx, String holder) throws SQLException {
        tx.query("SELECT 1 FROM processes WHERE identity = ? FOR SHARE", rs -> rs.getInt(1), holder);
        return true;
    }

    /** Not a refusal and not a broken ledger: {@link PgDatabase#write} runs the whole transaction again. */
    @Override
    public RuntimeException changedUnderLock(String actor) {
        return new PgConflict("lease row for " + actor + " changed under its row lock");
    }
}
