package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.sqlite.SqliteLedger;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * contract §14: the database refuses what a badly behaved client writes, whatever that client's WHERE
 * clause says. Every statement here comes from a plain JDBC connection of its own — no engine, no
 * pragmas unless the test sets them — the way a hand-typed statement in the sqlite3 shell, a buggy
 * client or a fault switch would arrive. Each guard is tried against every statement form that can
 * change or remove a row: UPDATE, DELETE, REPLACE, INSERT OR REPLACE, an upsert, UPDATE OR REPLACE,
 * with {@code recursive_triggers} both off (SQLite's default, so REPLACE's implicit delete fires no
 * trigger) and on. Each test also shows the same write going through once it states the fence
 * correctly, so a guard that refused everything would not pass.
 */
class DatabaseEnforcedFenceTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
        a.actors().add("reviewer");
    }

    // ---- a raw connection (testing.RawSql) ----------------------------------------------------------

    private void sql(boolean recursive, String... statements) throws SQLException {
        raw.run(recursive, statements);
    }

    private long scalar(String query) throws SQLException {
        return raw.scalar(query);
    }

    private String text(String query) throws SQLException {
        return raw.text(query);
    }

    private List<String> rows(String query) throws SQLException {
        return raw.rows(query);
    }

    private void refused(boolean recursive, String... statements) {
        assertThatThrownBy(() -> sql(recursive, statements))
                .as(String.join("; ", statements))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("SQLITE_CONSTRAINT_TRIGGER");
    }

    private static String q(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    // ---- counters -------------------------------------------------------------------------------

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void theTokenCounterCannotBeWoundBackByAnyStatementForm(boolean recursive) throws Exception {
        a.leases().acquire("operator", Duration.ofSeconds(5));
        long last = scalar("SELECT last_token FROM token_counter");

        refused(recursive, "REPLACE INTO token_counter (id, last_token) VALUES (1, 0)");
        refused(recursive, "INSERT OR REPLACE INTO token_counter (id, last_token) VALUES (1, 0)");
        refused(
                recursive,
                "INSERT INTO token_counter (id, last_token) VALUES (1, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET last_token = 0");
        assertThatThrownBy(() -> sql(recursive, "UPDATE OR REPLACE token_counter SET last_token = 0"))
                .hasMessageContaining("only increases");
        assertThatThrownBy(() -> sql(recursive, "DELETE FROM token_counter")).hasMessageContaining("cannot be deleted");
        assertThat(scalar("SELECT last_token FROM token_counter")).isEqualTo(last);
        assertThat(scalar("SELECT count(*) FROM token_counter")).isEqualTo(1);

        // and so the next grant is still above every token issued, while another actor holds `last`
        Lease next = b.leases().acquire("reviewer", Duration.ofSeconds(5));
        assertThat(next.token()).isGreaterThan(last);
    }

    /** The finding as it was reproduced: the real sqlite3 shell, where the machine has one. */
    @Test
    void theSqlite3ShellCannotWindTheCounterBackNorRewriteTheJournal() throws Exception {
        Path shell = Path.of("/usr/bin/sqlite3");
        Assumptions.assumeTrue(
                Files.isExecutable(shell),
                "no sqlite3 shell on this machine; the JDBC tests above cover the same statements");
        Lease held = a.leases().acquire("operator", Duration.ofSeconds(5));
        for (String statement : List.of(
                "REPLACE INTO token_counter (id, last_token) VALUES (1, 0);",
                "REPLACE INTO fence_events (seq, at, kind, resource_type, resource_id) VALUES (1, 0, 'REJECTED',"
                        + " 'actor', 'x');",
                "UPDATE actor_leases SET expires_at = expires_at + 86400000 WHERE actor_id = 'operator';")) {
            Process p = new ProcessBuilder(shell.toString(), temp.file().toString(), statement)
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as(statement + " -> " + out).isNotZero();
            assertThat(out).containsAnyOf("fence:", "lease change marker");
        }
        assertThat(b.leases().acquire("reviewer", Duration.ofSeconds(5)).token())
                .isGreaterThan(held.token());
        assertThat(a.leases().current("operator")).contains(held);
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void theLeaseChangeCounterCannotBeReplacedEither(boolean recursive) throws Exception {
        a.leases().acquire("operator", Duration.ofSeconds(5));
        long last = scalar("SELECT last_change FROM lease_change_counter");
        refused(recursive, "REPLACE INTO lease_change_counter (id, last_change) VALUES (1, 0)");
        refused(
                recursive,
                "INSERT INTO lease_change_counter (id, last_change) VALUES (1, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET last_change = 0");
        assertThat(scalar("SELECT last_change FROM lease_change_counter")).isEqualTo(last);
    }

    // ---- the journal and the supervisor's ticks -----------------------------------------------------

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void theJournalIsAppendOnlyAgainstEveryStatementForm(boolean recursive) throws Exception {
        Lease l = a.leases().acquire("operator", Duration.ofSeconds(5));
        a.leases().release("operator", l.token());
        b.supervisor().tick();
        List<String> before = rows("SELECT * FROM fence_events ORDER BY seq");
        String row1 = "(1, 0, 'REJECTED', 'actor', 'operator', NULL, NULL, NULL, NULL, NULL, NULL, 'rewritten')";
        String columns = "(seq, at, kind, resource_type, resource_id, actor_id, process_identity, token,"
                + " presented_token, current_token, category, detail)";

        refused(recursive, "UPDATE fence_events SET detail = 'rewritten' WHERE seq = 1");
        refused(recursive, "DELETE FROM fence_events WHERE seq = 1");
        refused(recursive, "REPLACE INTO fence_events " + columns + " VALUES " + row1);
        refused(recursive, "INSERT OR REPLACE INTO fence_events " + columns + " VALUES " + row1);
        refused(
                recursive,
                "INSERT INTO fence_events " + columns + " VALUES " + row1
                        + " ON CONFLICT (seq) DO UPDATE SET detail = excluded.detail");
        refused(recursive, "UPDATE OR REPLACE fence_events SET seq = 1 WHERE seq = 2");
        // the newest row too, where "nothing may land before the last row" cannot help
        refused(
                recursive,
                "REPLACE INTO fence_events " + columns + " VALUES ((SELECT max(seq) FROM fence_events), 0,"
                        + " 'REJECTED', 'actor', 'operator', NULL, NULL, NULL, NULL, NULL, NULL, 'rewritten')");
        // history cannot be written into the past either, below the first row or into a gap
        refused(
                recursive,
                "INSERT INTO fence_events " + columns
                        + " VALUES (-5, 0, 'REJECTED', 'actor', 'operator', NULL, NULL, NULL, NULL, NULL, NULL, 'before')");
        assertThat(rows("SELECT * FROM fence_events ORDER BY seq")).isEqualTo(before);

        List<String> ticks = rows("SELECT * FROM supervisor_ticks");
        assertThat(ticks).hasSize(1);
        refused(recursive, "UPDATE supervisor_ticks SET recovered = 99");
        refused(recursive, "DELETE FROM supervisor_ticks");
        refused(
                recursive,
                "REPLACE INTO supervisor_ticks (seq, at, process_identity, expired_leases, stale_processes,"
                        + " swept_claims, recovered, failures, report) VALUES (1, 0, 'proc_x', 0, 0, 0, 99, 0, '{}')");
        assertThat(rows("SELECT * FROM supervisor_ticks")).isEqualTo(ticks);

        // an ordinary append is not the journal's business to refuse: the engine keeps working
        b.leases().acquire("reviewer", Duration.ofSeconds(5));
        assertThat(scalar("SELECT count(*) FROM fence_events")).isEqualTo(before.size() + 1L);
        assertThat(before).hasSizeGreaterThanOrEqualTo(2); // so UPDATE OR REPLACE above had a row to collide with
    }

    // ---- leases ---------------------------------------------------------------------------------------

    /** A lease write from outside: bump the change marker (V0002's guard) and run {@code update}. */
    private String[] leaseWrite(String update) {
        return new String[] {
            "BEGIN IMMEDIATE",
            "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
            update.replace("$CHANGE", "(SELECT last_change FROM lease_change_counter WHERE id = 1)"),
            "COMMIT"
        };
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aLeaseIsRenewedOnlyWithItsCurrentToken(boolean recursive) throws Exception {
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(6));
        Lease current = b.leases().acquire("operator", Duration.ofSeconds(5));
        // (renewed a minute later: since schema version 12 an expiry is never past its renewal plus its TTL)
        String renew = "UPDATE actor_leases SET expires_at = expires_at + 60000, renewed_at = renewed_at + 60000,"
                + " change_seq = $CHANGE";

        // a renewal that presents nothing, or the stale token, is refused — also with no token in the WHERE
        refused(recursive, leaseWrite(renew + " WHERE actor_id = 'operator'"));
        refused(
                recursive,
                leaseWrite(renew + ", presented_token = " + old.token() + ", presented_change = $CHANGE"
                        + " WHERE actor_id = 'operator'"));
        // a renewal may not hand the lease to another process while keeping its token
        refused(
                recursive,
                leaseWrite(renew + ", presented_token = " + current.token()
                        + ", presented_change = $CHANGE, process_identity = " + q(a.processIdentity())
                        + " WHERE actor_id = 'operator'"));
        // a takeover of a live lease, even with a freshly minted token
        refused(
                recursive,
                "BEGIN IMMEDIATE",
                "UPDATE token_counter SET last_token = last_token + 1",
                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                "UPDATE actor_leases SET token = (SELECT last_token FROM token_counter), process_identity = "
                        + q(a.processIdentity()) + ", acquired_at = " + clock.millis() + ", presented_token = "
                        + current.token() + ", change_seq = (SELECT last_change FROM lease_change_counter),"
                        + " presented_change = (SELECT last_change FROM lease_change_counter)"
                        + " WHERE actor_id = 'operator'");
        // REPLACE / upsert of the row
        String values = "('operator', " + q(a.processIdentity()) + ", (SELECT last_token FROM token_counter), 60000, 0,"
                + " 0, 9999999999999, 0, (SELECT last_change FROM lease_change_counter))";
        String cols = "(actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at,"
                + " renewal_journalled_at, change_seq)";
        refused(recursive, "REPLACE INTO actor_leases " + cols + " VALUES " + values);
        refused(
                recursive,
                "INSERT INTO actor_leases " + cols + " VALUES " + values
                        + " ON CONFLICT (actor_id) DO UPDATE SET process_identity = excluded.process_identity");
        refused(
                recursive,
                "UPDATE OR REPLACE actor_leases SET actor_id = 'operator' WHERE actor_id = 'nobody'"
                        + " OR actor_id = 'operator'");
        assertThat(b.leases().current("operator")).contains(current);

        // the holder's own token, stated, goes through
        sql(
                recursive,
                leaseWrite(renew + ", presented_token = " + current.token() + ", presented_change = $CHANGE"
                        + " WHERE actor_id = 'operator'"));
        assertThat(b.leases().current("operator").orElseThrow().expiresAt()).isEqualTo(current.expiresAt() + 60_000);
    }

    @Test
    void aHeartbeatStillRenewsEveryLeaseItHoldsUnderTheGuard() {
        a.leases().acquire("operator", Duration.ofSeconds(5));
        a.leases().acquire("reviewer", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(3));
        a.heartbeatNow();
        assertThat(a.leases().list()).allSatisfy(l -> assertThat(l.expiresAt()).isEqualTo(clock.millis() + 5_000));
    }

    // ---- the terminal fence -------------------------------------------------------------------------

    /** A RUNNING assignment of {@code operator} whose current attempt belongs to {@code a}. */
    private Attempt runningUnderA(Assignment x) {
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(5));
        return Port.runs(a).startAttempt(x.id(), lease.token(), 5_000);
    }

    private String end(String state, String attempt, String via, String where) {
        return "UPDATE assignments SET state = " + q(state) + ", current_attempt = NULL, updated_at = " + clock.millis()
                + (attempt == null ? "" : ", ended_by_attempt = " + q(attempt))
                + (via == null ? "" : ", ended_via = " + q(via)) + " WHERE " + where;
    }

    private String receipt(Assignment x, Attempt t, long token, String status) {
        return "INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                + " failure_category, outcome_known, summary, created_at) VALUES (" + q(x.id()) + ", " + q(t.id())
                + ", " + token + ", " + q(t.processIdentity()) + ", " + q(status) + ", NULL, 1, 'by hand', 0)";
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aHolderWhoseLeaseWasTakenOverCannotEndItsAssignmentWhateverItsWhereClause(boolean recursive) throws Exception {
        Assignment x = a.runs().assign("operator", "scripted");
        Attempt stale = runningUnderA(x);
        clock.advance(Duration.ofSeconds(6)); // A paused past its TTL; B takes the actor over
        b.leases().acquire("operator", Duration.ofSeconds(5));
        String id = "id = " + q(x.id());

        refused(recursive, end("COMPLETED", null, null, id)); // the fault switch's WHERE id = ? only
        refused(recursive, end("COMPLETED", stale.id(), "attempt", id));
        refused(recursive, end("COMPLETED", stale.id(), "attempt", id + " AND current_attempt = " + q(stale.id())));
        refused(recursive, receipt(x, stale, stale.token(), "completed"));
        assertThat(a.runs().get(x.id()).orElseThrow().state()).isEqualTo(AssignmentState.RUNNING);
        assertThat(scalar("SELECT count(*) FROM receipts")).isZero();

        // the same attempt, unexpired and under its own lease, would have passed: see the next test
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void onlyTheCurrentAttemptUnderItsLeaseEndsAnAssignmentAndOnlyItsReceiptIsTaken(boolean recursive)
            throws Exception {
        Assignment x = a.runs().assign("operator", "scripted");
        Attempt current = runningUnderA(x);
        Assignment other = a.runs().assign("operator", "scripted");
        String id = "id = " + q(x.id());

        refused(recursive, end("COMPLETED", null, "attempt", id)); // states no attempt
        refused(recursive, end("COMPLETED", "att_made_up", "attempt", id));
        refused(recursive, end("COMPLETED", current.id(), "recovery", id)); // a recovery of a live attempt
        refused(recursive, end("COMPLETED", current.id(), "attempt", "id = " + q(other.id()))); // CREATED → ended
        refused(recursive, receipt(x, current, current.token(), "completed")); // not ended yet

        sql(
                recursive,
                "BEGIN IMMEDIATE",
                end("COMPLETED", current.id(), "attempt", id),
                receipt(x, current, current.token(), "completed"),
                "COMMIT");
        assertThat(a.runs().get(x.id()).orElseThrow().state()).isEqualTo(AssignmentState.COMPLETED);

        // now final: no second receipt, no rewrite, no way back, by any statement form
        long receiptId = scalar("SELECT id FROM receipts");
        refused(recursive, "UPDATE receipts SET status = 'failed'");
        refused(recursive, "DELETE FROM receipts");
        refused(
                recursive,
                "REPLACE INTO receipts (id, assignment_id, attempt_id, attempt_token, process_identity,"
                        + " status, outcome_known, created_at) VALUES (" + receiptId + ", " + q(x.id()) + ", "
                        + q(current.id())
                        + ", " + current.token() + ", 'proc_x', 'failed', 1, 0)");
        refused(
                recursive,
                "INSERT OR REPLACE INTO receipts (assignment_id, attempt_id, attempt_token, process_identity,"
                        + " status, outcome_known, created_at) VALUES (" + q(x.id()) + ", " + q(current.id()) + ", "
                        + current.token() + ", 'proc_x', 'failed', 1, 0)");
        refused(
                recursive,
                "INSERT INTO receipts (id, assignment_id, attempt_id, attempt_token, process_identity,"
                        + " status, outcome_known, created_at) VALUES (" + receiptId + ", " + q(x.id()) + ", "
                        + q(current.id())
                        + ", " + current.token()
                        + ", 'proc_x', 'failed', 1, 0) ON CONFLICT (id) DO UPDATE SET status = 'failed'");
        refused(recursive, "UPDATE assignments SET state = 'FAILED' WHERE " + id);
        refused(recursive, "UPDATE assignments SET state = 'RUNNING' WHERE " + id);
        refused(recursive, "DELETE FROM assignments WHERE " + id);
        refused(
                recursive,
                "REPLACE INTO assignments (id, actor_id, provider_spec, workspace_policy, state, created_at,"
                        + " updated_at) VALUES (" + q(x.id())
                        + ", 'operator', 'scripted', 'temporary', 'CREATED', 0, 0)");
        refused(recursive, "UPDATE OR REPLACE assignments SET id = " + q(x.id()) + " WHERE id = " + q(other.id()));
        refused(
                recursive,
                "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, created_at,"
                        + " updated_at) VALUES ('asg_forged', 'operator', 'scripted', 'temporary', 'COMPLETED', 0, 0)");
        assertThat(text("SELECT status FROM receipts")).isEqualTo("completed");
        assertThat(scalar("SELECT count(*) FROM assignments")).isEqualTo(2);
        // an acknowledgement is the one thing an ended assignment still takes
        assertThat(a.runs().get(x.id()).orElseThrow().state()).isEqualTo(AssignmentState.COMPLETED);
    }

    @Test
    void theSupervisorStillRecoversAnExpiredAttemptAndTheEngineStillCommitsItsOwn() {
        Assignment x = a.runs().assign("operator", "scripted");
        runningUnderA(x);
        clock.advance(Duration.ofSeconds(6));
        assertThat(b.supervisor().tick().recovered()).hasSize(1);
        assertThat(b.runs().receipt(x.id()))
                .get()
                .satisfies(r -> assertThat(r.failureCategory()).isEqualTo("worker_lost"));

        Assignment y = b.runs().assign("operator", "scripted:ms=1,outcome=completed");
        assertThat(b.runs().runAssignment(y.id()).assignment().state()).isEqualTo(AssignmentState.COMPLETED);
    }

    @Test
    void anAttemptCanNeitherBeForgedNorRepointedNorRewritten() throws Exception {
        Assignment x = a.runs().assign("operator", "scripted");
        Attempt current = runningUnderA(x);
        // b mints a token of its own and binds an attempt to a's lease: not its lease, so refused
        refused(
                false,
                "BEGIN IMMEDIATE",
                "UPDATE token_counter SET last_token = last_token + 1",
                "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                        + " state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('att_forged', " + q(x.id())
                        + ", 'operator', " + q(b.processIdentity()) + ", (SELECT last_token FROM token_counter), "
                        + current.leaseToken() + ", 'ACTIVE', 5000, 0, 0, 5000)");
        // an attempt that reuses a token already issued
        refused(
                false,
                "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                        + " state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('att_forged', " + q(x.id())
                        + ", 'operator', " + q(a.processIdentity()) + ", " + current.token() + ", "
                        + current.leaseToken() + ", 'ACTIVE', 5000, 0, 0, 5000)");
        refused(false, "UPDATE execution_attempts SET token = 1 WHERE id = " + q(current.id()));
        refused(false, "UPDATE execution_attempts SET process_identity = " + q(b.processIdentity()));
        refused(false, "DELETE FROM execution_attempts");
        // an operator may clear the pointer (steal the fence), but nobody may point it back at an attempt that
        // was not started just now with a freshly minted token
        sql(false, "UPDATE assignments SET current_attempt = NULL WHERE id = " + q(x.id())); // an operator's steal
        assertThat(scalar("SELECT last_token FROM token_counter")).isEqualTo(current.token()); // still the newest
        refused(false, "UPDATE assignments SET current_attempt = " + q(current.id()) + " WHERE id = " + q(x.id()));
    }

    private void refused(String words, boolean recursive, String... statements) {
        assertThatThrownBy(() -> sql(recursive, statements))
                .as(String.join("; ", statements))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("SQLITE_CONSTRAINT_TRIGGER")
                .hasMessageContaining(words);
    }

    /**
     * Issue 19 (V0005): someone else's ACTIVE attempt cannot be ended by hand, nor its expiry moved, by any
     * statement form; each refusal is paired with the write it resembles that the engine makes, passing.
     */
    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void anActiveAttemptEndsOnlyThroughItsFenceOrOnceExpiredAndIsRenewedOnlyForwardUnderItsLease(boolean recursive)
            throws Exception {
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(5));
        Assignment x = a.runs().assign("operator", "scripted");
        Assignment y = a.runs().assign("operator", "scripted");
        Assignment z = a.runs().assign("operator", "scripted");
        Assignment w = a.runs().assign("operator", "scripted");
        Attempt t = Port.runs(a).startAttempt(x.id(), lease.token(), 5_000);
        Attempt u = Port.runs(a).startAttempt(y.id(), lease.token(), 5_000);
        Attempt v = Port.runs(a).startAttempt(z.id(), lease.token(), 5_000);
        Attempt o = Port.runs(a).startAttempt(w.id(), lease.token(), 5_000);
        long now = clock.millis();
        String set = "UPDATE execution_attempts SET ";
        String ends = "fence: an ACTIVE attempt ends";
        String renews = "fence: an ACTIVE attempt is renewed only forward";

        // live and current: no ended state by hand, by UPDATE or UPDATE OR REPLACE, stamped now or far ahead
        for (String state : List.of("DONE", "SUPERSEDED", "RECOVERED", "LOST")) {
            refused(ends, recursive, set + "state = " + q(state) + ", ended_at = " + now + " WHERE id = " + q(t.id()));
            refused(
                    ends,
                    recursive,
                    "UPDATE OR REPLACE execution_attempts SET state = " + q(state) + ", ended_at = " + now
                            + " WHERE id = " + q(t.id()));
        }
        refused(ends, recursive, set + "state = 'DONE' WHERE id = " + q(t.id())); // stating no end time
        refused(ends, recursive, set + "state = 'DONE', ended_at = " + now); // every attempt at once
        // nor by replacing the row (the BEFORE INSERT twins refuse every form; either may fire first)
        String row = "(id, assignment_id, actor_id, process_identity, token, lease_token, state, ttl_ms, started_at,"
                + " renewed_at, expires_at, ended_at) VALUES (" + q(t.id()) + ", " + q(x.id()) + ", 'operator', "
                + q(t.processIdentity()) + ", " + t.token() + ", " + t.leaseToken() + ", 'DONE', 5000, " + t.startedAt()
                + ", " + t.renewedAt() + ", " + t.expiresAt() + ", " + now + ")";
        refused("fence: an attempt", recursive, "REPLACE INTO execution_attempts " + row);
        refused("fence: an attempt", recursive, "INSERT OR REPLACE INTO execution_attempts " + row);
        refused(
                "fence: an attempt",
                recursive,
                "INSERT INTO execution_attempts " + row + " ON CONFLICT (id) DO UPDATE SET state = 'DONE', ended_at = "
                        + now);
        // its expiry: never backwards (an early recovery), never beyond its ttl (never recovered), ttl fixed
        refused(renews, recursive, set + "expires_at = " + (now - 1) + " WHERE id = " + q(t.id()));
        refused(renews, recursive, set + "expires_at = 0"); // every attempt at once
        refused(renews, recursive, "UPDATE OR REPLACE execution_attempts SET expires_at = 0 WHERE id = " + q(t.id()));
        refused(renews, recursive, set + "expires_at = expires_at + 86400000 WHERE id = " + q(t.id()));
        refused(
                renews,
                recursive,
                set + "ttl_ms = 86400000, expires_at = renewed_at + 86400000 WHERE id = " + q(t.id()));
        refused(renews, recursive, set + "renewed_at = renewed_at - 1 WHERE id = " + q(t.id()));
        refused(renews, recursive, set + "ended_at = " + now + " WHERE id = " + q(t.id()));
        // a renewal as the heartbeat writes it, under the lease, for the attempt its assignment points at
        sql(
                recursive,
                set + "renewed_at = " + (now + 1_000) + ", expires_at = " + (now + 6_000) + " WHERE id = " + q(t.id()));
        assertThat(scalar("SELECT expires_at FROM execution_attempts WHERE id = " + q(t.id())))
                .isEqualTo(now + 6_000);
        // ... but not once its fence was stolen
        sql(recursive, "UPDATE assignments SET current_attempt = NULL WHERE id = " + q(z.id()));
        refused(
                renews,
                recursive,
                set + "renewed_at = " + (now + 1_000) + ", expires_at = " + (now + 6_000) + " WHERE id = " + q(v.id()));

        // DONE only after the fenced terminal write of its own assignment, in the same transaction
        String done = set + "state = 'DONE', ended_at = " + now + " WHERE id = " + q(t.id());
        refused(ends, recursive, "BEGIN IMMEDIATE", done, end("COMPLETED", t.id(), "attempt", "id = " + q(x.id())));
        refused(ends, recursive, "BEGIN IMMEDIATE", end("COMPLETED", o.id(), "attempt", "id = " + q(w.id())), done);
        sql(recursive, "BEGIN IMMEDIATE", end("COMPLETED", t.id(), "attempt", "id = " + q(x.id())), done, "COMMIT");
        assertThat(text("SELECT state FROM execution_attempts WHERE id = " + q(t.id())))
                .isEqualTo("DONE");

        // expired (at the write's own time): SUPERSEDED; LOST once no longer current; RECOVERED with its recovery
        clock.advance(Duration.ofSeconds(6));
        long later = clock.millis();
        refused(
                ends,
                recursive,
                set + "state = 'SUPERSEDED', ended_at = " + (o.expiresAt() - 1) + " WHERE id = " + q(o.id()));
        refused(ends, recursive, set + "state = 'DONE', ended_at = " + later + " WHERE id = " + q(u.id()));
        refused(ends, recursive, set + "state = 'RECOVERED', ended_at = " + later + " WHERE id = " + q(u.id()));
        refused(
                ends,
                recursive,
                set + "state = 'LOST', ended_at = " + later + " WHERE id = " + q(u.id())); // still current
        refused(
                ends,
                recursive,
                set + "state = 'SUPERSEDED', ended_at = " + later + ", expires_at = " + later + " WHERE id = "
                        + q(o.id())); // an ending never renews
        sql(recursive, set + "state = 'SUPERSEDED', ended_at = " + later + " WHERE id = " + q(o.id()));
        sql(recursive, set + "state = 'LOST', ended_at = " + later + " WHERE id = " + q(v.id()));
        sql(
                recursive,
                "BEGIN IMMEDIATE",
                end("FAILED", u.id(), "recovery", "id = " + q(y.id())),
                set + "state = 'RECOVERED', ended_at = " + later + " WHERE id = " + q(u.id()),
                "COMMIT");
        assertThat(rows("SELECT state FROM execution_attempts ORDER BY token"))
                .containsExactly("DONE|", "RECOVERED|", "LOST|", "SUPERSEDED|");
    }

    // ---- messages -------------------------------------------------------------------------------------

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aMessageIsFinishedOnlyWithItsCurrentClaimAndAFinishedOneIsFinal(boolean recursive) throws Exception {
        a.leases().acquire("operator", Duration.ofSeconds(5));
        String m = a.mailbox().send("someone", "operator", "hello", "body").id();
        Claim stale = a.mailbox().claim(m, "operator", Duration.ofSeconds(2));
        clock.advance(Duration.ofSeconds(3)); // the claim expired; a fresh claim by the same host
        Claim current = a.mailbox().claim(m, "operator", Duration.ofSeconds(2));
        assertThat(current.token()).isGreaterThan(stale.token());
        String done = "UPDATE messages SET state = 'DONE', updated_at = " + clock.millis();

        refused(recursive, done + " WHERE id = " + q(m));
        refused(recursive, done + ", finished_with = " + stale.token() + " WHERE id = " + q(m));
        refused(
                recursive,
                "UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL,"
                        + " claim_token = NULL, claim_expires_at = NULL, retry_count = retry_count + 1, finished_with = "
                        + stale.token() + " WHERE id = " + q(m)); // a stale dead-letter re-queue
        refused(
                recursive,
                "UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL,"
                        + " claim_token = NULL, claim_expires_at = NULL WHERE id = " + q(m)); // sweeping a live claim
        // a claim for a process that does not host the recipient
        refused(
                recursive,
                "BEGIN IMMEDIATE",
                "UPDATE token_counter SET last_token = last_token + 1",
                "UPDATE messages SET claim_process = " + q(b.processIdentity())
                        + ", claim_token = (SELECT last_token FROM token_counter) WHERE id = " + q(m));

        sql(recursive, done + ", finished_with = " + current.token() + " WHERE id = " + q(m));

        refused(recursive, "UPDATE messages SET state = 'NEW' WHERE id = " + q(m));
        refused(recursive, "DELETE FROM messages WHERE id = " + q(m));
        refused(
                recursive,
                "REPLACE INTO messages (id, sender, recipient, subject, state, created_at, updated_at)" + " VALUES ("
                        + q(m) + ", 'someone', 'operator', 'hello', 'NEW', 0, 0)");
        refused(
                recursive,
                "INSERT INTO messages (id, sender, recipient, subject, state, created_at, updated_at)"
                        + " VALUES (" + q(m) + ", 'someone', 'operator', 'hello', 'NEW', 0, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET state = 'NEW'");
        String other = a.mailbox().send("someone", "operator", "other", null).id();
        refused(recursive, "UPDATE OR REPLACE messages SET id = " + q(m) + " WHERE id = " + q(other));
        refused(
                recursive,
                "INSERT INTO messages (id, sender, recipient, subject, state, created_at, updated_at)"
                        + " VALUES ('msg_forged', 'someone', 'operator', 'x', 'DONE', 0, 0)");
        assertThat(text("SELECT state FROM messages WHERE id = " + q(m))).isEqualTo("DONE");
    }

    // ---- what a user with write access can still do ------------------------------------------------

    @Test
    void aDroppedGuardIsNoticedAndTheEngineRefusesToWriteToThatLedger() throws Exception {
        a.close();
        b.close();
        // DDL cannot be refused by SQLite itself: anyone who can write the file can drop a trigger
        sql(false, "DROP TRIGGER assignments_end_only_through_their_fence");

        assertThatThrownBy(() -> Engine.open(EngineConfig.forDatabase(temp.file())
                        .clock(clock)
                        .heartbeat(false)
                        .build()))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(StorageException.Problem.CORRUPT);
                    assertThat(e.getMessage())
                            .contains("assignments_end_only_through_their_fence")
                            .contains("no longer enforces the fence")
                            .doesNotContain("\n");
                });
    }

    // ---- the lab sandbox mark ------------------------------------------------------------------------

    @Test
    void aLedgerCanBeMarkedAsALabSandboxOnlyWhenItIsCreatedAndTheMarkNeverChanges() throws Exception {
        assertThat(a.isLabSandbox()).isFalse();
        // asking for a sandbox on an existing ledger changes nothing
        Engine again = temp.open(temp.config(clock).createAsLabSandbox(true).build());
        assertThat(again.isLabSandbox()).isFalse();
        assertThat(scalar("SELECT lab_sandbox FROM ledger_mark")).isZero();

        refused(false, "UPDATE ledger_mark SET lab_sandbox = 1");
        refused(false, "DELETE FROM ledger_mark");
        refused(false, "REPLACE INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 1, 0)");
        refused(true, "INSERT OR REPLACE INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 1, 0)");
        refused(
                false,
                "INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 1, 0)"
                        + " ON CONFLICT (id) DO UPDATE SET lab_sandbox = 1");
        assertThat(scalar("SELECT lab_sandbox FROM ledger_mark")).isZero();

        // nor on a ledger emptied by hand: its one mark row is written once, with the schema (its one process is
        // young, so since version 16 emptying it takes setting that guard aside too: decision 0020)
        Path blank = temp.dir().resolve("blank.db");
        Engine.open(EngineConfig.forDatabase(blank)
                        .clock(clock)
                        .heartbeat(false)
                        .build())
                .close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + blank);
                Statement st = c.createStatement()) {
            assertThatThrownBy(() -> st.execute("DELETE FROM processes")).hasMessageContaining("retention policy");
            String guard;
            try (ResultSet rs = st.executeQuery("SELECT sql FROM sqlite_master WHERE name ="
                    + " 'processes_deleted_only_when_stopped_long_ago_holding_nothing'")) {
                guard = rs.getString(1);
            }
            st.execute("DROP TRIGGER processes_deleted_only_when_stopped_long_ago_holding_nothing");
            st.execute("DELETE FROM processes");
            st.execute(guard);
            assertThatThrownBy(
                            () -> st.execute("REPLACE INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 1, 0)"))
                    .hasMessageContaining("written once");
        }

        Path fresh = temp.dir().resolve("sandbox.db");
        try (Engine sandbox = Engine.open(EngineConfig.forDatabase(fresh)
                .clock(clock)
                .heartbeat(false)
                .createAsLabSandbox(true)
                .build())) {
            assertThat(sandbox.isLabSandbox()).isTrue();
        }
    }

    @Test
    void theBrokenFenceSwitchIsIgnoredOnAnOrdinaryLedgerEvenWhenAskedForDirectly() {
        Assignment x = a.runs().assign("operator", "scripted");
        Attempt stale = runningUnderA(x);
        clock.advance(Duration.ofSeconds(6));
        b.leases().acquire("operator", Duration.ofSeconds(5));

        var broken = SqliteLedger.runStore(Sqlite.database(a), true);
        assertThatThrownBy(() -> broken.finish(stale, Outcome.COMPLETED, null, true, "stale"))
                .isInstanceOf(Refusal.class);
        assertThat(a.runs().receipt(x.id())).isEmpty();
        assertThat(a.runs().get(x.id()).orElseThrow().state()).isEqualTo(AssignmentState.RUNNING);
    }

    @Test
    void theEnginesOwnConnectionFiresDeleteGuardsForReplaceToo() {
        long on = Sqlite.database(a).read(tx -> tx.scalarLong("PRAGMA recursive_triggers"));
        assertThat(on).isEqualTo(1);
    }
}
