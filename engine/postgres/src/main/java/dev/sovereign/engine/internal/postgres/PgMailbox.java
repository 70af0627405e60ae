package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.spi.Grants;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.rules.MailboxRules;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Mailbox;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The mailbox on the {@code messages} table (PostgreSQL). Every state change is ONE guarded {@code UPDATE}
 * inside one READ COMMITTED transaction that first locks, in the order of decision 0900, the token counter
 * (when it may mint), the recipient's lease (shared: a takeover is waited for, then seen) and the message;
 * its {@code WHERE} carries the expected state and
 * the presented token (and, for finishing writes, the claiming process and the actor's lease
 * pointer), and its {@code RETURNING} row is the result. Zero rows is a refusal, diagnosed by a read
 * in the same, still-locked transaction; the refused transaction rolls back and {@link PgDatabase}
 * journals fencing refusals as {@code REJECTED}.
 *
 * <p>Claims are not renewed by the heartbeat: a claim has its own expiry and is kept alive by
 * re-claiming within it (same token). See docs/decisions/0200 to 0203.
 *
 * <p>Thread-safe (the {@link PgDatabase} serialises access).
 */
public final class PgMailbox implements Mailbox {
    static final String COLUMNS = "id, sender, recipient, subject, body, state, claim_actor, claim_process,"
            + " claim_token, claim_expires_at, retry_count, max_retries, created_at, updated_at";

    /** The finishing guard: the presented claim is current and the claim's actor is still hosted here. */
    private static final String FINISH_GUARD = " WHERE id = ? AND state = 'CLAIMED' AND claim_token = ?"
            + " AND claim_process = ?"
            + " AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = messages.claim_actor"
            + " AND l.process_identity = ? AND l.token / " + dev.sovereign.engine.base.FencingTokens.EPOCH_SPAN
            + " <= messages.claim_token / " + dev.sovereign.engine.base.FencingTokens.EPOCH_SPAN + ")";

    // finished_with states the claim token the finish presents; the schema's guard (V0001) compares it
    // with claim_token and the actor's lease whatever the WHERE says.
    private static final String COMPLETE = "UPDATE messages SET state = 'DONE', updated_at = ?, finished_with = ?"
            + FINISH_GUARD
            + " RETURNING " + COLUMNS;

    // In an UPDATE every SET expression sees the row's old values, so each CASE asks the same question.
    private static final String REQUEUE = "retry_count < max_retries";
    private static final String DEAD_LETTER = "UPDATE messages SET"
            + " state = CASE WHEN " + REQUEUE + " THEN 'NEW' ELSE 'DEAD' END,"
            + " retry_count = CASE WHEN " + REQUEUE + " THEN retry_count + 1 ELSE retry_count END,"
            + " claim_actor = CASE WHEN " + REQUEUE + " THEN NULL ELSE claim_actor END,"
            + " claim_process = CASE WHEN " + REQUEUE + " THEN NULL ELSE claim_process END,"
            + " claim_token = CASE WHEN " + REQUEUE + " THEN NULL ELSE claim_token END,"
            + " claim_expires_at = CASE WHEN " + REQUEUE + " THEN NULL ELSE claim_expires_at END,"
            + " updated_at = ?, finished_with = ?" + FINISH_GUARD + " RETURNING " + COLUMNS;

    private final PgDatabase db;
    private final Grants grants;
    private final Duration defaultTtl;

    public PgMailbox(PgDatabase db, Grants grants, Duration defaultTtl) {
        this.db = db;
        this.grants = grants;
        this.defaultTtl = defaultTtl;
    }

