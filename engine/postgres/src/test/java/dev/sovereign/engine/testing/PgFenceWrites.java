package dev.sovereign.engine.testing;

import static dev.sovereign.engine.testing.RawPg.CHANGE;
import static dev.sovereign.engine.testing.RawPg.CLAIM_TOKEN;
import static dev.sovereign.engine.testing.RawPg.LEASE_TOKEN;
import static dev.sovereign.engine.testing.RawPg.MINT;
import static dev.sovereign.engine.testing.RawPg.NOW;
import static dev.sovereign.engine.testing.RawPg.q;
import static dev.sovereign.engine.testing.RawPg.token;

/**
 * The correctly stated write for each guarded state change, in raw SQL: the statement shapes the
 * PostgreSQL guards expect, and so the shapes the Java adapter will send (each as one transaction).
 * Every method commits through {@link RawPg#passes}, so a guard that refuses a correct write fails
 * the test that uses it. Times are the server's ({@code sovereign_now_ms()}); a negative TTL-like
 * argument makes a row that has already expired, so tests never wait for time to pass.
 */
public final class PgFenceWrites {
    private final RawPg sql;

    public PgFenceWrites(RawPg sql) {
        this.sql = sql;
    }

    /**
     * {@code statements} as the ledger this connection holds wants them: before schema version 18 a lease write raised
     * the lease change counter in its transaction and carried its value (decision 0923), so an older ledger a test
     * seeds by hand gets that step and that value instead of the transaction's id.
     */
    private String[] forThisLedger(String... statements) {
        long version = sql.scalar("SELECT coalesce(max(schema_version), 0) FROM schema_migrations");
        if (version < 19) { // one counter row (decision 0924)
            statements = java.util.Arrays.stream(statements)
                    .map(s -> s.equals(MINT)
                                    || s.startsWith("UPDATE token_counter SET last_token = last_token + 64 WHERE id")
                            ? RawPg.MINT_BEFORE_19
                            : s.replaceAll(
                                    "\\(SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe\\([^()]*\\)\\)",
                                    java.util.regex.Matcher.quoteReplacement(RawPg.TOKEN_BEFORE_19)))
                    .toArray(String[]::new);
        }
        if (version >= 18 || java.util.Arrays.stream(statements).noneMatch(s -> s.contains(CHANGE))) {
            return statements;
        }
        String[] out = new String[statements.length + 1];
        out[0] = "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1";
        for (int i = 0; i < statements.length; i++) {
            out[i + 1] = statements[i].replace(CHANGE, "(SELECT last_change FROM lease_change_counter WHERE id = 1)");
        }
        return out;
    }

    public RawPg sql() {
        return sql;
    }

    /**
     * The server's clock read once for a whole statement ({@code now.ms}): {@code sovereign_now_ms()} reads
     * {@code clock_timestamp()}, which moves within a statement, so a row written with three calls could get an expiry
     * a millisecond beyond its renewal plus its TTL — a row the engine rightly calls corrupt.
     */
    private static final String ONE_NOW = "(SELECT " + NOW + " AS ms) AS now";

    public void process(String identity) {
        sql.passes("INSERT INTO processes (identity, pid, host, kind, started_at, heartbeat_at, heartbeat_interval_ms)"
                + " VALUES (" + q(identity) + ", 1, 'test-host', 'test', " + NOW + ", " + NOW + ", 1000)");
    }

    public void actor(String id) {
        sql.passes("INSERT INTO actors (id, created_at) VALUES (" + q(id) + ", " + NOW + ")");
    }

    /** The statements of an acquisition of a free actor, expiring {@code expiresInMs} from now. */
    public static String[] acquireStatements(String actor, String process, long expiresInMs) {
        return new String[] {
            RawPg.mint(q(actor)),
            "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at,"
                    + " renewal_journalled_at, change_seq) SELECT " + q(actor) + ", " + q(process) + ", "
                    + token(q(actor))
                    + ", " + ttl(expiresInMs) + ", now.ms, now.ms, now.ms + " + expiresInMs + ", now.ms, " + CHANGE
                    + " FROM " + ONE_NOW
        };
    }

    /**
     * The TTL a hand-written lease row states for an expiry {@code expiresInMs} from now: at least 5 s, and never
     * shorter than that expiry (a row expiring later than its renewal plus its TTL is refused, schema version 8).
     */
    static long ttl(long expiresInMs) {
        return Math.max(5000, expiresInMs);
    }

    /** Grants {@code actor} to {@code process}; returns the lease token. */
    public long acquire(String actor, String process, long expiresInMs) {
        sql.passes(forThisLedger(acquireStatements(actor, process, expiresInMs)));
        return leaseToken(actor);
    }

    public long leaseToken(String actor) {
        return sql.scalar("SELECT token FROM actor_leases WHERE actor_id = " + q(actor));
    }

    /** A renewal: the holder presents its token; the row's change marker and presented_change move together. */
    public static String[] renewStatements(String actor, long token, long expiresInMs) {
        return new String[] {
            "UPDATE actor_leases SET expires_at = now.ms + " + expiresInMs + ", renewed_at = now.ms, ttl_ms = "
                    + ttl(expiresInMs)
                    + ", renewals = renewals + 1, presented_token = " + token + ", change_seq = " + CHANGE
                    + ", presented_change = " + CHANGE + " FROM " + ONE_NOW + " WHERE actor_id = " + q(actor)
                    + " AND token = " + token
        };
    }

