package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.CHANGE;
import static dev.sovereign.engine.testing.RawPg.NOW;
import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgLogins;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 26, item 2 (decision 0912): on PostgreSQL a worker login could expire or pin ANY host's leases through the
 * holder's {@code processes} row, with no token ({@code heartbeat_at = 0} then a takeover in the same transaction;
 * {@code heartbeat_at} in the year 128724 on a killed holder), renew a lease by hand for 11,574 days through
 * {@code sovereign_lease_renew}, and detach a lease by hand with any times. Since schema version 8 the session row is
 * written only by the login that registered it (or the operator role, or the owner), every time on it is the
 * server's clock whatever the statement says, a lease's times are bounded by the server's clock and its TTL by 365
 * days, and a detach writes exactly the effective times the session gave the lease.
 *
 * <p>Real logins on the embedded server: two worker hosts and an operator, members of the roles {@code init} made.
 */
class PgSessionRowBoundToItsLoginTest {
    private static final long DAY = 86_400_000L;

    private static PgLogins logins;
    private static RawPg owner;
    private static String hostA;
    private static String hostB;
    private static String ops;
    private static RawPg asA;
    private static RawPg asB;
    private static int actors;
    private Engine a;

    /** One ledger for the class; each test has its own process and actors. */
    @BeforeAll
    static void ledger() throws Exception {
        logins = PgLogins.open();
        owner = logins.owner();
        hostA = logins.hostA();
        hostB = logins.hostB();
        ops = logins.ops();
        asA = logins.asA();
        asB = logins.asB();
    }

    @AfterAll
    static void closeLedger() throws Exception {
        logins.close();
    }

    @BeforeEach
    void open() {
        a = engineAs(hostA, null);
    }

    @AfterEach
    void close() {
        a.close();
    }

    /** A new actor of this ledger. */
    private static String actor(String name) {
        String id = name + "_" + ++actors;
        new PgFenceWrites(owner).actor(id);
        return id;
    }

    private Engine engineAs(String login, String actAs) {
        EngineConfig.Builder config = logins.configAs(login);
        if (actAs != null) {
            config.actAs(actAs);
        }
        return Engine.openExisting(config.build());
    }

    private long heartbeatOf(String process) {
        return owner.scalar("SELECT heartbeat_at FROM processes WHERE identity = " + q(process));
    }

    private long serverNow() {
        return logins.serverNow();
    }

    @Test
    void anotherHostsLoginCannotExpireOrPinALiveHoldersSessionNorTakeItsLeaseOverThroughIt() {
        String alpha = actor("alpha");
        String holder = a.processIdentity();
        Lease live = a.leases().acquire(alpha, Duration.ofMinutes(10));
        assertThat(owner.text("SELECT login FROM processes WHERE identity = " + q(holder)))
                .isEqualTo(hostA);
        long beat = heartbeatOf(holder);
        String refused = "session row is written only by the login that registered it (" + hostA + ")";

        asB.refused(refused, "UPDATE processes SET heartbeat_at = 0 WHERE identity = " + q(holder));
        // the attack of the issue: expire the session, then take the lease over in the same transaction
        asB.refused(
                refused,
                "UPDATE processes SET heartbeat_at = 0 WHERE identity = " + q(holder),
                PgFenceWrites.takeOverStatements(alpha, live.token(), holder, 5_000)[0]);
        asB.refused(refused, "UPDATE processes SET heartbeat_at = 4000000000000000 WHERE identity = " + q(holder));
        asB.refused(refused, "UPDATE processes SET stopped_at = 0 WHERE identity = " + q(holder));
        asB.refused(refused, "UPDATE processes SET heartbeat_interval_ms = 1 WHERE identity = " + q(holder));
        asB.refused(
                "never changes its identity, its login",
                "UPDATE processes SET login = " + q(hostB) + " WHERE identity = " + q(holder));
        asB.refused(
                refused,
                "INSERT INTO processes (identity, kind, started_at, heartbeat_at, heartbeat_interval_ms)" + " VALUES ("
                        + q(holder) + ", 'x', 0, 0, 1000) ON CONFLICT (identity) DO UPDATE SET heartbeat_at = 0");

        assertThat(heartbeatOf(holder)).isEqualTo(beat);
        assertThat(owner.text("SELECT process_identity || '/' || token FROM actor_leases WHERE actor_id = " + q(alpha)))
                .isEqualTo(holder + "/" + live.token());
        assertThat(owner.scalar("SELECT count(*) FROM fence_events WHERE kind = 'LEASE_TAKEN_OVER'"))
                .isZero();
    }

