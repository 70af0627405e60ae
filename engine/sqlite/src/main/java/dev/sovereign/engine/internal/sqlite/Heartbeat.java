package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.rules.LeaseRules;
import dev.sovereign.engine.rules.RunRules;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One heartbeat: ONE transaction that stamps this process's {@code heartbeat_at} and renews every
 * lease and attempt it believes it holds, each presenting its token (one set-based statement per
 * table; the lease statement writes one lease change marker, {@link Tx#nextLeaseChange()}, into every
 * row it renews). Whatever the database did not renew is lost: it is dropped from {@link Grants} and the
 * listeners are told at once. Each refused renewal is journalled as {@code REJECTED} in the same
 * transaction (docs/decisions/0005): a beat where some grants are lost commits the renewals that
 * succeeded together with one rejection per lost grant.
 *
 * <p>An attempt is renewed only while the actor lease it was bound to is still this process's and
 * its assignment still points at it: a takeover of the actor, or a stolen fence, therefore also ends
 * the old holder's attempt at its next beat (and its provider is cancelled).
 *
 * <p>Journal folding: a heartbeat renewal is journalled as {@code LEASE_RENEWED} at most once per
 * lease per {@link #RENEWAL_JOURNAL_FOLD_MS}; the lease row counts every renewal. See
 * docs/decisions/0003-journal-renewal-folding.md.
 */
public final class Heartbeat {
    public static final long RENEWAL_JOURNAL_FOLD_MS = 5_000;

    private final Database db;
    private final Grants grants;

    public Heartbeat(Database db, Grants grants) {
        this.db = db;
        this.grants = grants;
    }

    /** What one beat found. */
    public Beat beat() {
        List<Lease> heldLeases = grants.leases();
        Map<String, Long> heldAttempts = grants.attempts();
        String me = db.processIdentity();
        Beat beat = db.write(tx -> {
            long now = tx.now();
            tx.update("UPDATE processes SET heartbeat_at = ? WHERE identity = ?", now, me);
            List<Lease> renewed = heldLeases.isEmpty() ? List.of() : renewLeases(tx, me, heldLeases);
            Set<String> renewedAttempts = heldAttempts.isEmpty() ? Set.of() : renewAttempts(tx, me, heldAttempts);
            Map<String, Long> lostLeases = new HashMap<>();
            Set<String> renewedActors = new HashSet<>();
            renewed.forEach(l -> renewedActors.add(l.actor()));
            for (Lease l : heldLeases) {
                if (!renewedActors.contains(l.actor())) {
                    lostLeases.put(l.actor(), l.token());
                }
            }
            Map<String, Long> lostAttempts = new HashMap<>();
            heldAttempts.forEach((id, token) -> {
                if (!renewedAttempts.contains(id)) {
                    lostAttempts.put(id, token);
                }
            });
            // Every refused renewal is a refused write of a presented token: journalled here, in the beat's
            // own transaction, beside the renewals that succeeded (docs/decisions/0005).
            for (Map.Entry<String, Long> lost : lostLeases.entrySet()) {
                journalLostLease(tx, me, lost.getKey(), lost.getValue());
            }
            for (Map.Entry<String, Long> lost : lostAttempts.entrySet()) {
                journalLostAttempt(tx, lost.getKey(), lost.getValue());
            }
            return new Beat(renewed, renewedAttempts, lostLeases, lostAttempts);
        });
        for (Lease l : beat.renewedLeases()) {
            Lease believed = grants.lease(l.actor());
            if (believed != null && believed.token() == l.token()) {
                grants.holdLease(l);
            }
        }
        beat.lostLeases().forEach(grants::leaseLost);
        beat.lostAttempts().forEach(grants::attemptLost);
        return beat;
    }

    /**
     * A lease row this process may renew: it names this process and the presented token (in the
     * statement) and is sane — a token the counter issued and an expiry its TTL allows. A corrupt row is
     * never renewed (a renewal would overwrite the evidence): the beat treats it as lost and journals
     * {@code corrupt_lease_state}, the same check as {@link SqliteLeases#requireSane}.
     */
    static String saneLease(String row) {
        return row + "token > 0 AND " + row + "token <= (SELECT last_token FROM token_counter WHERE id = 1) AND "
                + row + "ttl_ms > 0 AND " + row + "expires_at <= " + row + "renewed_at + " + row + "ttl_ms";
    }

    /**
     * Journals the refused renewal of a lease, unless the row is gone because this process released it
     * (a release racing the beat is not a refusal).
     */
    private static void journalLostLease(Tx tx, String me, String actor, long token) throws SQLException {
        Lease current = SqliteLeases.currentIn(tx, actor).orElse(null);
        Refusal refusal = LeaseRules.beatRefused(actor, token, current, me, tx.lastToken(),
                current == null && releasedByMe(tx, me, actor, token));
        if (refusal != null) {
            journalRejection(tx, refusal);
        }
    }

    private static boolean releasedByMe(Tx tx, String me, String actor, long token) throws SQLException {
        return tx.one("SELECT 1 FROM fence_events WHERE resource_type = 'actor' AND resource_id = ?"
                        + " AND kind = 'LEASE_RELEASED' AND token = ? AND process_identity = ? LIMIT 1",
                rs -> rs.getInt(1), actor, token, me).isPresent();
    }

    /** Journals the refused renewal of an attempt, unless it ended normally (its terminal write committed). */
    private static void journalLostAttempt(Tx tx, String attemptId, long token) throws SQLException {
        Attempt a = SqliteRuns.attemptIn(tx, attemptId).orElse(null);
        if (a == null) {
            return;
        }
        Assignment assignment = SqliteRuns.assignmentIn(tx, a.assignmentId()).orElse(null);
        Lease lease = SqliteLeases.currentIn(tx, a.actorId()).orElse(null);
        Refusal refusal = RunRules.beatRefused(a, token, lease, assignment, tx.processIdentity());
        if (refusal != null) {
            journalRejection(tx, refusal);
        }
    }

    private static void journalRejection(Tx tx, Refusal r) throws SQLException {
        tx.journal(EventKind.REJECTED, r.resourceType(), r.resourceId(), r.actorId(), tx.processIdentity(), null,
                r.presentedToken(), r.currentToken(), r.category().code(), r.getMessage());
    }

    /**
     * The beat's lease renewal. Each row is found by its primary key from the beat's own list of (actor,
     * token) pairs and states the token this beat presents for it ({@code presented.token}), which the
     * schema's guard compares with the row's token (V0003); the join keeps a row whose token moved out of
     * the statement instead of letting the guard abort the whole beat. Joining on the actor (the key)
     * keeps the plan "for each presented pair, one key lookup": joined on the token alone, SQLite 3.50 on
     * the WITHOUT ROWID table of schema v6 chose "for each of this process's leases, scan the whole JSON
     * list again" — quadratic, 100 ms for 1,000 leases. The unary {@code +} on {@code process_identity} keeps
     * the planner from starting at {@code actor_leases_by_process} instead (`HeartbeatPlanTest`).
     */
    static final String RENEW_LEASES_SQL = "UPDATE actor_leases SET renewed_at = ?, expires_at = ? + ttl_ms,"
            + " renewals = renewals + 1, change_seq = ?,"
            + " renewal_journalled_at = CASE WHEN ? - renewal_journalled_at >= ? THEN ?"
            + " ELSE renewal_journalled_at END,"
            + " presented_token = presented.token, presented_change = ?"
            + " FROM (SELECT json_extract(value, '$[0]') AS actor, json_extract(value, '$[1]') AS token"
            + " FROM json_each(?)) AS presented"
            + " WHERE actor_leases.actor_id = presented.actor AND +actor_leases.process_identity = ?"
            + " AND actor_leases.token = presented.token"
            + " AND " + saneLease("actor_leases.")
            + " RETURNING " + SqliteLeases.LEASE_COLUMNS + ", renewals, renewal_journalled_at";

    private static List<Lease> renewLeases(Tx tx, String me, List<Lease> held) throws SQLException {
        long now = tx.now();
        long change = tx.nextLeaseChange();
        List<Object[]> rows = tx.query(RENEW_LEASES_SQL,
                rs -> new Object[] {SqliteLeases.mapLease(rs), rs.getLong("renewals"),
                        rs.getLong("renewal_journalled_at")},
                now, now, change, now, RENEWAL_JOURNAL_FOLD_MS, now, change, presentedPairs(held), me);
        List<Lease> out = new ArrayList<>();
        for (Object[] row : rows) {
            Lease l = (Lease) row[0];
            out.add(l);
            if ((long) row[2] == now) {
                tx.journal(EventKind.LEASE_RENEWED, "actor", l.actor(), l.actor(), l.token(),
                        "heartbeat; " + row[1] + " renewals so far");
            }
        }
        return out;
    }

    /** {@code [["actor", token], ...]}: the beat's leases as a JSON array for {@code json_each}. */
    static String presentedPairs(List<Lease> held) {
        StringBuilder json = new StringBuilder(held.size() * 32).append('[');
        for (Lease l : held) {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append('[');
            appendJsonString(json, l.actor());
            json.append(',').append(l.token()).append(']');
        }
        return json.append(']').toString();
    }

    /** A JSON string literal (RFC 8259): quote, backslash and control characters escaped. */
    static void appendJsonString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    private static Set<String> renewAttempts(Tx tx, String me, Map<String, Long> held) throws SQLException {
        long now = tx.now();
        // Only forward (V0005's attempts_renewed_only_under_their_lease): after a clock step back the
        // attempt keeps the expiry it was already promised instead of having it shortened.
        List<String> renewed = tx.query("UPDATE execution_attempts SET renewed_at = max(renewed_at, ?),"
                        + " expires_at = max(expires_at, ? + ttl_ms)"
                        + " WHERE process_identity = ? AND state = 'ACTIVE'"
                        + " AND token IN (SELECT value FROM json_each(?))"
                        + " AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = execution_attempts.actor_id"
                        + " AND l.token = execution_attempts.lease_token AND l.process_identity = ?"
                        + " AND " + saneLease("l.") + ")"
                        + " AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = execution_attempts.assignment_id"
                        + " AND a.current_attempt = execution_attempts.id)"
                        + " RETURNING id",
                rs -> rs.getString(1), now, now, me, held.values().toString(), me);
        return new HashSet<>(renewed);
    }
}
