package dev.sovereign.engine.internal.sqlite;

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
 * Actor leases on the {@code actor_leases} table. Every grant and renewal is one guarded statement
 * inside a {@code BEGIN IMMEDIATE} transaction; a new token is minted in the same transaction as the
 * compare-and-set it authorises, and so is the lease change marker ({@link Tx#nextLeaseChange()}) the
 * written row carries (a release's marker comes from the delete trigger). Thread-safe (the
 * {@link Database} serialises access).
 */
public final class SqliteLeases implements ActorLeases {
    /**
     * A lease row's effective expiry (decision 0509), as one SQL expression over the row's columns
     * prefixed by {@code row} ({@code ""} or an alias such as {@code "l."}): for a row attached to its
     * holder's session, the later of its own {@code expires_at} and the holder's last heartbeat plus the
     * lease's TTL; otherwise its own {@code expires_at}. Every reader and every takeover of this backend
     * decides from this expression (the schema's guard from the same rule, V0007), never from a
     * figure computed in Java after the read.
     */
    static String effectiveExpiry(String row) {
        return LeaseSql.effective(Dialect.SQLITE, row, "expires_at");
    }

    /** A lease row's effective renewal time: for an attached row, its holder's last heartbeat if later. */
    static String effectiveRenewal(String row) {
        return LeaseSql.effective(Dialect.SQLITE, row, "renewed_at");
    }

    /** The console reader's lease columns after the actor, the holder's beat joined (decision 0511). */
    static String readerColumns(String row) {
        return LeaseSql.readerColumns(Dialect.SQLITE, row);
    }

    /** The lease columns {@link #mapLease} reads, of the table's row, effective expiry included. */
    static String leaseColumns(String row) {
        return LeaseSql.leaseColumns(Dialect.SQLITE, row);
    }

    static final String LEASE_COLUMNS = leaseColumns("");

    private final Database db;
    private final Grants grants;

    public SqliteLeases(Database db, Grants grants) {
        this.db = db;
        this.grants = grants;
    }

    static Lease mapLease(ResultSet rs) throws SQLException {
        return new Lease(rs.getString("actor_id"), rs.getString("process_identity"), rs.getLong("token"),
                rs.getLong("ttl_ms"), rs.getLong("acquired_at"), rs.getLong("renewed_at"), rs.getLong("expires_at"),
                rs.getInt("attached") == 1);
    }

    @Override
    public Lease acquire(String actor, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        Lease lease = db.write(tx -> acquireIn(tx, actor, ttlMs));
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
            Lease lease = db.write(tx -> renewIn(tx, actor, token, ttlMs));
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
        ReleaseOutcome outcome = db.write(tx -> releaseIn(tx, actor, token));
        grants.dropLease(actor, token);
        if (outcome.released()) {
            return true;
        }
        // Refused, whether a newer holder has the row or the row is gone: the token was stale either way
        // (docs/decisions/0005).
        db.journalRejection(LeaseRules.lostRelease(actor, token, outcome.current()));
        return false;
    }

    /** Whether a release deleted the row, and if not, the row it found (null: none). */
    record ReleaseOutcome(boolean released, Lease current) {
    }

    /**
     * Releases inside {@code tx}: the compare-and-set on (this process, {@code token}) that states the release, which
     * the schema carries out by deleting the row and journalling {@code LEASE_RELEASED} (V0008); refuses nothing
     * itself (the caller journals a stale release after the commit).
     */
    static ReleaseOutcome releaseIn(JdbcTx tx, String actor, long token) throws SQLException {
        String me = tx.processIdentity();
        Optional<Lease> before = currentIn(tx, actor);
        if (before.isPresent()) {
            requireSane(tx, before.get()); // a corrupt row is evidence: never delete it
        }
        int n = 0;
        if (LeaseRules.mayRelease(before.orElse(null), token, me)) {
            // The release states itself in the row — its token, its time and the journal row's detail — and the
            // schema removes the row in this same statement and journals LEASE_RELEASED (V0008): the only way a
            // lease row is ever deleted, so a bare DELETE is refused whatever came before it.
            long change = tx.nextLeaseChange();
            ((Tx) tx).journalClaim(); // before the release's own row, as before any row the engine journals (decision 0802)
            n = tx.update("UPDATE actor_leases SET change_seq = ?, presented_token = ?, presented_change = ?,"
                    + " released_at = ?, released_note = ? WHERE actor_id = ? AND process_identity = ? AND token = ?",
                    change, token, change, tx.now(), ((Tx) tx).attributed(null), actor, me, token);
        }
        if (n == 1) {
            return new ReleaseOutcome(true, null);
        }
        return new ReleaseOutcome(false, before.orElse(null));
    }

    @Override
    public Lease acquireOrRenew(String actor, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        String me = db.processIdentity();
        Lease lease = db.write(tx -> {
            Optional<Lease> current = currentIn(tx, actor);
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
        Lease lease = db.write(tx -> acquireOrRenewKeepingTtlIn(tx, actor, ttlMs));
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
     * {@code attached = 1}), freezing its effective renewal and expiry into the row, so it then expires on its
     * own exactly when it would have without further beats. Whether a row was detached.
     */
    static boolean detachIn(JdbcTx tx, String actor, long token) throws SQLException {
        long change = tx.nextLeaseChange();
        return tx.update("UPDATE actor_leases SET renewed_at = " + effectiveRenewal("") + ", expires_at = "
                + effectiveExpiry("") + ", attached = 0, change_seq = ?, presented_token = ?, presented_change = ?"
                + " WHERE actor_id = ? AND process_identity = ? AND token = ? AND attached = 1",
                change, token, change, actor, tx.processIdentity(), token) == 1;
    }

    @Override
    public Optional<Lease> current(String actor) {
        return db.read(tx -> currentIn(tx, actor));
    }

    @Override
    public List<Lease> list() {
        return db.read(tx -> tx.query("SELECT " + LEASE_COLUMNS + " FROM actor_leases ORDER BY actor_id",
                SqliteLeases::mapLease));
    }

    @Override
    public List<Lease> held() {
        return grants.leases();
    }

    // ---- transaction-level operations, reused by runs and the mailbox ----

    static Optional<Lease> currentIn(JdbcTx tx, String actor) throws SQLException {
        return tx.one("SELECT " + LEASE_COLUMNS + " FROM actor_leases WHERE actor_id = ?", SqliteLeases::mapLease,
                actor);
    }

    /** This process's own row renewed with its own TTL, else acquired with {@code ttlMs}, inside {@code tx}. */
    static Lease acquireOrRenewKeepingTtlIn(JdbcTx tx, String actor, long ttlMs) throws SQLException {
        Optional<Lease> current = currentIn(tx, actor);
        if (LeaseRules.heldBy(current.orElse(null), tx.processIdentity())) {
            return renewIn(tx, actor, current.get().token(), -1);
        }
        return acquireIn(tx, actor, ttlMs);
    }

    /** Acquires inside {@code tx}; refuses a live lease. */
    static Lease acquireIn(JdbcTx tx, String actor, long ttlMs) throws SQLException {
        JdbcActors.requireActor(tx, actor);
        Optional<Lease> current = currentIn(tx, actor);
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
                            + " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 1) ON CONFLICT (actor_id) DO NOTHING"
                            + " RETURNING " + LEASE_COLUMNS,
                    SqliteLeases::mapLease, actor, me, token, ttlMs, now, now, now + ttlMs, now, change);
        } else {
            granted = tx.one("UPDATE actor_leases SET process_identity = ?, token = ?, ttl_ms = ?, acquired_at = ?,"
                            + " renewed_at = ?, expires_at = ?, renewals = 0, renewal_journalled_at = ?, change_seq = ?,"
                            + " presented_token = ?, presented_change = ?, attached = 1"
                            + " WHERE actor_id = ? AND token = ? AND " + effectiveExpiry("") + " <= ?"
                            + " RETURNING " + LEASE_COLUMNS,
                    SqliteLeases::mapLease, me, token, ttlMs, now, now, now + ttlMs, now, change,
                    current.get().token(), change, actor, current.get().token(), now);
        }
        Lease lease = granted.orElseThrow(() -> new IllegalStateException(
                "lease row for " + actor + " changed under the write lock"));
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
        Optional<Lease> current = currentIn(tx, actor);
        if (current.isPresent()) {
            requireSane(tx, current.get());
        }
        long now = tx.now();
        long change = tx.nextLeaseChange();
        Optional<Lease> renewed = tx.one("UPDATE actor_leases SET renewed_at = ?,"
                        + " ttl_ms = CASE WHEN ? > 0 THEN ? ELSE ttl_ms END,"
                        + " expires_at = ? + CASE WHEN ? > 0 THEN ? ELSE ttl_ms END,"
                        + " renewals = renewals + 1, renewal_journalled_at = ?, change_seq = ?,"
                        + " presented_token = ?, presented_change = ?, attached = 1"
                        + " WHERE actor_id = ? AND process_identity = ? AND token = ?"
                        + " RETURNING " + LEASE_COLUMNS,
                SqliteLeases::mapLease, now, ttlMs, ttlMs, now, ttlMs, ttlMs, now, change, token, change, actor,
                tx.processIdentity(), token);
        if (renewed.isEmpty()) {
            JdbcActors.requireActor(tx, actor);
            throw LeaseRules.lost(actor, token, current.orElse(null), "renew");
        }
        tx.journal(EventKind.LEASE_RENEWED, "actor", actor, actor, token, "renewed until "
                + Instant.ofEpochMilli(renewed.get().expiresAt()));
        return renewed.get();
    }

    /** Fails closed on a lease row the engine cannot have written (the rule: {@link LeaseRules#requireSane}). */
    static void requireSane(JdbcTx tx, Lease l) throws SQLException {
        LeaseRules.requireSane(l, tx.lastToken());
    }
}
