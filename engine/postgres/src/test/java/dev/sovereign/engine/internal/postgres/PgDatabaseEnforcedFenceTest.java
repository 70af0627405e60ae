package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.PgFenceWrites.acquireStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.claimStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.endStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.finishStatement;
import static dev.sovereign.engine.testing.PgFenceWrites.journalStatement;
import static dev.sovereign.engine.testing.PgFenceWrites.receiptStatement;
import static dev.sovereign.engine.testing.PgFenceWrites.releaseStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.renewStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.startStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.takeOverStatements;
import static dev.sovereign.engine.testing.RawPg.CHANGE;
import static dev.sovereign.engine.testing.RawPg.CLAIM_TOKEN;
import static dev.sovereign.engine.testing.RawPg.LEASE_TOKEN;
import static dev.sovereign.engine.testing.RawPg.MINT;
import static dev.sovereign.engine.testing.RawPg.NOW;
import static dev.sovereign.engine.testing.RawPg.q;
import static dev.sovereign.engine.testing.RawPg.token;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * contract §14 on PostgreSQL: raw SQL from a plain JDBC connection (the superuser's, the strongest client
 * short of DDL) against every guard, by every statement form PostgreSQL offers — UPDATE, DELETE,
 * INSERT ... ON CONFLICT DO UPDATE / DO NOTHING, TRUNCATE (also CASCADE), COPY FROM, a key change,
 * deferred constraints, a temporary table shadowing a guarded one, session_replication_role = replica
 * — each paired with the correctly stated write passing, so each test fails both ways. MERGE needs
 * PostgreSQL 15; the embedded server is 14 (see PgMergeTest). DDL (drop, disable, replace a guard) is
 * in PgGuardVerificationTest; what a non-owner role cannot even try is in PgWorkerRoleTest.
 */
class PgDatabaseEnforcedFenceTest {
    private static final String A = "proc_a";
    private static final String B = "proc_b";

    /** The owner pins the server's clock two minutes ahead: every attempt started here has expired. */
    private static final String PAST_EVERY_EXPIRY =
            "UPDATE server_clock SET pinned_ms = " + NOW + " + 120000 WHERE id = 1";

    private Connection connection;
    private RawPg sql;
    private PgFenceWrites w;

    @BeforeEach
    void open() throws Exception {
        connection = PgTestServer.freshDatabase().connect();
        new PgMigrator(false, "test", "abc123", 10_000).migrate(connection);
        sql = new RawPg(connection);
        w = new PgFenceWrites(sql);
        w.process(A);
        w.process(B);
        w.actor("operator");
        w.actor("reviewer");
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
    }

    // ---- the counters ----------------------------------------------------------------------------------

    @Test
    void theTokenCounterCannotBeWoundBackByAnyStatementForm() {
        w.acquire("operator", A, 5_000);
        // one row per stripe of actors (schema version 19): their sum moves with every mint of any stripe
        long last = sql.scalar("SELECT sum(last_token) FROM token_counter");

        sql.refused("only increases", "UPDATE token_counter SET last_token = last_token - 1");
        sql.refused("only increases", "UPDATE token_counter SET last_token = last_token");
        sql.refused(
                "only increases", "UPDATE token_counter SET id = id + 1, last_token = last_token + 64"); // a key change
        sql.refused("cannot be deleted", "DELETE FROM token_counter");
        sql.refused("cannot be deleted", "TRUNCATE token_counter");
        sql.refused(
                "cannot be inserted again",
                "INSERT INTO token_counter (id, last_token) VALUES (1, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET last_token = 0");
        sql.refused(
                "cannot be inserted again",
                "INSERT INTO token_counter (id, last_token) VALUES (1, 0)" + " ON CONFLICT DO NOTHING");
        sql.copyRefused("cannot be inserted again", "COPY token_counter (id, last_token) FROM STDIN", "1\t0\n");
        // deferring constraints defers nothing here: the guards are BEFORE row triggers, not constraints
        sql.refused("only increases", "SET CONSTRAINTS ALL DEFERRED", "UPDATE token_counter SET last_token = 0");
        sql.refused("cannot be deleted", "SET CONSTRAINTS ALL DEFERRED", "DELETE FROM token_counter");
        assertThat(sql.scalar("SELECT sum(last_token) FROM token_counter")).isEqualTo(last);

        // minting goes through, and the guard stamps the transaction that minted
        sql.passes(
                MINT,
                "DO $$ BEGIN IF (SELECT min(last_xact) FROM token_counter) <> txid_current() THEN"
                        + " RAISE EXCEPTION 'not stamped'; END IF; END $$");
        assertThat(sql.scalar("SELECT sum(last_token) FROM token_counter")).isEqualTo(last + 64 * 64);
        // the stamp cannot be forged: the guard writes it whatever the statement says
        sql.passes("UPDATE token_counter SET last_token = last_token + 64, last_xact = 42 WHERE id = 1");
        assertThat(sql.scalar("SELECT last_xact FROM token_counter WHERE id = 1"))
                .isNotEqualTo(42);
    }