    @Test
    void everyTimeOfASessionRowIsTheServersClockWhateverTheStatementSays() {
        String alpha = actor("alpha");
        String holder = a.processIdentity();
        // its own login writes its own row, but chooses no time: neither a year far ahead nor the epoch
        long before = serverNow();
        asA.passes("UPDATE processes SET heartbeat_at = 4000000000000000 WHERE identity = " + q(holder));
        long pinned = heartbeatOf(holder);
        assertThat(pinned).isBetween(before, serverNow());
        asA.passes("UPDATE processes SET heartbeat_at = 0 WHERE identity = " + q(holder));
        assertThat(heartbeatOf(holder)).isGreaterThanOrEqualTo(pinned);

        // a new row: the login is the session's, the times the server's
        asB.passes("INSERT INTO processes (identity, kind, started_at, heartbeat_at, heartbeat_interval_ms, login)"
                + " VALUES ('proc_forged', 'x', 4000000000000000, 4000000000000000, 1000, " + q(hostA) + ")");
        assertThat(owner.text("SELECT login FROM processes WHERE identity = 'proc_forged'"))
                .isEqualTo(hostB);
        assertThat(owner.scalar(
                        "SELECT greatest(started_at, heartbeat_at) FROM processes" + " WHERE identity = 'proc_forged'"))
                .isLessThanOrEqualTo(serverNow());

        // the engine's beat is stamped the same way, and what the holder believes is what the row says
        a.leases().acquire(alpha, Duration.ofSeconds(30));
        a.heartbeatNow();
        Lease believed = a.leases().held().get(0);
        assertThat(believed.renewedAt()).isEqualTo(heartbeatOf(holder));
        assertThat(believed).isEqualTo(a.leases().current(alpha).orElseThrow());
    }