    static Message map(ResultSet rs) throws SQLException {
        String id = rs.getString("id");
        Long token = JdbcTx.nullableLong(rs, "claim_token");
        Claim claim = token == null ? null : new Claim(id, rs.getString("claim_actor"),
                rs.getString("claim_process"), token, rs.getLong("claim_expires_at"));
        return new Message(id, rs.getString("sender"), rs.getString("recipient"), rs.getString("subject"),
                rs.getString("body"), MessageState.valueOf(rs.getString("state")), claim, rs.getInt("retry_count"),
                rs.getInt("max_retries"), rs.getLong("created_at"), rs.getLong("updated_at"));
    }

    // ---- send ----

    @Override
    public Message send(String sender, String recipient, String subject, String body, int maxRetries) {
        Arguments.requireMessageText(sender, "sender");
        Arguments.requireMessageText(recipient, "recipient");
        Arguments.requireSubject(subject);
        Arguments.requireMaxRetries(maxRetries);
        String id = "msg_" + UUID.randomUUID();
        return db.write(tx -> {
            PgActors.requireActor(tx, recipient);
            long now = tx.now();
            // sent_seq (schema version 2) is drawn by the insert itself: the order of sending within one millisecond
            Message m = tx.one("INSERT INTO messages (id, sender, recipient, subject, body, state, retry_count,"
                            + " max_retries, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'NEW', 0, ?, ?, ?)"
                            + " RETURNING " + COLUMNS,
                    PgMailbox::map, id, sender, recipient, subject, body, maxRetries, now, now).orElseThrow();
            tx.journal(EventKind.MESSAGE_SENT, "message", id, recipient, null, "from " + sender + ": " + subject);
            return m;
        });
    }

    // ---- claim ----

    @Override
    public Claim claim(String message, String actor) {
        return claim(message, actor, defaultTtl);
    }

    @Override
    public Claim claim(String message, String actor, Duration ttl) {
        long ttlMs = Arguments.claimTtlMillis(ttl);
        // What this engine believes it holds only chooses the refusal's words (lost vs never hosted);
        // the grant itself is decided by the lease row inside the transaction.
        Lease believed = actor == null ? null : grants.lease(actor);
        return db.write(tx -> claimIn(tx, message, actor, ttlMs, believed));
    }

    private static Claim claimIn(JdbcTx tx, String id, String actor, long ttlMs, Lease believed) throws SQLException {
        Message seen = findIn(tx, id).orElseThrow(() -> MailboxRules.missing(id));
        tx.lockTokenCounter();
        Lease recipientLease = null;
        boolean fenced = seen.recipient().equals(actor) && !seen.state().isFinished();
        if (fenced) {
            recipientLease = JdbcLeases.sharedIn(tx, actor).orElse(null); // a message never changes its recipient
        }
        Message m = lockedIn(tx, id).orElseThrow(() -> MailboxRules.missing(id));
        long now = tx.now();
        String me = tx.processIdentity();
        if (fenced) {
            if (recipientLease != null) {
                JdbcLeases.requireSane(tx, recipientLease);
            }
        }
        MailboxRules.ClaimKind kind = MailboxRules.decideClaim(m, actor, recipientLease, believed, me, now);
        long until = now + ttlMs;
        Claim current = m.claim();
        if (kind == MailboxRules.ClaimKind.GRANT) {
            long token = tx.mintToken();
            Message granted = tx.one("UPDATE messages SET state = 'CLAIMED', claim_actor = ?, claim_process = ?,"
                            + " claim_token = ?, claim_expires_at = ?, updated_at = ?"
                            + " WHERE id = ? AND state = 'NEW' RETURNING " + COLUMNS,
                    PgMailbox::map, actor, me, token, until, now, id).orElseThrow(() -> changed(id));
            tx.journal(EventKind.CLAIM_GRANTED, "message", id, actor, token, "claimed until " + at(until));
            return granted.claim();
        }
        if (kind == MailboxRules.ClaimKind.RENEW_OWN) {
            // A retried worker: the same claim and the same token, kept alive for another TTL — only forward, as on
            // SQLite (decision 0011): a shorter TTL keeps the expiry already promised, on both backends alike.
            Message renewed = tx.one("UPDATE messages SET claim_expires_at = greatest(claim_expires_at, ?), updated_at = ?"
                            + " WHERE id = ? AND state = 'CLAIMED' AND claim_process = ? AND claim_token = ?"
                            + " AND claim_expires_at > ? RETURNING " + COLUMNS,
                    PgMailbox::map, until, now, id, me, current.token(), now).orElseThrow(() -> changed(id));
            tx.journal(EventKind.CLAIM_GRANTED, "message", id, actor, current.token(),
                    "re-claimed by its holder: same token, renewed until " + at(renewed.claim().expiresAt()));
            return renewed.claim();
        }
        // Expired — also when it is this process's own claim: a fresh, greater token, so whatever the
        // holder of the old token still does can no longer finish the message.
        long token = tx.mintToken();
        Message taken = tx.one("UPDATE messages SET claim_actor = ?, claim_process = ?, claim_token = ?,"
                        + " claim_expires_at = ?, updated_at = ?"
                        + " WHERE id = ? AND state = 'CLAIMED' AND claim_token = ? AND claim_expires_at <= ?"
                        + " RETURNING " + COLUMNS,
                PgMailbox::map, actor, me, token, until, now, id, current.token(), now)
                .orElseThrow(() -> changed(id));
        tx.journal(EventKind.CLAIM_GRANTED, "message", id, actor, token, "took over the expired claim of "
                + (current.process().equals(me) ? "this process" : current.process()) + " (token "
                + current.token() + ", expired at " + at(current.expiresAt()) + "); claimed until " + at(until));
        return taken.claim();
    }

