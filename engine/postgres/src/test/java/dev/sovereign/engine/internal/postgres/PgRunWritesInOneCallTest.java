package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgLogins;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.Stripes;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Schema version 17 (decision 0921): the common case of an attempt's start and of a run's terminal write as one call
 * of a server-side function. The engine runs through them and the rows and journal rows are those of the full path;
 * anything but the simple case writes nothing there and the full path supersedes or words the refusal; a worker
 * login gets nothing through them it could not do by hand; every open checks them like the guards; a ledger of
 * version 16 with a running attempt migrates and the attempt ends.
 */
class PgRunWritesInOneCallTest {
    private static final Duration TTL = Duration.ofMinutes(10);

    private static Engine engine(PgTestServer.Database db) {
        return Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
    }

    private static RunStore runs(Engine e) {
        return EngineAccess.ledger(e).runs();
    }

    private static String journalRow(RawPg sql, String kind, String attempt) {
        return sql.text("SELECT concat_ws('|', kind, resource_type, resource_id, actor_id, process_identity, token, at,"
                + " detail, presented_token IS NULL, current_token IS NULL, category IS NULL) FROM fence_events"
                + " WHERE kind = " + q(kind) + " AND resource_id = " + q(attempt));
    }

    @Test
    void theEngineStartsAndEndsAttemptsThroughTheFunctionsWritingTheRowsOfTheFullPath() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect()) {
            RawPg sql = new RawPg(owner);
            sql.exec("ALTER DATABASE " + db.name() + " SET track_functions = 'pl'"); // for the engine's session
            try (Engine e = engine(db)) {
                e.actors().add("alpha");
                String me = e.processIdentity();
                Lease lease = e.leases().acquire("alpha", TTL);
                long clock = sql.scalar("SELECT sovereign_now_ms()") + 1_000;
                PgTestServer.pinClock(db, clock);
                for (Outcome outcome : List.of(Outcome.COMPLETED, Outcome.FAILED, Outcome.BLOCKED)) {
                    Assignment a = runs(e).assign("alpha", "scripted", null);
                    long tokens = sql.scalar(
                            "SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe('alpha')");

                    Attempt started = runs(e).startAttempt(a.id(), lease.token(), 5_000);

                    assertThat(started.token()).isEqualTo(tokens + Stripes.COUNT); // the actor's stripe
                    assertThat(started)
                            .extracting(
                                    Attempt::assignmentId,
                                    Attempt::actorId,
                                    Attempt::processIdentity,
                                    Attempt::leaseToken,
                                    Attempt::state,
                                    Attempt::ttlMs,
                                    Attempt::startedAt,
                                    Attempt::renewedAt,
                                    Attempt::expiresAt)
                            .containsExactly(
                                    a.id(),
                                    "alpha",
                                    me,
                                    lease.token(),
                                    AttemptState.ACTIVE,
                                    5_000L,
                                    clock,
                                    clock,
                                    clock + 5_000);
                    assertThat(sql.text("SELECT concat_ws('|', state, current_attempt, updated_at) FROM assignments"
                                    + " WHERE id = " + q(a.id())))
                            .isEqualTo("RUNNING|" + started.id() + "|" + clock);
                    assertThat(journalRow(sql, "ATTEMPT_STARTED", started.id()))
                            .isEqualTo("ATTEMPT_STARTED|attempt|" + started.id() + "|alpha|" + me + "|"
                                    + started.token() + "|" + clock + "|assignment " + a.id()
                                    + "; bound to actor lease token " + lease.token() + "; ttl 5000 ms|t|t|t");

                    RunStore.Completion done = runs(e).finish(started, outcome, "why not", true, "the summary");

                    Assignment ended = done.assignment();
                    assertThat(ended.state()).isEqualTo(AssignmentState.valueOf(outcome.name()));
                    assertThat(ended.currentAttempt()).isNull();
                    assertThat(ended.updatedAt()).isEqualTo(clock);
                    assertThat(ended.providerSpec()).isEqualTo("scripted");
                    assertThat(ended.createdAt()).isEqualTo(a.createdAt());
                    assertThat(done.attempt().state()).isEqualTo(AttemptState.DONE);
                    assertThat(done.attempt().endedAt()).isEqualTo(clock);
                    assertThat(done.attempt().token()).isEqualTo(started.token());
                    Receipt receipt = done.receipt();
                    assertThat(receipt)
                            .extracting(
                                    Receipt::assignmentId,
                                    Receipt::attemptId,
                                    Receipt::attemptToken,
                                    Receipt::processIdentity,
                                    Receipt::status,
                                    Receipt::failureCategory,
                                    Receipt::outcomeKnown,
                                    Receipt::summary,
                                    Receipt::createdAt)
                            .containsExactly(
                                    a.id(),
                                    started.id(),
                                    started.token(),
                                    me,
                                    outcome,
                                    "why not",
                                    true,
                                    "the summary",
                                    clock);
                    assertThat(runs(e).receipt(a.id())).contains(receipt);
                    assertThat(runs(e).get(a.id())).contains(ended);
                    assertThat(sql.text(
                                    "SELECT concat_ws('|', ended_by_attempt, ended_via) FROM assignments WHERE id = "
                                            + q(a.id())))
                            .isEqualTo(started.id() + "|attempt");
                    assertThat(journalRow(sql, "ATTEMPT_DONE", started.id()))
                            .isEqualTo("ATTEMPT_DONE|attempt|" + started.id() + "|alpha|" + me + "|" + started.token()
                                    + "|" + clock + "|assignment " + a.id() + " → " + ended.state() + "; receipt "
                                    + receipt.id() + "|t|t|t");
                }
                // an outcome not known and no summary: the NULLs and the 0 the full path writes
                Assignment a = runs(e).assign("alpha", "scripted", null);
                Attempt started = runs(e).startAttempt(a.id(), lease.token(), 5_000);
                Receipt receipt = runs(e).finish(started, Outcome.FAILED, null, false, null)
                        .receipt();
                assertThat(receipt.outcomeKnown()).isFalse();
                assertThat(receipt.summary()).isNull();
                assertThat(receipt.failureCategory()).isNull();
                assertThat(sql.text("SELECT concat_ws('|', outcome_known, summary IS NULL, failure_category IS NULL)"
                                + " FROM receipts WHERE id = " + receipt.id()))
                        .isEqualTo("0|t|t");
                // and a whole run through the engine's API takes them too
                Assignment whole = runs(e).assign("alpha", "scripted", null);
                assertThat(e.runs().runAssignment(whole.id()).assignment().state())
                        .isEqualTo(AssignmentState.COMPLETED);
            }
            sql.awaitFunctionCalls("sovereign_attempt_start", 5);
            sql.awaitFunctionCalls("sovereign_attempt_finish", 5);
        }
    }

    @Test
    void whatIsNotTheSimpleCaseTakesTheFullPathWithItsRefusalsAndSupersedes() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect();
                Engine a = engine(db);
                Engine b = engine(db)) {
            RawPg sql = new RawPg(owner);
            a.actors().add("alpha");
            Lease lease = a.leases().acquire("alpha", TTL);
            Assignment asg = runs(a).assign("alpha", "scripted", null);
            long start = sql.scalar("SELECT sovereign_now_ms()");
            PgTestServer.pinClock(db, start);

            refused(() -> runs(b).startAttempt(asg.id(), lease.token(), 5_000), RefusalCategory.ACTOR_LEASE_LOST);
            refused(() -> runs(a).startAttempt(asg.id(), lease.token() + 1, 5_000), RefusalCategory.ACTOR_LEASE_LOST);
            Attempt first = runs(a).startAttempt(asg.id(), lease.token(), 5_000);
            refused(() -> runs(a).startAttempt(asg.id(), lease.token(), 5_000), RefusalCategory.EXECUTION_ATTEMPT_HELD);
            // an expired attempt is superseded by the full path, and can no longer end the assignment
            PgTestServer.pinClock(db, start + 6_000);
            Attempt second = runs(a).startAttempt(asg.id(), lease.token(), 5_000);
            assertThat(second.token()).isGreaterThan(first.token());
            assertThat(sql.scalar("SELECT count(*) FROM fence_events WHERE kind = 'ATTEMPT_SUPERSEDED'"))
                    .isEqualTo(1);
            refused(
                    () -> runs(a).finish(first, Outcome.COMPLETED, null, true, "late"),
                    RefusalCategory.EXECUTION_ATTEMPT_LOST);
            // another process's terminal write under the same attempt: the lease fence refuses it
            refused(
                    () -> runs(b).finish(second, Outcome.COMPLETED, null, true, "not mine"),
                    RefusalCategory.ACTOR_LEASE_LOST);
            assertThat(sql.scalar("SELECT count(*) FROM receipts")).isZero();
            assertThat(runs(a).finish(second, Outcome.COMPLETED, null, true, "done")
                            .assignment()
                            .state())
                    .isEqualTo(AssignmentState.COMPLETED);
            refused(
                    () -> runs(a).startAttempt(asg.id(), lease.token(), 5_000),
                    RefusalCategory.ASSIGNMENT_NOT_RUNNABLE);
            refused(
                    () -> runs(a).finish(second, Outcome.COMPLETED, null, true, "twice"),
                    RefusalCategory.EXECUTION_ATTEMPT_LOST);
            assertThat(sql.scalar("SELECT count(*) FROM receipts")).isEqualTo(1);
        }
    }

    private static void refused(Runnable call, RefusalCategory category) {
        assertThatThrownBy(call::run)
                .isInstanceOf(Refusal.class)
                .satisfies(r -> assertThat(((Refusal) r).category()).isEqualTo(category));
    }

    // ---- a worker login calling the functions by hand --------------------------------------------------------

    /**
     * A ledger with a worker login and its process, a holder process with a live lease on {@code held} and an expired
     * one on {@code expired}, a CREATED assignment for each, and an assignment of {@code held} running attempt
     * {@code att_running}.
     */
    private record Attack(PgTestServer.Database db, RawPg owner, RawPg worker, long live, long expired) {
        long tokens() {
            return owner.scalar("SELECT sum(last_token) FROM token_counter"); // any stripe's mint moves it
        }

        String rows() {
            return owner.text("SELECT concat_ws(' / ',"
                    + " (SELECT string_agg(concat_ws(':', id, state, current_attempt, updated_at), ',' ORDER BY id)"
                    + " FROM assignments),"
                    + " (SELECT string_agg(concat_ws(':', id, state, ended_at), ',' ORDER BY id) FROM execution_attempts),"
                    + " (SELECT count(*) FROM receipts), (SELECT count(*) FROM fence_events))");
        }

        long calls(String call) {
            return worker.scalar("SELECT count(*) FROM (" + call + ") f");
        }
    }

    private static Attack attack() throws SQLException {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine created = engine(db)) {
            created.actors().add("held");
            created.actors().add("expired");
        }
        RawPg owner = new RawPg(db.connect());
        PgFenceWrites w = new PgFenceWrites(owner);
        w.process("proc_holder");
        long live = w.acquire("held", "proc_holder", 600_000);
        long expired = w.acquire("expired", "proc_holder", -1);
        w.assign("asg_held", "held");
        w.assign("asg_expired", "expired");
        w.assign("asg_running", "held");
        w.start("att_running", "asg_running", "held", "proc_holder", live, 600_000);
        RawPg worker = PgLogins.worker(db, owner, "host_x");
        new PgFenceWrites(worker).process("proc_attacker");
        return new Attack(db, owner, worker, live, expired);
    }

    @Test
    void aWorkerStartsNoAttemptAndMintsNoTokenThroughTheStartFunctionWhereTheFullPathWouldRefuse() throws Exception {
        Attack a = attack();
        long tokens = a.tokens();
        String rows = a.rows();
        long live = a.live();
        for (String call : List.of(
                // not the lease's holder, another token, an expired lease, a running or unknown assignment
                "SELECT * FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_attacker', " + live + ", 5000)",
                "SELECT * FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_holder', " + (live + 10) + ", 5000)",
                "SELECT * FROM sovereign_attempt_start('asg_expired', 'att_x', 'proc_holder', " + a.expired()
                        + ", 5000)",
                "SELECT * FROM sovereign_attempt_start('asg_running', 'att_x', 'proc_holder', " + live + ", 5000)",
                "SELECT * FROM sovereign_attempt_start('asg_nobody', 'att_x', 'proc_holder', " + live + ", 5000)",
                "SELECT * FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_holder', " + live + ", 0)",
                "SELECT * FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_holder', " + live + ", NULL)")) {
            assertThat(a.calls(call)).as(call).isZero();
        }
        assertThat(a.tokens()).as("no token minted").isEqualTo(tokens);
        assertThat(a.rows()).as("nothing written").isEqualTo(rows);
        // naming the holder's process does not make the worker its login: the attempt guard refuses the write
        a.worker()
                .refused(
                        "fence: an attempt is started only by the login that registered its process",
                        "SELECT * FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_holder', " + live
                                + ", 5000)");
        // a corrupt lease row starts nothing (the owner makes one with the guards off, rolled back afterwards)
        a.owner().exec("BEGIN", "ALTER TABLE actor_leases DISABLE TRIGGER USER");
        a.owner().exec("UPDATE actor_leases SET expires_at = renewed_at + ttl_ms + 1 WHERE actor_id = 'held'");
        assertThat(a.owner()
                        .scalar("SELECT count(*) FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_holder', "
                                + live + ", 5000)"))
                .isZero();
        a.owner().exec("ROLLBACK");
        // the simple case works for the holder's own login, as the same statements by hand would
        long stripe =
                a.owner().scalar("SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe('held')");
        assertThat(a.owner()
                        .scalar("SELECT token FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_holder', " + live
                                + ", 5000)"))
                .isEqualTo(stripe + Stripes.COUNT);
    }

    @Test
    void aWorkerEndsNoRunThroughTheFinishFunctionWithoutTheFence() throws Exception {
        Attack a = attack();
        String rows = a.rows();
        String finish = "SELECT (f.ended).state FROM sovereign_attempt_finish(";
        for (String call : List.of(
                finish + "'att_running', 'proc_attacker', 'completed', NULL, 1, 'x') f", // not the lease's holder
                finish + "'att_running', 'proc_holder', 'bogus', NULL, 1, 'x') f", // no such outcome
                finish + "'att_running', 'proc_holder', 'completed', NULL, NULL, 'x') f",
                finish + "'att_nobody', 'proc_holder', 'completed', NULL, 1, 'x') f")) {
            assertThat(a.calls(call)).as(call).isZero();
        }
        assertThat(a.rows()).as("nothing written").isEqualTo(rows);
        // naming the holder's process does not make the worker its login: the terminal guard refuses the write
        a.worker()
                .refused(
                        "fence: an assignment is ended by its attempt only by the login that registered the attempt's process",
                        finish + "'att_running', 'proc_holder', 'completed', NULL, 1, 'x') f");
        // the lease moved on (taken over: another holder and token) or went corrupt: nothing ends
        for (String moved : List.of(
                "UPDATE actor_leases SET token = token + 1, process_identity = 'proc_attacker' WHERE actor_id = 'held'",
                "UPDATE actor_leases SET expires_at = renewed_at + ttl_ms + 1 WHERE actor_id = 'held'")) {
            a.owner().exec("BEGIN", "ALTER TABLE actor_leases DISABLE TRIGGER USER", moved);
            assertThat(a.owner()
                            .scalar("SELECT count(*) FROM (" + finish
                                    + "'att_running', 'proc_holder', 'completed', NULL, 1, 'x') f) r"))
                    .as(moved)
                    .isZero();
            a.owner().exec("ROLLBACK");
        }
        assertThat(a.rows()).isEqualTo(rows);
        // the holder's own login ends it
        assertThat(a.owner().text(finish + "'att_running', 'proc_holder', 'completed', NULL, 1, 'x') f"))
                .isEqualTo("COMPLETED");
    }

    @Test
    void theFunctionsRunAsTheirCallerAndEveryOpenChecksThem() throws Exception {
        Attack a = attack();
        assertThat(a.owner()
                        .scalar("SELECT count(*) FROM pg_proc WHERE proname IN ('sovereign_attempt_start',"
                                + " 'sovereign_attempt_finish') AND NOT prosecdef AND provolatile = 'v'"))
                .isEqualTo(2);
        RawPg outsider = PgLogins.stranger(a.db(), a.owner());
        outsider.refused(
                "permission denied for function sovereign_attempt_start",
                "SELECT * FROM sovereign_attempt_start('asg_held', 'att_x', 'proc_holder', 1, 5000)");
        outsider.refused(
                "permission denied for function sovereign_attempt_finish",
                "SELECT * FROM sovereign_attempt_finish('att_running', 'proc_holder', 'completed', NULL, 1, 'x')");
        outsider.connection().close();

        Connection c = a.owner().connection();
        assertThat(PgMigrator.guardProblems(c)).isEmpty();
        a.owner()
                .exec(
                        "ALTER FUNCTION sovereign_attempt_finish(text, text, text, text, integer, text) SECURITY DEFINER");
        assertThat(PgMigrator.guardProblems(c))
                .containsExactly(
                        "guard function sovereign_attempt_finish runs with other settings than its migration gave it");
        assertThatThrownBy(() -> engine(a.db()))
                .hasMessageContaining("sovereign_attempt_finish runs with other settings");
        a.owner()
                .exec(
                        "ALTER FUNCTION sovereign_attempt_finish(text, text, text, text, integer, text) SECURITY INVOKER");
        String body = a.owner()
                .text("SELECT pg_get_functiondef('sovereign_attempt_start(text, text, text, bigint, bigint)'"
                        + "::regprocedure)");
        a.owner()
                .exec("CREATE OR REPLACE FUNCTION sovereign_attempt_start(p_assignment text, p_attempt text,"
                        + " p_process text, p_lease_token bigint, p_ttl_ms bigint) RETURNS SETOF execution_attempts"
                        + " LANGUAGE plpgsql AS $$ BEGIN RETURN; END $$");
        assertThat(PgMigrator.guardProblems(c))
                .containsExactly("guard function sovereign_attempt_start was replaced by different code");
        a.owner().exec(body);
        assertThat(PgMigrator.guardProblems(c)).isEmpty();
        engine(a.db()).close();
    }

    // ---- a ledger an older Sovereign left behind --------------------------------------------------------------

    @Test
    void aVersionSixteenLedgerWithARunningAttemptMigratesAndTheAttemptEnds() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 16))
                    .isEqualTo(16);
            RawPg sql = new RawPg(c);
            assertThat(sql.scalar("SELECT count(*) FROM pg_proc WHERE proname = 'sovereign_attempt_start'"))
                    .isZero();
            PgFenceWrites w = new PgFenceWrites(sql);
            w.actor("alpha");
            w.process("proc_old");
            long lease = w.acquire("alpha", "proc_old", 600_000);
            w.assign("asg_1", "alpha");
            long token = w.start("att_1", "asg_1", "alpha", "proc_old", lease, 600_000); // a version-16 engine's run

            try (Engine e = engine(db)) {
                assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
                assertThat(PgMigrator.guardProblems(c)).isEmpty();
                assertThat(PgMigrator.grantProblems(c)).isEmpty();
            }
            assertThat(sql.text("SELECT (f.ended).state FROM sovereign_attempt_finish('att_1', 'proc_old', 'completed',"
                            + " NULL, 1, 'after the upgrade') f"))
                    .isEqualTo("COMPLETED");
            assertThat(sql.scalar("SELECT token FROM fence_events WHERE kind = 'ATTEMPT_DONE'"))
                    .isEqualTo(token);
        }
    }
}
