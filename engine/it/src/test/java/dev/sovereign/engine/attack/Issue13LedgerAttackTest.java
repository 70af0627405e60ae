package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attack review of issue 13 (branch attack-13). Each test asserts what contract §1/10/14 promise; a red test
 * is an open hole. All writes come from a plain JDBC connection, as a buggy client or the sqlite3 shell.
 */
class Issue13LedgerAttackTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine a;
    private Engine b;

    private void sql(boolean recursive, String... statements) throws SQLException {
        raw.run(recursive, statements);
    }

    private long scalar(String query) throws SQLException {
        return raw.scalar(query);
    }

    private String text(String query) throws SQLException {
        return raw.text(query);
    }

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
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

    private Attempt runningUnderA(Assignment x) {
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(5));
        return Port.runs(a).startAttempt(x.id(), lease.token(), 5_000);
    }

    private String end(String state, String attempt, String via, String where) {
        return "UPDATE assignments SET state = " + q(state) + ", current_attempt = NULL, updated_at = " + clock.millis()
                + ", ended_by_attempt = " + q(attempt) + ", ended_via = " + q(via) + " WHERE " + where;
    }

    private String receipt(Assignment x, Attempt t, String status, int outcomeKnown) {
        return "INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                + " failure_category, outcome_known, summary, created_at) VALUES (" + q(x.id()) + ", " + q(t.id())
                + ", " + t.token() + ", " + q(t.processIdentity()) + ", " + q(status) + ", NULL, " + outcomeKnown
                + ", 'stale bytes', " + clock.millis() + ")";
    }

    // ---- A1: a stale attempt commits COMPLETED by labelling its write 'recovery' ------------------------

    /**
     * P's attempt expired (P was paused past its TTL) and Q took the actor over. P's own stale attempt,
     * presenting only its OWN (stale) attempt id and token — nothing read from the current ledger —
     * ends the assignment COMPLETED with a completed, outcome-known receipt, because the terminal guard's
     * 'recovery' branch accepts any terminal state and the receipt guard any status. contract §10: a recovery
     * is FAILED / worker_lost / outcome_known=false and "never guesses success"; contract §14: a terminal state
     * or a receipt only from the current attempt under the current lease token.
     */
    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aStaleAttemptCannotCommitCompletedByCallingItsWriteARecovery(boolean recursive) throws Exception {
        Assignment x = a.runs().assign("operator", "scripted");
        Attempt stale = runningUnderA(x);
        clock.advance(Duration.ofSeconds(6)); // P paused past its TTL
        b.leases().acquire("operator", Duration.ofSeconds(5)); // Q took the actor over

        try {
            sql(
                    recursive,
                    "BEGIN IMMEDIATE",
                    end("COMPLETED", stale.id(), "recovery", "id = " + q(x.id())),
                    receipt(x, stale, "completed", 1),
                    "COMMIT");
        } catch (SQLException refusedAsItShouldBe) {
            // the safe outcome
        }
        assertThat(a.runs().get(x.id()).orElseThrow().state())
                .as("a stale attempt must not end its assignment COMPLETED")
                .isEqualTo(AssignmentState.RUNNING);
        assertThat(text("SELECT status FROM receipts WHERE assignment_id = " + q(x.id())))
                .isNull();
    }

    /** The same after an operator's steal-fence (current_attempt cleared): the stolen, stale attempt commits success. */
    @Test
    void aStolenStaleAttemptCannotCommitCompletedThroughTheStolenFenceRecoveryBranch() throws Exception {
        Assignment x = a.runs().assign("operator", "scripted");
        Attempt stale = runningUnderA(x);
        sql(
                false,
                "UPDATE assignments SET current_attempt = NULL, updated_at = " + clock.millis() + " WHERE id = "
                        + q(x.id())); // the operator's steal (allowed by the schema, as in the engine)
        clock.advance(Duration.ofSeconds(6));

        try {
            sql(
                    false,
                    "BEGIN IMMEDIATE",
                    end("BLOCKED", stale.id(), "recovery", "id = " + q(x.id())),
                    receipt(x, stale, "blocked", 1),
                    "COMMIT");
        } catch (SQLException refusedAsItShouldBe) {
            // the safe outcome
        }
        assertThat(a.runs().get(x.id()).orElseThrow().state()).isEqualTo(AssignmentState.RUNNING);
        // and the supervisor, the only legitimate recoverer, still gets to write FAILED / worker_lost
        assertThat(b.supervisor().tick().recovered()).hasSize(1);
        assertThat(text("SELECT status || '/' || failure_category || '/' || outcome_known FROM receipts"))
                .isEqualTo("failed/worker_lost/0");
    }

    // ---- A2: a LIVE lease taken over by DELETE + INSERT, and a live attempt superseded -------------------

    /**
     * The takeover guard (V0003 actor_leases_takeover_mints_and_waits_for_expiry) refuses an UPDATE of a
     * live lease, but actor_leases has no DELETE guard: a client deletes the live holder's row and inserts
     * its own with a freshly minted token in the same transaction. Then the assignment pointer can be moved
     * off the holder's LIVE attempt to a new one (the pointer guard never asks whether the old attempt is
     * still live: contract §6 execution_attempt_held). The live holder's commit is then refused. No double
     * commit, but a live holder evicted and two processes working the same actor at once.
     */
    @Test
    void aLiveLeaseCannotBeTakenOverByDeleteThenInsert() throws Exception {
        Assignment x = a.runs().assign("operator", "scripted");
        Attempt live = runningUnderA(x); // A holds a LIVE lease and a LIVE attempt
        String bp = q(b.processIdentity());
        long now = clock.millis();
        try {
            sql(
                    false,
                    "BEGIN IMMEDIATE",
                    "DELETE FROM actor_leases WHERE actor_id = 'operator'", // no guard: the live holder's row goes
                    "UPDATE token_counter SET last_token = last_token + 1",
                    "UPDATE lease_change_counter SET last_change = last_change + 1",
                    "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                            + " expires_at, renewal_journalled_at, change_seq) VALUES ('operator', " + bp
                            + ", (SELECT last_token FROM token_counter), 5000, " + now + ", " + now + ", "
                            + (now + 5000)
                            + ", " + now + ", (SELECT last_change FROM lease_change_counter))",
                    "UPDATE token_counter SET last_token = last_token + 1",
                    "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                            + " state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('att_usurper', " + q(x.id())
                            + ", 'operator', " + bp + ", (SELECT last_token FROM token_counter), "
                            + "(SELECT token FROM actor_leases WHERE actor_id = 'operator'), 'ACTIVE', 5000, " + now
                            + ", " + now + ", " + (now + 5000) + ")",
                    "UPDATE assignments SET current_attempt = 'att_usurper' WHERE id = " + q(x.id()),
                    "COMMIT");
        } catch (SQLException refusedAsItShouldBe) {
            // the safe outcome
        }
        assertThat(a.leases().current("operator").orElseThrow().process())
                .as("a live lease is never taken over")
                .isEqualTo(a.processIdentity());
        assertThat(a.runs().get(x.id()).orElseThrow().currentAttempt()).isEqualTo(live.id());
    }

    // ---- A3: a guard replaced by a same-named no-op is not noticed -----------------------------------------

    /**
     * Decision 0006: "A dropped guard is noticed": every open compares the migrations' trigger NAMES with
     * sqlite_master. A trigger dropped and re-created under the same name with a body that does nothing
     * passes that check; the engine opens and writes, and a stale attempt commits.
     */
    @Test
    void aGuardReplacedByANoOpUnderTheSameNameIsNoticed() throws Exception {
        a.close();
        b.close();
        sql(
                false,
                "BEGIN IMMEDIATE",
                "DROP TRIGGER assignments_end_only_through_their_fence",
                "CREATE TRIGGER assignments_end_only_through_their_fence BEFORE UPDATE ON assignments WHEN 0"
                        + " BEGIN SELECT 1; END",
                "COMMIT");

        assertThatThrownBy(() -> Engine.open(EngineConfig.forDatabase(temp.file())
                                .clock(clock)
                                .heartbeat(false)
                                .build())
                        .close())
                .as("an engine must refuse a ledger whose guard lost its body")
                .isInstanceOf(StorageException.class);
    }

    /**
     * Same hole by renaming instead of dropping: the guarded table is renamed away (its triggers follow it,
     * so every guard NAME is still in sqlite_master) and an unguarded copy takes its name. The open check
     * passes, and the engine reads (and would write) the unguarded copy: here a completed receipt rewritten.
     */
    @Test
    void aGuardedTableRenamedAwayAndReplacedByAnUnguardedCopyIsNoticed() throws Exception {
        a.close();
        b.close();
        sql(
                false,
                "PRAGMA legacy_alter_table = ON",
                "BEGIN IMMEDIATE",
                "ALTER TABLE receipts RENAME TO receipts_guarded",
                "CREATE TABLE receipts AS SELECT * FROM receipts_guarded",
                "COMMIT");
        assertThatThrownBy(() -> Engine.open(EngineConfig.forDatabase(temp.file())
                                .clock(clock)
                                .heartbeat(false)
                                .build())
                        .close())
                .as("an engine must refuse a ledger whose guarded table has no guards")
                .isInstanceOf(StorageException.class);
    }

    // ---- A4: one UPDATE of sqlite_sequence bricks every journalled write ---------------------------------

    /**
     * Until schema version 5 the journal's key was AUTOINCREMENT, kept in sqlite_sequence, which cannot
     * carry triggers: setting it to the maximum made every later journal append fail SQLITE_FULL,
     * reported as "database or disk is full". From version 6 (decision 0507) the next seq is
     * max(seq) + 1, and the same wind is a hand-inserted journal row with the maximum seq (the
     * append-only guards allow a row after the last one): every later append would then get a random
     * key before the last one and be refused. Since version 14 (NextSeqTest) the insert itself is refused: a
     * journal row takes the next seq only, and the engine keeps working.
     */
    @Test
    void aJournalSequenceWoundToTheMaximumIsReportedForWhatItIs() throws Exception {
        a.leases().acquire("operator", Duration.ofSeconds(5));
        a.close();
        b.close();
        assertThatThrownBy(() -> sql(
                        false,
                        "INSERT INTO fence_events (seq, at, kind, resource_type, resource_id) VALUES"
                                + " (9223372036854775807, 0, 'LEASE_ACQUIRED', 'actor', 'operator')"))
                .hasMessageContaining("a journal row takes the next seq");
        try (Engine e = Engine.open(EngineConfig.forDatabase(temp.file())
                .clock(clock)
                .heartbeat(false)
                .build())) {
            e.actors().add("other");
            assertThat(e.leases().acquire("other", Duration.ofSeconds(5)).token())
                    .isPositive();
        }
    }
}
