package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.Stripes;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The token counter's stripes (schema version 19, decision 0924): which row an actor mints from, that no two stripes
 * ever issue one token, and what a ledger of the one counter becomes when it is migrated.
 */
class PgTokenStripesTest {
    @Test
    void anActorsStripeIsTheFirstByteOfTheSha256OfItsIdModulo64OnTheServerAsInTheTests() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            new PgMigrator(false, "test", "abc", 10_000).migrate(c);
            RawPg sql = new RawPg(c);
            for (String actor : List.of("a", "b", "alpha", "actor-0", "Ölfeld", "日本", "x".repeat(200), "it's")) {
                assertThat(sql.scalar("SELECT sovereign_token_stripe(" + RawPg.q(actor) + ")"))
                        .as(actor)
                        .isEqualTo(Stripes.of(actor));
            }
            // a thousand more, every stripe among them, and no actor at all: since schema version 22 the stripe is a
            // PL/pgSQL function (decision 0926), and an actor's stripe may never change
            java.util.Set<Long> seen = new java.util.HashSet<>();
            for (int i = 0; i < 1_000; i++) {
                long onServer = sql.scalar("SELECT sovereign_token_stripe('actor-" + i + "')");
                assertThat(onServer).as("actor-" + i).isEqualTo(Stripes.of("actor-" + i));
                seen.add(onServer);
            }
            assertThat(seen).hasSize(Stripes.COUNT);
            assertThat(sql.text("SELECT coalesce(sovereign_token_stripe(NULL)::text, 'none')"))
                    .isEqualTo("none");
            // every stripe has its row, at its own number: the residue it issues
            assertThat(sql.scalar("SELECT count(*) FROM token_counter WHERE last_token % 64 = id"))
                    .isEqualTo(64);
        }
    }

    @Test
    void eachActorsTokensComeFromItsStripeAndNoTwoActorsEverShareOne() {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine e =
                Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build())) {
            java.util.Set<Long> seen = new java.util.HashSet<>();
            for (int round = 1; round <= 3; round++) {
                for (int i = 0; i < 40; i++) {
                    String actor = "actor-" + i;
                    if (round == 1) {
                        e.actors().add(actor);
                    }
                    Lease l = e.leases().acquire(actor, Duration.ofMinutes(1));
                    assertThat(l.token() % Stripes.COUNT).as(actor).isEqualTo(Stripes.of(actor));
                    assertThat(seen.add(l.token()))
                            .as("token %d issued twice", l.token())
                            .isTrue();
                    assertThat(e.leases().release(actor, l.token())).isTrue();
                }
            }
        }
    }

    /**
     * A version-18 ledger (one counter row) with tokens issued: every stripe starts at or below the old counter on its
     * own residue, never below its own number, and each actor's next token is above every token issued before, also
     * for the actor whose last token was the old counter's.
     */
    @Test
    void aLedgerOfTheOneCounterMigratesAndEveryNextTokenIsAboveEveryTokenIssued() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        long highest;
        try (Connection c = db.connect()) {
            RawPg sql = new RawPg(c);
            leasesOfTheOneCounter(c);
            highest = sql.scalar("SELECT last_token FROM token_counter WHERE id = 1");
            assertThat(highest).isEqualTo(70);
        }
        try (Engine e = Engine.open(
                        EngineConfig.forDatabase(db.url()).heartbeat(false).build());
                Connection c = db.connect()) {
            RawPg sql = new RawPg(c);
            assertThat(sql.scalar("SELECT count(*) FROM token_counter")).isEqualTo(64);
            assertThat(sql.scalar("SELECT max(last_token) FROM token_counter")).isEqualTo(highest);
            assertThat(sql.scalar("SELECT count(*) FROM token_counter WHERE last_token % 64 = id"
                            + " AND last_token <= " + highest + " AND last_token > " + highest + " - 64"))
                    .isEqualTo(64);
            for (int i = 0; i < 64; i++) {
                String actor = "new-" + i;
                e.actors().add(actor);
                assertThat(e.leases().acquire(actor, Duration.ofMinutes(1)).token())
                        .as(actor)
                        .isGreaterThan(highest);
            }
        }
    }

    /**
     * A lease granted on the one counter and still held after the migration is its holder's to renew and release in
     * one call (schema version 22, decision 0926): its token is at or below the old counter, which may be up to 63
     * above its actor's stripe. Found by a review of version 22's first form, which asked for "at or below the stripe"
     * and left exactly these leases to the full path (red with the {@code + 63} taken out of V0022).
     */
    @Test
    void aLeaseOfTheOneCounterIsRenewedAndReleasedInOneCallAfterTheMigrationEvenAboveItsStripe() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            RawPg sql = new RawPg(c);
            List<Long> tokens = leasesOfTheOneCounter(c);
            new PgMigrator(false, "old", "f00", 10_000).migrate(c);
            int aboveTheirStripe = 0;
            for (int i = 0; i < 70; i++) {
                String actor = RawPg.q("old-" + i);
                long token = tokens.get(i);
                if (token
                        > sql.scalar("SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe(" + actor
                                + ")")) {
                    aboveTheirStripe++;
                }
                assertThat(sql.scalar("SELECT count(*) FROM sovereign_lease_renew(" + actor + ", 'proc_old', " + token
                                + ", 600000)"))
                        .as("renewed: old-" + i + " under " + token)
                        .isEqualTo(1);
                assertThat(sql.text("SELECT sovereign_lease_release(" + actor + ", 'proc_old', " + token + ")"))
                        .as("released: old-" + i + " under " + token)
                        .isEqualTo("t");
            }
            assertThat(aboveTheirStripe)
                    .as("leases whose token is above their stripe's row")
                    .isPositive();
            assertThat(sql.scalar("SELECT count(*) FROM actor_leases")).isZero();
            assertThat(sql.scalar("SELECT count(*) FROM fence_events WHERE kind = 'LEASE_RELEASED'"))
                    .isEqualTo(70);
        }
    }

    /**
     * A ledger migrated to version 18 (one counter row) whose process {@code proc_old} holds the leases of actors
     * {@code old-0} to {@code old-69}, tokens 1 to 70: past one stripe's step, so every residue was issued at least once.
     */
    private static List<Long> leasesOfTheOneCounter(Connection c) throws Exception {
        assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 18)).isEqualTo(18);
        PgFenceWrites w = new PgFenceWrites(new RawPg(c));
        w.process("proc_old");
        List<Long> tokens = new java.util.ArrayList<>();
        for (int i = 0; i < 70; i++) {
            w.actor("old-" + i);
            tokens.add(w.acquire("old-" + i, "proc_old", 600_000));
        }
        return tokens;
    }
}
