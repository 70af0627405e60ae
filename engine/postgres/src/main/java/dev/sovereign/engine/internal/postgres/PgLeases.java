package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcActors;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.LeaseSql;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.spi.Grants;
import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.rules.LeaseRules;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.ActorLeases;
import dev.sovereign.engine.lease.Lease;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Actor leases on the {@code actor_leases} table (PostgreSQL). Every grant, renewal and release is one
 * READ COMMITTED transaction that first locks what it will write, in the order of decision 0900 (the token
 * counter when it may mint, the lease change counter, the lease row), reads the row under the lock, asks
 * the rule book, and sends the one compare-and-set in the shape the schema's guards accept: the token
 * minted and the change marker raised in the same transaction, the row stating the token it presents.
 * Locking the counter first matters for a free actor: there is no lease row to lock yet, so a second
 * grant waits on the counter and then sees the first one's row. Times are the server's.
 *
 * <p>{@link #acquire}, {@link #renew} and {@link #release} (and {@code acquireOrRenew…} of an actor this engine
 * does not hold) first offer the transaction to one of the ledger's
 * lease functions (schema version 5, decision 0506), which send the same statements from inside the server in
 * one round trip when the case is the common one (a free actor; the caller's own sane row and token) and
 * otherwise write nothing; the full path above then runs in the same transaction and decides. Thread-safe.
 */
public final class PgLeases implements ActorLeases {
    /**
     * A lease row's effective expiry (decision 0509), as one SQL expression over the row's columns prefixed by
     * {@code row}: for a row attached to its holder's session, the later of its own {@code expires_at} and the
     * holder's last heartbeat (the server's clock) plus the lease's TTL; otherwise its own {@code expires_at}.
     * Every reader and takeover of this backend decides from it; the schema's guard applies the same rule (V0006).
     */
    static String effectiveExpiry(String row) {
        return LeaseSql.effective(Dialect.POSTGRES, row, "expires_at");
    }

    /** A lease row's effective renewal time: for an attached row, its holder's last heartbeat if later. */
    static String effectiveRenewal(String row) {
        return LeaseSql.effective(Dialect.POSTGRES, row, "renewed_at");
    }

    /** The console reader's lease columns after the actor, the holder's beat joined (decision 0511). */
    static String readerColumns(String row) {
        return LeaseSql.readerColumns(Dialect.POSTGRES, row);
    }

    /** The lease columns {@link #mapLease} reads, of the row prefixed by {@code row}, effective expiry included. */
    static String leaseColumns(String row) {
        return LeaseSql.leaseColumns(Dialect.POSTGRES, row);
    }

    static final String LEASE_COLUMNS = leaseColumns("actor_leases.");

    private final PgDatabase db;
    private final Grants grants;

    public PgLeases(PgDatabase db, Grants grants) {
        this.db = db;
        this.grants = grants;
    }

    static Lease mapLease(ResultSet rs) throws SQLException {
        return new Lease(rs.getString("actor_id"), rs.getString("process_identity"), rs.getLong("token"),
                rs.getLong("ttl_ms"), rs.getLong("acquired_at"), rs.getLong("renewed_at"), rs.getLong("expires_at"),
                rs.getBoolean("attached"));
    }

    @Override
    public Lease acquire(String actor, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        Lease lease = db.write(tx -> {
            Optional<Lease> granted = grantInOneCall(tx, actor, ttlMs);
            return granted.isPresent() ? granted.get() : acquireIn(tx, actor, ttlMs);
        });
        grants.holdLease(lease);
        return lease;
    }

    @Override
    public Lease renew(String actor, long token, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        return renewAndTrack(actor, token, ttlMs);
    }

    @Override
    public Lease renew(String actor, long token) {
        return renewAndTrack(actor, token, -1);
    }

    private Lease renewAndTrack(String actor, long token, long ttlMs) {
        try {
            Lease lease = db.write(tx -> {
                Optional<Lease> renewed = renewInOneCall(tx, actor, token, ttlMs);
                return renewed.isPresent() ? renewed.get() : renewIn(tx, actor, token, ttlMs);
            });
            grants.holdLease(lease);
            return lease;
        } catch (Refusal r) {
            if (r.category() == ACTOR_LEASE_LOST && grants.lease(actor) != null
                    && grants.lease(actor).token() == token) {
                grants.leaseLost(actor, token);
            }
            throw r;
        }
    }

    @Override
    public boolean release(String actor, long token) {
        String me = db.processIdentity();
        ReleaseOutcome outcome = db.write(tx -> {
            if (releaseInOneCall(tx, actor, me, token)) {
                return new ReleaseOutcome(true, null);
            }
            tx.lockLeaseChanges();
            Optional<Lease> before = lockedIn(tx, actor);
            if (before.isPresent()) {
                requireSane(tx, before.get()); // a corrupt row is evidence: never delete it
            }
            int n = 0;
            if (LeaseRules.mayRelease(before.orElse(null), token, me)) {
                // The release states its token in the row first (the schema refuses a bare DELETE,
                // V0001), then deletes it; both statements carry the same fence in their WHERE.
                long change = tx.nextLeaseChange();
                int stated = tx.update("UPDATE actor_leases SET change_seq = ?, presented_token = ?, presented_change = ?"
                        + " WHERE actor_id = ? AND process_identity = ? AND token = ?",
                        change, token, change, actor, me, token);
                n = stated == 1 ? tx.update("DELETE FROM actor_leases WHERE actor_id = ? AND process_identity = ?"
                        + " AND token = ?", actor, me, token) : 0;
                if (n != 1) {
                    throw new PgConflict("lease row for " + actor + " changed under its row lock");
                }
            }
            if (n == 1) {
                tx.journal(EventKind.LEASE_RELEASED, "actor", actor, actor, token, null);
                return new ReleaseOutcome(true, null);
            }
            return new ReleaseOutcome(false, before.orElse(null));
        });
        grants.dropLease(actor, token);
        if (outcome.released()) {
            return true;
        }
        // Refused, whether a newer holder has the row or the row is gone: the token was stale either way
        // (docs/decisions/0005).
        db.journalRejection(LeaseRules.lostRelease(actor, token, outcome.current()));
        return false;
    }

    private record ReleaseOutcome(boolean released, Lease current) {
    }

    @Override
    public Lease acquireOrRenew(String actor, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        String me = db.processIdentity();
        boolean heldHere = grants.lease(actor) != null;
        Lease lease = db.write(tx -> {
            // Not held by this engine as far as it knows: most likely free, so offer the grant to the one-call
            // path first (it takes the token counter first too, so the fall-back below keeps 0900's order).
            Optional<Lease> granted = heldHere ? Optional.empty() : grantInOneCall(tx, actor, ttlMs);
            if (granted.isPresent()) {
                return granted.get();
            }
            tx.lockTokenCounter();
            tx.lockLeaseChanges();
            Optional<Lease> current = lockedIn(tx, actor);
            if (LeaseRules.heldBy(current.orElse(null), me)) {
                return renewIn(tx, actor, current.get().token(), ttlMs);
            }
            return acquireIn(tx, actor, ttlMs);
        });
        grants.holdLease(lease);
        return lease;
    }

    @Override
    public Lease acquireOrRenewKeepingTtl(String actor, Duration ttlIfAcquired) {
        long ttlMs = Arguments.leaseTtlMillis(ttlIfAcquired);
        String me = db.processIdentity();
        boolean heldHere = grants.lease(actor) != null;
        Lease lease = db.write(tx -> {
            // Not held by this engine as far as it knows: most likely free, so offer the grant to the one-call
            // path first (it takes the token counter first too, so the fall-back below keeps 0900's order).
            Optional<Lease> granted = heldHere ? Optional.empty() : grantInOneCall(tx, actor, ttlMs);
            if (granted.isPresent()) {
                return granted.get();
            }
            tx.lockTokenCounter();
            tx.lockLeaseChanges();
            Optional<Lease> current = lockedIn(tx, actor);
            if (LeaseRules.heldBy(current.orElse(null), me)) {
                return renewIn(tx, actor, current.get().token(), -1);
            }
            return acquireIn(tx, actor, ttlMs);
        });
        grants.holdLease(lease);
        return lease;
    }

    @Override
    public boolean abandon(String actor, long token) {
        boolean believed = grants.dropLease(actor, token);
        // An attached lease would live on with this process's heartbeat: it is detached, keeping the expiry it
        // has now, so it expires on its own as an abandoned lease always did (decision 0509). Dropped from the
        // beliefs first: should this write fail, the beat finds the row it no longer believes in and detaches it.
        db.write(tx -> detachIn(tx, actor, token));
        return believed;
    }

    /**
     * Detaches this process's attached lease row from its session (one CAS on actor, token, holder and
     * {@code attached}), freezing its effective renewal and expiry into the row, so it then expires on its own
     * exactly when it would have without further beats. Whether a row was detached.
     */
    static boolean detachIn(JdbcTx tx, String actor, long token) throws SQLException {
        tx.lockLeaseChanges();
        long change = tx.nextLeaseChange();
        return tx.update("UPDATE actor_leases SET renewed_at = " + effectiveRenewal("actor_leases.") + ", expires_at = "
                + effectiveExpiry("actor_leases.") + ", attached = false, change_seq = ?, presented_token = ?,"
                + " presented_change = ? WHERE actor_id = ? AND process_identity = ? AND token = ? AND attached",
                change, token, change, actor, tx.processIdentity(), token) == 1;
    }

    @Override
    public Optional<Lease> current(String actor) {
        return db.read(tx -> currentIn(tx, actor));
    }

    @Override
    public List<Lease> list() {
        return db.read(tx -> tx.query("SELECT " + LEASE_COLUMNS + " FROM actor_leases ORDER BY actor_id",
                PgLeases::mapLease));
    }

    @Override
    public List<Lease> held() {
        return grants.leases();
    }

    // ---- transaction-level operations, reused by runs and the mailbox ----

    static Optional<Lease> currentIn(JdbcTx tx, String actor) throws SQLException {
        return tx.one("SELECT " + LEASE_COLUMNS + " FROM actor_leases WHERE actor_id = ?", PgLeases::mapLease,
                actor);
    }

    /** The lease row, locked FOR UPDATE until the end of {@code tx} (after the counters, decision 0900). */
    static Optional<Lease> lockedIn(JdbcTx tx, String actor) throws SQLException {
        return tx.one("SELECT " + LEASE_COLUMNS + " FROM actor_leases WHERE actor_id = ? FOR UPDATE",
                PgLeases::mapLease, actor);
    }

    /** The lease row, locked FOR SHARE: a writer that relies on it (an attempt, a claim) waits for a takeover. */
    static Optional<Lease> sharedIn(JdbcTx tx, String actor) throws SQLException {
        return tx.one("SELECT " + LEASE_COLUMNS + " FROM actor_leases WHERE actor_id = ? FOR SHARE",
                PgLeases::mapLease, actor);
    }

    /**
     * Locks a holder's session row (its {@code processes} row) FOR SHARE until the end of {@code tx}: after the
     * lease row, in decision 0900's order as amended by 0913. It conflicts with the holder's beat (an UPDATE of that
     * row), so a takeover and a beat of the same lease are never both in flight.
     */
    static void lockSession(JdbcTx tx, String process) throws SQLException {
        tx.query("SELECT 1 FROM processes WHERE identity = ? FOR SHARE", rs -> rs.getInt(1), process);
    }

    /** Acquires inside {@code tx}; refuses a live lease. */
    static Lease acquireIn(JdbcTx tx, String actor, long ttlMs) throws SQLException {
        JdbcActors.requireActor(tx, actor);
        tx.lockTokenCounter();
        tx.lockLeaseChanges();
        Optional<Lease> current = lockedIn(tx, actor);
        if (current.isPresent() && current.get().attached()) {
            // An attached lease lives as long as its holder's session beats: lock that row too (decision 0913), so
            // a beat in flight is waited for, and read the lease again, now with the beat that committed. No beat
            // can commit until this transaction has: the decision below and the guard's read the same session.
            lockSession(tx, current.get().process());
            current = currentIn(tx, actor);
        }
        long now = tx.now();
        String me = tx.processIdentity();
        if (current.isPresent()) {
            requireSane(tx, current.get());
        }
        LeaseRules.requireFree(actor, current.orElse(null), now, me);
        long token = tx.mintToken();
        long change = tx.nextLeaseChange();
        Optional<Lease> granted;
        if (current.isEmpty()) {
            granted = tx.one("INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at,"
                            + " renewed_at, expires_at, renewals, renewal_journalled_at, change_seq, attached)"
                            + " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, true)"
                            + " RETURNING " + LEASE_COLUMNS,
                    PgLeases::mapLease, actor, me, token, ttlMs, now, now, now + ttlMs, now, change);
        } else {
            granted = tx.one("UPDATE actor_leases SET process_identity = ?, token = ?, ttl_ms = ?, acquired_at = ?,"
                            + " renewed_at = ?, expires_at = ?, renewals = 0, renewal_journalled_at = ?, change_seq = ?,"
                            + " presented_token = ?, presented_change = ?, attached = true"
                            + " WHERE actor_id = ? AND token = ? AND " + effectiveExpiry("actor_leases.") + " <= ?"
                            + " RETURNING " + LEASE_COLUMNS,
                    PgLeases::mapLease, me, token, ttlMs, now, now, now + ttlMs, now, change,
                    current.get().token(), change, actor, current.get().token(), now);
        }
        Lease lease = granted.orElseThrow(() -> new PgConflict(
                "lease row for " + actor + " changed under its row lock"));
        if (current.isEmpty()) {
            tx.journal(EventKind.LEASE_ACQUIRED, "actor", actor, actor, token, "ttl " + ttlMs + " ms");
        } else {
            Lease old = current.get();
            tx.journal(EventKind.LEASE_TAKEN_OVER, "actor", actor, actor, me, token, null, null, null,
                    LeaseRules.takeoverNote(old, ttlMs));
        }
        return lease;
    }

    /** Renews inside {@code tx}; {@code ttlMs < 0} keeps the lease's own TTL. */
    static Lease renewIn(JdbcTx tx, String actor, long token, long ttlMs) throws SQLException {
        tx.lockLeaseChanges();
        Optional<Lease> current = lockedIn(tx, actor);
        if (current.isPresent()) {
            requireSane(tx, current.get());
        }
        long now = tx.now();
        long change = tx.nextLeaseChange();
        Optional<Lease> renewed = tx.one("UPDATE actor_leases SET renewed_at = ?,"
                        + " ttl_ms = CASE WHEN ? > 0 THEN ? ELSE ttl_ms END,"
                        + " expires_at = ? + CASE WHEN ? > 0 THEN ? ELSE ttl_ms END,"
                        + " renewals = renewals + 1, renewal_journalled_at = ?, change_seq = ?,"
                        + " presented_token = ?, presented_change = ?, attached = true"
                        + " WHERE actor_id = ? AND process_identity = ? AND token = ?"
                        + " RETURNING " + LEASE_COLUMNS,
                PgLeases::mapLease, now, ttlMs, ttlMs, now, ttlMs, ttlMs, now, change, token, change, actor,
                tx.processIdentity(), token);
        if (renewed.isEmpty()) {
            JdbcActors.requireActor(tx, actor);
            throw LeaseRules.lost(actor, token, current.orElse(null), "renew");
        }
        tx.journal(EventKind.LEASE_RENEWED, "actor", actor, actor, token, "renewed until "
                + Instant.ofEpochMilli(renewed.get().expiresAt()));
        return renewed.get();
    }

    // ---- the common case in one round trip (schema version 5, decision 0506) ----
    //
    // Each function does the simple case of its operation (a free actor; the caller's own sane row with the
    // presented token) with the same statements, locks and journal row as the full path, and otherwise writes
    // nothing and answers "not done": the caller then runs the full path in the same transaction, which asks
    // the rule book and words the refusal, takeover or corruption. Used only as the FIRST work of a
    // transaction the engine opened for that one operation (acquire, renew, release, and the grant case of
    // acquireOrRenew…); the transactions of runs and the mailbox keep the full path (acquireIn). The casts pin
    // the overload a call resolves to.

    /** A grant of an actor with no lease row, or empty when the case is not that simple (nothing written). */
    static Optional<Lease> grantInOneCall(JdbcTx tx, String actor, long ttlMs) throws SQLException {
        if (!((PgTx) tx).mayDelegateLeaseWrites()) {
            return Optional.empty();
        }
        Optional<Lease> granted = tx.one("SELECT " + LEASE_COLUMNS + " FROM sovereign_lease_grant(?::text, ?::text,"
                + " ?::bigint) AS actor_leases", PgLeases::mapLease, actor, tx.processIdentity(), ttlMs);
        granted.ifPresent(l -> ((PgTx) tx).sawMinted(l.token()));
        return granted;
    }

    /** A renewal of the caller's own sane row, or empty when the case is not that simple (nothing written). */
    static Optional<Lease> renewInOneCall(JdbcTx tx, String actor, long token, long ttlMs) throws SQLException {
        if (!((PgTx) tx).mayDelegateLeaseWrites()) {
            return Optional.empty();
        }
        return tx.one("SELECT " + LEASE_COLUMNS + " FROM sovereign_lease_renew(?::text, ?::text, ?::bigint, ?::bigint)"
                + " AS actor_leases",
                PgLeases::mapLease, actor, tx.processIdentity(), token, ttlMs);
    }

    /** Whether the caller's own sane row was released; false when the case is not that simple (nothing written). */
    static boolean releaseInOneCall(JdbcTx tx, String actor, String me, long token) throws SQLException {
        if (!((PgTx) tx).mayDelegateLeaseWrites()) {
            return false;
        }
        return tx.one("SELECT sovereign_lease_release(?::text, ?::text, ?::bigint)", rs -> rs.getBoolean(1),
                actor, me, token).orElse(false);
    }

    /** Fails closed on a lease row the engine cannot have written (the rule: {@link LeaseRules#requireSane}). */
    static void requireSane(JdbcTx tx, Lease l) throws SQLException {
        LeaseRules.requireSane(l, tx.lastToken());
    }
}