    @Test
    void theLeaseChangeCounterCannotBeWoundBackOrReplacedEither() {
        sql.passes("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
        sql.refused("only increases", "UPDATE lease_change_counter SET last_change = 0");
        sql.refused("cannot be deleted", "DELETE FROM lease_change_counter");
        sql.refused("cannot be deleted", "TRUNCATE lease_change_counter");
        sql.refused(
                "cannot be inserted again",
                "INSERT INTO lease_change_counter (id, last_change) VALUES (1, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET last_change = 0");
        assertThat(sql.scalar("SELECT last_change FROM lease_change_counter")).isEqualTo(1);
    }

    @Test
    void replicaModeDoesNotSwitchTheGuardsOffBecauseTheyFireAlways() {
        // only a superuser may set it (the test server's connection is one): ordinary triggers would not fire
        sql.refused("cannot be deleted", "SET LOCAL session_replication_role = replica", "DELETE FROM token_counter");
        sql.refused(
                "append-only",
                "SET LOCAL session_replication_role = replica",
                journalStatement("LEASE_ACQUIRED", "x"),
                "DELETE FROM fence_events");
        sql.refused(
                "only increases",
                "SET LOCAL session_replication_role = replica",
                "UPDATE token_counter SET last_token = 0");
        sql.passes("SET LOCAL session_replication_role = replica", MINT);
    }

    @Test
    void aTemporaryTableCannotShadowTheCounterAGuardReads() {
        // pg_temp comes first on an ordinary search_path; the guards pin theirs, so they read the ledger's counter
        sql.exec(
                "CREATE TEMP TABLE token_counter (id int, last_token bigint, last_xact bigint)",
                "INSERT INTO pg_temp.token_counter VALUES (1, 999, txid_current())");
        sql.refused(
                "granted with the token minted for it",
                "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at,"
                        + " renewal_journalled_at, change_seq) VALUES ('operator', " + q(A) + ", 999, 5000, 0, 0,"
                        + " 9999999999999, 0, 1)");
        sql.exec("DROP TABLE pg_temp.token_counter");
        w.acquire("operator", A, 5_000);
    }

    // ---- the journal, the ticks, the migration record ----------------------------------------------

    @Test
    void theJournalIsAppendOnlyAgainstEveryStatementForm() {
        sql.passes(journalStatement("LEASE_ACQUIRED", "operator"), journalStatement("LEASE_RENEWED", "operator"));
        // several rows in one statement, and COPY with the default key, are appends
        sql.passes("INSERT INTO fence_events (at, kind, resource_type, resource_id)" + " SELECT " + NOW
                + ", 'LEASE_RENEWED', 'actor', 'r' || g FROM generate_series(1, 5) g");
        assertThat(sql.copyPasses(
                        "COPY fence_events (at, kind, resource_type, resource_id) FROM STDIN",
                        "1\tLEASE_RENEWED\tactor\tc1\n2\tLEASE_RENEWED\tactor\tc2\n"))
                .isEqualTo(2);
        long rows = sql.scalar("SELECT count(*) FROM fence_events");
        long max = sql.scalar("SELECT max(seq) FROM fence_events");
        String cols = "(seq, at, kind, resource_type, resource_id)";

        sql.refused("append-only", "UPDATE fence_events SET detail = 'rewritten'");
        sql.refused("identity column", "UPDATE fence_events SET seq = seq + 1000 WHERE seq = 1"); // a key change
        sql.refused("append-only", "DELETE FROM fence_events WHERE seq = 1");
        sql.refused("append-only", "TRUNCATE fence_events");
        sql.refused("fence:", "TRUNCATE actors, processes CASCADE"); // reaches every table that refers to them
        // an explicit key: a collision (upsert or not), history written into the past, a jump ahead
        sql.refused(
                "append-only",
                "INSERT INTO fence_events " + cols + " OVERRIDING SYSTEM VALUE VALUES (1, 0,"
                        + " 'REJECTED', 'actor', 'x') ON CONFLICT (seq) DO UPDATE SET detail = 'rewritten'");
        sql.refused(
                "append-only",
                "INSERT INTO fence_events " + cols + " OVERRIDING SYSTEM VALUE VALUES (1, 0,"
                        + " 'REJECTED', 'actor', 'x') ON CONFLICT DO NOTHING");
        sql.refused(
                "append-only",
                journalStatement("LEASE_ACQUIRED", "y"),
                "INSERT INTO fence_events " + cols + " OVERRIDING SYSTEM VALUE VALUES (" + (max + 1)
                        + " - 1, 0, 'REJECTED', 'actor', 'past')");
        sql.refused(
                "append-only",
                "INSERT INTO fence_events " + cols + " OVERRIDING SYSTEM VALUE VALUES (" + (max + 1000)
                        + ", 0, 'REJECTED', 'actor', 'ahead')");
        // COPY writes identity columns as given (like OVERRIDING SYSTEM VALUE): the guard sees that too
        sql.copyRefused(
                "append-only", "COPY fence_events " + cols + " FROM STDIN", max + 500 + "\t0\tREJECTED\tactor\tx\n");
        assertThat(sql.scalar("SELECT count(*) FROM fence_events")).isEqualTo(rows);
        assertThat(sql.text("SELECT string_agg(coalesce(detail, '-'), ',') FROM fence_events"))
                .doesNotContain("rewritten");
    }

    @Test
    void supervisorTicksReceiptsAndTheMigrationRecordAreAppendOnlyToo() {
        String tick =
                "INSERT INTO supervisor_ticks (at, process_identity, expired_leases, stale_processes, swept_claims,"
                        + " recovered, failures, report) VALUES (" + NOW + ", " + q(A) + ", 0, 0, 0, 0, 0, 'quiet')";
        sql.passes(tick, tick);
        sql.refused("supervisor ticks are append-only", "UPDATE supervisor_ticks SET report = 'forged'");
        // since version 13 old ticks may be pruned (decision 0018), never the newest nor a young one
        sql.refused(
                "a supervisor tick is deleted only when older than the retention policy",
                "DELETE FROM supervisor_ticks");
        sql.refused("supervisor ticks are append-only", "TRUNCATE supervisor_ticks");
        sql.refused(
                "supervisor ticks are append-only",
                "INSERT INTO supervisor_ticks (seq, at, process_identity,"
                        + " expired_leases, stale_processes, swept_claims, recovered, failures, report) OVERRIDING SYSTEM VALUE"
                        + " VALUES (1, 0, 'p', 0, 0, 0, 0, 0, 'x') ON CONFLICT (seq) DO UPDATE SET report = 'forged'");
        assertThat(sql.scalar("SELECT count(*) FROM supervisor_ticks WHERE report = 'quiet'"))
                .isEqualTo(2);

        sql.refused("the migration record is append-only", "UPDATE schema_migrations SET sovereign_version = 'x'");
        sql.refused("the migration record is append-only", "DELETE FROM schema_migrations");
        sql.refused("the migration record is append-only", "TRUNCATE schema_migrations");
        sql.refused(
                "the migration record is append-only",
                "INSERT INTO schema_migrations VALUES (1, 'x', 'y', 0)"
                        + " ON CONFLICT (schema_version) DO UPDATE SET sovereign_version = 'x'");
        sql.refused("duplicate key", "INSERT INTO schema_migrations VALUES (1, 'x', 'y', 0)");

        sql.refused(
                "the ledger mark is written once",
                "INSERT INTO ledger_mark VALUES (1, 1, 0)" + " ON CONFLICT (id) DO UPDATE SET lab_sandbox = 1");
        sql.refused("the ledger mark cannot change", "UPDATE ledger_mark SET lab_sandbox = 1");
        sql.refused("the ledger mark cannot change", "DELETE FROM ledger_mark");
        sql.refused("the ledger mark cannot change", "TRUNCATE ledger_mark");
        assertThat(sql.scalar("SELECT lab_sandbox FROM ledger_mark")).isZero();
    }

    // ---- actor leases ----------------------------------------------------------------------------------

    @Test
    void aLeaseIsGrantedOnlyWithATokenMintedInTheSameTransaction() {
        String insert = acquireStatements("operator", A, 5_000)[1];
        sql.refused("granted with the token minted for it", insert); // no token minted at all
        sql.passes(MINT);
        // the counter's value, minted by an EARLIER transaction: SQLite cannot tell, PostgreSQL can
        sql.refused("granted with the token minted for it", insert);
        // a change marker other than this transaction's id: an earlier transaction's, or none
        sql.refused("change marker", MINT, insert.replace(CHANGE + " FROM", "txid_current() - 1 FROM"));
        sql.refused("change marker", MINT, insert.replace(CHANGE + " FROM", "1 FROM"));
        sql.refused(
                "granted with the token minted for it",
                MINT,
                insert.replace(token("'operator'") + ", 5000", token("'operator'") + " - 64, 5000")); // an older token
        sql.passes(acquireStatements("operator", A, 5_000));
        long token = w.leaseToken("operator");

        // a second grant of the same actor: neither a plain insert nor an upsert replaces the row
        sql.refused("never replaced", acquireStatements("operator", B, 5_000));
        String[] upsert = acquireStatements("operator", B, 5_000);
        upsert[1] += " ON CONFLICT (actor_id) DO UPDATE SET process_identity = excluded.process_identity";
        sql.refused("never replaced", upsert);
        String[] quiet = acquireStatements("operator", B, 5_000);
        quiet[1] += " ON CONFLICT DO NOTHING";
        sql.refused("never replaced", quiet);
        assertThat(w.leaseToken("operator")).isEqualTo(token);
        assertThat(sql.text("SELECT process_identity FROM actor_leases WHERE actor_id = 'operator'"))
                .isEqualTo(A);
    }

    @Test
    void aLeaseIsRenewedOnlyWithItsCurrentToken() {
        long stale = w.acquire("operator", A, -1); // already expired
        long current = w.takeOver("operator", stale, B, 5_000);
        String renew = "UPDATE actor_leases SET expires_at = expires_at + 60000, change_seq = " + CHANGE;

        sql.refused("presents its current token", renew + " WHERE actor_id = 'operator'");
        sql.refused(
                "presents its current token",
                renew + ", presented_token = " + stale + ", presented_change = " + CHANGE
                        + " WHERE actor_id = 'operator'");
        // presenting the token without stating this write's own marker: an earlier write's presentation is not this one
        sql.refused(
                "presents its current token",
                renew + ", presented_token = " + current + " WHERE actor_id = 'operator'");
        sql.refused(
                "a renewal keeps the holder",
                renew + ", presented_token = " + current + ", presented_change = " + CHANGE + ", process_identity = "
                        + q(A) + " WHERE actor_id = 'operator'");
        sql.refused(
                "change marker",
                renew.replace(", change_seq = " + CHANGE, "") + ", presented_token = " + current
                        + ", presented_change = change_seq WHERE actor_id = 'operator'"); // no new marker
        sql.refused(
                "never changes its actor",
                renew + ", presented_token = " + current + ", presented_change = " + CHANGE
                        + ", actor_id = 'reviewer' WHERE actor_id = 'operator'"); // a key change
        long expires = sql.scalar("SELECT expires_at FROM actor_leases");

        sql.passes(renewStatements("operator", current, 60_000));
        assertThat(sql.scalar("SELECT expires_at FROM actor_leases")).isGreaterThan(expires);
        // a heartbeat renews every lease of its process in one statement, presenting each row's own token (and, since
        // schema version 8, renewing it now: an expiry is never later than the renewal plus the TTL)
        w.acquire("reviewer", B, 5_000);
        // (one reading of the clock: two in one statement can be a millisecond apart on a loaded machine)
        sql.passes("UPDATE actor_leases SET renewed_at = n.ms, expires_at = n.ms + 5000,"
                + " presented_token = token,"
                + " change_seq = " + CHANGE + ", presented_change = " + CHANGE + " FROM (SELECT " + NOW
                + " AS ms) n"
                + " WHERE process_identity = " + q(B));
    }

    @Test
    void aLiveLeaseIsNeverTakenOverAndAnExpiredOneOnlyWithAFreshToken() {
        long live = w.acquire("operator", A, 60_000);
        sql.refused(
                "a takeover needs an expired lease",
                takeOverStatements("operator", live, B, 5_000)[0],
                takeOverStatements("operator", live, B, 5_000)[1].replace(" AND expires_at <= " + NOW, ""));
        // time is the server's: a client's own acquired_at far in the future does not make a live lease expired
        sql.refused(
                "a takeover needs an expired lease",
                MINT,
                "UPDATE actor_leases SET token = " + LEASE_TOKEN
                        + ", process_identity = " + q(B) + ", acquired_at = 99999999999999, presented_token = " + live
                        + ", change_seq = " + CHANGE + ", presented_change = " + CHANGE
                        + " WHERE actor_id = 'operator'");

        long expired = w.acquire("reviewer", A, -1);
        String[] takeOver = takeOverStatements("reviewer", expired, B, 5_000);
        // no token minted: the row keeps its token, so this is a renewal that changes the holder
        sql.refused("a renewal keeps the holder", takeOver[1]);
        sql.passes(MINT);
        sql.refused("a takeover needs an expired lease", takeOver[1]); // minted by another transaction
        sql.refused(
                "a takeover needs an expired lease",
                MINT,
                takeOver[1].replace(
                        "token = " + LEASE_TOKEN, "token = " + LEASE_TOKEN + " - 64")); // not the token just minted
        sql.passes(takeOver);
        assertThat(w.leaseToken("reviewer")).isGreaterThan(expired);
        assertThat(sql.text("SELECT process_identity FROM actor_leases WHERE actor_id = 'reviewer'"))
                .isEqualTo(B);
    }

    @Test
    void aLeaseIsReleasedOnlyByTheTransactionThatPresentsItsCurrentToken() {
        long token = w.acquire("operator", A, 60_000);
        sql.refused(
                "released only by the transaction that presents its current token",
                "DELETE FROM actor_leases WHERE actor_id = 'operator'");
        // a hand-typed "takeover" by DELETE + INSERT
        String[] grab = acquireStatements("operator", B, 60_000);
        sql.refused(
                "released only by the transaction that presents its current token",
                "DELETE FROM actor_leases WHERE actor_id = 'operator'",
                grab[0],
                grab[1]);
        sql.refused("released only by the transaction", "TRUNCATE actor_leases");
        sql.refused("released only by the transaction", "TRUNCATE actor_leases CASCADE");
        // a renewal committed earlier left the current token and the counter's value in the row: on SQLite a
        // bare DELETE right after it would pass; here the presentation must be this transaction's own
        sql.passes(renewStatements("operator", token, 60_000));
        sql.refused(
                "released only by the transaction that presents its current token",
                "DELETE FROM actor_leases WHERE actor_id = 'operator'");
        // presenting a stale token in the same transaction
        String[] release = releaseStatements("operator", token);
        sql.refused(
                "presents its current token",
                release[0]
                        .replace("presented_token = " + token, "presented_token = " + (token - 1))
                        .replace(" AND token = " + token, ""),
                release[1]);
        assertThat(sql.scalar("SELECT count(*) FROM actor_leases")).isEqualTo(1);

        sql.passes(releaseStatements("operator", token));
        assertThat(sql.scalar("SELECT count(*) FROM actor_leases")).isZero();
        // the release leaves a tombstone with the delete's own marker: its transaction's id, the row's own xmin
        assertThat(sql.scalar("SELECT count(*) FROM lease_tombstones WHERE actor_id = 'operator'"
                        + " AND change_seq = xmin::text::bigint"))
                .isEqualTo(1);
        // and a token is never re-issued after the row is gone
        assertThat(w.acquire("operator", B, 5_000)).isGreaterThan(token);
    }

    // ---- execution attempts ----------------------------------------------------------------------------

    @Test
    void anAttemptCanNeitherBeForgedNorRepointedNorRewritten() {
        long lease = w.acquire("operator", A, 60_000);
        w.assign("asg_1", "operator");
        String[] start = startStatements("att_1", "asg_1", "operator", A, lease, 60_000);
        // B binds an attempt to A's lease; an attempt with no fresh token; a token minted by another transaction
        sql.refused("bound to the current lease", startStatements("att_1", "asg_1", "operator", B, lease, 60_000));
        sql.refused("bound to the current lease", start[1]);
        sql.passes(MINT);
        sql.refused("bound to the current lease", start[1]);
        sql.refused("bound to the current lease", MINT, start[1].replace("'ACTIVE'", "'DONE'"));
        sql.refused("bound to the current lease", startStatements("att_1", "asg_1", "operator", A, lease - 1, 60_000));

        long token = w.start("att_1", "asg_1", "operator", A, lease, 60_000);
        sql.refused("never inserted twice", MINT, start[1]); // same id
        sql.refused(
                "never inserted twice",
                start[1].replace("'att_1'", "'att_2'").replace(token("'operator'"), String.valueOf(token)));
        sql.refused("never inserted twice", MINT, start[1] + " ON CONFLICT (id) DO UPDATE SET lease_token = " + lease);
        sql.refused("never changes its id, token", "UPDATE execution_attempts SET token = 1");
        sql.refused("never changes its id, token", "UPDATE execution_attempts SET process_identity = " + q(B));
        sql.refused("never changes its id, token", "UPDATE execution_attempts SET id = 'att_9'"); // a key change
        // deleted only with its run, after it (version 14, decision 0020): here its run is there
        sql.refused("an attempt or a receipt is deleted only with its run", "DELETE FROM execution_attempts");
        sql.refused("attempts are never deleted", "TRUNCATE execution_attempts CASCADE");
        assertThat(w.attemptToken("att_1")).isEqualTo(token);

        // an operator may clear the pointer (steal the fence), but nobody may point it back
        sql.passes("UPDATE assignments SET current_attempt = NULL WHERE id = 'asg_1'");
        sql.refused("current_attempt can only point", MINT, "UPDATE assignments SET current_attempt = 'att_1'");
        // an ended attempt is final; it ends LOST (no longer current) only once it has expired (V0004)
        sql.refused(
                "an ACTIVE attempt ends",
                "UPDATE execution_attempts SET state = 'LOST', ended_at = " + NOW + " WHERE id = 'att_1'");
        sql.passes(PAST_EVERY_EXPIRY);
        sql.passes("UPDATE execution_attempts SET state = 'LOST', ended_at = " + NOW + " WHERE id = 'att_1'");
        sql.refused("an ended attempt is final", "UPDATE execution_attempts SET state = 'ACTIVE' WHERE id = 'att_1'");
    }

    @Test
    void thePointerNeverMovesPastALiveAttemptOnlyToAFreshOneAfterTheLastEnded() {
        long lease = w.acquire("operator", A, 60_000);
        w.assign("asg_1", "operator");
        w.start("att_1", "asg_1", "operator", A, lease, -1); // running, its attempt already expired
        String[] second = startStatements("att_2", "asg_1", "operator", A, lease, 60_000);

        // att_1 is still ACTIVE: a new attempt may be started but the pointer may not move past the live one
        sql.refused("current_attempt can only point", second);
        // superseding att_1 first, the move goes through
        sql.passes(
                "UPDATE execution_attempts SET state = 'SUPERSEDED', ended_at = " + NOW + " WHERE id = 'att_1'",
                second[0],
                second[1],
                second[2]);
        assertThat(sql.text("SELECT current_attempt FROM assignments WHERE id = 'asg_1'"))
                .isEqualTo("att_2");
        // pointing at an attempt of another assignment, or at one started in an earlier transaction
        w.assign("asg_2", "operator");
        w.start("att_3", "asg_2", "operator", A, lease, 60_000);
        sql.refused(
                "current_attempt can only point",
                PAST_EVERY_EXPIRY,
                "UPDATE execution_attempts SET state = 'SUPERSEDED', ended_at = " + NOW + " WHERE id = 'att_2'",
                MINT,
                "UPDATE assignments SET current_attempt = 'att_3' WHERE id = 'asg_1'");
    }

    /**
     * Issue 19 (V0004): someone else's ACTIVE attempt cannot be ended by hand, nor its expiry moved, by any
     * statement form; each refusal is paired with the write it resembles that the engine makes, passing.
     */
    @Test
    void anActiveAttemptEndsOnlyThroughItsFenceOrOnceExpiredAndIsRenewedOnlyForwardUnderItsLease() {
        long lease = w.acquire("operator", A, 600_000);
        for (String n : new String[] {"1", "2", "3", "4"}) {
            w.assign("asg_" + n, "operator");
            w.start("att_" + n, "asg_" + n, "operator", A, lease, 5_000);
        }
        String set = "UPDATE execution_attempts SET ";
        String ends = "fence: an ACTIVE attempt ends";
        String renews = "fence: an ACTIVE attempt is renewed only forward";

        // live and current: no ended state by hand, whatever end time it states
        for (String state : new String[] {"DONE", "SUPERSEDED", "RECOVERED", "LOST"}) {
            sql.refused(ends, set + "state = " + q(state) + ", ended_at = " + NOW + " WHERE id = 'att_1'");
            sql.refused(ends, set + "state = " + q(state) + ", ended_at = " + NOW + " + 86400000 WHERE id = 'att_1'");
        }
        sql.refused(ends, set + "state = 'DONE' WHERE id = 'att_1'"); // stating no end time
        sql.refused(ends, set + "state = 'DONE', ended_at = " + NOW); // every attempt at once
        sql.refused(
                ends,
                "SET CONSTRAINTS ALL DEFERRED",
                set + "state = 'DONE', ended_at = " + NOW + " WHERE id = 'att_1'");
        sql.refused(
                ends,
                "SET LOCAL session_replication_role = replica",
                set + "state = 'DONE', ended_at = " + NOW + " WHERE id = 'att_1'");
        // nor by an upsert of the row (its BEFORE INSERT guard fires first)
        sql.refused(
                "never inserted twice",
                "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity,"
                        + " token, lease_token, state, ttl_ms, started_at, renewed_at, expires_at) SELECT id, assignment_id,"
                        + " actor_id, process_identity, token, lease_token, 'DONE', ttl_ms, started_at, renewed_at, expires_at"
                        + " FROM execution_attempts WHERE id = 'att_1'"
                        + " ON CONFLICT (id) DO UPDATE SET state = 'DONE', ended_at = " + NOW);
        // its expiry: never backwards (an early recovery), never ahead of the server's clock plus its ttl
        sql.refused(renews, set + "expires_at = " + NOW + " - 1 WHERE id = 'att_1'");
        sql.refused(renews, set + "expires_at = 0"); // every attempt at once
        sql.refused(renews, set + "expires_at = expires_at + 86400000 WHERE id = 'att_1'");
        sql.refused(
                renews,
                set + "renewed_at = " + NOW + " + 86400000, expires_at = " + NOW + " + 86405000"
                        + " WHERE id = 'att_1'"); // a renewal stamped in the future
        sql.refused(renews, set + "ttl_ms = 86400000, expires_at = renewed_at + 86400000 WHERE id = 'att_1'");
        sql.refused(renews, set + "renewed_at = renewed_at - 1 WHERE id = 'att_1'");
        sql.refused(renews, set + "ended_at = " + NOW + " WHERE id = 'att_1'");
        // a renewal as the heartbeat writes it, under the lease, for the attempt its assignment points at
        // (one reading of the clock for both times, as the heartbeat binds one value: two readings in one statement
        // can be a millisecond apart on a loaded machine, and the later expiry is then past renewal + TTL)
        sql.passes(set + "renewed_at = GREATEST(renewed_at, n.ms), expires_at = GREATEST(expires_at, n.ms + ttl_ms)"
                + " FROM (SELECT " + NOW + " AS ms) n WHERE id = 'att_1'");
        // ... but not once its fence was stolen
        sql.passes("UPDATE assignments SET current_attempt = NULL WHERE id = 'asg_3'");
        sql.refused(renews, set + "renewed_at = " + NOW + " + 1, expires_at = " + NOW + " + 5001 WHERE id = 'att_3'");

        // DONE only after the fenced terminal write of its own assignment, in the same transaction
        String[] ending = endStatements("asg_1", "att_1", "COMPLETED", "attempt");
        sql.refused(ends, ending[1], ending[0]);
        sql.refused(ends, endStatements("asg_4", "att_4", "COMPLETED", "attempt")[0], ending[1]);
        sql.passes(ending[0], ending[1]);
        assertThat(sql.text("SELECT state FROM execution_attempts WHERE id = 'att_1'"))
                .isEqualTo("DONE");

        // expired on the server's clock: SUPERSEDED; LOST once no longer current; RECOVERED with its recovery
        sql.passes(PAST_EVERY_EXPIRY);
        sql.refused(ends, set + "state = 'DONE', ended_at = " + NOW + " WHERE id = 'att_2'");
        sql.refused(ends, set + "state = 'RECOVERED', ended_at = " + NOW + " WHERE id = 'att_2'");
        sql.refused(ends, set + "state = 'LOST', ended_at = " + NOW + " WHERE id = 'att_2'"); // still current
        sql.refused(
                ends,
                set + "state = 'SUPERSEDED', ended_at = " + NOW + ", expires_at = " + NOW + " + 5000"
                        + " WHERE id = 'att_4'"); // an ending never renews
        sql.passes(set + "state = 'SUPERSEDED', ended_at = " + NOW + " WHERE id = 'att_4'");
        sql.passes(set + "state = 'LOST', ended_at = " + NOW + " WHERE id = 'att_3'");
        String[] recovery = endStatements("asg_2", "att_2", "FAILED", "recovery");
        sql.passes(recovery[0], recovery[1]);
        assertThat(sql.text("SELECT string_agg(state, ',' ORDER BY token) FROM execution_attempts"))
                .isEqualTo("DONE,RECOVERED,LOST,SUPERSEDED");
    }

    // ---- the terminal fence ----------------------------------------------------------------------------

    @Test
    void aHolderWhoseLeaseWasTakenOverCannotEndItsAssignmentWhateverItsWhereClause() {
        long lease = w.acquire("operator", A, -1); // A paused past its TTL ...
        w.assign("asg_1", "operator");
        long stale = w.start("att_1", "asg_1", "operator", A, lease, 60_000);
        w.takeOver("operator", lease, B, 60_000); // ... and B took the actor over

        sql.refused(
                "an assignment ends only by its current attempt",
                "UPDATE assignments SET state = 'COMPLETED', current_attempt = NULL WHERE id = 'asg_1'");
        sql.refused(
                "an assignment ends only by its current attempt",
                endStatements("asg_1", "att_1", "COMPLETED", "attempt"));
        sql.refused("a receipt names the attempt", receiptStatement("asg_1", "att_1", stale, "completed", null, 1));
        assertThat(sql.text("SELECT state FROM assignments")).isEqualTo("RUNNING");
        assertThat(sql.scalar("SELECT count(*) FROM receipts")).isZero();
    }

    @Test
    void onlyTheCurrentAttemptUnderItsLeaseEndsAnAssignmentAndOnlyItsReceiptIsTaken() {
        long lease = w.acquire("operator", A, 60_000);
        w.assign("asg_1", "operator");
        w.assign("asg_2", "operator");
        long token = w.start("att_1", "asg_1", "operator", A, lease, 60_000);
        String end = "UPDATE assignments SET state = 'COMPLETED', current_attempt = NULL, updated_at = " + NOW;

        sql.refused("ends only by its current attempt", end + ", ended_via = 'attempt' WHERE id = 'asg_1'");
        sql.refused("ends only by its current attempt", end + ", ended_by_attempt = 'att_1' WHERE id = 'asg_1'");
        sql.refused(
                "ends only by its current attempt",
                end + ", ended_by_attempt = 'att_made_up', ended_via = 'attempt'" + " WHERE id = 'asg_1'");
        sql.refused("ends only by its current attempt", endStatements("asg_1", "att_1", "FAILED", "recovery")); // live
        sql.refused(
                "moves only CREATED -> RUNNING",
                end + ", ended_by_attempt = 'att_1', ended_via = 'attempt'" + " WHERE id = 'asg_2'");
        sql.refused("a receipt names the attempt", receiptStatement("asg_1", "att_1", token, "completed", null, 1));
        // deferring constraints does not defer the guard
        sql.refused(
                "ends only by its current attempt",
                "SET CONSTRAINTS ALL DEFERRED",
                end + ", ended_via = 'attempt' WHERE id = 'asg_1'");

        String[] ending = endStatements("asg_1", "att_1", "COMPLETED", "attempt");
        sql.refused(
                "a receipt names the attempt",
                ending[0],
                ending[1],
                receiptStatement("asg_1", "att_1", token - 1, "completed", null, 1)); // the receipt with another token
        sql.passes(ending[0], ending[1], receiptStatement("asg_1", "att_1", token, "completed", null, 1));
        assertThat(sql.text("SELECT state FROM assignments WHERE id = 'asg_1'")).isEqualTo("COMPLETED");

        // now final: no second receipt, no rewrite, no way back, by any statement form
        long receipt = sql.scalar("SELECT id FROM receipts");
        sql.refused("receipts are immutable", "UPDATE receipts SET status = 'failed'");
        sql.refused("an attempt or a receipt is deleted only with its run", "DELETE FROM receipts");
        sql.refused("receipts are immutable", "TRUNCATE receipts");
        sql.refused(
                "receipts are immutable",
                receiptStatement("asg_1", "att_1", token, "failed", null, 1)
                                .replace("(assignment_id,", "(id, assignment_id,")
                                .replace("VALUES (", "VALUES (" + receipt + ", ")
                        + " ON CONFLICT (id) DO UPDATE SET status = 'failed'");
        sql.refused(
                "receipts are immutable",
                receiptStatement("asg_1", "att_1", token, "failed", null, 1) + " ON CONFLICT DO NOTHING");
        sql.refused("moves only CREATED -> RUNNING", "UPDATE assignments SET state = 'FAILED' WHERE id = 'asg_1'");
        sql.refused("moves only CREATED -> RUNNING", "UPDATE assignments SET state = 'RUNNING' WHERE id = 'asg_1'");
        sql.refused("an ended assignment is final", "UPDATE assignments SET ended_via = 'recovery' WHERE id = 'asg_1'");
        sql.refused(
                "a run is deleted only when it ended, was settled and is older than the retention policy",
                "DELETE FROM assignments WHERE id = 'asg_1'");
        sql.refused("assignments are never deleted", "TRUNCATE assignments CASCADE");
        sql.refused(
                "never inserted twice",
                "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state,"
                        + " created_at, updated_at) VALUES ('asg_1', 'operator', 'scripted', 'temporary', 'CREATED', 0, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET state = 'CREATED'");
        sql.refused("never changes its id", "UPDATE assignments SET id = 'asg_1' || 'x' WHERE id = 'asg_1'");
        sql.refused(
                "created in state CREATED",
                "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy,"
                        + " state, created_at, updated_at) VALUES ('asg_forged', 'operator', 'scripted', 'temporary', 'COMPLETED', 0, 0)");
        assertThat(sql.text("SELECT status FROM receipts")).isEqualTo("completed");
        // an acknowledgement is the one thing an ended assignment may still take, and since schema version 9 only a
        // FAILED or BLOCKED one (decision 0916): not this COMPLETED one (a FAILED one: the test of decision 0916)
        sql.refused(
                "only a FAILED or BLOCKED assignment is acknowledged",
                "UPDATE assignments SET acknowledged_at = " + NOW + " WHERE id = 'asg_1'");
    }

    @Test
    void aRecoveryEndsOnlyAnExpiredAttemptAndNeverGuessesSuccess() {
        long lease = w.acquire("operator", A, 60_000);
        w.assign("asg_1", "operator");
        long token = w.start("att_1", "asg_1", "operator", A, lease, -1); // expired on the server's clock
        String[] recovery = endStatements("asg_1", "att_1", "FAILED", "recovery");

        sql.refused("ends only by its current attempt", recovery[0].replace("'FAILED'", "'COMPLETED'"));
        sql.refused(
                "a recovery never guesses success",
                recovery[0],
                recovery[1],
                receiptStatement("asg_1", "att_1", token, "completed", null, 1));
        sql.refused(
                "a recovery never guesses success",
                recovery[0],
                recovery[1],
                receiptStatement("asg_1", "att_1", token, "failed", "worker_lost", 1));
        sql.passes(recovery[0], recovery[1], receiptStatement("asg_1", "att_1", token, "failed", "worker_lost", 0));
        assertThat(sql.text("SELECT ended_via FROM assignments")).isEqualTo("recovery");
    }

    @Test
    void aStolenFenceIsEndedOnlyByARecoveryOnceNoLiveAttemptIsLeft() {
        long lease = w.acquire("operator", A, 60_000);
        w.assign("asg_1", "operator");
        long token = w.start("att_1", "asg_1", "operator", A, lease, 60_000);
        sql.passes("UPDATE assignments SET current_attempt = NULL WHERE id = 'asg_1'"); // an operator steals the fence
        String[] recovery = endStatements("asg_1", "att_1", "FAILED", "recovery");

        // its attempt is still live: neither it nor a recovery may end the assignment yet
        sql.refused(
                "ends only by its current attempt",
                endStatements("asg_1", "att_1", "COMPLETED", "attempt")[0].replace(
                        " AND current_attempt = 'att_1'", ""));
        sql.refused("ends only by its current attempt", recovery[0]);
        // its expiry cannot be moved into the past by hand (V0004); once it has expired, the supervisor may
        sql.refused(
                "an ACTIVE attempt is renewed only forward",
                "UPDATE execution_attempts SET expires_at = " + NOW + " - 1 WHERE id = 'att_1'");
        sql.passes(PAST_EVERY_EXPIRY);
        sql.passes(recovery[0], recovery[1], receiptStatement("asg_1", "att_1", token, "failed", "worker_lost", 0));
        assertThat(sql.text("SELECT state || '/' || ended_via FROM assignments"))
                .isEqualTo("FAILED/recovery");
    }

    @Test
    void onALabSandboxTheTerminalFenceIsLeftToTheClientAndOnlyThere() throws Exception {
        try (Connection lab = PgTestServer.freshDatabase().connect()) {
            new PgMigrator(true, "test", "abc123", 10_000).migrate(lab);
            RawPg labSql = new RawPg(lab);
            PgFenceWrites labWrites = new PgFenceWrites(labSql);
            labWrites.process(A);
            labWrites.actor("operator");
            long lease = labWrites.acquire("operator", A, 60_000);
            labWrites.assign("asg_1", "operator");
            labWrites.start("att_1", "asg_1", "operator", A, lease, 60_000);
            labSql.passes("UPDATE assignments SET state = 'COMPLETED', current_attempt = NULL WHERE id = 'asg_1'");
        }
        // the same broken-fence write on an ordinary ledger
        long lease = w.acquire("operator", A, 60_000);
        w.assign("asg_1", "operator");
        w.start("att_1", "asg_1", "operator", A, lease, 60_000);
        sql.refused(
                "ends only by its current attempt",
                "UPDATE assignments SET state = 'COMPLETED', current_attempt = NULL WHERE id = 'asg_1'");
        sql.refused("the ledger mark cannot change", "DELETE FROM ledger_mark"); // so it cannot be written again
    }

    // ---- messages ----------------------------------------------------------------------------------------

    @Test
    void aMessageIsFinishedOnlyWithItsCurrentClaimAndAFinishedOneIsFinal() {
        w.acquire("operator", A, 60_000);
        w.send("msg_1", "operator");
        long stale = w.claim("msg_1", "operator", A, -1); // the claim expired ...
        long current = w.claim("msg_1", "operator", A, 60_000); // ... and the host claimed it afresh
        assertThat(current).isGreaterThan(stale);
        String done = "UPDATE messages SET state = 'DONE', updated_at = " + NOW;

        sql.refused("finished only with its current claim token", done + " WHERE id = 'msg_1'");
        sql.refused(
                "finished only with its current claim token",
                done + ", finished_with = " + stale + " WHERE id = 'msg_1'");
        sql.refused(
                "finished only with its current claim token",
                "UPDATE messages SET state = 'NEW', claim_actor = NULL,"
                        + " claim_process = NULL, claim_token = NULL, claim_expires_at = NULL, retry_count = retry_count + 1,"
                        + " finished_with = " + stale + " WHERE id = 'msg_1'"); // a stale dead-letter re-queue
        sql.refused(
                "a live claim is not swept",
                "UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL,"
                        + " claim_token = NULL, claim_expires_at = NULL WHERE id = 'msg_1'");
        sql.refused("a claim is granted with a freshly minted token", claimStatements("msg_1", "operator", A, 60_000));
        sql.refused(
                "a claim is granted with a freshly minted token",
                MINT,
                "UPDATE messages SET claim_process = " + q(B) + ", claim_token = " + CLAIM_TOKEN
                        + " WHERE id = 'msg_1'"); // B does not host the recipient
        sql.refused(
                "a claim keeps its token only for the process",
                "UPDATE messages SET claim_process = " + q(B) + " WHERE id = 'msg_1'");

        sql.passes(finishStatement("msg_1", current));

        sql.refused("a finished message cannot change", "UPDATE messages SET state = 'NEW' WHERE id = 'msg_1'");
        sql.refused(
                "a message is deleted only when it is finished and older than the retention policy",
                "DELETE FROM messages WHERE id = 'msg_1'");
        sql.refused("messages are never deleted", "TRUNCATE messages");
        sql.refused(
                "never inserted twice",
                "INSERT INTO messages (id, sender, recipient, subject, state, created_at,"
                        + " updated_at) VALUES ('msg_1', 'someone', 'operator', 'hello', 'NEW', 0, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET state = 'NEW'");
        w.send("msg_2", "operator");
        sql.refused("never changes its id", "UPDATE messages SET id = 'msg_1x' WHERE id = 'msg_2'"); // a key change
        sql.refused(
                "sent in state NEW",
                "INSERT INTO messages (id, sender, recipient, subject, state, created_at,"
                        + " updated_at) VALUES ('msg_forged', 'someone', 'operator', 'x', 'DONE', 0, 0)");
        sql.copyRefused(
                "sent in state NEW",
                "COPY messages (id, sender, recipient, subject, state, created_at, updated_at)" + " FROM STDIN",
                "msg_copied\tsomeone\toperator\tx\tDONE\t0\t0\n");
        assertThat(sql.text("SELECT state FROM messages WHERE id = 'msg_1'")).isEqualTo("DONE");
    }

    @Test
    void aClaimantThatLostItsLeaseCannotFinishEvenWithItsToken() {
        long lease = w.acquire("operator", A, -1);
        w.send("msg_1", "operator");
        long claim = w.claim("msg_1", "operator", A, 60_000);
        w.takeOver("operator", lease, B, 60_000);
        sql.refused("by the claiming process while it still hosts the actor", finishStatement("msg_1", claim));
    }
}
