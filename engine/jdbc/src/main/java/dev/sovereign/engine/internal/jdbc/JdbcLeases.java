package dev.sovereign.engine.internal.jdbc;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.ActorLeases;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.lease.LeaseKeeping;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.rules.LeaseRules;
import dev.sovereign.engine.spi.Grants;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Actor leases on the {@code actor_leases} table, for both backends. Every grant, renewal and release is one
 * transaction that first locks what it will write, in the order of decision 0900 (the token counter's row for the
 * actor when it may mint, the lease change counter, the lease row), reads the row under the lock, asks the rule book
 * ({@link LeaseRules}) and sends the one compare-and-set in the shape the schema's guards accept: the token minted and
 * the change marker in the same transaction, the row stating the token it presents. On PostgreSQL the locks are row
 * locks ({@link JdbcTx#lockTokenCounter(String)}, {@link Dialect#forUpdate()}; since schema version 18 the change
 * marker is the transaction's id and {@link JdbcTx#lockLeaseChanges()} locks nothing, decision 0923); locking the
 * actor's counter row first matters for a free actor, which has no lease row to lock yet, so a second grant waits on
 * that row and then sees the first one's row. On SQLite they are nothing: {@code BEGIN IMMEDIATE} already holds the file's one
 * write lock. The SQL differs between the backends only in a {@link Dialect}'s words.
 *
 * <p>What a backend truly does its own way is one small hook it passes in, {@link LeaseWrites}. Its defaults are the
 * plain way; each backend overrides only its own differences, so neither branches on the other's name:
 * <ul>
 *   <li>SQLite's release: the schema ends the row and journals {@code LEASE_RELEASED} itself, from the one
 *       {@code UPDATE} that states the release (V0008), where the default states it, deletes the row and journals
 *       ({@link LeaseWrites#release});</li>
 *   <li>PostgreSQL's one-call lease functions (schema version 5, decision 0506): {@link #acquire}, {@link #renew},
 *       {@link #release} and the grant case of {@code acquireOrRenew…} (an actor this engine does not hold) first
 *       offer their transaction to one of them, which writes the common case in one round trip, or nothing; the full
 *       path here then runs in the same transaction and decides ({@link LeaseWrites#grantInOneCall} and its
 *       siblings; the default offers nothing). SQLite offers a grant, a release and a renewal too, each with one read where the
 *       full path reads twice (decision 0512);</li>
 *   <li>PostgreSQL's lock on the holder's session before a takeover of an attached lease decides (decision 0913),
 *       and its retry of a compare-and-set that lost a race its locks should have excluded
 *       ({@link LeaseWrites#lockHoldersSession}, {@link LeaseWrites#changedUnderLock}; by default no lock is needed
 *       and such a loss is a bug).</li>
 * </ul>
 * The transaction-level operations ({@code …In}) are reused by runs, the mailbox and the beat. Thread-safe (the door
 * serialises this engine's access).
 */
public final class JdbcLeases implements ActorLeases {
    /**
     * What a backend writes its own way, the one hook a {@link JdbcLeases} is given. Every method has the plain way as
     * its default; a backend overrides only what its schema or its locking does differently. Stateless.
     */
    public interface LeaseWrites {
        /**
         * Ends this process's lease of {@code actor} under {@code token}, whose row this transaction read under its
         * lock and the rule book lets it release, carrying the lease change marker {@code change}, with the
         * {@code LEASE_RELEASED} journal row. Whether the row is gone.
         *
         * <p>The default states the release in the row first (its token and marker: the schema refuses a bare
         * {@code DELETE}), then deletes it, both statements carrying the same fence in their {@code WHERE}, and
         * journals the release. A statement that finds no row although the row was read under the lock is
         * {@link #changedUnderLock}.
         */
        default boolean release(JdbcTx tx, String actor, long token, long change) throws SQLException {
            String me = tx.processIdentity();
            int stated = tx.update(
                    "UPDATE actor_leases SET change_seq = ?, presented_token = ?, presented_change = ?"
                            + " WHERE actor_id = ? AND process_identity = ? AND token = ?",
                    change,
                    token,
                    change,
                    actor,
                    me,
                    token);
            int n = stated == 1
                    ? tx.update(
                            "DELETE FROM actor_leases WHERE actor_id = ? AND process_identity = ?" + " AND token = ?",
                            actor,
                            me,
                            token)
                    : 0;
            if (n != 1) {
                throw changedUnderLock(actor);
            }
            tx.journal(EventKind.LEASE_RELEASED, "actor", actor, actor, token, null);
            return true;
        }

        /**
         * Before a takeover of a lease attached to {@code holder}'s session decides: locks what the holder's beat
         * writes, so a beat in flight is waited for and none commits until this transaction has (decision 0913);
         * whether it did, the lease then being read again with the beat that committed. The default locks nothing:
         * where the transaction holds the database's one write lock, no beat can commit in between.
         */
        default boolean lockHoldersSession(JdbcTx tx, String holder) throws SQLException {
            return false;
        }

        /**
         * What a compare-and-set on {@code actor}'s lease row throws when it matched no row although this transaction
         * read that row under its lock. By default a bug: the one write lock excludes every other writer.
         */
        default RuntimeException changedUnderLock(String actor) {
            return new IllegalStateException("lease row for " + actor + " changed under the write lock");
        }

        /**
         * A grant of a free actor written in one call, or empty when the case is not that simple and nothing was
         * written. Offered only as the FIRST work of a transaction opened for that one operation; the full path then
         * runs in the same transaction. The default never writes.
         */
        default Optional<Lease> grantInOneCall(JdbcTx tx, String actor, long ttlMs) throws SQLException {
            return Optional.empty();
        }

        /** A renewal of this process's own sane row under {@code token} in one call, else empty; as above. */
        default Optional<Lease> renewInOneCall(JdbcTx tx, String actor, long token, long ttlMs) throws SQLException {
            return Optional.empty();
        }

        /** Whether this process's own sane row under {@code token} was released in one call; as above. */
        default boolean releaseInOneCall(JdbcTx tx, String actor, long token) throws SQLException {
            return false;
        }
    }

    /**
     * How every statement here names the lease row's columns: by the table's name, which also names a one-call
     * function's row where it is aliased as the table.
     */
    private static final String ROW = "actor_leases.";

    /** {@link #columns} of each dialect, built once: every lease statement names them. */
    private static final Map<Dialect, String> COLUMNS = new ConcurrentHashMap<>();

    private final Transactions db;
    private final Grants grants;
    private final LeaseWrites writes;

    public JdbcLeases(Transactions db, Grants grants, LeaseWrites writes) {
        this.db = db;
        this.grants = grants;
        this.writes = writes;
    }

    /** The lease columns {@link #mapLease} reads, of {@code actor_leases} (or a row aliased so), effective times included. */
    public static String columns(Dialect d) {
        return COLUMNS.computeIfAbsent(d, dialect -> LeaseSql.leaseColumns(dialect, ROW));
    }

    public static Lease mapLease(ResultSet rs) throws SQLException {
        return new Lease(
                rs.getString("actor_id"),
                rs.getString("process_identity"),
                rs.getLong("token"),
                rs.getLong("ttl_ms"),
                rs.getLong("acquired_at"),
                rs.getLong("renewed_at"),
                rs.getLong("expires_at"),
                rs.getBoolean("attached"));
    }

    @Override
    public Lease acquire(String actor, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        Lease lease = db.write(tx -> {
            Optional<Lease> granted = writes.grantInOneCall(tx, actor, ttlMs);
            return granted.isPresent() ? granted.get() : acquireIn(tx, writes, actor, ttlMs);
        });
        grants.holdLease(lease);
        return lease;
    }

    @Override
    public Lease acquire(String actor, Duration ttl, LeaseKeeping keeping) {
        if (Arguments.requirePresent(keeping, "lease keeping") == LeaseKeeping.HEARTBEAT) {
            return acquire(actor, ttl);
        }
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        // Not offered to the one-call grant: that writes an attached lease. Not held in this engine's beliefs either:
        // a belief is what the heartbeat keeps alive and what closing the engine releases (decision 0116).
        return db.write(tx -> acquireIn(tx, writes, actor, ttlMs, false));
    }

    @Override
    public Lease extend(String actor, long token, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        try {
            Lease lease = db.write(tx -> renewIn(tx, actor, token, ttlMs, true));
            if (lease.attached()) {
                grants.holdLease(lease);
            }
            return lease;
        } catch (Refusal r) {
            if (r.category() == ACTOR_LEASE_LOST
                    && grants.lease(actor) != null
                    && grants.lease(actor).token() == token) {
                grants.leaseLost(actor, token);
            }
            throw r;
        }
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
                Optional<Lease> renewed = writes.renewInOneCall(tx, actor, token, ttlMs);
                return renewed.isPresent() ? renewed.get() : renewIn(tx, actor, token, ttlMs, false);
            });
            grants.holdLease(lease);
            return lease;
        } catch (Refusal r) {
            if (r.category() == ACTOR_LEASE_LOST
                    && grants.lease(actor) != null
                    && grants.lease(actor).token() == token) {
                grants.leaseLost(actor, token);
            }
            throw r;
        }
    }

    @Override
    public boolean release(String actor, long token) {
        ReleaseOutcome outcome = db.write(tx -> writes.releaseInOneCall(tx, actor, token)
                ? new ReleaseOutcome(true, null)
                : releaseIn(tx, writes, actor, token));
        grants.dropLease(actor, token);
        if (outcome.released()) {
            return true;
        }
        // Refused, whether a newer holder has the row or the row is gone: the token was stale either way
        // (docs/decisions/0005).
        db.journalRejection(LeaseRules.lostRelease(actor, token, outcome.current()));
        return false;
    }

    @Override
    public boolean releaseKeepingUntil(String actor, long token, Instant keepUntil) {
        long until = Arguments.instantMillis(keepUntil, "keep-until time");
        ReleaseOutcome outcome = db.write(tx -> {
            tx.lockLeaseChanges();
            Optional<Lease> before = lockedIn(tx, actor);
            if (before.isPresent()) {
                requireSane(tx, before.get()); // a corrupt row is evidence: never delete or rewrite it
            }
            long now = tx.now();
            if (until <= now || !LeaseRules.mayRelease(before.orElse(null), token, tx.processIdentity())) {
                return releaseIn(tx, writes, actor, token);
            }
            // Kept until the time: a renewal from now whose TTL ends at it, detached from the session first when
            // attached (the schema lets a detach only freeze the session's times, decision 0509), all under the
            // locks taken above, in this one transaction.
            long ttlMs = LeaseRules.keptUntilTtl(until, now);
            if (before.get().attached()) {
                detachIn(tx, actor, token);
            }
            long change = tx.nextLeaseChange();
            int n = tx.update(
                    "UPDATE actor_leases SET renewed_at = ?, ttl_ms = ?, expires_at = ?, renewals = renewals + 1,"
                            + " renewal_journalled_at = ?, change_seq = ?, presented_token = ?, presented_change = ?"
                            + " WHERE actor_id = ? AND process_identity = ? AND token = ?",
                    now,
                    ttlMs,
                    until,
                    now,
                    change,
                    token,
                    change,
                    actor,
                    tx.processIdentity(),
                    token);
            if (n != 1) {
                throw writes.changedUnderLock(actor);
            }
            tx.journal(EventKind.LEASE_RENEWED, "actor", actor, actor, token, LeaseRules.keptUntilNote(until));
            return new ReleaseOutcome(true, null);
        });
        grants.dropLease(actor, token);
        if (outcome.released()) {
            return true;
        }
        db.journalRejection(LeaseRules.lostRelease(actor, token, outcome.current()));
        return false;
    }

    /** Whether a release ended the row, and if not, the row it found (null: none). */
    public record ReleaseOutcome(boolean released, Lease current) {}

    /**
     * Releases inside {@code tx}: the compare-and-set on (this process, {@code token}) that ends the row, written as
     * the backend's {@link LeaseWrites#release} does; refuses nothing itself (the caller journals a stale release
     * after the commit).
     */
    public static ReleaseOutcome releaseIn(JdbcTx tx, LeaseWrites writes, String actor, long token)
            throws SQLException {
        tx.lockLeaseChanges();
        Optional<Lease> before = lockedIn(tx, actor);
        if (before.isPresent()) {
            requireSane(tx, before.get()); // a corrupt row is evidence: never delete it
        }
        if (LeaseRules.mayRelease(before.orElse(null), token, tx.processIdentity())
                && writes.release(tx, actor, token, tx.nextLeaseChange())) {
            return new ReleaseOutcome(true, null);
        }
        return new ReleaseOutcome(false, before.orElse(null));
    }

    @Override
    public Lease acquireOrRenew(String actor, Duration ttl) {
        long ttlMs = Arguments.leaseTtlMillis(ttl);
        return acquireOrRenewAndHold(actor, ttlMs, ttlMs);
    }

    @Override
    public Lease acquireOrRenewKeepingTtl(String actor, Duration ttlIfAcquired) {
        long ttlMs = Arguments.leaseTtlMillis(ttlIfAcquired);
        return acquireOrRenewAndHold(actor, ttlMs, -1);
    }

    private Lease acquireOrRenewAndHold(String actor, long ttlMs, long renewalTtlMs) {
        boolean heldHere = grants.lease(actor) != null;
        Lease lease = db.write(tx -> {
            // Not held by this engine as far as it knows: most likely free, so offer the grant to the one-call path
            // first (it takes the token counter first too, so the fall-back below keeps 0900's order).
            Optional<Lease> granted = heldHere ? Optional.empty() : writes.grantInOneCall(tx, actor, ttlMs);
            return granted.isPresent() ? granted.get() : acquireOrRenewIn(tx, writes, actor, ttlMs, renewalTtlMs);
        });
        grants.holdLease(lease);
        return lease;
    }

    /** This process's own row renewed with its own TTL, else acquired with {@code ttlMs}, inside {@code tx}. */
    public static Lease acquireOrRenewKeepingTtlIn(JdbcTx tx, LeaseWrites writes, String actor, long ttlMs)
            throws SQLException {
        return acquireOrRenewIn(tx, writes, actor, ttlMs, -1);
    }

    /** This process's own row renewed ({@code renewalTtlMs < 0}: its own TTL kept), else acquired with {@code ttlMs}. */
    private static Lease acquireOrRenewIn(JdbcTx tx, LeaseWrites writes, String actor, long ttlMs, long renewalTtlMs)
            throws SQLException {
        tx.lockTokenCounter(actor);
        tx.lockLeaseChanges();
        Optional<Lease> current = lockedIn(tx, actor);
        if (LeaseRules.heldBy(current.orElse(null), tx.processIdentity())) {
            return renewIn(tx, actor, current.get().token(), renewalTtlMs, false);
        }
        return acquireIn(tx, writes, actor, ttlMs);
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
    public static boolean detachIn(JdbcTx tx, String actor, long token) throws SQLException {
        Dialect d = tx.dialect();
        tx.lockLeaseChanges();
        long change = tx.nextLeaseChange();
        return tx.update(
                        "UPDATE actor_leases SET renewed_at = " + LeaseSql.effective(d, ROW, "renewed_at")
                                + ", expires_at = " + LeaseSql.effective(d, ROW, "expires_at") + ", attached = "
                                + d.literal(false)
                                + ", change_seq = ?, presented_token = ?, presented_change = ?"
                                + " WHERE actor_id = ? AND process_identity = ? AND token = ? AND "
                                + d.isTrue("attached"),
                        change,
                        token,
                        change,
                        actor,
                        tx.processIdentity(),
                        token)
                == 1;
    }

    @Override
    public Optional<Lease> current(String actor) {
        return db.read(tx -> currentIn(tx, actor));
    }

    @Override
    public List<Lease> list() {
        return db.read(tx -> tx.query(
                "SELECT " + columns(tx.dialect()) + " FROM actor_leases ORDER BY actor_id", JdbcLeases::mapLease));
    }

    @Override
    public List<Lease> held() {
        return grants.leases();
    }

    // ---- transaction-level operations, reused by runs, the mailbox and the beat ----

    /** The lease row as this transaction sees it, without a row lock. */
    public static Optional<Lease> currentIn(JdbcTx tx, String actor) throws SQLException {
        return tx.one(
                "SELECT " + columns(tx.dialect()) + " FROM actor_leases WHERE actor_id = ?",
                JdbcLeases::mapLease,
                actor);
    }

    /** The lease row, locked for update until the end of {@code tx} (after the counters, decision 0900). */
    public static Optional<Lease> lockedIn(JdbcTx tx, String actor) throws SQLException {
        return tx.one(
                "SELECT " + columns(tx.dialect()) + " FROM actor_leases WHERE actor_id = ?"
                        + tx.dialect().forUpdate(),
                JdbcLeases::mapLease,
                actor);
    }

    /** The lease row, locked for share: a writer that relies on it (an attempt, a claim) waits for a takeover. */
    public static Optional<Lease> sharedIn(JdbcTx tx, String actor) throws SQLException {
        return tx.one(
                "SELECT " + columns(tx.dialect()) + " FROM actor_leases WHERE actor_id = ?"
                        + tx.dialect().forShare(),
                JdbcLeases::mapLease,
                actor);
    }

    /** Acquires inside {@code tx} a lease kept alive by the heartbeat; refuses a live lease. */
    public static Lease acquireIn(JdbcTx tx, LeaseWrites writes, String actor, long ttlMs) throws SQLException {
        return acquireIn(tx, writes, actor, ttlMs, true);
    }

    /** Acquires inside {@code tx}, attached to this process's session or not (decision 0116); refuses a live lease. */
    private static Lease acquireIn(JdbcTx tx, LeaseWrites writes, String actor, long ttlMs, boolean attach)
            throws SQLException {
        JdbcActors.requireActor(tx, actor);
        tx.lockTokenCounter(actor);
        tx.lockLeaseChanges();
        Optional<Lease> current = lockedIn(tx, actor);
        if (current.isPresent()
                && current.get().attached()
                && writes.lockHoldersSession(tx, current.get().process())) {
            // An attached lease lives as long as its holder's session beats: with that session locked too (decision
            // 0913), the lease is read again, now with the beat that committed. No beat can commit until this
            // transaction has: the decision below and the guard's read the same session.
            current = currentIn(tx, actor);
        }
        long now = tx.now();
        String me = tx.processIdentity();
        if (current.isPresent()) {
            requireSane(tx, current.get());
        }
        LeaseRules.requireFree(actor, current.orElse(null), now, me);
        if (current.isEmpty()) {
            return grantFreeIn(tx, writes, actor, ttlMs, attach, now);
        }
        long token = tx.mintToken(actor);
        long change = tx.nextLeaseChange();
        Dialect d = tx.dialect();
        Optional<Lease> granted = tx.one(
                "UPDATE actor_leases SET process_identity = ?, token = ?, ttl_ms = ?, acquired_at = ?,"
                        + " renewed_at = ?, expires_at = ?, renewals = 0, renewal_journalled_at = ?, change_seq = ?,"
                        + " presented_token = ?, presented_change = ?, attached = " + d.literal(attach)
                        + " WHERE actor_id = ? AND token = ? AND " + LeaseSql.effective(d, ROW, "expires_at")
                        + " <= ? RETURNING " + columns(d),
                JdbcLeases::mapLease,
                me,
                token,
                ttlMs,
                now,
                now,
                now + ttlMs,
                now,
                change,
                current.get().token(),
                change,
                actor,
                current.get().token(),
                now);
        Lease lease = granted.orElseThrow(() -> writes.changedUnderLock(actor));
        tx.journal(
                EventKind.LEASE_TAKEN_OVER,
                "actor",
                actor,
                actor,
                me,
                token,
                null,
                null,
                null,
                LeaseRules.takeoverNote(current.get(), ttlMs));
        return lease;
    }

    /**
     * The grant of {@code actor}, which this transaction found to exist and to have no lease row under its locks (the
     * rule book's "free"): the token minted, the change marker, the row inserted (a conflict would be a row written
     * under the lock: {@link LeaseWrites#changedUnderLock}) and {@code LEASE_ACQUIRED} journalled, all at {@code now}.
     * The full path's case of a free actor, and a backend's one-call grant once it has read the same.
     */
    public static Lease grantFreeIn(JdbcTx tx, LeaseWrites writes, String actor, long ttlMs, boolean attach, long now)
            throws SQLException {
        long token = tx.mintToken(actor);
        long change = tx.nextLeaseChange();
        Dialect d = tx.dialect();
        Lease lease = tx.one(
                        "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at,"
                                + " renewed_at, expires_at, renewals, renewal_journalled_at, change_seq, attached)"
                                + " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, " + d.literal(attach) + ")"
                                + " ON CONFLICT (actor_id) DO NOTHING RETURNING " + columns(d),
                        JdbcLeases::mapLease,
                        actor,
                        tx.processIdentity(),
                        token,
                        ttlMs,
                        now,
                        now,
                        now + ttlMs,
                        now,
                        change)
                .orElseThrow(() -> writes.changedUnderLock(actor));
        tx.journal(EventKind.LEASE_ACQUIRED, "actor", actor, actor, token, "ttl " + ttlMs + " ms");
        return lease;
    }

    /** Renews inside {@code tx}; {@code ttlMs < 0} keeps the lease's own TTL. */
    public static Lease renewIn(JdbcTx tx, String actor, long token, long ttlMs) throws SQLException {
        return renewIn(tx, actor, token, ttlMs, false);
    }

    /**
     * Renews inside {@code tx}. A plain renewal attaches the lease to this process's session (the holder says it
     * keeps it); an extension ({@code onlyIfLive}) keeps its way of keeping and also refuses, in the same statement,
     * a lease whose effective expiry has passed (decision 0116).
     */
    private static Lease renewIn(JdbcTx tx, String actor, long token, long ttlMs, boolean onlyIfLive)
            throws SQLException {
        tx.lockLeaseChanges();
        Optional<Lease> current = lockedIn(tx, actor);
        if (current.isPresent()) {
            requireSane(tx, current.get());
        }
        return renewSaneIn(tx, actor, token, ttlMs, onlyIfLive, current);
    }

    /**
     * The renewal's compare-and-set and journal row, once {@code current} (the row as this transaction read it under
     * its lock, found sane) is known: the full path's, and a backend's one-call renewal once it has read the same.
     * Refuses a row that is not this process's under {@code token} (or, {@code onlyIfLive}, not live).
     */
    public static Lease renewSaneIn(
            JdbcTx tx, String actor, long token, long ttlMs, boolean onlyIfLive, Optional<Lease> current)
            throws SQLException {
        long now = tx.now();
        long change = tx.nextLeaseChange();
        Dialect d = tx.dialect();
        // Arrays.asList, not List.of: a bad actor id (null) must reach the statement and be refused as lost
        List<Object> args = new ArrayList<>(Arrays.asList(
                now, ttlMs, ttlMs, now, ttlMs, ttlMs, now, change, token, change, actor, tx.processIdentity(), token));
        if (onlyIfLive) {
            args.add(now); // the lease's effective expiry must still be ahead (decision 0116)
        }
        Optional<Lease> renewed = tx.one(
                "UPDATE actor_leases SET renewed_at = ?,"
                        + " ttl_ms = CASE WHEN ? > 0 THEN ? ELSE ttl_ms END,"
                        + " expires_at = ? + CASE WHEN ? > 0 THEN ? ELSE ttl_ms END,"
                        + " renewals = renewals + 1, renewal_journalled_at = ?, change_seq = ?,"
                        + " presented_token = ?, presented_change = ?, attached = "
                        + (onlyIfLive ? "attached" : d.literal(true))
                        + " WHERE actor_id = ? AND process_identity = ? AND token = ?"
                        + (onlyIfLive ? " AND " + LeaseSql.effective(d, ROW, "expires_at") + " > ?" : "")
                        + " RETURNING " + columns(d),
                JdbcLeases::mapLease,
                args.toArray());
        if (renewed.isEmpty()) {
            JdbcActors.requireActor(tx, actor);
            throw onlyIfLive
                    ? LeaseRules.notExtended(actor, token, current.orElse(null), tx.processIdentity(), now)
                    : LeaseRules.lost(actor, token, current.orElse(null), "renew");
        }
        tx.journal(
                EventKind.LEASE_RENEWED,
                "actor",
                actor,
                actor,
                token,
                "renewed until " + Instant.ofEpochMilli(renewed.get().expiresAt()));
        return renewed.get();
    }

    /** Fails closed on a lease row the engine cannot have written (the rule: {@link LeaseRules#requireSane}). */
    public static void requireSane(JdbcTx tx, Lease l) throws SQLException {
        LeaseRules.requireSane(l, tx.lastToken());
    }
}
