package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.rules.LeaseRules;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What SQLite's lease writes do their own way ({@link JdbcLeases.LeaseWrites}): the release the schema carries out, and
 * a grant of a free actor, a release and a renewal of one's own sane row, each with one read where the full path reads
 * twice (decision 0512). Everything else is the plain way, the file's one write lock ({@code BEGIN IMMEDIATE}) standing
 * in for PostgreSQL's row locks. Stateless.
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

    /**
     * The grant of a free actor after ONE read (the actor exists and has no lease row) where the full path reads the
     * actor and then the row; then the full path's own statements ({@link JdbcLeases#grantFreeIn}). Anything else — an
     * unknown actor, a row held, expired or corrupt — writes nothing here, and the full path decides in the same
     * transaction. Safe to read before the write: the transaction holds the file's one write lock.
     */
    @Override
    public Optional<Lease> grantInOneCall(JdbcTx tx, String actor, long ttlMs) throws SQLException {
        boolean free = tx.one(
                        "SELECT 1 FROM actors WHERE id = ?"
                                + " AND NOT EXISTS (SELECT 1 FROM actor_leases WHERE actor_id = ?)",
                        rs -> true,
                        actor,
                        actor)
                .isPresent();
        return free ? Optional.of(JdbcLeases.grantFreeIn(tx, this, actor, ttlMs, true, tx.now())) : Optional.empty();
    }

    /**
     * The release of this process's own row under {@code token} after ONE read (the row and the highest token issued,
     * which the sanity rule compares it with) where the full path reads them in two; a row that is not this process's
     * under {@code token}, or is corrupt, writes nothing here and the full path decides (and refuses) in the same
     * transaction. Then the full path's own statement ({@link #release}).
     */
    @Override
    public boolean releaseInOneCall(JdbcTx tx, String actor, long token) throws SQLException {
        Optional<Lease> own = ownSaneRow(tx, actor, token);
        return own.isPresent() && release(tx, actor, token, tx.nextLeaseChange());
    }

    /**
     * The renewal of this process's own sane row under {@code token} after ONE read, as {@link #releaseInOneCall};
     * then the full path's own statements ({@link JdbcLeases#renewSaneIn}).
     */
    @Override
    public Optional<Lease> renewInOneCall(JdbcTx tx, String actor, long token, long ttlMs) throws SQLException {
        Optional<Lease> own = ownSaneRow(tx, actor, token);
        return own.isPresent()
                ? Optional.of(JdbcLeases.renewSaneIn(tx, actor, token, ttlMs, false, own))
                : Optional.empty();
    }

    /**
     * {@code actor}'s lease row when it is this process's under {@code token} and sane (its token not above the
     * highest issued), read with that highest token in one statement; else empty, and the full path decides.
     */
    private static Optional<Lease> ownSaneRow(JdbcTx tx, String actor, long token) throws SQLException {
        return tx.one(
                        "SELECT " + JdbcLeases.columns(tx.dialect()) + ", " + JdbcTx.LAST_TOKEN
                                + " AS sovereign_last_token FROM actor_leases WHERE actor_id = ?",
                        rs -> {
                            Lease row = JdbcLeases.mapLease(rs);
                            return LeaseRules.corruption(row, rs.getLong("sovereign_last_token")) == null
                                            && LeaseRules.mayRelease(row, token, tx.processIdentity())
                                    ? Optional.of(row)
                                    : Optional.<Lease>empty();
                        },
                        actor)
                .flatMap(row -> row);
    }
}