    /** A takeover of an expired lease by {@code process} with a token minted in the same transaction. */
    public static String[] takeOverStatements(String actor, long expiredToken, String process, long expiresInMs) {
        return new String[] {
            RawPg.mint(q(actor)),
            "UPDATE actor_leases SET token = " + LEASE_TOKEN + ", process_identity = " + q(process)
                    + ", acquired_at = now.ms"
                    + ", renewed_at = now.ms, expires_at = now.ms + " + expiresInMs + ", ttl_ms = " + ttl(expiresInMs)
                    + ", renewals = 0,"
                    + " presented_token = " + expiredToken + ", change_seq = " + CHANGE + ", presented_change = "
                    + CHANGE + " FROM " + ONE_NOW + " WHERE actor_id = " + q(actor) + " AND token = " + expiredToken
                    + " AND expires_at <= " + NOW
        }; // tests drop this filter to try a live lease
    }

    public long takeOver(String actor, long expiredToken, String process, long expiresInMs) {
        sql.passes(forThisLedger(takeOverStatements(actor, expiredToken, process, expiresInMs)));
        return leaseToken(actor);
    }

    /** A release: present the token in the row (raising the marker), then delete it, in one transaction. */
    public static String[] releaseStatements(String actor, long token) {
        return new String[] {
            "UPDATE actor_leases SET presented_token = " + token + ", change_seq = " + CHANGE + ", presented_change = "
                    + CHANGE + " WHERE actor_id = " + q(actor) + " AND token = " + token,
            "DELETE FROM actor_leases WHERE actor_id = " + q(actor) + " AND token = " + token
        };
    }

    public void assign(String id, String actor) {
        sql.passes(
                "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, created_at, updated_at)"
                        + " VALUES (" + q(id) + ", " + q(actor) + ", 'scripted', 'temporary', 'CREATED', " + NOW + ", "
                        + NOW + ")");
    }

    /** Starts attempt {@code id} of a CREATED (or previously ended-attempt) assignment under the actor's lease. */
    public static String[] startStatements(
            String id, String assignment, String actor, String process, long leaseToken, long expiresInMs) {
        return new String[] {
            RawPg.mint(q(actor)),
            "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token, state,"
                    + " ttl_ms, started_at, renewed_at, expires_at) SELECT " + q(id) + ", " + q(assignment) + ", "
                    + q(actor) + ", " + q(process) + ", " + token(q(actor)) + ", " + leaseToken
                    + ", 'ACTIVE', 5000, now.ms"
                    + ", now.ms, now.ms + " + expiresInMs + " FROM " + ONE_NOW,
            "UPDATE assignments SET state = 'RUNNING', current_attempt = " + q(id) + ", updated_at = " + NOW
                    + " WHERE id = " + q(assignment)
        };
    }

    public long start(String id, String assignment, String actor, String process, long leaseToken, long expiresInMs) {
        sql.passes(forThisLedger(startStatements(id, assignment, actor, process, leaseToken, expiresInMs)));
        return attemptToken(id);
    }

    public long attemptToken(String attempt) {
        return sql.scalar("SELECT token FROM execution_attempts WHERE id = " + q(attempt));
    }

    /** The terminal write: the assignment states the attempt that ends it and how, then the attempt ends. */
    public static String[] endStatements(String assignment, String attempt, String state, String via) {
        return new String[] {
            "UPDATE assignments SET state = " + q(state) + ", current_attempt = NULL, ended_by_attempt = " + q(attempt)
                    + ", ended_via = " + q(via) + ", updated_at = " + NOW + " WHERE id = " + q(assignment)
                    + (via.equals("attempt") ? " AND current_attempt = " + q(attempt) : ""),
            "UPDATE execution_attempts SET state = " + q(via.equals("attempt") ? "DONE" : "RECOVERED") + ", ended_at = "
                    + NOW + " WHERE id = " + q(attempt) + " AND state = 'ACTIVE'"
        };
    }

    public static String receiptStatement(
            String assignment, String attempt, long attemptToken, String status, String category, int outcomeKnown) {
        return "INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status, failure_category,"
                + " outcome_known, summary, created_at) VALUES (" + q(assignment) + ", " + q(attempt) + ", "
                + attemptToken
                + ", 'proc_x', " + q(status) + ", " + (category == null ? "NULL" : q(category)) + ", " + outcomeKnown
                + ", 'by hand', " + NOW + ")";
    }

    public void send(String id, String recipient) {
        sql.passes("INSERT INTO messages (id, sender, recipient, subject, body, state, created_at, updated_at) VALUES ("
                + q(id) + ", 'someone', " + q(recipient) + ", 'hello', 'body', 'NEW', " + NOW + ", " + NOW + ")");
    }

    /** A claim of a NEW (or expired-CLAIMED) message for a process hosting the recipient, with a fresh token. */
    public static String[] claimStatements(String message, String actor, String process, long expiresInMs) {
        return new String[] {
            RawPg.mint(q(actor)),
            "UPDATE messages SET state = 'CLAIMED', claim_actor = " + q(actor) + ", claim_process = " + q(process)
                    + ", claim_token = " + CLAIM_TOKEN + ", claim_expires_at = " + NOW + " + " + expiresInMs
                    + ", updated_at = " + NOW + " WHERE id = " + q(message)
        };
    }

    public long claim(String message, String actor, String process, long expiresInMs) {
        sql.passes(forThisLedger(claimStatements(message, actor, process, expiresInMs)));
        return sql.scalar("SELECT claim_token FROM messages WHERE id = " + q(message));
    }

    public static String finishStatement(String message, long claimToken) {
        return "UPDATE messages SET state = 'DONE', finished_with = " + claimToken + ", updated_at = " + NOW
                + " WHERE id = " + q(message) + " AND claim_token = " + claimToken;
    }

    public static String journalStatement(String kind, String resourceId) {
        return "INSERT INTO fence_events (at, kind, resource_type, resource_id) VALUES (" + NOW + ", " + q(kind)
                + ", 'actor', " + q(resourceId) + ")";
    }
}