    // ---- complete and dead-letter ----

    @Override
    public Message complete(String message, long token) {
        return db.write(tx -> {
            requireSaneLease(tx, message);
            long now = tx.now();
            String me = tx.processIdentity();
            Optional<Message> done = tx.one(COMPLETE, PgMailbox::map, now, token, message, token, me, me);
            if (done.isEmpty()) {
                throw refuseFinish(tx, message, token, "complete");
            }
            Message m = done.get();
            tx.journal(EventKind.MESSAGE_DONE, "message", message, m.claim().actor(), token, "completed");
            return m;
        });
    }

    @Override
    public Message deadLetter(String message, long token) {
        return db.write(tx -> {
            requireSaneLease(tx, message);
            long now = tx.now();
            String me = tx.processIdentity();
            Optional<Message> after = tx.one(DEAD_LETTER, PgMailbox::map, now, token, message, token, me, me);
            if (after.isEmpty()) {
                throw refuseFinish(tx, message, token, "dead-letter");
            }
            Message m = after.get();
            if (m.state() == MessageState.DEAD) {
                tx.journal(EventKind.MESSAGE_DEAD, "message", message, m.recipient(), token, "dead after "
                        + m.retryCount() + " of " + m.maxRetries() + " retries");
            } else {
                tx.journal(EventKind.MESSAGE_RETRIED, "message", message, m.recipient(), token, "retry "
                        + m.retryCount() + " of " + m.maxRetries() + "; back to NEW");
            }
            return m;
        });
    }

    /**
     * A finishing write is fenced by the recipient actor's lease row too, so a corrupt row fails it
     * closed ({@code corrupt_lease_state}) like a grant, rather than letting the guard read it.
     */
    private static void requireSaneLease(JdbcTx tx, String id) throws SQLException {
        Optional<Message> m = findIn(tx, id);
        if (m.isPresent()) {
            // locks in decision 0900's order: the recipient's lease (shared), then the message
            Optional<Lease> lease = JdbcLeases.sharedIn(tx, m.get().recipient());
            lockedIn(tx, id);
            if (lease.isPresent()) {
                JdbcLeases.requireSane(tx, lease.get());
            }
        }
    }

