package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.rules.LeaseRules;
import dev.sovereign.engine.rules.RunRules;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.SessionCheck;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One heartbeat, for both backends: ONE transaction that stamps this process's {@code heartbeat_at} — its session,
 * which keeps every lease it holds alive (each lease is attached to its holder's session, decision 0509: its
 * effective expiry is the later of its own and the last beat plus its TTL) — and renews every attempt it believes it
 * holds, each presenting its token. A beat writes one row for all its leases, however many.
 *
 * <p>The beat still finds out, every time, whether the database agrees with what the process believes it holds
 * ({@link SessionCheck}): one read of the covering index {@code actor_leases_by_process} compares the count and a
 * checksum of the tokens attached to this session with those of the beliefs; when they differ, and at least every
 * {@link SessionCheck#VERIFY_EVERY_MS}, it reads the attached rows themselves. A believed lease that is not there
 * (taken over after this session lapsed, or changed by hand) is lost — dropped from {@link Grants}, the listeners
 * told at once and a {@code REJECTED} journalled in the same transaction (docs/decisions/0005); a row attached to
 * this session that the process does not believe it holds (a write whose outcome it never learned, a lease it
 * dropped) would otherwise live as long as the process beats: seen so by two comparisons in a row, it is detached
 * with the expiry it has then, and expires on its own.
 *
 * <p>An attempt is renewed only while the actor lease it was bound to is still this process's and its assignment
 * still points at it: a takeover of the actor, or a stolen fence, therefore also ends the old holder's attempt at its
 * next beat (and its provider is cancelled). Journal: a beat journals nothing per lease (the process row shows the
 * session's last beat; the journal keeps grants, releases, takeovers and every refusal). Attempts are renewed row by
 * row (decision 0003): a process runs few at a time.
 */
public final class JdbcHeartbeat {
    /** What a backend does differently around its beat's session row. */
    public interface Hooks {
        /**
         * What the beat writes into its session row's {@code heartbeat_at}, {@code ?} standing for the beat's clock
         * reading. SQLite's guard (V0008's {@code processes_beat_only_forward}) refuses a beat that moves back, so
         * SQLite writes the later of the two: after a clock step back the session keeps the beat already stamped, as
         * an attempt keeps the expiry it was promised (decision 0600). PostgreSQL's guard (V0008) stamps the server's
         * clock whatever is written, so it writes the reading.
         */
        String sessionStamp();

        /**
         * Locks, before the session row, the lease rows the held attempts are bound to, where a backend locks rows
         * (decision 0913): shared, so a takeover of one of them waits for this beat or this beat for it. Called only
         * when attempts are held; SQLite locks nothing (its transaction already holds the file's one write lock).
         */
        void lockLeasesOfAttempts(JdbcTx tx, Collection<String> attemptIds) throws SQLException;

        /**
         * The beat's three statements — the stamp of this process's session row, the token counter, the session
         * check over its sane attached rows — as one call to the server, where a backend has one (PostgreSQL's
         * {@code sovereign_beat}, decision 0919), each still read after the stamp; {@code null} where the backend
         * sends the statements themselves (SQLite: no round trips to save). Called after the locks of the beat.
         */
        default OneCall beatInOneCall(JdbcTx tx, String process) throws SQLException {
            return null;
        }
    }

    /**
     * What {@link Hooks#beatInOneCall} read: the stamp the session row holds ({@code null}: the process has no row),
     * the counter's last token and the session check's count and residue sum ({@link LeaseSql#checkColumns}).
     */
    public record OneCall(Long beatAt, long lastToken, long attached, long residues) {}

    private final Transactions db;
    private final Grants grants;
    private final Hooks hooks;
    private final SessionCheck check = new SessionCheck();

    public JdbcHeartbeat(Transactions db, Grants grants, Hooks hooks) {
        this.db = db;
        this.grants = grants;
        this.hooks = hooks;
    }

    /** What one beat found. Beats of one engine are serialised (the scheduled one and a test's own). */
    public synchronized Beat beat() {
        Grants.Beliefs beliefs = grants.beliefs();
        Map<String, Long> heldAttempts = grants.attempts();
        String me = db.processIdentity();
        long[] beatAt = new long[1];
        Beat beat = db.write(tx -> {
            Dialect d = tx.dialect();
            // The order (decision 0913): the lease change counter only when this beat may detach a row (a detach
            // raises it; on PostgreSQL since schema version 18 it is the transaction's id and locks nothing), then —
            // shared — the lease rows the held attempts are bound to, then the session row. A
            // takeover locks the lease row, then the holder's session row FOR SHARE: so it waits for a beat in
            // flight and then sees it, or this beat's UPDATE waits for the takeover and every statement after it
            // sees the takeover. Either way a committed beat and a committed takeover of one lease never both
            // believe they hold it. (SQLite's transaction holds the file's one write lock: these lock nothing.)
            if (check.mayDetach()) {
                tx.lockLeaseChanges();
            }
            if (!heldAttempts.isEmpty()) {
                hooks.lockLeasesOfAttempts(tx, heldAttempts.keySet());
            }
            long now;
            long[] found;
            OneCall call = hooks.beatInOneCall(tx, me);
            if (call != null) {
                // the server stamped the session with its own clock: that reading is the beat's time
                now = call.beatAt() != null ? call.beatAt() : tx.now();
                beatAt[0] = now;
                db.requireCounterNotBelowSeen(call.lastToken());
                found = new long[] {call.attached(), call.residues()};
            } else {
                now = tx.now();
                // What the session row holds after the stamp is the beat: what the process believes is the session
                // the database has. The same statement reads the counter: below a token this engine saw, the ledger
                // went backwards (decision 0605).
                long[] stamped = tx.one(
                                "UPDATE processes SET heartbeat_at = " + hooks.sessionStamp()
                                        + " WHERE identity = ? RETURNING heartbeat_at, " + JdbcTx.LAST_TOKEN,
                                rs -> new long[] {rs.getLong(1), rs.getLong(2)},
                                now,
                                me)
                        .orElse(null);
                beatAt[0] = stamped == null ? now : stamped[0];
                db.requireCounterNotBelowSeen(stamped == null ? tx.lastToken() : stamped[1]);
                // a statement of its own, after the stamp: it must see a takeover the stamp waited for (0913)
                found = tx.one(sessionCheck(d), rs -> new long[] {rs.getLong(1), rs.getLong(2)}, me)
                        .orElseThrow();
            }
            Map<String, Long> lostLeases = new HashMap<>();
            if (check.mustCompare(found, beliefs, now)) {
                Map<String, Long> attached = new HashMap<>();
                tx.query(
                        "SELECT actor_id, token FROM actor_leases" + sessionRows(d),
                        rs -> attached.put(rs.getString(1), rs.getLong(2)),
                        me);
                SessionCheck.Outcome outcome = check.compare(beliefs, attached, now);
                lostLeases.putAll(outcome.lost());
                for (Map.Entry<String, Long> row : outcome.toDetach().entrySet()) {
                    JdbcLeases.detachIn(tx, row.getKey(), row.getValue());
                }
            }
            List<Lease> kept = SessionCheck.kept(beliefs, lostLeases, beatAt[0]);
            Set<String> renewedAttempts = heldAttempts.isEmpty() ? Set.of() : renewAttempts(tx, me, heldAttempts);
            Map<String, Long> lostAttempts = new HashMap<>();
            heldAttempts.forEach((id, token) -> {
                if (!renewedAttempts.contains(id)) {
                    lostAttempts.put(id, token);
                }
            });
            // Every refused renewal is a refused write of a presented token: journalled here, in the beat's
            // own transaction (docs/decisions/0005).
            for (Map.Entry<String, Long> lost : lostLeases.entrySet()) {
                journalLostLease(tx, me, lost.getKey(), lost.getValue());
            }
            for (Map.Entry<String, Long> lost : lostAttempts.entrySet()) {
                journalLostAttempt(tx, lost.getKey(), lost.getValue());
            }
            return new Beat(kept, renewedAttempts, lostLeases, lostAttempts);
        });
        beat.lostLeases().forEach(grants::leaseLost);
        grants.sessionKept(beatAt[0]);
        beat.lostAttempts().forEach(grants::attemptLost);
        return beat;
    }

    /**
     * The session check's statement: its two values ({@link LeaseSql#checkColumns}) over this process's sane attached
     * rows, the process bound as the one parameter. PostgreSQL's {@code sovereign_beat} (decision 0919) computes the
     * same; a test holds the two to each other.
     */
    public static String sessionCheck(Dialect d) {
        return "SELECT " + LeaseSql.checkColumns("token") + " FROM actor_leases" + sessionRows(d);
    }

    /**
     * The rows the session check's values ({@link LeaseSql#checkColumns}) are computed over: this process's sane
     * attached rows, from the covering index {@code actor_leases_by_process}. A corrupt row is never kept as if it
     * were held ({@link #saneLease}).
     */
    private static String sessionRows(Dialect d) {
        return " WHERE process_identity = ? AND " + d.isTrue("attached") + " AND " + saneLease("");
    }

    /**
     * A lease row this process may renew: it names this process and the presented token (in the statement) and is
     * sane — a token the counter issued and an expiry its TTL allows. A corrupt row is never renewed (a renewal would
     * overwrite the evidence): the beat treats it as lost and journals {@code corrupt_lease_state}, the same check as
     * the lease store's before it writes a row.
     */
    static String saneLease(String row) {
        return row + "token > 0 AND " + row + "token <= " + JdbcTx.LAST_TOKEN + " AND " + row + "ttl_ms > 0 AND " + row
                + "expires_at <= " + row + "renewed_at + " + row + "ttl_ms";
    }

    /**
     * Journals the refused renewal of a lease, unless the row is gone because this process released it
     * (a release racing the beat is not a refusal).
     */
    private void journalLostLease(JdbcTx tx, String me, String actor, long token) throws SQLException {
        Lease current = JdbcLeases.currentIn(tx, actor).orElse(null);
        Refusal refusal = LeaseRules.beatRefused(
                actor, token, current, me, tx.lastToken(), current == null && releasedByMe(tx, me, actor, token));
        if (refusal != null) {
            journalRejection(tx, refusal);
        }
    }

    private static boolean releasedByMe(JdbcTx tx, String me, String actor, long token) throws SQLException {
        return tx.one(
                        "SELECT 1 FROM fence_events WHERE resource_type = 'actor' AND resource_id = ?"
                                + " AND kind = 'LEASE_RELEASED' AND token = ? AND process_identity = ? LIMIT 1",
                        rs -> rs.getInt(1),
                        actor,
                        token,
                        me)
                .isPresent();
    }

    /** Journals the refused renewal of an attempt, unless it ended normally (its terminal write committed). */
    private void journalLostAttempt(JdbcTx tx, String attemptId, long token) throws SQLException {
        Attempt a = JdbcRuns.attemptIn(tx, attemptId).orElse(null);
        if (a == null) {
            return;
        }
        Assignment assignment = JdbcRuns.assignmentIn(tx, a.assignmentId()).orElse(null);
        Lease lease = JdbcLeases.currentIn(tx, a.actorId()).orElse(null);
        Refusal refusal = RunRules.beatRefused(a, token, lease, assignment, tx.processIdentity());
        if (refusal != null) {
            journalRejection(tx, refusal);
        }
    }

    private static void journalRejection(JdbcTx tx, Refusal r) throws SQLException {
        tx.journal(
                EventKind.REJECTED,
                r.resourceType(),
                r.resourceId(),
                r.actorId(),
                tx.processIdentity(),
                null,
                r.presentedToken(),
                r.currentToken(),
                r.category().code(),
                r.getMessage());
    }

    private static Set<String> renewAttempts(JdbcTx tx, String me, Map<String, Long> held) throws SQLException {
        long now = tx.now();
        Dialect d = tx.dialect();
        // Only forward (each schema's guard on an attempt's renewal: SQLite's V0005, PostgreSQL's V0004): after a
        // clock step back the attempt keeps the expiry it was already promised instead of having it shortened.
        List<String> renewed = tx.query(
                "UPDATE execution_attempts SET renewed_at = " + d.greatest() + "(renewed_at, ?),"
                        + " expires_at = " + d.greatest() + "(expires_at, ? + ttl_ms)"
                        + " WHERE process_identity = ? AND state = 'ACTIVE' AND " + d.inLongs("token")
                        + " AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = execution_attempts.actor_id"
                        + " AND l.token = execution_attempts.lease_token AND l.process_identity = ?"
                        + " AND " + saneLease("l.") + ")"
                        + " AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = execution_attempts.assignment_id"
                        + " AND a.current_attempt = execution_attempts.id)"
                        + " RETURNING id",
                rs -> rs.getString(1),
                now,
                now,
                me,
                d.longs(held.values()),
                me);
        return new HashSet<>(renewed);
    }
}