    @Test
    void theOperatorMayStopAnotherHostsProcessAndNobodyStartsItAgainNorDoesAnotherWorkerLogin() {
        String holder = a.processIdentity();
        try (Engine otherHost = engineAs(hostB, null)) {
            assertThatThrownBy(() -> otherHost.stopProcess(holder))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            e -> assertThat(e.getMessage())
                                    .contains("a process it did not register")
                                    .contains("(" + hostA + ")")
                                    .doesNotContain("\n"));
        }
        try (Engine operator = engineAs(ops, null)) {
            operator.stopProcess(holder);
        }
        long stopped = owner.scalar("SELECT stopped_at FROM processes WHERE identity = " + q(holder));
        assertThat(stopped).isPositive().isLessThanOrEqualTo(serverNow());
        asA.refused(
                "a stopped process stays stopped",
                "UPDATE processes SET stopped_at = NULL WHERE identity = " + q(holder));
        // the stopped process itself still beats (a stop releases nothing; decision 0421)
        a.heartbeatNow();
    }

    @Test
    void anEngineActingForAnotherLoginsProcessCannotBeatItsSessionAndSaysSoInOneSentence() {
        try (Engine claimant = engineAs(hostB, a.processIdentity())) {
            assertThatThrownBy(claimant::heartbeatNow).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.problem()).isEqualTo(StorageException.Problem.READ_ONLY);
                assertThat(e.getMessage())
                        .contains("session row of a process it did not register")
                        .doesNotContain("\n");
            });
        }
        // the operator may (decision 0912: it may act for any process, as --process always could)
        try (Engine operator = engineAs(ops, a.processIdentity())) {
            operator.heartbeatNow();
        }
    }

    /**
     * Issue 26, found by the standing attack suite's longer runs: another host's login, presenting a live lease's
     * token (it can read it), renewed it with an expiry in the past, so a lease it did not hold ended with no takeover
     * and no rejection in the journal. Since schema version 12 (decision 0917) a lease is granted, renewed, detached
     * and released only by its holder's login, the operator or the owner: by hand and through the functions alike.
     */
    @Test
    void anotherHostsLoginCannotShortenDetachReleaseOrGrantALeaseInItsHoldersName() {
        String alpha = actor("alpha");
        String beta = actor("beta");
        String holder = a.processIdentity();
        Lease lease = a.leases().acquire(alpha, Duration.ofMinutes(10));
        String row = "SELECT row_to_json(l)::text FROM actor_leases l WHERE actor_id = " + q(alpha);
        String asGranted = owner.text(row);
        String stated = "UPDATE actor_leases SET change_seq = " + CHANGE + ", presented_change = " + CHANGE
                + ", presented_token = token, ";
        String where = " WHERE actor_id = " + q(alpha);
        String notYours = "only by the login that registered its holder (" + hostA + ")";
        // the suite's finding: a renewal that ends the lease now
        asB.refused(notYours, stated + "renewed_at = " + NOW + " - 600000, expires_at = " + NOW + where);
        asB.refused(notYours, stated + "ttl_ms = 1" + where);
        asB.refused(
                notYours,
                "SELECT * FROM sovereign_lease_renew(" + q(alpha) + ", " + q(holder) + ", " + lease.token() + ", 1)");
        asB.refused(notYours, stated + "attached = false" + where);
        asB.refused(
                notYours, "SELECT sovereign_lease_release(" + q(alpha) + ", " + q(holder) + ", " + lease.token() + ")");
        asB.refused(notYours, PgFenceWrites.releaseStatements(alpha, lease.token()));
        // nor grant a free actor in A's process's name (A would hold a lease it never asked for)
        asB.refused(notYours, "SELECT * FROM sovereign_lease_grant(" + q(beta) + ", " + q(holder) + ", 60000)");
        asB.refused(notYours, PgFenceWrites.acquireStatements(beta, holder, 60_000));
        assertThat(owner.text(row)).isEqualTo(asGranted);
        assertThat(owner.scalar("SELECT count(*) FROM actor_leases WHERE actor_id = " + q(beta)))
                .isZero();

        // an expired lease may be taken over by anyone, but only in the taker's own process's name
        String gamma = actor("gamma");
        asA.passes(PgFenceWrites.acquireStatements(gamma, holder, -1)); // A's own grant, expired at once
        long expired = owner.scalar("SELECT token FROM actor_leases WHERE actor_id = " + q(gamma));
        asB.refused(notYours, PgFenceWrites.takeOverStatements(gamma, expired, holder, 60_000));
        try (Engine b = engineAs(hostB, null)) {
            asB.passes(PgFenceWrites.takeOverStatements(gamma, expired, b.processIdentity(), 60_000));
            assertThat(owner.text("SELECT process_identity FROM actor_leases WHERE actor_id = " + q(gamma)))
                    .isEqualTo(b.processIdentity());
        }

        // the holder's own login may shorten its own lease (a renewal with a shorter TTL), and the operator may act
        assertThat(asA.scalar("SELECT count(*) FROM sovereign_lease_renew(" + q(alpha) + ", " + q(holder) + ", "
                        + lease.token() + ", 1000)"))
                .isEqualTo(1);
        try (Connection c = logins.db().dataSource(ops, ops).getConnection()) {
            assertThat(new RawPg(c)
                            .scalar("SELECT count(*) FROM sovereign_lease_renew(" + q(alpha) + ", " + q(holder) + ", "
                                    + lease.token() + ", 60000)"))
                    .isEqualTo(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLeasesTtlAndTimesAreBoundedInTheDatabaseForTheFunctionsAndByHand() {
        String alpha = actor("alpha");
        String beta = actor("beta");
        String holder = a.processIdentity();
        Lease lease = a.leases().acquire(alpha, Duration.ofSeconds(30));
        String tooLong = "TTL is at most 365 days";
        asA.refused(
                tooLong,
                "SELECT * FROM sovereign_lease_renew(" + q(alpha) + ", " + q(holder) + ", " + lease.token() + ", "
                        + 11_574 * DAY + ")");
        asA.refused(
                tooLong, "SELECT * FROM sovereign_lease_grant(" + q(beta) + ", " + q(holder) + ", " + 366 * DAY + ")");
        String renew = "UPDATE actor_leases SET change_seq = " + CHANGE + ", presented_change = " + CHANGE
                + ", presented_token = token, ";
        String where = " WHERE actor_id = " + q(alpha);
        asA.refused(
                tooLong,
                renew + "ttl_ms = " + 400 * DAY + ", renewed_at = " + NOW + ", expires_at = " + NOW + " + " + 400 * DAY
                        + where);
        String times = "a lease's times come from the server's clock";
        asA.refused(times, renew + "expires_at = 4000000000000000" + where);
        asA.refused(times, renew + "renewed_at = " + NOW + " + 60000, expires_at = " + NOW + " + 60000" + where);
        asA.refused(times, renew + "acquired_at = 0" + where);
        // the longest the API allows passes: a year
        assertThat(asA.scalar("SELECT count(*) FROM sovereign_lease_renew(" + q(alpha) + ", " + q(holder) + ", "
                        + lease.token() + ", " + 365 * DAY + ")"))
                .isEqualTo(1);
        assertThat(owner.scalar("SELECT expires_at - renewed_at FROM actor_leases WHERE actor_id = " + q(alpha)))
                .isEqualTo(365 * DAY);
    }

    @Test
    void aLeaseIsDetachedOnlyAsItStandsTheWayAbandonDoesIt() {
        String alpha = actor("alpha");
        String holder = a.processIdentity();
        Lease lease = a.leases().acquire(alpha, Duration.ofSeconds(30));
        a.heartbeatNow();
        String detach = "UPDATE actor_leases SET change_seq = " + CHANGE + ", presented_change = " + CHANGE
                + ", presented_token = token, attached = false";
        String where = " WHERE actor_id = " + q(alpha);
        String asItStands = "detached from its holder's session only as it stands";
        // the hand renewal: times zeroed and detached, so it would expire at once although its holder beats
        asA.refused(asItStands, detach + ", expires_at = 0, renewed_at = 0" + where);
        asA.refused(asItStands, detach + ", ttl_ms = 1" + where);
        asA.refused(asItStands, detach + ", expires_at = expires_at - 1" + where);

        // the documented path: abandon freezes the effective renewal and expiry into the row
        Lease before = a.leases().current(alpha).orElseThrow();
        a.leases().abandon(alpha, lease.token());
        Lease after = a.leases().current(alpha).orElseThrow();
        assertThat(after.attached()).isFalse();
        assertThat(after.expiresAt()).isEqualTo(before.expiresAt());
        assertThat(after.renewedAt()).isEqualTo(before.renewedAt());
        assertThat(owner.text("SELECT process_identity FROM actor_leases" + where))
                .isEqualTo(holder);
    }
}