    /**
     * Says why a finishing write matched no row, reading inside the same locked transaction. The
     * token is judged first, so a stale writer is always journalled, whatever became of the message.
     */
    private static Refusal refuseFinish(JdbcTx tx, String id, long token, String what) throws SQLException {
        Message m = findIn(tx, id).orElse(null);
        Lease claimActorLease = m == null || m.claim() == null ? null
                : JdbcLeases.currentIn(tx, m.claim().actor()).orElse(null);
        return MailboxRules.finishRefused(id, m, token, what, tx.processIdentity(), claimActorLease);
    }

    // ---- the supervisor's sweep ----

    @Override
    public List<Claim> sweepExpiredClaims() {
        return db.write(PgMailbox::sweepExpiredClaimsIn);
    }

    /**
     * The sweep inside the caller's transaction (for a supervisor that wants it in its own tick):
     * each expired claim goes back to {@code NEW} by its own compare-and-set on
     * {@code (state = 'CLAIMED', claim_token, claim_expires_at <= now)}, clearing every claim field,
     * with one {@code CLAIM_SWEPT} event naming the swept token. A claim granted or renewed before
     * this transaction locked the message is unexpired at {@code tx.now()} and never matches (the rows are
     * locked FOR UPDATE; a claim committed meanwhile is re-checked by the statement itself).
     *
     * @return the claims swept, as they were before the sweep
     */
    public static List<Claim> sweepExpiredClaimsIn(JdbcTx tx) throws SQLException {
        long now = tx.now();
        List<Claim> expired = tx.query("SELECT id, claim_actor, claim_process, claim_token, claim_expires_at"
                        + " FROM messages WHERE state = 'CLAIMED' AND claim_expires_at <= ?"
                        + " ORDER BY claim_expires_at, id FOR UPDATE",
                rs -> new Claim(rs.getString("id"), rs.getString("claim_actor"), rs.getString("claim_process"),
                        rs.getLong("claim_token"), rs.getLong("claim_expires_at")), now);
        List<Claim> swept = new ArrayList<>();
        for (Claim c : expired) {
            int n = tx.update("UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL,"
                            + " claim_token = NULL, claim_expires_at = NULL, updated_at = ?"
                            + " WHERE id = ? AND state = 'CLAIMED' AND claim_token = ? AND claim_expires_at <= ?",
                    now, c.message(), c.token(), now);
            if (n == 1) {
                tx.journal(EventKind.CLAIM_SWEPT, "message", c.message(), c.actor(), c.token(), "claim of "
                        + c.process() + " (token " + c.token() + ") expired at " + at(c.expiresAt())
                        + "; back to NEW");
                swept.add(c);
            }
        }
        return swept;
    }

    // ---- reads ----

    @Override
    public List<Message> inbox(String actor) {
        return db.read(tx -> {
            PgActors.requireActor(tx, actor);
            return tx.query("SELECT " + COLUMNS + " FROM messages WHERE recipient = ? AND state IN ('NEW', 'CLAIMED')"
                    + " ORDER BY created_at, sent_seq", PgMailbox::map, actor);
        });
    }

    @Override
    public Optional<Message> find(String message) {
        return db.read(tx -> findIn(tx, message));
    }

    @Override
    public List<Message> list() {
        return db.read(tx -> tx.query("SELECT " + COLUMNS + " FROM messages ORDER BY created_at DESC, sent_seq DESC",
                PgMailbox::map));
    }

    /** The message, locked FOR UPDATE until the end of {@code tx} (last in decision 0900's order). */
    static Optional<Message> lockedIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + COLUMNS + " FROM messages WHERE id = ? FOR UPDATE", PgMailbox::map, id);
    }

    static Optional<Message> findIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + COLUMNS + " FROM messages WHERE id = ?", PgMailbox::map, id);
    }

    // ---- refusals and small helpers ----

    private static PgConflict changed(String id) {
        return new PgConflict("message " + id + " changed under its row lock");
    }

    private static String at(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }


}
