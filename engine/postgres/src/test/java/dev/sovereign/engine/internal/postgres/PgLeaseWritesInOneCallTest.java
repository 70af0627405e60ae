package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgLogins;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.Stripes;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Schema version 5 (decision 0506): the common case of a grant, renewal and release as one call of a server-side
 * function. The engine's results and rows are those of the full path; the functions do nothing but the simple
 * case (anything else writes nothing, and the full path words the refusal); they run as their caller, so a
 * worker login gets nothing through them it could not do by hand, and the guards still refuse the raw writes;
 * every open checks them like the guards; a ledger of version 4 with a live lease migrates and goes on.
 */
class PgLeaseWritesInOneCallTest {
    private static final String DENIED = "42501";
    private static final Duration TTL = Duration.ofSeconds(30);

    private static Engine engine(PgTestServer.Database db) {
        return Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
    }

    @Test
    void theEngineGrantsRenewsAndReleasesThroughTheFunctionsWritingTheRowsOfTheFullPath() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect()) {
            RawPg sql = new RawPg(owner);
            sql.exec("ALTER DATABASE " + db.name() + " SET track_functions = 'pl'"); // for the engine's session
            Lease lease;
            Lease renewed;
            try (Engine e = engine(db)) {
                e.actors().add("alpha");
                lease = e.leases().acquire("alpha", TTL);
                assertThat(lease.token()).isEqualTo(Stripes.nth("alpha", 1));
                assertThat(lease.process()).isEqualTo(e.processIdentity());
                assertThat(lease.expiresAt()).isEqualTo(lease.acquiredAt() + 30_000);
                assertThat(sql.text("SELECT concat_ws('|', renewals, renewal_journalled_at = acquired_at, renewed_at ="
                                + " acquired_at, change_seq = xmin::text::bigint, presented_token IS NULL)"
                                + " FROM actor_leases WHERE actor_id = 'alpha'"))
                        .isEqualTo("0|t|t|t|t");
                assertThat(sql.text(
                                "SELECT concat_ws('|', kind, resource_type, resource_id, actor_id, process_identity,"
                                        + " token, at, detail, presented_token IS NULL, category IS NULL) FROM fence_events"
                                        + " WHERE kind = 'LEASE_ACQUIRED'"))
                        .isEqualTo("LEASE_ACQUIRED|actor|alpha|alpha|" + e.processIdentity() + "|" + lease.token() + "|"
                                + lease.acquiredAt() + "|ttl 30000 ms|t|t");

                renewed = e.leases().renew("alpha", lease.token(), Duration.ofSeconds(20));
                assertThat(renewed.token()).isEqualTo(lease.token());
                assertThat(renewed.expiresAt()).isEqualTo(renewed.renewedAt() + 20_000);
                assertThat(
                                sql.text(
                                        "SELECT concat_ws('|', renewals, ttl_ms, renewal_journalled_at = renewed_at,"
                                                + " presented_token, presented_change = change_seq) FROM actor_leases WHERE actor_id = 'alpha'"))
                        .isEqualTo("1|20000|t|" + lease.token() + "|t");
                // the detail as Instant.toString() writes it, with or without milliseconds
                assertThat(sql.text("SELECT detail FROM fence_events WHERE kind = 'LEASE_RENEWED'"))
                        .isEqualTo("renewed until " + Instant.ofEpochMilli(renewed.expiresAt()));
                Lease kept = e.leases().renew("alpha", lease.token());
                assertThat(kept.ttlMs()).isEqualTo(20_000);

                assertThat(e.leases().release("alpha", lease.token())).isTrue();
                assertThat(sql.scalar("SELECT count(*) FROM actor_leases")).isZero();
                assertThat(sql.text("SELECT concat_ws('|', kind, actor_id, process_identity, token, detail IS NULL)"
                                + " FROM fence_events WHERE kind = 'LEASE_RELEASED'"))
                        .isEqualTo("LEASE_RELEASED|alpha|" + e.processIdentity() + "|" + lease.token() + "|t");
                assertThat(sql.scalar("SELECT count(*) FROM lease_tombstones WHERE actor_id = 'alpha'"))
                        .isEqualTo(1);
                assertThat(e.leases().acquire("alpha", TTL).token()).isEqualTo(Stripes.nth("alpha", 2));
            }
            // the functions did the work: the engine's session called each (its statistics reach the view once
            // its backend has ended; wait for that condition, not for a time)
            sql.awaitFunctionCalls("sovereign_lease_grant", 2);
            sql.awaitFunctionCalls("sovereign_lease_renew", 2);
            sql.awaitFunctionCalls("sovereign_lease_release", 2); // and the close gave back the lease it still held
        }
    }

    @Test
    void acquireOrRenewGrantsAFreeActorInOneCallAndRenewsItsOwnLeaseOnTheFullPath() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect()) {
            RawPg sql = new RawPg(owner);
            sql.exec("ALTER DATABASE " + db.name() + " SET track_functions = 'pl'");
            try (Engine e = engine(db)) {
                e.actors().add("beta");
                e.actors().add("gamma");
                Lease beta = e.leases().acquireOrRenew("beta", TTL);
                assertThat(beta.token()).isEqualTo(Stripes.nth("beta", 1));
                Lease again = e.leases().acquireOrRenew("beta", Duration.ofSeconds(20));
                assertThat(again.token()).isEqualTo(beta.token());
                assertThat(again.ttlMs()).isEqualTo(20_000);
                Lease gamma = e.leases().acquireOrRenewKeepingTtl("gamma", TTL);
                assertThat(gamma.token()).isEqualTo(Stripes.nth("gamma", 1));
                assertThat(e.leases()
                                .acquireOrRenewKeepingTtl("gamma", Duration.ofSeconds(5))
                                .ttlMs())
                        .isEqualTo(30_000);
                assertThat(sql.text("SELECT string_agg(kind || ':' || actor_id || ':' || token, ',' ORDER BY seq)"
                                + " FROM fence_events WHERE kind LIKE 'LEASE%'"))
                        .isEqualTo("LEASE_ACQUIRED:beta:" + beta.token() + ",LEASE_RENEWED:beta:" + beta.token()
                                + ",LEASE_ACQUIRED:gamma:" + gamma.token() + ",LEASE_RENEWED:gamma:"
                                + gamma.token());
            }
            sql.awaitFunctionCalls(
                    "sovereign_lease_grant", 2); // the two grants; the renewals of a held lease did not try
        }
    }

    @Test
    void whatIsNotTheSimpleCaseTakesTheFullPathWithItsRefusalsAndTakeovers() {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine a = engine(db);
                Engine b = engine(db)) {
            a.actors().add("alpha");
            Lease held = a.leases().acquire("alpha", TTL);
            assertThatThrownBy(() -> b.leases().acquire("alpha", TTL))
                    .isInstanceOf(Refusal.class)
                    .satisfies(r -> assertThat(((Refusal) r).category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
            assertThatThrownBy(() -> b.leases().acquire("nobody", TTL))
                    .isInstanceOf(Refusal.class)
                    .satisfies(r -> assertThat(((Refusal) r).category()).isEqualTo(RefusalCategory.UNKNOWN_ACTOR));
            assertThat(b.leases().release("alpha", held.token())).isFalse();
            assertThatThrownBy(() -> b.leases().renew("alpha", held.token(), TTL))
                    .isInstanceOf(Refusal.class)
                    .satisfies(r -> assertThat(((Refusal) r).category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
            assertThat(a.leases().current("alpha")).contains(held);
        }
    }

    @Test
    void anEngineActingUnderAClaimedIdentityTakesTheFullPathSoTheClaimIsJournalled() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine owner = engine(db)) {
            owner.actors().add("alpha");
            try (Engine claimed = Engine.open(EngineConfig.forDatabase(db.url())
                            .heartbeat(false)
                            .actAs(owner.processIdentity())
                            .build());
                    Connection c = db.connect()) {
                Lease lease = claimed.leases().acquire("alpha", TTL);
                RawPg sql = new RawPg(c);
                assertThat(sql.scalar("SELECT count(*) FROM fence_events WHERE kind = 'PROCESS_STARTED'"
                                + " AND category = 'identity_claimed'"))
                        .isPositive();
                assertThat(sql.text("SELECT detail FROM fence_events WHERE kind = 'LEASE_ACQUIRED'"))
                        .startsWith("ttl 30000 ms; by --process: ");
                assertThat(claimed.leases().release("alpha", lease.token())).isTrue();
                assertThat(sql.text("SELECT detail FROM fence_events WHERE kind = 'LEASE_RELEASED'"))
                        .startsWith("by --process: ");
            }
        }
    }

    // ---- a worker login calling the functions by hand --------------------------------------------------------

    /** A ledger with a worker login, a live lease of someone else's and an expired one; returns the worker's RawPg. */
    private record Attack(PgTestServer.Database db, RawPg owner, RawPg worker, long live, long expired) {
        long tokens() {
            return owner.scalar("SELECT sum(last_token) FROM token_counter"); // any stripe's mint moves it
        }

        long journal() {
            return owner.scalar("SELECT count(*) FROM fence_events");
        }

        String lease(String actor) {
            return owner.text("SELECT concat_ws('|', process_identity, token, expires_at, change_seq) FROM actor_leases"
                    + " WHERE actor_id = " + q(actor));
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
        long live = w.acquire("held", "proc_holder", 5_000);
        long expired = w.acquire("expired", "proc_holder", -1);
        RawPg worker = PgLogins.worker(db, owner, "host_x");
        // the attacker's own process, registered by its login (schema version 12 binds a lease to its holder's login)
        new PgFenceWrites(worker).process("proc_attacker");
        return new Attack(db, owner, worker, live, expired);
    }

    @Test
    void aWorkerCannotTakeALiveOrExpiredLeaseNorMintATokenWithoutALeaseThroughTheGrantFunction() throws Exception {
        Attack a = attack();
        long tokens = a.tokens();
        long journal = a.journal();
        String held = a.lease("held");
        String expired = a.lease("expired");
        for (String call : List.of(
                "SELECT * FROM sovereign_lease_grant('held', 'proc_attacker', 5000)", // live: a refusal's case
                "SELECT * FROM sovereign_lease_grant('expired', 'proc_attacker', 5000)", // a takeover's case
                "SELECT * FROM sovereign_lease_grant('nobody', 'proc_attacker', 5000)", // unknown actor
                "SELECT * FROM sovereign_lease_grant('free', 'proc_attacker', 0)", // no lease to carry it
                "SELECT * FROM sovereign_lease_grant('free', 'proc_attacker', -5)")) {
            assertThat(a.worker().scalar("SELECT count(*) FROM (" + call + ") g"))
                    .as(call)
                    .isZero();
        }
        assertThat(a.tokens()).as("no token minted").isEqualTo(tokens);
        assertThat(a.journal()).as("nothing journalled").isEqualTo(journal);
        assertThat(a.lease("held")).isEqualTo(held);
        assertThat(a.lease("expired")).isEqualTo(expired);

        // the simple case works for a worker, as the same statements by hand would: the next token of the stripe
        long stripe =
                a.owner().scalar("SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe('free')");
        assertThat(a.worker().scalar("SELECT token FROM sovereign_lease_grant('free', 'proc_attacker', 5000)"))
                .isEqualTo(stripe + Stripes.COUNT);
    }

    @Test
    void aWorkerCannotReleaseOrRenewSomeoneElsesLeaseThroughTheFunctions() throws Exception {
        Attack a = attack();
        long tokens = a.tokens();
        long journal = a.journal();
        String held = a.lease("held");
        for (String call : List.of(
                "SELECT sovereign_lease_release('held', 'proc_attacker', " + a.live() + ")", // not its holder
                "SELECT sovereign_lease_release('held', 'proc_holder', " + (a.live() + 1) + ")", // not its token
                "SELECT sovereign_lease_release('held', 'proc_holder', " + a.expired() + ")",
                "SELECT sovereign_lease_release('free', 'proc_holder', 1)")) {
            assertThat(a.worker().text(call)).as(call).isEqualTo("f");
        }
        for (String call : List.of(
                "SELECT * FROM sovereign_lease_renew('held', 'proc_attacker', " + a.live() + ", 5000)",
                "SELECT * FROM sovereign_lease_renew('held', 'proc_holder', " + (a.live() + 1) + ", 5000)",
                "SELECT * FROM sovereign_lease_renew('expired', 'proc_attacker', " + a.expired() + ", 5000)")) {
            assertThat(a.worker().scalar("SELECT count(*) FROM (" + call + ") r"))
                    .as(call)
                    .isZero();
        }
        assertThat(a.lease("held")).isEqualTo(held);
        assertThat(a.tokens()).isEqualTo(tokens);
        assertThat(a.journal()).isEqualTo(journal);

        // a corrupt row (an expiry no renewal could write) is evidence: neither renewed nor deleted by its holder.
        // Since schema version 8 the guard refuses to write one, so the owner switches it off to make one
        a.owner().exec("ALTER TABLE actor_leases DISABLE TRIGGER actor_leases_guard_update");
        a.owner()
                .passes("UPDATE actor_leases SET expires_at = expires_at + 3600000, change_seq = "
                        + RawPg.CHANGE + ", presented_token = token, presented_change = " + RawPg.CHANGE
                        + " WHERE actor_id = 'held'");
        a.owner().exec("ALTER TABLE actor_leases ENABLE ALWAYS TRIGGER actor_leases_guard_update");
        String corrupt = a.lease("held");
        neitherReleasedNorRenewedByItsHolder(a);
        assertThat(a.lease("held")).isEqualTo(corrupt);
    }

    /**
     * Schema version 22 (decision 0926): a token is "issued" when its actor's own stripe has minted it, not when some
     * stripe is past it. A stripe set back below a live lease's token (as a restored counter row would be; the owner
     * switches the counter's guard off to make one) leaves the lease to the full path, even with another stripe far
     * ahead: red on version 21, which compared with the greatest of the 64.
     */
    @Test
    void aTokenAboveItsOwnStripeIsNeitherReleasedNorRenewedByTheFunctionsWhateverTheOtherStripes() throws Exception {
        Attack a = attack();
        int stripe = Stripes.of("held");
        int other = (stripe + 1) % Stripes.COUNT;
        a.owner().exec("ALTER TABLE token_counter DISABLE TRIGGER token_counter_guard");
        a.owner()
                .passes("UPDATE token_counter SET last_token = " + (a.live() - Stripes.COUNT) + " WHERE id = "
                        + stripe);
        a.owner()
                .passes("UPDATE token_counter SET last_token = " + (a.live() + 1_000L * Stripes.COUNT + other - stripe)
                        + " WHERE id = " + other);
        a.owner().exec("ALTER TABLE token_counter ENABLE ALWAYS TRIGGER token_counter_guard");
        assertThat(a.owner().scalar("SELECT sovereign_last_token()")).isGreaterThan(a.live());
        long journal = a.journal();
        String held = a.lease("held");
        neitherReleasedNorRenewedByItsHolder(a);
        assertThat(a.lease("held")).isEqualTo(held);
        assertThat(a.journal()).isEqualTo(journal);
    }

    @Test
    void theFunctionsRunAsTheirCallerAndTheGuardsStillRefuseTheRawWrites() throws Exception {
        Attack a = attack();
        assertThat(a.owner()
                        .scalar("SELECT count(*) FROM pg_proc WHERE proname LIKE 'sovereign\\_lease\\_%'"
                                + " AND NOT prosecdef"))
                .isEqualTo(3);
        // a login that is not a worker may not even call them (EXECUTE was taken from PUBLIC) ...
        RawPg outsider = PgLogins.stranger(a.db(), a.owner());
        String stranger = outsider.text("SELECT current_user::text");
        outsider.refused(
                "permission denied for function sovereign_lease_grant",
                "SELECT * FROM sovereign_lease_grant('free', 'proc_attacker', 5000)");
        // ... and given EXECUTE, it still writes only what its own table privileges allow: none here
        a.owner().exec("GRANT EXECUTE ON FUNCTION sovereign_lease_grant(text, text, bigint) TO " + stranger);
        outsider.refused(
                "permission denied for table", "SELECT * FROM sovereign_lease_grant('free', 'proc_attacker', 5000)");
        outsider.connection().close();

        // inside a transaction that called a function, the guards still refuse what the engine never writes
        String grant = "SELECT * FROM sovereign_lease_grant('free', 'proc_attacker', 5000)";
        a.worker()
                .refused(
                        "fence: a renewal keeps the holder",
                        grant,
                        "UPDATE actor_leases SET process_identity = 'proc_holder', change_seq = " + RawPg.CHANGE
                                + ", presented_token = token, presented_change = " + RawPg.CHANGE
                                + " WHERE actor_id = 'free'");
        a.worker()
                .refused(
                        "fence: an actor has one lease row",
                        grant,
                        RawPg.MINT,
                        "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at,"
                                + " renewal_journalled_at, change_seq) VALUES ('free', 'proc_holder', "
                                + RawPg.token("'free'")
                                + ", 5000, 0, 0,"
                                + " 0, 0, " + RawPg.CHANGE + ")");
        a.worker()
                .refused(
                        "fence: a lease is released only by the transaction that presents its current token",
                        "SELECT sovereign_lease_release('held', 'proc_attacker', " + a.live() + ")",
                        "DELETE FROM actor_leases WHERE actor_id = 'held'");
        a.worker()
                .refused(
                        "fence: a takeover needs an expired lease",
                        grant,
                        RawPg.MINT,
                        "UPDATE actor_leases SET process_identity = 'proc_attacker', token = " + RawPg.LEASE_TOKEN
                                + ", change_seq = "
                                + RawPg.CHANGE + ", presented_token = token, presented_change = " + RawPg.CHANGE
                                + " WHERE actor_id = 'held'");
        assertThat(a.owner().scalar("SELECT count(*) FROM actor_leases WHERE actor_id = 'free'"))
                .isZero();
        // a worker cannot replace the function's code either (only the owner can; every open would see it)
        refusedWith(
                a.worker(),
                DENIED,
                "CREATE OR REPLACE FUNCTION sovereign_lease_release(p_actor text, p_process text, p_token bigint)"
                        + " RETURNS boolean LANGUAGE sql AS $$ SELECT true $$");
        refusedWith(a.worker(), DENIED, "ALTER FUNCTION sovereign_lease_grant(text, text, bigint) SECURITY DEFINER");
    }

    // ---- every open checks the functions as it checks the guards --------------------------------------------

    @Test
    void everyOpenRefusesALedgerWhoseLeaseFunctionsWereReplacedMadeDefinerOrShadowed() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        engine(db).close();
        try (Connection c = db.connect()) {
            RawPg sql = new RawPg(c);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();

            sql.exec("ALTER FUNCTION sovereign_lease_grant(text, text, bigint) SECURITY DEFINER");
            assertThat(PgMigrator.guardProblems(c))
                    .containsExactly(
                            "guard function sovereign_lease_grant runs with other settings than its migration gave it");
            assertThatThrownBy(() -> engine(db)).hasMessageContaining("sovereign_lease_grant runs with other settings");
            sql.exec("ALTER FUNCTION sovereign_lease_grant(text, text, bigint) SECURITY INVOKER");
            assertThat(PgMigrator.guardProblems(c)).isEmpty();

            String body =
                    sql.text("SELECT pg_get_functiondef('sovereign_lease_release(text, text, bigint)'::regprocedure)");
            sql.exec("CREATE OR REPLACE FUNCTION sovereign_lease_release(p_actor text, p_process text, p_token bigint)"
                    + " RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN RETURN true; END $$");
            assertThat(PgMigrator.guardProblems(c))
                    .containsExactly("guard function sovereign_lease_release was replaced by different code");
            sql.exec(body);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();

            // a look-alike taking varchar: a call with untyped text arguments could resolve to it
            sql.exec("CREATE FUNCTION sovereign_lease_renew(a varchar, b varchar, c bigint, d bigint) RETURNS SETOF"
                    + " actor_leases LANGUAGE sql AS $$ SELECT * FROM actor_leases $$");
            assertThat(PgMigrator.guardProblems(c))
                    .containsExactly(
                            "guard function sovereign_lease_renew has a look-alike with other arguments beside it");
            sql.exec("DROP FUNCTION sovereign_lease_renew(varchar, varchar, bigint, bigint)");
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
        }
        engine(db).close();
    }

    // ---- a ledger an older Sovereign left behind --------------------------------------------------------------

    @Test
    void aVersionFourLedgerWithALiveLeaseMigratesAndItsLeasesAndTokensGoOn() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 4))
                    .isEqualTo(4);
            assertThat(PgMigrator.schemaVersion(c)).isEqualTo(4);
            RawPg sql = new RawPg(c);
            assertThat(sql.scalar("SELECT count(*) FROM pg_proc WHERE proname LIKE 'sovereign\\_lease\\_%'"))
                    .isZero();
            PgFenceWrites w = new PgFenceWrites(sql);
            w.actor("alpha");
            w.actor("beta");
            w.process("proc_old");
            long old = w.acquire("alpha", "proc_old", 5_000); // held by a version-4 engine when the upgrade came
            assertThat(old).isEqualTo(1);

            try (Engine e = engine(db)) {
                assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
                assertThat(PgMigrator.guardProblems(c)).isEmpty();
                assertThat(PgMigrator.grantProblems(c)).isEmpty();
                // the version-4 holder's lease is still live and still refuses others
                assertThatThrownBy(() -> e.leases().acquire("alpha", TTL))
                        .isInstanceOf(Refusal.class)
                        .satisfies(
                                r -> assertThat(((Refusal) r).category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
                // its holder renews and releases it through the new functions
                assertThat(sql.scalar(
                                "SELECT token FROM sovereign_lease_renew('alpha', 'proc_old', " + old + ", 5000)"))
                        .isEqualTo(old);
                assertThat(sql.text("SELECT sovereign_lease_release('alpha', 'proc_old', " + old + ")"))
                        .isEqualTo("t");
                // tokens continue above the counter the old ledger kept, each from its actor's stripe (version 19)
                Lease alpha = e.leases().acquire("alpha", TTL);
                assertThat(alpha.token()).isEqualTo(Stripes.nth("alpha", 1)).isGreaterThan(old);
                Lease beta = e.leases().acquire("beta", TTL);
                assertThat(beta.token()).isEqualTo(Stripes.nth("beta", 1)).isGreaterThan(old);
                assertThat(e.leases().renew("beta", beta.token(), TTL).token()).isEqualTo(beta.token());
                assertThat(e.leases().release("beta", beta.token())).isTrue();
                assertThat(e.leases().release("alpha", alpha.token())).isTrue();
            }
            assertThat(sql.text("SELECT string_agg(kind || ':' || token, ',' ORDER BY seq) FROM fence_events"
                            + " WHERE kind LIKE 'LEASE%'"))
                    .isEqualTo("LEASE_RENEWED:1,LEASE_RELEASED:1,LEASE_ACQUIRED:" + Stripes.nth("alpha", 1) + ","
                            + "LEASE_ACQUIRED:" + Stripes.nth("beta", 1) + ",LEASE_RENEWED:" + Stripes.nth("beta", 1)
                            + ",LEASE_RELEASED:" + Stripes.nth("beta", 1) + ",LEASE_RELEASED:"
                            + Stripes.nth("alpha", 1));
        }
    }

    /** Runs {@code statement} on {@code sql}'s connection and expects SQLSTATE {@code sqlstate}. */
    /** The functions leave {@code held}'s live lease to the full path: its holder's release and renewal do nothing. */
    private static void neitherReleasedNorRenewedByItsHolder(Attack a) {
        assertThat(a.worker().text("SELECT sovereign_lease_release('held', 'proc_holder', " + a.live() + ")"))
                .isEqualTo("f");
        assertThat(a.worker()
                        .scalar("SELECT count(*) FROM sovereign_lease_renew('held', 'proc_holder', " + a.live()
                                + ", 5000)"))
                .isZero();
    }

    private static void refusedWith(RawPg sql, String sqlstate, String statement) {
        try (Statement s = sql.connection().createStatement()) {
            s.execute(statement);
            fail("expected SQLSTATE " + sqlstate + ", but went through: " + statement);
        } catch (SQLException e) {
            assertThat(e.getSQLState()).as("%s (%s)", statement, e.getMessage()).isEqualTo(sqlstate);
        }
    }
}
