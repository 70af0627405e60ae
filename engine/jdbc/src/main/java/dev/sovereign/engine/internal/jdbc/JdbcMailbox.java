package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Mailbox;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.rules.LeaseRules;
import dev.sovereign.engine.rules.MailboxRules;
import dev.sovereign.engine.spi.Grants;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The mailbox on the {@code messages} table, for both backends. Every state change is ONE guarded {@code UPDATE}
 * inside one write transaction; its {@code WHERE} carries the expected state and the presented token (and, for
 * finishing writes, the claiming process and the actor's lease pointer), and its {@code RETURNING} row is the result.
 * Zero rows is a refusal, diagnosed by a read in the same, still-locked transaction; the refused transaction rolls
 * back and the backend's door journals fencing refusals as {@code REJECTED}.
 *
 * <p>On PostgreSQL (READ COMMITTED) a write first locks, in the order of decision 0900, the token counter (when it
 * may mint), the recipient's lease (shared: a takeover is waited for, then seen) and the message. On SQLite the
 * same steps cost nothing: {@code BEGIN IMMEDIATE} already holds the file's one write lock, the counter lock is a
 * no-op and the row-lock word ({@link Dialect#forUpdate()}) is empty.
 *
 * <p>Claims are not renewed by the heartbeat: a claim has its own expiry and is kept alive by re-claiming within it
 * (same token). See docs/decisions/0200 to 0203.
 *
 * <p>Thread-safe (the backend's door serialises access).
 */
public final class JdbcMailbox implements Mailbox {
    public static final String COLUMNS = "id, sender, recipient, subject, body, state, claim_actor, claim_process,"
            + " claim_token, claim_expires_at, retry_count, max_retries, created_at, updated_at";

    private static final String SELECT = "SELECT " + COLUMNS + " FROM messages";

    /** The finishing guard: the presented claim is current and the claim's actor is still hosted here. */
    private static final String FINISH_GUARD = " WHERE id = ? AND state = 'CLAIMED' AND claim_token = ?"
            + " AND claim_process = ?"
            + " AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = messages.claim_actor"
            + " AND l.process_identity = ? AND l.token / " + FencingTokens.EPOCH_SPAN
            + " <= messages.claim_token / " + FencingTokens.EPOCH_SPAN + ")";

    // finished_with states the claim token the finish presents; each schema's guard (SQLite's V0003, PostgreSQL's
    // V0001) compares it with claim_token and the actor's lease whatever the WHERE says.
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

    /**
     * What the mailbox takes from its backend beyond {@link JdbcTx} and {@link Dialect}.
     *
     * @param sendOrder      the column that orders messages sent within one millisecond ({@code rowid} on SQLite,
     *                       PostgreSQL's {@code sent_seq}, drawn by the insert itself)
     * @param peekBeforeSweep whether the sweep first asks a reader if any claim expired: on SQLite a write takes the
     *                       whole file's lock, so an idle tick should not; on PostgreSQL the sweep's write locks
     *                       only the expired rows, and it goes straight to it
     * @param writes          the common case of a claim and a completion as one call, where the backend has one
     */
    public record Hooks(String sendOrder, boolean peekBeforeSweep, Writes writes) {}

    /**
     * A backend's way to send the common case of a mailbox write as one call (PostgreSQL's functions, schema version
     * 16, decision 0920): it does exactly what the full path below would do for that case, or writes nothing and
     * answers empty, and the full path then runs in the same transaction, asks the rule book and words any refusal.
     * Offered only as the first work of a transaction opened for that one operation.
     */
    public interface Writes {
        /** No call of its own: every write takes the full path (SQLite, where a statement costs no round trip). */
        Writes NONE = new Writes() {
            @Override
            public Optional<Message> claimInOneCall(JdbcTx tx, String message, String actor, long ttlMs) {
                return Optional.empty();
            }

            @Override
            public Optional<Message> completeInOneCall(JdbcTx tx, String message, long token) {
                return Optional.empty();
            }
        };

        /** A NEW message claimed by this process for {@code actor} with a fresh token, journalled; or nothing done. */
        Optional<Message> claimInOneCall(JdbcTx tx, String message, String actor, long ttlMs) throws SQLException;

        /** The message completed with the presented claim token, journalled; or nothing done. */
        Optional<Message> completeInOneCall(JdbcTx tx, String message, long token) throws SQLException;
    }

    private final Transactions db;
    private final Grants grants;
    private final Duration defaultTtl;
    private final Hooks hooks;

    public JdbcMailbox(Transactions db, Grants grants, Duration defaultTtl, Hooks hooks) {
        this.db = db;
        this.grants = grants;
        this.defaultTtl = defaultTtl;
        this.hooks = hooks;
    }

    public static Message map(ResultSet rs) throws SQLException {
        String id = rs.getString("id");
        Long token = JdbcTx.nullableLong(rs, "claim_token");
        Claim claim = token == null
                ? null
                : new Claim(
                        id,
                        rs.getString("claim_actor"),
                        rs.getString("claim_process"),
                        token,
                        rs.getLong("claim_expires_at"));
        return new Message(
                id,
                rs.getString("sender"),
                rs.getString("recipient"),
                rs.getString("subject"),
                rs.getString("body"),
                MessageState.valueOf(rs.getString("state")),
                claim,
                rs.getInt("retry_count"),
                rs.getInt("max_retries"),
                rs.getLong("created_at"),
                rs.getLong("updated_at"));
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
            JdbcActors.requireActor(tx, recipient);
            long now = tx.now();
            Message m = tx.one(
                            "INSERT INTO messages (id, sender, recipient, subject, body, state, retry_count,"
                                    + " max_retries, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'NEW', 0, ?, ?, ?)"
                                    + " RETURNING " + COLUMNS,
                            JdbcMailbox::map,
                            id,
                            sender,
                            recipient,
                            subject,
                            body,
                            maxRetries,
                            now,
                            now)
                    .orElseThrow();
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
        return db.write(tx -> {
            Optional<Message> claimed =
                    actor == null ? Optional.empty() : hooks.writes().claimInOneCall(tx, message, actor, ttlMs);
            return claimed.isPresent() ? claimed.get().claim() : claimIn(tx, message, actor, ttlMs, believed);
        });
    }

    private Claim claimIn(JdbcTx tx, String id, String actor, long ttlMs, Lease believed) throws SQLException {
        Message seen = findIn(tx, id).orElseThrow(() -> MailboxRules.missing(id));
        tx.lockTokenCounter(actor);
        Lease recipientLease = null;
        if (seen.recipient().equals(actor) && !seen.state().isFinished()) {
            // a message never changes its recipient, so the row seen before the locks names the right lease
            recipientLease = JdbcLeases.sharedIn(tx, actor).orElse(null);
        }
        Message m = lockedIn(tx, id, seen).orElseThrow(() -> MailboxRules.missing(id));
        long now = tx.now();
        String me = tx.processIdentity();
        if (recipientLease != null) {
            LeaseRules.requireSane(recipientLease, tx.lastToken());
        }
        MailboxRules.ClaimKind kind = MailboxRules.decideClaim(m, actor, recipientLease, believed, me, now);
        long until = now + ttlMs;
        Claim current = m.claim();
        if (kind == MailboxRules.ClaimKind.GRANT) {
            long token = tx.mintToken(actor);
            Message granted = tx.one(
                            "UPDATE messages SET state = 'CLAIMED', claim_actor = ?, claim_process = ?,"
                                    + " claim_token = ?, claim_expires_at = ?, updated_at = ?"
                                    + " WHERE id = ? AND state = 'NEW' RETURNING " + COLUMNS,
                            JdbcMailbox::map,
                            actor,
                            me,
                            token,
                            until,
                            now,
                            id)
                    .orElseThrow(() -> tx.changedUnderLock("message " + id));
            tx.journal(EventKind.CLAIM_GRANTED, "message", id, actor, token, "claimed until " + at(until));
            return granted.claim();
        }
        if (kind == MailboxRules.ClaimKind.RENEW_OWN) {
            // A retried worker: the same claim and the same token, kept alive for another TTL — only forward
            // (SQLite's V0008 messages_claims_expire_forward_within_a_year; decision 0011): a shorter TTL or a clock
            // step back keeps the expiry already promised (decision 0600), on both backends alike.
            Message renewed = tx.one(
                            "UPDATE messages SET claim_expires_at = "
                                    + tx.dialect().greatest()
                                    + "(claim_expires_at, ?), updated_at = ?"
                                    + " WHERE id = ? AND state = 'CLAIMED' AND claim_process = ? AND claim_token = ?"
                                    + " AND claim_expires_at > ? RETURNING " + COLUMNS,
                            JdbcMailbox::map,
                            until,
                            now,
                            id,
                            me,
                            current.token(),
                            now)
                    .orElseThrow(() -> tx.changedUnderLock("message " + id));
            tx.journal(
                    EventKind.CLAIM_GRANTED,
                    "message",
                    id,
                    actor,
                    current.token(),
                    "re-claimed by its holder: same token, renewed until "
                            + at(renewed.claim().expiresAt()));
            return renewed.claim();
        }
        // Expired — also when it is this process's own claim: a fresh, greater token, so whatever the
        // holder of the old token still does can no longer finish the message.
        long token = tx.mintToken(actor);
        Message taken = tx.one(
                        "UPDATE messages SET claim_actor = ?, claim_process = ?, claim_token = ?,"
                                + " claim_expires_at = ?, updated_at = ?"
                                + " WHERE id = ? AND state = 'CLAIMED' AND claim_token = ? AND claim_expires_at <= ?"
                                + " RETURNING " + COLUMNS,
                        JdbcMailbox::map,
                        actor,
                        me,
                        token,
                        until,
                        now,
                        id,
                        current.token(),
                        now)
                .orElseThrow(() -> tx.changedUnderLock("message " + id));
        tx.journal(
                EventKind.CLAIM_GRANTED,
                "message",
                id,
                actor,
                token,
                "took over the expired claim of "
                        + (current.process().equals(me) ? "this process" : current.process()) + " (token "
                        + current.token() + ", expired at " + at(current.expiresAt()) + "); claimed until "
                        + at(until));
        return taken.claim();
    }

    // ---- complete and dead-letter ----

    @Override
    public Message complete(String message, long token) {
        return db.write(tx -> {
            Optional<Message> done = hooks.writes().completeInOneCall(tx, message, token);
            if (done.isPresent()) {
                return done.get();
            }
            Message m = finish(tx, COMPLETE, message, token, "complete");
            tx.journal(EventKind.MESSAGE_DONE, "message", message, m.claim().actor(), token, "completed");
            return m;
        });
    }

    @Override
    public Message deadLetter(String message, long token) {
        return db.write(tx -> {
            Message m = finish(tx, DEAD_LETTER, message, token, "dead-letter");
            if (m.state() == MessageState.DEAD) {
                tx.journal(
                        EventKind.MESSAGE_DEAD,
                        "message",
                        message,
                        m.recipient(),
                        token,
                        "dead after " + m.retryCount() + " of " + m.maxRetries() + " retries");
            } else {
                tx.journal(
                        EventKind.MESSAGE_RETRIED,
                        "message",
                        message,
                        m.recipient(),
                        token,
                        "retry " + m.retryCount() + " of " + m.maxRetries() + "; back to NEW");
            }
            return m;
        });
    }

    /**
     * A finishing write ({@link #COMPLETE} or {@link #DEAD_LETTER}, both taking the same arguments): locks and checks
     * the recipient's lease row, then the one guarded {@code UPDATE}; no row is refused as {@code what}.
     */
    private Message finish(JdbcTx tx, String sql, String message, long token, String what) throws SQLException {
        requireSaneLease(tx, message);
        long now = tx.now();
        String me = tx.processIdentity();
        Optional<Message> after = tx.one(sql, JdbcMailbox::map, now, token, message, token, me, me);
        if (after.isEmpty()) {
            throw refuseFinish(tx, message, token, what);
        }
        return after.get();
    }

    /**
     * A finishing write is fenced by the recipient actor's lease row too, so a corrupt row fails it
     * closed ({@code corrupt_lease_state}) like a grant, rather than letting the guard read it.
     */
    private void requireSaneLease(JdbcTx tx, String id) throws SQLException {
        Optional<Message> m = findIn(tx, id);
        if (m.isPresent()) {
            // locks in decision 0900's order: the recipient's lease (shared), then the message
            Optional<Lease> lease = JdbcLeases.sharedIn(tx, m.get().recipient());
            lockedIn(tx, id, m.get());
            if (lease.isPresent()) {
                LeaseRules.requireSane(lease.get(), tx.lastToken());
            }
        }
    }

    /**
     * Says why a finishing write matched no row, reading inside the same locked transaction. The
     * token is judged first, so a stale writer is always journalled, whatever became of the message.
     */
    private Refusal refuseFinish(JdbcTx tx, String id, long token, String what) throws SQLException {
        Message m = findIn(tx, id).orElse(null);
        Lease claimActorLease = m == null || m.claim() == null
                ? null
                : JdbcLeases.currentIn(tx, m.claim().actor()).orElse(null);
        return MailboxRules.finishRefused(id, m, token, what, tx.processIdentity(), claimActorLease);
    }

    // ---- the supervisor's sweep ----

    @Override
    public List<Claim> sweepExpiredClaims() {
        if (hooks.peekBeforeSweep()) {
            // Most ticks find nothing expired: ask the partial index first, without the write lock (WAL
            // readers never wait for a writer), and take the lock only when there is work. A claim that
            // expires just after this read is swept by the next tick; nothing is decided by this read.
            Boolean anyExpired = db.read(tx -> tx.one(
                            "SELECT 1 FROM messages WHERE state = 'CLAIMED'" + " AND claim_expires_at <= ? LIMIT 1",
                            rs -> rs.getInt(1),
                            tx.now())
                    .isPresent());
            if (!anyExpired) {
                return List.of();
            }
        }
        return db.write(JdbcMailbox::sweepExpiredClaimsIn);
    }

    /**
     * The sweep inside the caller's transaction (for a supervisor that wants it in its own tick):
     * each expired claim goes back to {@code NEW} by its own compare-and-set on
     * {@code (state = 'CLAIMED', claim_token, claim_expires_at <= now)}, clearing every claim field,
     * with one {@code CLAIM_SWEPT} event naming the swept token. A claim granted or renewed before
     * this transaction took its locks is unexpired at {@code tx.now()} and never matches (on PostgreSQL the rows
     * are locked FOR UPDATE; a claim committed meanwhile is re-checked by the statement itself).
     *
     * @return the claims swept, as they were before the sweep
     */
    public static List<Claim> sweepExpiredClaimsIn(JdbcTx tx) throws SQLException {
        long now = tx.now();
        List<Claim> expired = tx.query(
                "SELECT id, claim_actor, claim_process, claim_token, claim_expires_at"
                        + " FROM messages WHERE state = 'CLAIMED' AND claim_expires_at <= ?"
                        + " ORDER BY claim_expires_at, id" + tx.dialect().forUpdate(),
                rs -> new Claim(
                        rs.getString("id"),
                        rs.getString("claim_actor"),
                        rs.getString("claim_process"),
                        rs.getLong("claim_token"),
                        rs.getLong("claim_expires_at")),
                now);
        List<Claim> swept = new ArrayList<>();
        for (Claim c : expired) {
            int n = tx.update(
                    "UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL,"
                            + " claim_token = NULL, claim_expires_at = NULL, updated_at = ?"
                            + " WHERE id = ? AND state = 'CLAIMED' AND claim_token = ? AND claim_expires_at <= ?",
                    now,
                    c.message(),
                    c.token(),
                    now);
            if (n == 1) {
                tx.journal(
                        EventKind.CLAIM_SWEPT,
                        "message",
                        c.message(),
                        c.actor(),
                        c.token(),
                        "claim of "
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
            JdbcActors.requireActor(tx, actor);
            return tx.query(
                    SELECT + " WHERE recipient = ? AND state IN ('NEW', 'CLAIMED')" + " ORDER BY created_at, "
                            + hooks.sendOrder(),
                    JdbcMailbox::map,
                    actor);
        });
    }

    @Override
    public Optional<Message> find(String message) {
        return db.read(tx -> findIn(tx, message));
    }

    @Override
    public List<Message> list() {
        return db.read(
                tx -> tx.query(SELECT + " ORDER BY created_at DESC, " + hooks.sendOrder() + " DESC", JdbcMailbox::map));
    }

    static Optional<Message> findIn(JdbcTx tx, String id) throws SQLException {
        return tx.one(SELECT + " WHERE id = ?", JdbcMailbox::map, id);
    }

    /**
     * The message, locked until the end of {@code tx} (last in decision 0900's order), as {@code seen} was read
     * earlier in it. Where the backend does not lock rows ({@link Dialect#locksRows()}: SQLite) the transaction already
     * holds the database's one write lock, so the row cannot have changed since {@code seen} and is not read again.
     */
    private static Optional<Message> lockedIn(JdbcTx tx, String id, Message seen) throws SQLException {
        if (!tx.dialect().locksRows()) {
            return Optional.of(seen);
        }
        return tx.one(SELECT + " WHERE id = ?" + tx.dialect().forUpdate(), JdbcMailbox::map, id);
    }

    // ---- refusals and small helpers ----

    private static String at(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }
}
