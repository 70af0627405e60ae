package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgLogins;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.Stripes;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Schema version 16 (decision 0920): the common case of a claim and of a completion as one call of a server-side
 * function. The engine claims and completes through them and the rows and journal rows are those of the full path;
 * anything but the simple case writes nothing and the full path words the refusal or does the takeover; a worker
 * login gets nothing through them it could not do by hand; every open checks them like the guards; a ledger of
 * version 15 with a live claim migrates and the claim completes.
 */
class PgMailboxInOneCallTest {
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final long EPOCH = 1L << 40;

    private static Engine engine(PgTestServer.Database db) {
        return Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
    }

    private static String journalRow(RawPg sql, String kind, String message) {
        return sql.text("SELECT concat_ws('|', kind, resource_type, resource_id, actor_id, process_identity, token, at,"
                + " detail, presented_token IS NULL, current_token IS NULL, category IS NULL) FROM fence_events"
                + " WHERE kind = " + q(kind) + " AND resource_id = " + q(message));
    }

    @Test
    void theEngineClaimsAndCompletesThroughTheFunctionsWritingTheRowsOfTheFullPath() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect()) {
            RawPg sql = new RawPg(owner);
            sql.exec("ALTER DATABASE " + db.name() + " SET track_functions = 'pl'"); // for the engine's session
            try (Engine e = engine(db)) {
                e.actors().add("alpha");
                Lease lease = e.leases().acquire("alpha", Duration.ofMinutes(10));
                String me = e.processIdentity();
                // a clock with milliseconds, then one on a whole second: Instant.toString() writes them differently
                long now = sql.scalar("SELECT sovereign_now_ms()") + 1_000;
                long[] clocks = {now - now % 1000 + 123, now - now % 1000 + 2_000};
                for (long clock : clocks) {
                    PgTestServer.pinClock(db, clock);
                    Message sent = e.mailbox().send("ops", "alpha", "job at " + clock, "body", 3);
                    long tokens = sql.scalar(
                            "SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe('alpha')");

                    Claim claim = e.mailbox().claim(sent.id(), "alpha", TTL);

                    assertThat(claim.token()).isEqualTo(tokens + Stripes.COUNT); // the recipient's stripe
                    assertThat(claim.process()).isEqualTo(me);
                    assertThat(claim.actor()).isEqualTo("alpha");
                    assertThat(claim.expiresAt()).isEqualTo(clock + 30_000);
                    assertThat(sql.text("SELECT concat_ws('|', state, claim_actor, claim_process, claim_token,"
                                    + " claim_expires_at, updated_at, retry_count, finished_with IS NULL)"
                                    + " FROM messages WHERE id = " + q(sent.id())))
                            .isEqualTo("CLAIMED|alpha|" + me + "|" + claim.token() + "|" + (clock + 30_000) + "|"
                                    + clock + "|0|t");
                    assertThat(journalRow(sql, "CLAIM_GRANTED", sent.id()))
                            .isEqualTo("CLAIM_GRANTED|message|" + sent.id() + "|alpha|" + me + "|" + claim.token()
                                    + "|" + clock + "|claimed until " + Instant.ofEpochMilli(clock + 30_000)
                                    + "|t|t|t");

                    Message done = e.mailbox().complete(sent.id(), claim.token());

                    assertThat(done.state()).isEqualTo(MessageState.DONE);
                    assertThat(done.claim()).isEqualTo(claim);
                    assertThat(done.updatedAt()).isEqualTo(clock);
                    assertThat(sql.scalar("SELECT finished_with FROM messages WHERE id = " + q(sent.id())))
                            .isEqualTo(claim.token());
                    assertThat(journalRow(sql, "MESSAGE_DONE", sent.id()))
                            .isEqualTo("MESSAGE_DONE|message|" + sent.id() + "|alpha|" + me + "|" + claim.token() + "|"
                                    + clock + "|completed|t|t|t");
                }
                assertThat(e.leases().current("alpha")).contains(lease);
            }
            // the functions did the work: the engine's session called each (its statistics reach the view once its
            // backend has ended; wait for that condition, not for a time)
            sql.awaitFunctionCalls("sovereign_claim", 2);
            sql.awaitFunctionCalls("sovereign_message_complete", 2);
        }
    }

    @Test
    void anAttachedLeaseKeptAliveByItsSessionHostsAClaimInOneCall() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect();
                Engine e = engine(db)) {
            RawPg sql = new RawPg(owner);
            e.actors().add("alpha");
            Lease lease = e.leases().acquire("alpha", Duration.ofSeconds(5)); // attached to the engine's session
            assertThat(lease.attached()).isTrue();
            long start = sql.scalar("SELECT sovereign_now_ms()");
            PgTestServer.pinClock(db, start + 4_000);
            e.heartbeatNow(); // the session's beat now carries the lease to start + 9 s; its row still says + 5 s
            PgTestServer.pinClock(db, start + 7_000);
            Message sent = e.mailbox().send("ops", "alpha", "job", "body", 3);

            Claim claim = e.mailbox().claim(sent.id(), "alpha", TTL);

            assertThat(claim.expiresAt()).isEqualTo(start + 7_000 + 30_000);
            assertThat(sql.scalar("SELECT count(*) FROM fence_events WHERE kind = 'CLAIM_GRANTED'"))
                    .isEqualTo(1);
            // once the session's beat has expired too, the lease hosts nothing: the full path words it
            PgTestServer.pinClock(db, start + 9_000);
            Message other = e.mailbox().send("ops", "alpha", "late", "body", 3);
            assertThatThrownBy(() -> e.mailbox().claim(other.id(), "alpha", TTL))
                    .isInstanceOf(Refusal.class)
                    .satisfies(r -> assertThat(((Refusal) r).category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
        }
    }

    @Test
    void whatIsNotTheSimpleCaseTakesTheFullPathWithItsRefusalsRenewalsAndTakeovers() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect();
                Engine a = engine(db);
                Engine b = engine(db)) {
            RawPg sql = new RawPg(owner);
            a.actors().add("alpha");
            a.actors().add("beta");
            a.leases().acquire("alpha", Duration.ofMinutes(10));
            b.leases().acquire("beta", Duration.ofMinutes(10));
            Message m = a.mailbox().send("ops", "alpha", "job", "body", 3);
            long start = sql.scalar("SELECT sovereign_now_ms()");
            PgTestServer.pinClock(db, start);

            refused(() -> b.mailbox().claim(m.id(), "beta", TTL), RefusalCategory.NOT_RECIPIENT);
            refused(() -> b.mailbox().claim(m.id(), "alpha", TTL), RefusalCategory.NOT_HOSTING);
            refused(() -> a.mailbox().claim("msg_nobody", "alpha", TTL), RefusalCategory.MESSAGE_MISSING);
            Claim first = a.mailbox().claim(m.id(), "alpha", TTL);
            // the holder's re-claim keeps its token (the full path's renewal)
            Claim again = a.mailbox().claim(m.id(), "alpha", Duration.ofSeconds(60));
            assertThat(again.token()).isEqualTo(first.token());
            assertThat(again.expiresAt()).isEqualTo(start + 60_000);
            // a stale token and a process that did not claim it are refused, and the message is still claimed
            refused(() -> a.mailbox().complete(m.id(), first.token() - 1), RefusalCategory.FENCING_TOKEN_STALE);
            assertThat(sql.scalar("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED' AND resource_id = "
                            + q(m.id()) + " AND presented_token = " + (first.token() - 1)))
                    .isEqualTo(1);
            assertThatThrownBy(() -> b.mailbox().complete(m.id(), first.token()))
                    .isInstanceOf(Refusal.class);
            // an expired claim is taken over with a greater token (the full path), and the old token cannot finish
            PgTestServer.pinClock(db, start + 61_000);
            Claim taken = a.mailbox().claim(m.id(), "alpha", TTL);
            assertThat(taken.token()).isGreaterThan(first.token());
            assertThat(sql.text("SELECT detail FROM fence_events WHERE kind = 'CLAIM_GRANTED' AND token = "
                            + taken.token()))
                    .startsWith("took over the expired claim of this process");
            refused(() -> a.mailbox().complete(m.id(), first.token()), RefusalCategory.FENCING_TOKEN_STALE);
            assertThat(a.mailbox().complete(m.id(), taken.token()).state()).isEqualTo(MessageState.DONE);
            refused(() -> a.mailbox().claim(m.id(), "alpha", TTL), RefusalCategory.MESSAGE_FINISHED);
            refused(() -> a.mailbox().complete(m.id(), taken.token()), RefusalCategory.MESSAGE_FINISHED);
        }
    }

    private static void refused(Runnable call, RefusalCategory category) {
        assertThatThrownBy(call::run)
                .isInstanceOf(Refusal.class)
                .satisfies(r -> assertThat(((Refusal) r).category()).isEqualTo(category));
    }

    // ---- a worker login calling the functions by hand --------------------------------------------------------

    /**
     * A ledger with a worker login and its process, a holder process with a live lease on {@code held} and an
     * expired one on {@code expired}, a NEW message to each and a message claimed by the holder.
     */
    private record Attack(
            PgTestServer.Database db, RawPg owner, RawPg worker, PgFenceWrites w, long live, long claimToken) {
        long tokens() {
            return owner.scalar("SELECT sum(last_token) FROM token_counter"); // any stripe's mint moves it
        }

        long journal() {
            return owner.scalar("SELECT count(*) FROM fence_events");
        }

        String messages() {
            return owner.text(
                    "SELECT string_agg(concat_ws(':', id, state, claim_process, claim_token, claim_expires_at,"
                            + " updated_at, finished_with), ',' ORDER BY id) FROM messages");
        }

        long rows(String call) {
            return worker.scalar("SELECT count(*) FROM (" + call + ") f");
        }
    }

    private static Attack attack() throws SQLException {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine created = engine(db)) {
            created.actors().add("held");
            created.actors().add("expired");
            created.actors().add("free");
        }
        RawPg owner = new RawPg(db.connect());
        PgFenceWrites w = new PgFenceWrites(owner);
        w.process("proc_holder");
        long live = w.acquire("held", "proc_holder", 600_000);
        w.acquire("expired", "proc_holder", -1);
        w.send("m_held", "held");
        w.send("m_expired", "expired");
        w.send("m_free", "free");
        w.send("m_claimed", "held");
        long claimToken = w.claim("m_claimed", "held", "proc_holder", 600_000);
        RawPg worker = PgLogins.worker(db, owner, "host_x");
        new PgFenceWrites(worker).process("proc_attacker");
        return new Attack(db, owner, worker, w, live, claimToken);
    }

    @Test
    void aWorkerGetsNoClaimAndNoTokenThroughTheClaimFunctionWhereTheFullPathWouldRefuse() throws Exception {
        Attack a = attack();
        long tokens = a.tokens();
        long journal = a.journal();
        String messages = a.messages();
        for (String call : List.of(
                "SELECT * FROM sovereign_claim('m_held', 'held', 'proc_attacker', 5000)", // not the lease's holder
                "SELECT * FROM sovereign_claim('m_expired', 'expired', 'proc_holder', 5000)", // an expired lease
                "SELECT * FROM sovereign_claim('m_free', 'free', 'proc_attacker', 5000)", // no lease at all
                "SELECT * FROM sovereign_claim('m_held', 'free', 'proc_attacker', 5000)", // not the recipient
                "SELECT * FROM sovereign_claim('m_claimed', 'held', 'proc_attacker', 5000)", // claimed, live
                "SELECT * FROM sovereign_claim('m_nobody', 'held', 'proc_attacker', 5000)",
                "SELECT * FROM sovereign_claim('m_held', 'held', 'proc_holder', 0)", // no claim to carry
                "SELECT * FROM sovereign_claim('m_held', 'held', 'proc_holder', -5)",
                "SELECT * FROM sovereign_claim('m_held', 'held', 'proc_holder', NULL)")) {
            assertThat(a.rows(call)).as(call).isZero();
        }
        assertThat(a.tokens()).as("no token minted").isEqualTo(tokens);
        assertThat(a.journal()).as("nothing journalled").isEqualTo(journal);
        assertThat(a.messages()).isEqualTo(messages);

        // naming the holder's process does not make the worker its login: the claim guard refuses the write
        a.worker()
                .refused(
                        "fence: a message is claimed or its claim renewed only by the login that registered the claiming process",
                        "SELECT * FROM sovereign_claim('m_held', 'held', 'proc_holder', 5000)");
        // the simple case works for the holder's own login, as the same statements by hand would
        long stripe =
                a.owner().scalar("SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe('held')");
        assertThat(a.owner().scalar("SELECT claim_token FROM sovereign_claim('m_held', 'held', 'proc_holder', 5000)"))
                .isEqualTo(stripe + Stripes.COUNT);
    }

    @Test
    void aWorkerCannotFinishAMessageThroughTheCompleteFunctionWithoutTheCurrentClaim() throws Exception {
        Attack a = attack();
        long journal = a.journal();
        String messages = a.messages();
        long t = a.claimToken();
        for (String call : List.of(
                "SELECT * FROM sovereign_message_complete('m_claimed', " + t + ", 'proc_attacker')", // not the claimer
                "SELECT * FROM sovereign_message_complete('m_claimed', " + (t - 1) + ", 'proc_holder')", // stale
                "SELECT * FROM sovereign_message_complete('m_claimed', " + (t + 1) + ", 'proc_holder')",
                "SELECT * FROM sovereign_message_complete('m_held', " + t + ", 'proc_holder')", // not claimed
                "SELECT * FROM sovereign_message_complete('m_nobody', " + t + ", 'proc_holder')",
                "SELECT * FROM sovereign_message_complete('m_claimed', NULL, 'proc_holder')")) {
            assertThat(a.rows(call)).as(call).isZero();
        }
        assertThat(a.journal()).as("nothing journalled").isEqualTo(journal);
        assertThat(a.messages()).isEqualTo(messages);
        // naming the claimer does not make the worker its login
        a.worker()
                .refused(
                        "fence: a message is finished only by the login that registered the claiming process",
                        "SELECT * FROM sovereign_message_complete('m_claimed', " + t + ", 'proc_holder')");

        // a claim granted before the actor's lease moved to a new epoch cannot finish the message (the engine's
        // finishing guard); the lease row is moved by the owner with the guards off, in a transaction rolled back
        a.owner()
                .exec(
                        "BEGIN",
                        "ALTER TABLE actor_leases DISABLE TRIGGER USER",
                        "ALTER TABLE token_counter DISABLE TRIGGER USER");
        a.owner().exec("UPDATE token_counter SET last_token = last_token + " + EPOCH);
        a.owner()
                .exec("UPDATE actor_leases SET token = last_token FROM token_counter WHERE actor_id = 'held'"
                        + " AND token_counter.id = sovereign_token_stripe('held')");
        assertThat(a.owner()
                        .scalar("SELECT count(*) FROM sovereign_message_complete('m_claimed', " + t
                                + ", 'proc_holder')"))
                .isZero();
        a.owner().exec("ROLLBACK");

        // a corrupt lease row (an expiry no renewal could write) fails a finish closed: the function leaves it
        a.owner().exec("BEGIN", "ALTER TABLE actor_leases DISABLE TRIGGER USER");
        a.owner().exec("UPDATE actor_leases SET expires_at = renewed_at + ttl_ms + 1 WHERE actor_id = 'held'");
        assertThat(a.owner()
                        .scalar("SELECT count(*) FROM sovereign_message_complete('m_claimed', " + t
                                + ", 'proc_holder')"))
                .isZero();
        assertThat(a.owner().scalar("SELECT count(*) FROM sovereign_claim('m_held', 'held', 'proc_holder', 5000)"))
                .isZero();
        a.owner().exec("ROLLBACK");
        assertThat(a.messages()).isEqualTo(messages);

        // the holder's own login finishes it
        assertThat(a.owner()
                        .text("SELECT state FROM sovereign_message_complete('m_claimed', " + t + ", 'proc_holder')"))
                .isEqualTo("DONE");
    }

    @Test
    void theFunctionsRunAsTheirCallerAndEveryOpenChecksThem() throws Exception {
        Attack a = attack();
        assertThat(a.owner()
                        .scalar("SELECT count(*) FROM pg_proc WHERE proname IN ('sovereign_claim',"
                                + " 'sovereign_message_complete') AND NOT prosecdef AND provolatile = 'v'"))
                .isEqualTo(2);
        RawPg outsider = PgLogins.stranger(a.db(), a.owner());
        outsider.refused(
                "permission denied for function sovereign_claim",
                "SELECT * FROM sovereign_claim('m_held', 'held', 'proc_holder', 5000)");
        outsider.refused(
                "permission denied for function sovereign_message_complete",
                "SELECT * FROM sovereign_message_complete('m_claimed', 1, 'proc_holder')");
        outsider.connection().close();

        Connection c = a.owner().connection();
        assertThat(PgMigrator.guardProblems(c)).isEmpty();
        a.owner().exec("ALTER FUNCTION sovereign_claim(text, text, text, bigint) SECURITY DEFINER");
        assertThat(PgMigrator.guardProblems(c))
                .containsExactly("guard function sovereign_claim runs with other settings than its migration gave it");
        assertThatThrownBy(() -> engine(a.db())).hasMessageContaining("sovereign_claim runs with other settings");
        a.owner().exec("ALTER FUNCTION sovereign_claim(text, text, text, bigint) SECURITY INVOKER");
        a.owner().exec("ALTER FUNCTION sovereign_message_complete(text, bigint, text) STABLE");
        assertThat(PgMigrator.guardProblems(c)).hasSize(1).allMatch(p -> p.contains("sovereign_message_complete"));
        a.owner().exec("ALTER FUNCTION sovereign_message_complete(text, bigint, text) VOLATILE");
        String body = a.owner()
                .text("SELECT pg_get_functiondef('sovereign_message_complete(text, bigint, text)'::regprocedure)");
        a.owner()
                .exec("CREATE OR REPLACE FUNCTION sovereign_message_complete(p_message text, p_token bigint,"
                        + " p_process text) RETURNS SETOF messages LANGUAGE plpgsql AS $$ BEGIN RETURN; END $$");
        assertThat(PgMigrator.guardProblems(c))
                .containsExactly("guard function sovereign_message_complete was replaced by different code");
        a.owner().exec(body);
        assertThat(PgMigrator.guardProblems(c)).isEmpty();
        engine(a.db()).close();
    }

    // ---- a ledger an older Sovereign left behind --------------------------------------------------------------

    @Test
    void aVersionFifteenLedgerWithALiveClaimMigratesAndTheClaimCompletes() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 15))
                    .isEqualTo(15);
            RawPg sql = new RawPg(c);
            assertThat(sql.scalar("SELECT count(*) FROM pg_proc WHERE proname = 'sovereign_claim'"))
                    .isZero();
            PgFenceWrites w = new PgFenceWrites(sql);
            w.actor("alpha");
            w.process("proc_old");
            long lease = w.acquire("alpha", "proc_old", 600_000);
            w.send("m_1", "alpha");
            long claim = w.claim("m_1", "alpha", "proc_old", 600_000); // claimed under a version-15 engine

            try (Engine e = engine(db)) {
                assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
                assertThat(PgMigrator.guardProblems(c)).isEmpty();
                assertThat(PgMigrator.grantProblems(c)).isEmpty();
                refused(() -> e.mailbox().claim("m_1", "alpha", TTL), RefusalCategory.NOT_HOSTING);
            }
            assertThat(sql.text("SELECT state FROM sovereign_message_complete('m_1', " + claim + ", 'proc_old')"))
                    .isEqualTo("DONE");
            assertThat(sql.scalar("SELECT token FROM fence_events WHERE kind = 'MESSAGE_DONE'"))
                    .isEqualTo(claim);
            assertThat(lease).isLessThan(claim);
        }
    }
}
